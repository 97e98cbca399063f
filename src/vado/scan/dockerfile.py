"""Dockerfile facts with exact byte spans: base images, ARGs, ENV/LABEL pairs, pip installs.

The parser follows Docker's own reading of a Dockerfile: parser directives
(``# escape=`` sets the continuation character), comment lines (also inside a
continued instruction), line continuations, BuildKit heredocs (``RUN <<EOF``),
global ``ARG`` defaults substituted into ``FROM`` (``${CUDA_VERSION}``,
``${V:-default}``), ``--platform`` and multi-stage ``AS`` names. It never
fails: an instruction it cannot read is kept as an :class:`Instruction` only.
Offsets are byte offsets of the file's latin-1 view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vado.scan.pydeps import (
    CondaSpec,
    DepSource,
    IndexOption,
    Include,
    LogicalLine,
    Problem,
    Requirement,
    logical_lines,
    normalize_name,
    parse_pip_args,
)


@dataclass(frozen=True)
class Instruction:
    """One instruction: ``keyword`` (upper case) and its argument text.

    ``line`` is the logical line (continuations joined); ``args_at`` is the
    logical offset where the arguments begin. ``body`` holds heredoc lines.
    """

    keyword: str
    start: int
    end: int
    line: LogicalLine
    args_at: int
    body: tuple[LogicalLine, ...] = ()

    @property
    def args(self) -> str:
        """Argument text (continuations joined)."""
        return self.line.text[self.args_at :]


@dataclass(frozen=True)
class ImageRef:
    """A parsed image reference ``[registry/]repository[:tag][@digest]``.

    ``registry`` is empty for Docker Hub; ``repository`` has no registry
    (``nvidia/cuda``, ``nvidia/pytorch`` for ``nvcr.io/nvidia/pytorch``).
    """

    raw: str
    registry: str
    repository: str
    tag: str = ""
    digest: str = ""

    @property
    def name(self) -> str:
        """``registry/repository`` (just ``repository`` on Docker Hub)."""
        return f"{self.registry}/{self.repository}" if self.registry else self.repository

    @classmethod
    def parse(cls, ref: str) -> "ImageRef":
        """Split ``ref``; a first path part with a dot, a colon or ``localhost`` is a registry."""
        raw = ref
        digest = ""
        if "@" in ref:
            ref, _, digest = ref.partition("@")
        registry = ""
        first, sep, rest = ref.partition("/")
        if sep and ("." in first or ":" in first or first == "localhost"):
            registry, ref = first.lower(), rest
        tag = ""
        slash = ref.rfind("/")
        colon = ref.rfind(":")
        if colon > slash:
            ref, tag = ref[:colon], ref[colon + 1 :]
        return cls(raw, registry, ref.lower(), tag, digest)


@dataclass(frozen=True)
class ArgDef:
    """``ARG NAME[=default]``; ``global_`` when it comes before the first ``FROM``."""

    name: str
    default: str | None
    start: int
    end: int
    value_start: int
    value_end: int
    global_: bool


@dataclass(frozen=True)
class FromLine:
    """A ``FROM`` instruction.

    ``image`` is the reference as written, ``resolved`` after substituting
    global ARG defaults (``None`` when a variable has no default). ``start``/
    ``end`` cover the written reference; ``stage`` is the ``AS`` name.
    ``base_stage`` is set when the image names an earlier stage.
    ``variables`` are the ARG names the reference uses.
    """

    image: str
    resolved: str | None
    start: int
    end: int
    index: int
    instruction_start: int
    instruction_end: int
    platform: str = ""
    stage: str = ""
    stage_start: int = -1
    stage_end: int = -1
    base_stage: str = ""
    variables: tuple[str, ...] = ()

    @property
    def ref(self) -> ImageRef | None:
        """The resolved reference, parsed (None when unresolved or a stage)."""
        if self.resolved is None or self.base_stage or self.resolved.lower() == "scratch":
            return None
        return ImageRef.parse(self.resolved)


@dataclass(frozen=True)
class EnvPair:
    """``KEY=value`` (or legacy ``ENV KEY value``) in an ``ENV``/``LABEL``/``ARG`` instruction."""

    instruction: str
    name: str
    value: str
    start: int
    end: int
    name_start: int
    name_end: int
    value_start: int
    value_end: int


@dataclass(frozen=True)
class PipInstall:
    """A ``pip install`` (or ``uv pip install``) command inside ``RUN``.

    ``start``/``end`` cover the command from ``pip`` (or ``python -m pip``) to its last argument.
    """

    start: int
    end: int
    command: str
    requirements: tuple[Requirement, ...] = ()
    indexes: tuple[IndexOption, ...] = ()
    includes: tuple[Include, ...] = ()


@dataclass(frozen=True)
class CondaInstall:
    """A ``conda``/``mamba``/``micromamba install`` command inside ``RUN``."""

    start: int
    end: int
    specs: tuple[CondaSpec, ...] = ()
    channels: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True)
class DockerFacts:
    """Everything vado reads from one Dockerfile."""

    path: str
    instructions: tuple[Instruction, ...] = ()
    froms: tuple[FromLine, ...] = ()
    args: tuple[ArgDef, ...] = ()
    env: tuple[EnvPair, ...] = ()
    labels: tuple[EnvPair, ...] = ()
    pip_installs: tuple[PipInstall, ...] = ()
    conda_installs: tuple[CondaInstall, ...] = ()
    problems: tuple[Problem, ...] = ()


_DIRECTIVE = re.compile(r"^#[ \t]*(escape|syntax|check)[ \t]*=[ \t]*(\S+)[ \t]*$", re.I)
_KEYWORD = re.compile(r"^[ \t]*([A-Za-z]+)(?:[ \t]+|$)")
_HEREDOC = re.compile(r"<<(-?)([\"']?)([A-Za-z_][\w]*)\2")
_VAR = re.compile(r"\$(?:\{([A-Za-z_]\w*)(?:(:?[-+])([^}]*))?\}|([A-Za-z_]\w*))")


def substitute(text: str, values: dict[str, str | None]) -> tuple[str | None, tuple[str, ...]]:
    """Docker-style ``$VAR``/``${VAR}``/``${VAR:-d}``/``${VAR:+a}`` substitution.

    Returns the substituted text (``None`` when a variable has no value and no
    default) and the names used.
    """
    used: list[str] = []
    missing = False

    def rep(m: re.Match) -> str:
        nonlocal missing
        name = m.group(1) or m.group(4)
        used.append(name)
        op, word = m.group(2), m.group(3)
        val = values.get(name)
        if op in (":-", "-"):
            if val is None or (op == ":-" and val == ""):
                return word
            return val
        if op in (":+", "+"):
            return word if val else ""
        if val is None:
            missing = True
            return ""
        return val

    out = _VAR.sub(rep, text)
    return (None if missing else out), tuple(dict.fromkeys(used))


def _pairs(line: LogicalLine, at: int, keyword: str) -> list[EnvPair]:
    """``KEY=value`` pairs (quoted values allowed), or the legacy ``KEY value`` form."""
    text = line.text
    out: list[EnvPair] = []
    rest = text[at:]
    if not re.match(r"\s*[^\s=]+=", rest):
        m = re.match(r"\s*(\S+)(?:\s+(.*?))?\s*$", rest)
        if m and keyword != "ARG":
            ns, ne = at + m.start(1), at + m.end(1)
            vs, ve = (at + m.start(2), at + m.end(2)) if m.group(2) is not None else (ne, ne)
            out.append(EnvPair(keyword, m.group(1), text[vs:ve], line.pos(ns), line.end_pos(ve),
                               line.pos(ns), line.end_pos(ne), line.pos(vs), line.end_pos(ve)))
        return out
    for m in re.finditer(r"([^\s=]+)(?:=(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s\"']*))?", text[at:]):
        ns, ne = at + m.start(1), at + m.end(1)
        raw = m.group(2)
        if raw is None:
            vs = ve = ne
            value = ""
        else:
            vs, ve = at + m.start(2), at + m.end(2)
            value = raw
            if raw[:1] in "\"'" and len(raw) >= 2:
                vs, ve, value = vs + 1, ve - 1, raw[1:-1]
        out.append(EnvPair(keyword, m.group(1), value, line.pos(ns), line.end_pos(at + m.end()),
                           line.pos(ns), line.end_pos(ne), line.pos(vs), line.end_pos(ve) if ve > vs else line.pos(vs)))
    return out


_SEGMENT_SPLIT = re.compile(r"&&|\|\||[;|()\n]")
_PIP_HEAD = re.compile(
    r"^\s*(?:(?:sudo|env(?:\s+\w+=\S+)*|\w+=\S+)\s+)*"
    r"(?:(?P<py>\S*python[0-9.]*)\s+-m\s+pip|(?P<uv>\S*uv)\s+pip|(?P<pip>\S*pip[0-9.]*))\s+install\b",
)
_CONDA_HEAD = re.compile(r"^\s*(?:sudo\s+)?(?P<tool>\S*(?:conda|mamba|micromamba))\s+install\b")


def _segments(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of shell commands in ``text``, split at unquoted ``&&``, ``||``, ``;``, ``|``."""
    out = []
    start = 0
    i = 0
    n = len(text)
    quote = ""
    while i < n:
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                i += 1
            i += 1
            continue
        if ch in "\"'":
            quote = ch
            i += 1
            continue
        if ch == "\\":
            i += 2
            continue
        m = _SEGMENT_SPLIT.match(text, i)
        if m:
            out.append((start, i))
            i = m.end()
            start = i
            continue
        if ch == "#" and (i == 0 or text[i - 1] in " \t"):
            out.append((start, i))
            nl = text.find("\n", i)
            i = n if nl == -1 else nl
            start = i
            continue
        i += 1
    out.append((start, n))
    return [(s, e) for s, e in out if text[s:e].strip()]


