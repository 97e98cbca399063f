"""The agent loop: port, then ask a model about what the port left, keep only what verify accepts.

``run_agent(source, output, provider, options)``:

1. ports ``source`` into a scratch workspace (the user's tree is only read);
2. collects the open items of each ported C/C++/CUDA file: findings whose verdict
   is still manual work or blocked (inline PTX beyond the idiom table, cuDNN
   calls, unsupported APIs), and compiler errors left after those;
3. for each item builds a focused context (:mod:`vado.agent.context`), asks the
   model for an edit, parses and validates it (:mod:`vado.agent.parse`), applies
   it to a scratch copy of the file and runs verify (:mod:`vado.agent.verify`):
   the finding must be gone and the file must compile for the targets. A passing
   candidate is kept; otherwise the rejection reason and the compiler's errors go
   back to the model, up to ``attempts_per_item`` times, then the item is
   reported as still open;
4. writes the workspace to ``output`` (not with ``dry_run``) and a JSONL
   transcript of every attempt.

Safety: edits go only to files the loop chose inside its workspace (never a path
from the answer, never through a symlink); nothing the model writes is executed;
a token and wall-clock budget stops the run; the user's tree is never written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from vado import __version__
from vado.agent.context import OpenItem, build_context
from vado.agent.parse import EditRejected, edits_from_answer
from vado.agent.providers import Completion, Pricing, Provider
from vado.agent.transcript import Transcript
from vado.agent.verify import CompileError, check_candidate, compile_hip, open_findings, parse_errors
from vado.verify.redact import redact_diagnostics
from vado.errors import AgentError, UsageError
from vado.model import Finding, Target, Verdict
from vado.model.text import decode_source
from vado.scan.classify import FileKind

#: File kinds the agent edits; of these, translation units are compiled.
EDITED_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER})
COMPILED_KINDS = frozenset({FileKind.CUDA_SOURCE})


@dataclass(frozen=True)
class Budget:
    """Limits of one run: attempts per item, total tokens, wall-clock seconds, tokens per answer."""

    attempts_per_item: int = 3
    max_tokens: int = 200_000
    max_seconds: float = 900.0
    max_answer_tokens: int = 1024

    def __post_init__(self) -> None:
        if self.attempts_per_item < 1 or self.max_tokens < 1 or self.max_seconds <= 0 or self.max_answer_tokens < 1:
            raise UsageError("bad agent budget", f"{self}", "attempts, tokens and seconds must be positive")


@dataclass(frozen=True)
class AgentOptions:
    """How to run: target profile, offload architectures to compile for, budget, dry run, codes to work on."""

    target: str = "rocm-7.2"
    archs: tuple[str, ...] = ("gfx90a",)
    budget: Budget = field(default_factory=Budget)
    dry_run: bool = False
    hipcc: str | None = None
    pricing: Pricing | None = None
    codes: tuple[str, ...] = ()
    compile: bool = True
    #: Lines shown around a finding (None: the context module's defaults) and characters per doc section.
    margin: int | None = None
    doc_chars: int = 1500
    #: The program's arguments: with them, where an NVIDIA GPU and nvcc exist, a candidate must also give the
    #: original's output with AMD's 64-lane waves emulated (vado.agent.verify.differential_check).
    run_args: str | None = None


@dataclass(frozen=True)
class ItemResult:
    """What became of one open item: ``fixed``, ``open`` (attempts used up) or ``not-tried`` (budget spent)."""

    item: dict
    status: str
    attempts: int
    reason: str = ""
    diff: str = ""


@dataclass(frozen=True)
class AgentResult:
    """A whole run: items, totals, where the output and transcript went."""

    source: str
    output: str | None
    dry_run: bool
    model: str
    items: tuple[ItemResult, ...]
    attempts: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    duration_s: float
    stopped_by: str
    transcript: str | None
    diffs: dict[str, str] = field(default_factory=dict)
    tool_version: str = __version__

    @property
    def fixed(self) -> int:
        """Items the agent resolved with a verified edit."""
        return sum(1 for i in self.items if i.status == "fixed")

    @property
    def still_open(self) -> int:
        """Items left for a human."""
        return sum(1 for i in self.items if i.status != "fixed")


class _Spent(Exception):
    """The budget ran out; ``why`` says which part."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _safe_file(root: Path, rel: str) -> Path:
    """``root/rel`` when it is a regular file inside ``root`` reached without a symlink."""
    path = root / rel
    real = Path(os.path.realpath(path))
    root_real = Path(os.path.realpath(root))
    if path.is_symlink() or root_real not in real.parents or not real.is_file():
        raise AgentError(f"refusing to edit {rel}", "it is a symlink or lies outside the agent's workspace", "")
    return path


