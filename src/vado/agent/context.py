"""What the model sees for one open item: a focused context, not the whole repository.

An :class:`OpenItem` is a finding that ``vado port`` could not fix (inline PTX
beyond the idiom table, cuDNN calls, APIs the target lacks) or a compiler error
left in a ported file. :func:`build_context` gathers, for one item:

- the code window: the finding's lines and a margin around them (library
  findings, which stand for every use in the file, get a wider one); the model
  may edit only inside it;
- the finding's message and rule-specific data, and the rule's documentation
  (*What it does*, *Why is this bad?*, *Use instead*);
- target facts: the HIP version, the wavefront width of each architecture the
  candidate is compiled for, and for library findings the knowledge-base facts
  about the library;
- the compiler's errors on that file, and on a retry the reason the previous
  answer was rejected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

from vado.agent.providers import Message
from vado.model import Finding, Target

#: Lines shown above and below a finding's span.
MARGIN = 12
#: Library findings stand for every use in the file: show this much around them.
WIDE_MARGIN = 60
#: Families whose findings cover the whole file's use of something.
FILE_WIDE_FAMILIES = frozenset({"LIB", "API"})
#: Characters kept of each documentation section.
DOC_CHARS = 1500

SYSTEM_PROMPT = """\
You port CUDA code to HIP for AMD GPUs. You will be shown one problem in one file and the lines around it.
Answer with one or more edit blocks, each exactly in this form:

<<<<<<< SEARCH
<lines copied exactly from the code shown>
=======
<the lines that replace them>
>>>>>>> REPLACE

Example (a different problem):
<<<<<<< SEARCH
  asm("popc.b32 %0, %1;" : "=r"(n) : "r"(x));
=======
  n = __popc(x);
>>>>>>> REPLACE

Rules: copy SEARCH lines exactly (same spaces); edit only the lines shown; keep the change small and
behaviour-preserving; do not leave inline PTX asm; use HIP/ROCm APIs and device functions. AMD wavefronts
are 64 lanes wide on the architectures named. Write no commands: nothing you write is executed; your edit
is compiled with hipcc and kept only if it compiles and the problem is gone."""


@dataclass(frozen=True)
class OpenItem:
    """Work left for the agent in one file: a finding without an automatic fix, or a compile error."""

    path: str
    line: int
    end_line: int
    message: str
    code: str | None = None
    finding: Finding | None = None
    compile_errors: str = ""

    @property
    def id(self) -> str:
        """``path:line:CODE`` (``COMPILE`` for a compiler error)."""
        return f"{self.path}:{self.line}:{self.code or 'COMPILE'}"

    def to_json(self) -> dict[str, Any]:
        """The item as it appears in the transcript."""
        return {"id": self.id, "path": self.path, "line": self.line, "end_line": self.end_line,
                "code": self.code, "message": self.message}


@dataclass(frozen=True)
class Context:
    """The messages for one attempt and the character window the answer may edit."""

    messages: tuple[Message, ...]
    window: tuple[int, int]
    window_lines: tuple[int, int]
    sections: dict[str, str] = field(default_factory=dict)


def line_offsets(text: str) -> list[int]:
    """Offset of the start of each line (index 0 is line 1)."""
    out = [0]
    at = text.find("\n")
    while at >= 0:
        out.append(at + 1)
        at = text.find("\n", at + 1)
    return out


def window_for(text: str, first_line: int, last_line: int, margin: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The character range and 1-based line range of ``first_line..last_line`` with ``margin`` lines around."""
    starts = line_offsets(text)
    n = len(starts) if not text.endswith("\n") else len(starts) - 1
    n = max(n, 1)
    a = max(1, min(first_line, n) - margin)
    b = min(n, max(last_line, first_line) + margin)
    start = starts[a - 1]
    end = starts[b] if b < len(starts) else len(text)
    return (start, end), (a, b)