def shell_installs(line: LogicalLine, path: str, begin: int = 0) -> tuple[list[PipInstall], list[CondaInstall], list[Problem]]:
    """``pip install``/``conda install`` commands in the shell text ``line.text[begin:]``."""
    pips: list[PipInstall] = []
    condas: list[CondaInstall] = []
    probs: list[Problem] = []
    text = line.text
    for s, e in _segments(text[begin:]):
        s += begin
        e += begin
        seg = text[s:e]
        m = _PIP_HEAD.match(seg)
        if m:
            head = m.group("py") or m.group("uv") or m.group("pip")
            cmd_s = s + m.start("py" if m.group("py") else "uv" if m.group("uv") else "pip")
            args_s = s + m.end()
            end = s + len(seg.rstrip())
            reqs, idx, incs, p = parse_pip_args(line, path, DepSource.PIP_COMMAND, begin=args_s, end=end)
            pips.append(PipInstall(line.pos(cmd_s), line.end_pos(end), head, tuple(reqs), tuple(idx), tuple(incs)))
            probs += p
            continue
        m = _CONDA_HEAD.match(seg)
        if m:
            end = s + len(seg.rstrip())
            specs: list[CondaSpec] = []
            chans: list[tuple[str, int, int]] = []
            words = [(w.start(), w.end(), w.group(0)) for w in re.finditer(r"\S+", text[s + m.end() : end])]
            k = 0
            while k < len(words):
                ws, we, w = words[k]
                ws += s + m.end()
                we += s + m.end()
                if w in ("-c", "--channel") and k + 1 < len(words):
                    cs, ce, c = words[k + 1]
                    chans.append((c.strip("\"'"), line.pos(cs + s + m.end()), line.end_pos(ce + s + m.end())))
                    k += 2
                    continue
                if w.startswith("-"):
                    k += 1
                    continue
                raw = w.strip("\"'")
                q = 1 if w[:1] in "\"'" else 0
                cm = re.match(r"(?:(?P<chan>[^\s:]+)::)?(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*)(?P<spec>.*)", raw)
                if cm:
                    ns = ws + q + cm.start("name")
                    specs.append(CondaSpec(cm.group("name"), normalize_name(cm.group("name")), line.pos(ws + q),
                                           line.end_pos(ws + q + len(raw)), line.pos(ns),
                                           line.end_pos(ns + len(cm.group("name"))), cm.group("spec"),
                                           cm.group("chan") or ""))
                k += 1
            condas.append(CondaInstall(line.pos(s + m.start("tool")), line.end_pos(end), tuple(specs), tuple(chans)))
    return pips, condas, probs