def _manual(f: Finding, target: Target) -> bool:
    return f.verdicts.get(target.name, Verdict.MOVES_AS_IS).rank >= Verdict.MANUAL.rank


def _key(f: Finding, text: str) -> tuple[str, str, str]:
    return (f.code, f.message, text[f.span.start:f.span.end])


class _Run:
    def __init__(self, provider: Provider, options: AgentOptions, target: Target, transcript: Transcript,
                 progress: Callable[[str], None] | None, source: Path | None = None) -> None:
        self.provider = provider
        #: The user's CUDA tree: the original of the differential gate (options.run_args).
        self.source = source
        self.options = options
        self.target = target
        self.transcript = transcript
        self.progress = progress
        self.started = time.perf_counter()
        self.attempts = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.cost: float | None = 0.0 if options.pricing else None
        self.stopped_by = ""
        self.items: list[ItemResult] = []
        # The accepted file's compiler errors, by its bytes: a retry on an unchanged file needs no recompile.
        self._errors_cache: dict[tuple[str, bytes], tuple[str, list[CompileError]]] = {}

    def _spend(self, c: Completion, messages_chars: int) -> None:
        # Endpoints that report no usage are budgeted at ~4 characters per token.
        self.tokens_in += c.input_tokens if c.input_tokens is not None else messages_chars // 4
        self.tokens_out += c.output_tokens if c.output_tokens is not None else len(c.text) // 4
        if self.options.pricing is not None and self.cost is not None:
            cost = self.options.pricing.cost(c)
            self.cost = None if cost is None else round(self.cost + cost, 6)

    def _check_budget(self) -> None:
        b = self.options.budget
        if time.perf_counter() - self.started > b.max_seconds:
            raise _Spent(f"time budget of {b.max_seconds:g} s spent")
        if self.tokens_in + self.tokens_out >= b.max_tokens:
            raise _Spent(f"token budget of {b.max_tokens} spent")

    def compile_errors(self, file: Path, kind: FileKind, root: Path) -> tuple[str, list[CompileError]]:
        if not self.options.compile or kind not in COMPILED_KINDS:
            return "", []
        key = (str(file), file.read_bytes())
        if key in self._errors_cache:
            return self._errors_cache[key]
        stderr, errors = "", []
        for arch in self.options.archs:
            ev = compile_hip(file, arch=arch, include_dirs=[root], hipcc=self.options.hipcc, target=self.target)
            if not ev.passed:
                # What goes to the model quotes no file outside the tree (vado.verify.redact).
                stderr += redact_diagnostics(ev.stderr, [root], cwd=file.parent)
                errors.extend(parse_errors(ev.stderr) or [CompileError(file.name, 0, 0, f"hipcc exited {ev.returncode}")])
        self._errors_cache[key] = (stderr, errors)
        return stderr, errors

    def attempt_item(self, item: OpenItem, rel: str, kind: FileKind, accepted: Path, candidate: Path) -> ItemResult:
        """Up to ``attempts_per_item`` rounds of ask → parse → apply → verify on one item."""
        from vado.model import to_json
        from vado.port.apply import apply_edits, unified_diff

        good_file = _safe_file(accepted, rel)
        cand_file = _safe_file(candidate, rel)
        feedback: list[str] = []
        self.transcript.write("item", item=item.to_json())
        for n in range(1, self.options.budget.attempts_per_item + 1):
            try:
                self._check_budget()
            except _Spent as spent:
                # The item in progress is reported with the attempts it had, then the run stops.
                self.items.append(ItemResult(item.to_json(), "open" if n > 1 else "not-tried", n - 1, spent.why))
                raise
            before = good_file.read_bytes()
            text = decode_source(before)
            stderr, _ = self.compile_errors(good_file, kind, accepted)
            ctx = build_context(item, text, self.target, self.options.archs, compile_errors=stderr, feedback=feedback,
                                margin=self.options.margin, doc_chars=self.options.doc_chars)
            record = {"item": item.id, "attempt": n, "prompt": [{"role": m.role, "content": m.content} for m in ctx.messages],
                      "window_lines": list(ctx.window_lines)}
            if self.progress:
                self.progress(f"{item.id}: attempt {n}")
            self.attempts += 1
            try:
                if hasattr(self.provider, "deadline"):  # a request may not run past --max-seconds
                    left = self.options.budget.max_seconds - (time.perf_counter() - self.started)
                    self.provider.deadline = time.monotonic() + max(0.0, left)
                completion = self.provider.complete(ctx.messages, max_tokens=self.options.budget.max_answer_tokens)
            except AgentError as exc:
                self.transcript.write("attempt", **record, outcome="model-error", reason=exc.message, kept=False)
                self.items.append(ItemResult(item.to_json(), "open", n, f"the model endpoint failed: {exc.message}"))
                raise _Spent(f"the model endpoint failed: {exc.message}") from exc
            self._spend(completion, sum(len(m.content) for m in ctx.messages))
            record.update(answer=completion.text, input_tokens=completion.input_tokens, output_tokens=completion.output_tokens,
                          model=completion.model, finish_reason=completion.finish_reason, model_seconds=completion.duration_s,
                          cost_usd=self.options.pricing.cost(completion) if self.options.pricing else None)
            try:
                edits = edits_from_answer(completion.text, rel, text, ctx.window)
            except EditRejected as exc:
                feedback.append(f"your answer was not applied: {exc.reason}")
                self.transcript.write("attempt", **record, outcome="parse-rejected", reason=exc.reason, edit=None, kept=False)
                continue
            after = apply_edits(before, edits)
            diff = unified_diff(before, after, rel)
            cand_file.write_bytes(after)
            try:
                check = check_candidate(cand_file, rel, text, self.target, resolve_code=item.code, archs=self.options.archs,
                                        include_dirs=[candidate], hipcc=self.options.hipcc,
                                        compile=self.options.compile and kind in COMPILED_KINDS,
                                        tree=candidate, original=self.source, run_args=self.options.run_args)
            finally:
                # The candidate tree always returns to the accepted state; a kept edit is copied over below.
                cand_file.write_bytes(before)
            evidence = to_json(list(check.evidence))
            if check.passed:
                good_file.write_bytes(after)
                cand_file.write_bytes(after)
                self.transcript.write("attempt", **record, outcome="accepted", reason=check.reason, edit=diff,
                                      verify={"passed": True, "evidence": evidence, "findings_before": check.findings_before,
                                              "findings_after": check.findings_after}, kept=True)
                return self._done(ItemResult(item.to_json(), "fixed", n, check.reason, diff))
            feedback.append(f"your edit was applied in a scratch copy and rejected: {check.feedback()}")
            self.transcript.write("attempt", **record, outcome="verify-rejected", reason=check.reason, edit=diff,
                                  verify={"passed": False, "evidence": evidence, "findings_before": check.findings_before,
                                          "findings_after": check.findings_after}, kept=False)
        return self._done(ItemResult(item.to_json(), "open", self.options.budget.attempts_per_item,
                                     feedback[-1] if feedback else "no attempt"))

    def _done(self, result: ItemResult) -> ItemResult:
        self.items.append(result)
        return result

    def work_file(self, rel: str, kind: FileKind, accepted: Path, candidate: Path) -> None:
        """Every open item of one file, re-read after each kept edit (edits move lines); results go to ``items``."""
        given_up: set[tuple[str, str, str]] = set()
        while True:
            text = decode_source(_safe_file(accepted, rel).read_bytes())
            pending = [f for f in open_findings(rel, text, self.target)
                       if _manual(f, self.target) and _key(f, text) not in given_up
                       and (not self.options.codes or f.code in self.options.codes)]
            if not pending:
                break
            f = pending[0]
            item = OpenItem(rel, f.span.line, max(f.span.end_line, f.span.line), f.message, f.code, f)
            result = self.attempt_item(item, rel, kind, accepted, candidate)
            if result.status != "fixed":
                given_up.add(_key(f, text))
        if self.options.codes and "COMPILE" not in self.options.codes:
            return
        path = _safe_file(accepted, rel)
        text = decode_source(path.read_bytes())
        stderr, errors = self.compile_errors(path, kind, accepted)
        others = open_findings(rel, text, self.target)
        loose = [e for e in errors if not any(f.span.line <= e.line <= max(f.span.end_line, f.span.line) for f in others)]
        if loose:
            first = loose[0]
            line = max(first.line, 1)
            item = OpenItem(rel, line, line, f"hipcc: {first.message}", None, None, stderr)
            self.attempt_item(item, rel, kind, accepted, candidate)