def _docs(code: str, limit: int) -> dict[str, str]:
    from vado.errors import UsageError
    from vado.rules.registry import get_rule

    try:
        sections = get_rule(code).doc_sections()
    except UsageError:
        return {}
    out = {}
    for title in ("What it does", "Why is this bad?", "Use instead"):
        body = (sections.get(title) or "").strip()
        if body:
            out[title] = body if len(body) <= limit else body[:limit] + " […]"
    return out


def _target_facts(target: Target, archs: Sequence[str]) -> str:
    lines = [f"target {target.name} (HIP {target.hip_version or 'n/a'})"]
    for arch in archs:
        width = target.wavefront_of(arch)
        if width is None:
            from vado.knowledge.targets import arch_info

            info = arch_info(arch)
            width = info.wavefront if info else None
        lines.append(f"{arch}: wavefront {width if width else 'unknown'} lanes (warpSize == {width})" if width else f"{arch}: wavefront unknown")
    return "\n".join(lines)


def _library_facts(finding: Finding) -> str:
    from vado.errors import KnowledgeError
    from vado.knowledge.facts import facts_for

    lib = finding.data.get("library") or finding.data.get("library_id")
    if not isinstance(lib, str) or not lib:
        return ""
    try:
        found = facts_for(lib)
    except KnowledgeError:
        return ""
    for m in found.get("matches", []):
        if m.get("kind") == "library":
            rocm = m["facts"].get("rocm") or {}
            keep = {k: rocm[k] for k in ("api_shape", "roc_native", "hip_wrapper", "roc_headers", "links", "notes") if k in rocm}
            return json.dumps(keep, indent=1)[:DOC_CHARS]
    return ""


def build_context(item: OpenItem, text: str, target: Target, archs: Sequence[str], *,
                  compile_errors: str = "", feedback: Sequence[str] = (), margin: int | None = None,
                  doc_chars: int = DOC_CHARS) -> Context:
    """The messages for one attempt on ``item`` in ``text`` (the file as it stands now).

    ``compile_errors`` are the compiler's current errors on the file;
    ``feedback`` the reasons earlier answers were rejected, oldest first.
    ``margin`` (lines around the span) and ``doc_chars`` (per documentation
    section) shrink the prompt for small models and slow machines.
    """
    family = (item.code or "").rstrip("0123456789")
    if margin is None:
        margin = WIDE_MARGIN if family in FILE_WIDE_FAMILIES else MARGIN
    window, (a, b) = window_for(text, item.line, item.end_line, margin)
    code = text[window[0]:window[1]]
    sections: dict[str, str] = {}
    sections["problem"] = f"{item.path}:{item.line}: {item.code or 'compile error'}: {item.message}"
    if item.finding is not None and item.finding.data:
        sections["finding data"] = json.dumps(item.finding.data, default=str)[:DOC_CHARS]
    if item.code:
        for title, body in _docs(item.code, doc_chars).items():
            sections[f"rule {item.code}: {title}"] = body
    sections["target facts"] = _target_facts(target, archs)
    if item.finding is not None and family == "LIB":
        lib = _library_facts(item.finding)
        if lib:
            sections["library facts"] = lib
    errors = compile_errors or item.compile_errors
    if errors:
        sections["compiler errors (hipcc)"] = errors[:3000]
    for i, reason in enumerate(feedback, 1):
        sections[f"attempt {i} was rejected"] = reason[:3000]
    parts = [f"## {title}\n{body}" for title, body in sections.items()]
    parts.append(f"## code: {item.path} lines {a}-{b} (edit only these lines)\n```cpp\n{code}```" if code.endswith("\n") else
                 f"## code: {item.path} lines {a}-{b} (edit only these lines)\n```cpp\n{code}\n```")
    parts.append("Answer with SEARCH/REPLACE blocks only.")
    messages = (Message("system", SYSTEM_PROMPT), Message("user", "\n\n".join(parts)))
    return Context(messages, window, (a, b), sections)