def parse_dockerfile(text: str, path: str = "Dockerfile") -> DockerFacts:
    """All facts of one Dockerfile (see the module docstring for what is understood)."""
    escape = "\\"
    # Parser directives: only at the very top, before any comment or instruction.
    for raw in text.splitlines():
        m = _DIRECTIVE.match(raw.strip())
        if not m:
            break
        if m.group(1).lower() == "escape" and m.group(2) in ("\\", "`"):
            escape = m.group(2)
    lines = logical_lines(text, continuation=escape, comment="#")
    instructions: list[Instruction] = []
    i = 0
    while i < len(lines):
        ll = lines[i]
        i += 1
        stripped = ll.text.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        km = _KEYWORD.match(ll.text)
        if not km:
            continue
        body: list[LogicalLine] = []
        end = ll.end
        keyword = km.group(1).upper()
        for hd in _HEREDOC.finditer(ll.text, km.end()):
            delim = hd.group(3)
            strip_tabs = hd.group(1) == "-"
            while i < len(lines):
                nxt = lines[i]
                i += 1
                end = nxt.end
                if (nxt.text.lstrip("\t") if strip_tabs else nxt.text) == delim:
                    break
                body.append(nxt)
        instructions.append(Instruction(keyword, ll.start, end, ll, km.end(), tuple(body)))

    args: list[ArgDef] = []
    froms: list[FromLine] = []
    env: list[EnvPair] = []
    labels: list[EnvPair] = []
    pips: list[PipInstall] = []
    condas: list[CondaInstall] = []
    probs: list[Problem] = []
    global_values: dict[str, str | None] = {}
    stages: set[str] = set()
    seen_from = False
    for ins in instructions:
        ll = ins.line
        if ins.keyword == "ARG":
            for pair in _arg_defs(ll, ins.args_at, not seen_from):
                args.append(pair)
                if not seen_from:
                    global_values[pair.name] = pair.default
        elif ins.keyword == "FROM":
            seen_from = True
            fl = _from_line(ins, len(froms), global_values, stages)
            if fl is None:
                probs.append(Problem(ins.start, ins.end, "FROM without an image", ll.text))
                continue
            froms.append(fl)
            if fl.stage:
                stages.add(fl.stage.lower())
        elif ins.keyword == "ENV":
            env += _pairs(ll, ins.args_at, "ENV")
        elif ins.keyword == "LABEL":
            labels += _pairs(ll, ins.args_at, "LABEL")
        elif ins.keyword == "RUN":
            at = ins.args_at
            # RUN flags (--mount=…, --network=…) precede the command.
            fm = re.match(r"(?:\s*--[\w-]+(?:=\S*)?)*\s*", ll.text[at:])
            at += fm.end() if fm else 0
            if ll.text[at:].lstrip().startswith("["):
                continue  # exec form: no shell, rarely a pip install
            for shell_line, begin in [(ll, at)] + [(b, 0) for b in ins.body]:
                p, c, pr = shell_installs(shell_line, path, begin)
                pips += p
                condas += c
                probs += pr
    return DockerFacts(path, tuple(instructions), tuple(froms), tuple(args), tuple(env), tuple(labels),
                       tuple(pips), tuple(condas), tuple(probs))