def run_agent(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str] | None,
    provider: Provider,
    options: AgentOptions | None = None,
    *,
    transcript: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> AgentResult:
    """Port ``source``, let ``provider`` resolve what the port left, keep what verify accepts.

    ``output`` must be a new (or empty) directory outside ``source``; with
    ``options.dry_run`` it may be None and nothing is written but the transcript.
    Raises :class:`UsageError` for bad paths and :class:`AgentError` when the
    model endpoint fails (the transcript keeps what was done until then).
    """
    from vado.knowledge.targets import get_target
    from vado.port.apply import unified_diff
    from vado.port.tree import port_tree

    options = options or AgentOptions()
    started = time.perf_counter()
    src = Path(source)
    if not src.exists():
        raise UsageError(f"{source} does not exist", "", "pass a CUDA file or directory")
    if not options.dry_run:
        if output is None:
            raise UsageError("no output directory", "the agent writes its result into a new directory", "pass -o OUT, or --dry-run")
        out = Path(output)
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UsageError(f"output {out} exists and is not empty", "vado never writes over an existing tree", "choose a new directory")
        if src.is_dir() and Path(os.path.realpath(src)) in Path(os.path.realpath(out)).parents:
            raise UsageError(f"output {out} is inside {src}", "the result would be read as part of the source", "choose a directory outside it")
    target = get_target(options.target)
    if target.family != "rocm":
        raise UsageError(f"the agent writes HIP code; {target.name} is a {target.family} target", "", "use rocm-7.2, rocm-6.4 or hip-5.2")

    log = Transcript(transcript)  # first: a transcript path that is refused leaves nothing behind
    work = Path(tempfile.mkdtemp(prefix="vado-agent-"))
    try:
        log.write("run", tool_version=__version__, source=str(src), output=None if output is None else str(output),
                  dry_run=options.dry_run, provider=provider.name, model=provider.model,
                  base_url=getattr(provider, "base_url", ""), target=target.name, archs=list(options.archs),
                  budget={"attempts_per_item": options.budget.attempts_per_item, "max_tokens": options.budget.max_tokens,
                          "max_seconds": options.budget.max_seconds, "max_answer_tokens": options.budget.max_answer_tokens})
        accepted, candidate = work / "accepted", work / "candidate"
        ported = port_tree(src, accepted, target)
        shutil.copytree(accepted, candidate, symlinks=True)
        single = src.is_file()
        run = _Run(provider, options, target, log, progress, source=src if src.is_dir() else src.parent)
        files: list[tuple[str, FileKind]] = []
        port_bytes: dict[str, bytes] = {}
        for pf in ported.files:
            kind = FileKind(pf.kind)
            if pf.status == "failed" or kind not in EDITED_KINDS:
                continue
            rel = src.name if single else pf.path
            try:
                port_bytes[rel] = _safe_file(accepted, rel).read_bytes()
            except AgentError:
                continue
            files.append((rel, kind))
        for rel, kind in files:
            try:
                run.work_file(rel, kind, accepted, candidate)
            except _Spent as spent:
                run.stopped_by = spent.why
                break
        items = run.items
        if run.stopped_by:
            # Whatever is still open after the budget ran out is reported, not dropped.
            tried = {r.item["id"] for r in items}
            for rel in port_bytes:
                text = decode_source(_safe_file(accepted, rel).read_bytes())
                for f in open_findings(rel, text, target):
                    if _manual(f, target) and (not options.codes or f.code in options.codes):
                        it = OpenItem(rel, f.span.line, max(f.span.end_line, f.span.line), f.message, f.code, f)
                        if it.id not in tried:
                            items.append(ItemResult(it.to_json(), "not-tried", 0, run.stopped_by))
        diffs = {}
        for rel, before in port_bytes.items():
            after = _safe_file(accepted, rel).read_bytes()
            if after != before:
                diffs[rel] = unified_diff(before, after, rel)
        written = None
        if not options.dry_run:
            out = Path(output)  # type: ignore[arg-type]
            shutil.copytree(accepted, out, symlinks=True, dirs_exist_ok=True)
            written = str(out)
        result = AgentResult(
            source=str(src), output=written, dry_run=options.dry_run, model=provider.model, items=tuple(items),
            attempts=run.attempts, input_tokens=run.tokens_in, output_tokens=run.tokens_out, cost_usd=run.cost,
            duration_s=round(time.perf_counter() - started, 3), stopped_by=run.stopped_by,
            transcript=None if transcript is None else str(transcript), diffs=diffs,
        )
        log.write("summary", items=len(items), fixed=result.fixed, still_open=result.still_open, attempts=result.attempts,
                  input_tokens=result.input_tokens, output_tokens=result.output_tokens, cost_usd=result.cost_usd,
                  duration_s=result.duration_s, stopped_by=result.stopped_by, output=written,
                  results=[{"id": r.item["id"], "status": r.status, "attempts": r.attempts, "reason": r.reason} for r in items])
        return result
    finally:
        log.close()
        shutil.rmtree(work, ignore_errors=True)