def _arg_defs(ll: LogicalLine, at: int, is_global: bool) -> list[ArgDef]:
    out = []
    for m in re.finditer(r"([A-Za-z_]\w*)(?:=(\"(?:[^\"\\]|\\.)*\"|'[^']*'|\S*))?", ll.text[at:]):
        ns, ne = at + m.start(1), at + m.end(1)
        raw = m.group(2)
        if raw is None:
            out.append(ArgDef(m.group(1), None, ll.pos(ns), ll.end_pos(ne), ll.end_pos(ne), ll.end_pos(ne), is_global))
            continue
        vs, ve = at + m.start(2), at + m.end(2)
        value = raw
        if raw[:1] in "\"'" and len(raw) >= 2 and raw[-1] == raw[0]:
            value = raw[1:-1]
            vs, ve = vs + 1, ve - 1
        out.append(ArgDef(m.group(1), value, ll.pos(ns), ll.end_pos(at + m.end(2)), ll.pos(vs),
                          ll.end_pos(ve) if ve > vs else ll.pos(vs), is_global))
    return out


def _from_line(ins: Instruction, index: int, values: dict[str, str | None], stages: set[str]) -> FromLine | None:
    ll = ins.line
    text = ll.text
    platform = ""
    words = [(m.start(), m.end(), m.group(0)) for m in re.compile(r"\S+").finditer(text, ins.args_at)]
    k = 0
    while k < len(words) and words[k][2].startswith("--"):
        if words[k][2].lower().startswith("--platform="):
            platform = words[k][2].split("=", 1)[1]
        k += 1
    if k >= len(words):
        return None
    s, e, image = words[k]
    stage = ""
    st_s = st_e = -1
    if k + 2 < len(words) and words[k + 1][2].lower() == "as":
        st_s, st_e, stage = words[k + 2]
        st_s, st_e = ll.pos(st_s), ll.end_pos(st_e)
    resolved, used = substitute(image, values)
    base_stage = ""
    if resolved is not None and resolved.lower() in stages:
        base_stage = resolved
    return FromLine(image, resolved, ll.pos(s), ll.end_pos(e), index, ins.start, ins.end, platform, stage,
                    st_s, st_e, base_stage, used)


__all__ = [
    "ArgDef",
    "CondaInstall",
    "DockerFacts",
    "EnvPair",
    "FromLine",
    "ImageRef",
    "Instruction",
    "PipInstall",
    "parse_dockerfile",
    "shell_installs",
    "substitute",
]
