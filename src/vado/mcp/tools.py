"""What the MCP tools do, as plain functions over a :class:`~vado.mcp.root.Root`.

Each function takes the root first, checks every path against it, calls the
library function behind it and returns JSON-ready data (``vado.model.to_json``
shapes). :mod:`vado.mcp.server` registers thin wrappers with precise parameter
types; tests can call these directly. Errors are :class:`~vado.errors.VadoError`
subclasses; the server turns them into tool errors the assistant can read.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from vado.errors import McpError, UsageError
from vado.mcp.paging import ResultCache
from vado.mcp.root import Root

#: Findings per page of ``audit`` (and files per page of ``port``) unless the caller asks for another size;
#: every page is cut further to fit the answer's token budget (:mod:`vado.mcp.paging`).
DEFAULT_PAGE = 100
#: Characters of diff returned per file by ``port``; the rest is summarised.
MAX_DIFF_CHARS = 20_000

#: Recent ports by (source, options, output): later pages of one answer are read from it (see ``port``).
_PORTS = ResultCache()


def _targets(names: list[str] | None):
    from vado.errors import KnowledgeError
    from vado.knowledge.targets import default_audit_targets, get_target

    if not names:
        return tuple(default_audit_targets())
    try:
        return tuple(get_target(n) for n in names)
    except KnowledgeError as exc:
        raise UsageError(exc.what, exc.why, exc.tip) from exc


def _finding_json(f, root_rel: str, detail: str = "full") -> dict[str, Any]:
    """A finding for an assistant: ``compact`` (what to open and why) or ``full`` (verdicts, data, fix text)."""
    from vado.model import to_json

    path = f.span.path if root_rel == "." else f"{root_rel}/{f.span.path}".replace("//", "/")
    if detail == "compact":
        return {
            "code": f.code,
            "severity": f.severity.value,
            "path": path,
            "line": f.span.line,
            "column": f.span.column,
            "message": f.message,
            "fix": None if f.fix is None else f.fix.applicability.value,
        }
    return {
        "code": f.code,
        "name": f.name,
        "severity": f.severity.value,
        "path": path,
        "line": f.span.line,
        "column": f.span.column,
        "end_line": f.span.end_line,
        "message": f.message,
        "verdicts": {k: v.value for k, v in f.verdicts.items()},
        "inactive": {k: v.value for k, v in f.inactive.items()},
        "fix": None if f.fix is None else {"applicability": f.fix.applicability.value, "description": f.fix.description},
        "data": to_json(f.data),
    }


def _page_args(offset: int, limit: int, max_tokens: int, detail: str | None = None) -> int:
    from vado.mcp.paging import MAX_TOKENS_LIMIT

    if offset < 0 or limit < 1:
        raise UsageError("bad offset or limit", "offset must be 0 or more and limit 1 or more")
    if not 1000 <= max_tokens <= MAX_TOKENS_LIMIT:
        raise UsageError("bad max_tokens", f"it must lie between 1000 and {MAX_TOKENS_LIMIT}")
    if detail is not None and detail not in ("compact", "full"):
        raise UsageError(f"unknown detail {detail!r}", "", "use compact or full")
    return max_tokens


def _matches_codes(code: str, codes: list[str] | None) -> bool:
    return not codes or any(code.startswith(c.strip().upper()) for c in codes if c.strip())


def _verdicts_json(verdicts) -> list[dict[str, Any]]:
    """Verdicts per target with the ten codes that weigh most (the reason names the rest)."""
    return [
        {"target": tv.target, "verdict": tv.verdict.value, "deciding": [list(d) for d in tv.deciding[:10]],
         "reason": tv.reason}
        for tv in verdicts
    ]


def audit(root: Root, path: str = ".", targets: list[str] | None = None, min_severity: str = "info",
          codes: list[str] | None = None, offset: int = 0, limit: int = DEFAULT_PAGE, detail: str = "compact",
          max_tokens: int | None = None, build: str = "compile-db") -> dict[str, Any]:
    """Audit ``path`` (inside the root): verdict per target, counts per code and per file, one page of findings.

    Findings are filtered by ``min_severity`` and ``codes`` (codes or prefixes),
    then paged: ``offset``/``limit``, cut further so the answer fits ``max_tokens``;
    ``next_offset`` says where the next page starts (None: this was the last).
    ``build`` is how the tree's build is read for the configuration judged
    (:mod:`vado.build.judged`; the server refuses the executing modes without ``allow_exec``).
    """
    from vado.audit import audit as run_audit
    from vado.mcp.paging import DEFAULT_MAX_TOKENS, fit_list
    from vado.model import Severity, to_json

    max_tokens = _page_args(offset, limit, max_tokens or DEFAULT_MAX_TOKENS, detail)
    real = root.resolve(path)
    try:
        floor = Severity.parse(min_severity)
    except ValueError as exc:
        raise UsageError("bad min_severity", str(exc)) from None
    result = run_audit(real, _targets(targets), build=_build_mode(build))
    rel = root.relative(real) if real.is_dir() else root.relative(real.parent)
    kept = [f for f in result.findings if f.severity.rank >= floor.rank and _matches_codes(f.code, codes)]
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    per_file: dict[str, int] = {}
    for f in kept:
        counts[f.code] = counts.get(f.code, 0) + 1
        names[f.code] = f.name
        per_file[f.span.path] = per_file.get(f.span.path, 0) + 1
    top_files = sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0]))[:15]
    page = kept[offset:offset + limit]
    answer = {
        "root": root.relative(real),
        "targets": list(result.targets),
        "verdicts": _verdicts_json(result.verdicts),
        "files_scanned": result.stats.files_scanned,
        "files_skipped": result.stats.files_skipped,
        "finding_count": len(kept),
        "counts_by_code": dict(sorted(counts.items())),
        "code_names": dict(sorted(names.items())),
        "files_with_most_findings": [
            {"path": p if rel == "." else f"{rel}/{p}", "findings": n} for p, n in top_files
        ],
        "offset": offset,
        "findings": [_finding_json(f, rel, detail) for f in page],
        "next_offset": offset + limit if offset + limit < len(kept) else None,
        "skip_count": len(result.skips),
        "skips": to_json(result.skips[:10]),
        "errors": list(result.errors),
        "build": _build_json(result.build, root, real),
    }
    fit_list(answer, "findings", offset, max_tokens)
    answer["truncated"] = answer["next_offset"] is not None
    if answer["truncated"]:
        answer["hint"] = (f"{len(kept) - answer['next_offset']} more findings: call again with offset="
                          f"{answer['next_offset']}, or narrow with path, codes or min_severity")
    return answer


def _build_mode(build: str) -> str:
    from vado.build.read import MODES

    if build not in MODES:
        raise UsageError(f"unknown build mode {build!r}", "", f"use one of {', '.join(MODES)}")
    return build


def _build_json(summary, root: Root, real: Path) -> dict[str, Any] | None:
    """The configuration judged, with ``not_built`` relative to the root as the other paths are."""
    if summary is None:
        return None
    from vado.model import to_json

    doc = to_json(summary)
    rel = root.relative(real) if real.is_dir() else root.relative(real.parent)
    doc["not_built"] = [p if rel == "." else f"{rel}/{p}" for p in summary.not_built[:50]]
    return doc


def explain(code: str) -> dict[str, Any]:
    """A rule's documentation (its docstring sections) by code or name."""
    from vado.rules.registry import get_rule

    rule = get_rule(code)
    sections = rule.doc_sections()
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity.value,
        "summary": rule.one_line(),
        "file_kinds": sorted(k.value for k in rule.file_kinds),
        "sections": {k: v for k, v in sections.items() if k and v},
    }


def lookup(name: str, target: str | None = None) -> dict[str, Any]:
    """What a CUDA API name or header becomes on each target (or one), with its source table."""
    from vado.knowledge import api
    from vado.knowledge.targets import all_targets
    from vado.model import to_json

    entry = api.lookup(name.strip())
    if entry is None:
        return {"name": name, "found": False, "did_you_mean": api.suggest(name.strip())}
    targets = _targets([target]) if target else all_targets()
    return {
        "name": name,
        "found": True,
        "entry": to_json(entry),
        "rocm_name": entry.rocm_name,
        "source": api.source_of(entry),
        "targets": to_json([api.availability(entry, t) for t in targets]),
    }


def facts(name: str) -> dict[str, Any]:
    """Every knowledge-base entry for a library, package, target or image name, each with its source."""
    from vado.knowledge.facts import facts_for

    return facts_for(name)


def _port_target(name: str):
    from vado.errors import KnowledgeError
    from vado.knowledge.targets import get_target

    try:
        tgt = get_target(name)
    except KnowledgeError as exc:
        raise UsageError(exc.what, exc.why, exc.tip) from exc
    if tgt.family != "rocm":
        raise UsageError(f"port writes HIP code; {tgt.name} is a {tgt.family} target", "", "use rocm-7.2, rocm-6.4 or hip-5.2")
    return tgt


def port(root: Root, path: str, output: str | None = None, target: str = "rocm-7.2", launch: str = "chevron",
         unsafe: bool = False, include_diffs: bool | None = None, diff_paths: list[str] | None = None,
         offset: int = 0, limit: int = DEFAULT_PAGE, max_tokens: int | None = None, include_vendored: bool = False,
         include_backends: bool = False, include_hip_path: bool = False, build: str = "compile-db") -> dict[str, Any]:
    """Port ``path`` to HIP. With ``output`` (a new directory inside the root) write the port there;
    without it, port into a temporary directory, return the diffs and write nothing.

    Vendored code, other backends' code (SYCL, MUSA, CPU instruction sets …) and the project's
    own HIP path are left as they are unless ``include_vendored``, ``include_backends`` or
    ``include_hip_path`` ask for them; ``left_out`` says what was left and why.

    The answer sums the whole port up (files per status, fixes applied and
    findings left, per code) and lists one page of files (``offset``/``limit``,
    cut to fit ``max_tokens``) with the findings left in them. Diffs:
    ``include_diffs`` True gives every listed file's, False none, None (the
    default) those of the page when they fit the budget; ``diff_paths`` names
    files whose diffs are wanted whatever the page.
    """
    from vado.mcp.paging import DEFAULT_MAX_TOKENS, estimate_tokens, fit_list, tree_state
    from vado.model import to_json
    from vado.port.file import PortOptions
    from vado.port.tree import port_tree

    if launch not in ("chevron", "ggl"):
        raise UsageError(f"unknown launch style {launch!r}", "", "use chevron or ggl")
    max_tokens = _page_args(offset, limit, max_tokens or DEFAULT_MAX_TOKENS)
    real = root.resolve(path)
    tgt = _port_target(target)
    options = PortOptions(launch=launch, unsafe=unsafe)
    scope = {"include_vendored": include_vendored, "include_backends": include_backends,
             "include_hip_path": include_hip_path, "build": _build_mode(build)}
    out = None if output is None else root.resolve(output, must_exist=False)
    # The next page of the same port (same source tree, unchanged; same options, scope and output) is read
    # from the port already made: a dry run is not ported into a new temporary tree per page, and a port
    # written to `output` is not refused as "exists" when the assistant asks for its second page.
    key = (str(real), target, launch, unsafe, tuple(sorted(scope.items())), None if out is None else str(out))
    state = tree_state(str(real))
    cached = _PORTS.get(key)
    if cached is not None and cached[0] == state and (out is None or out.is_dir()):
        result = cached[1]
    elif out is None:
        with tempfile.TemporaryDirectory(prefix="vado-mcp-port-") as tmp:
            result = port_tree(real, Path(tmp) / "out", tgt, options=options, **scope)
        _PORTS.put(key, (state, result))
    else:
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise McpError(f"output {output!r} exists and is not empty", "a port never writes over files", "name a new directory")
        result = port_tree(real, out, tgt, options=options, **scope)
        _PORTS.put(key, (state, result))
    written = None if out is None else root.relative(out)
    rel = root.relative(real) if real.is_dir() else root.relative(real.parent)
    wanted = {p.strip("/") for p in diff_paths or ()}
    statuses: dict[str, int] = {}
    applied: dict[str, int] = {}
    left: dict[str, int] = {}
    for f in result.files:
        statuses[f.status] = statuses.get(f.status, 0) + 1
        for code, n in f.applied.items():
            applied[code] = applied.get(code, 0) + n
        for code, n in f.remaining.items():
            left[code] = left.get(code, 0) + n
    remaining_by_file: dict[str, list] = {}
    for r in result.remaining:
        remaining_by_file.setdefault(r.span.path, []).append(r)

    def item(f, with_diff: bool) -> dict[str, Any]:
        out_item: dict[str, Any] = {"path": f.path, "status": f.status, "applied": f.applied, "remaining": f.remaining}
        if f.error:
            out_item["error"] = f.error
        found = remaining_by_file.get(f.path)
        if found:
            out_item["open_findings"] = [_finding_json(x, rel, "compact") for x in found]
        if f.diff and with_diff:
            out_item["diff"] = _diff_text(f.diff)
        return out_item

    # Files with something to see first: errors, then findings left, then changed files.
    order = sorted(result.files, key=lambda f: (not f.error, not f.remaining, not f.diff, f.path))
    page_files = order[offset:offset + limit]
    answer: dict[str, Any] = {
        "source": root.relative(real),
        "output": written,
        "dry_run": written is None,
        "target": result.target,
        "file_count": len(result.files),
        "files_by_status": dict(sorted(statuses.items())),
        "applied_by_code": dict(sorted(applied.items())),
        "remaining_by_code": dict(sorted(left.items())),
        "remaining_count": len(result.remaining),
        "offset": offset,
        "files": [item(f, include_diffs is not False) for f in page_files],
        "diffs": [{"path": f.path, "diff": _diff_text(f.diff)} for f in result.files
                  if f.diff and (f.path in wanted or (rel != "." and f"{rel}/{f.path}" in wanted))],
        "next_offset": offset + limit if offset + limit < len(order) else None,
        "errors": list(result.errors),
        "skip_count": len(result.skips),
        "skips": to_json(result.skips[:10]),
        "left_out": list(result.left_out),
        "own_rocm_build": result.own_rocm_build,
        "build": _build_json(result.build, root, real),
    }
    if include_diffs is None and estimate_tokens(answer) > max_tokens:
        answer["files"] = [item(f, False) for f in page_files]
        answer["diffs_left_out"] = True
    if estimate_tokens(answer) > max_tokens and answer["diffs"]:
        # Asked-for diffs come first; the page of files shrinks to make room.
        fit_list(answer, "diffs", 0, max_tokens - 1000)
        answer.pop("next_offset", None)
        answer["next_offset"] = offset + limit if offset + limit < len(order) else None
    fit_list(answer, "files", offset, max_tokens)
    # The findings left in this page's files, as one list (moved out of the files, not copied).
    answer["remaining"] = [x for f in answer["files"] for x in f.pop("open_findings", ())]
    notes = []
    if answer["next_offset"] is not None:
        notes.append(f"{len(order) - answer['next_offset']} more files: call again with offset={answer['next_offset']}"
                     + (f" and output={written!r} replaced by a new directory" if written else ""))
    if answer.get("diffs_left_out"):
        notes.append("diffs left out to fit the budget: pass diff_paths=[...] for the files you want")
    if notes:
        answer["hint"] = "; ".join(notes)
    return answer


def _diff_text(diff: str) -> str:
    return diff if len(diff) <= MAX_DIFF_CHARS else diff[:MAX_DIFF_CHARS] + "\n[… diff truncated]\n"


def verify(root: Root, path: str, archs: list[str] | None = None, target: str = "rocm-7.2",
           original: str | None = None, run_args: str | None = None, build: str = "compile-db",
           codegen: str = "auto") -> dict[str, Any]:
    """Compile one HIP/CUDA file (or every .cu/.hip file under a directory) for AMD offload targets.

    ``codegen`` is ``vado verify --codegen`` (:mod:`vado.verify.codegen`): ``auto`` runs the front end
    (host and the arch) and the full compile where only code generation can tell (inline asm, target
    builtins, ``-Werror``), ``all`` the full compile, ``none`` the front end only; each evidence
    record's ``detail["checked"]`` says which ran.

    Each file is compiled with the flags the root's build gives it (:func:`vado.build.read_build`
    with ``build``): by default only a compile database, CMake File API reply or ``setup.py`` the
    root already holds is read, and nothing of the project runs. ``make``, ``cmake`` and ``auto``
    execute the project's build logic (a Makefile's ``$(shell)``, CMake code) in vado's sandbox:
    only when the user asked for it. A file the build does not compile gets guessed flags, marked
    ``guessed`` in its evidence; the answer's ``build`` says how the build was read.

    Returns the compile evidence per file and arch, and the findings still open
    in each file. The compile commands are vado's own. With ``original`` (the
    CUDA tree inside the root the port came from) and ``run_args`` (the program's
    arguments), where an NVIDIA GPU and nvcc exist, the port directory ``path`` is
    also run against the original with AMD's 64-lane waves emulated
    (:func:`vado.agent.verify.differential_check`): both programs, built by vado
    from the root's sources, run with those arguments (no shell). ``passed`` then
    needs the outputs to agree; the answer's ``differential`` says what ran.
    """
    from vado.agent.verify import compile_hip, open_findings
    from vado.verify.redact import redact_diagnostics, redact_evidence
    from vado.model import to_json
    from vado.model.text import decode_source

    real = root.resolve(path)
    tgt = _port_target(target)
    # The target's own architectures, as `vado verify` compiles for (rocm-7.2: gfx942 and gfx950).
    archs = archs or list(tgt.default_arch)
    if real.is_dir():
        sources = sorted(p for p in real.rglob("*") if p.suffix in (".cu", ".hip") and p.is_file())
        sources = [p for p in sources if root.contains(Path(os.path.realpath(p)))]
    else:
        sources = [real]
    if not sources:
        raise UsageError(f"no .cu or .hip file under {path!r}", "verify compiles translation units", "pass a file or a directory holding .cu/.hip files")
    if len(sources) > 50:
        raise UsageError(f"{len(sources)} files under {path!r}", "verify over MCP compiles at most 50 files per call", "pass a smaller directory or one file")
    from vado.build import BuildOptions, read_build

    try:
        config = read_build(root.path, BuildOptions(mode=build))
    except ValueError as exc:
        raise UsageError(str(exc), "build names how the root's build is read", "compile-db, none, make, cmake or auto") from None
    results = []
    for src in sources:
        rel = root.relative(src)
        tus = () if config.guessed else config.for_source(str(src))
        # Compiler output quotes the files it reads: none outside the root reaches the client.
        evidence = [redact_evidence(compile_hip(src, arch=a, include_dirs=[root.path], target=tgt,
                                                tu=tus[0] if tus else None, codegen=codegen), [root.path],
                                    cwd=src.parent) for a in archs]
        text = decode_source(src.read_bytes())
        results.append({
            "path": rel,
            "passed": all(e.passed for e in evidence),
            "evidence": to_json(evidence),
            "open_findings": [_finding_json(f, ".") for f in open_findings(rel, text, tgt)],
        })
    answer: dict[str, Any] = {"passed": all(r["passed"] for r in results), "archs": archs, "files": results,
                              "build": {"reader": config.reader, "guessed": config.guessed, "ran": list(config.ran),
                                        "notes": [redact_diagnostics(n, [root.path]) for n in config.notes[:20]]}}
    answer["confinement"] = _confinement_note(results)
    if (original is None) != (run_args is None):
        raise UsageError("original and run_args go together", "the differential runs the original and the port",
                         "pass both, or neither")
    if original is not None:
        answer["differential"] = _differential(root, real, original, run_args or "")
        answer["passed"] = answer["passed"] and answer["differential"]["passed"]
    return answer


def _confinement_note(results: list[dict[str, Any]]) -> str:
    """How the compiler ran: confined (it saw only the root, the toolchain, a scratch directory) or not, and
    then what that means for the diagnostics in this answer."""
    ways = {str(ev.get("detail", {}).get("confinement", "")) for r in results for ev in r["evidence"]}
    unconfined = sorted(w for w in ways if w.startswith("none"))
    if unconfined:
        return ("the compiler ran unconfined (" + unconfined[0][len("none: "):] + "): diagnostics quoting files "
                "outside the root are withheld by location only, which does not hide bytes a source #embeds into "
                "a diagnostic at a location inside the root")
    return "the compiler saw only the root (read-only), the toolchain and a scratch directory" if ways else ""


def _differential(root: Root, port: Path, original: str, run_args: str) -> dict[str, Any]:
    """The wave64 differential gate of ``verify`` (skipped, with a reason, without an NVIDIA GPU)."""
    from vado.agent.verify import differential_check
    from vado.model import to_json
    from vado.verify.redact import redact_evidence

    orig = root.resolve(original)
    if not port.is_dir() or not orig.is_dir():
        raise UsageError("the differential needs directories", f"{root.relative(port)} and {original} must both be trees",
                         "pass the port's directory as path and the CUDA tree as original")
    check = differential_check(port, orig, run_args)
    if check is None:
        return {"passed": True, "ran": False, "reason": "skipped: no NVIDIA GPU with nvcc on this machine"}
    evidence = [redact_evidence(e, [root.path], cwd=port) for e in check.evidence]
    return {"passed": check.passed, "ran": True, "reason": check.reason, "wave": 64, "evidence": to_json(evidence)}


def bench_kernel(root: Root, path: str, kernel: str | None = None, n: int = 1 << 24, block: int = 256,
                 iters: int = 50) -> dict[str, Any]:
    """Time one ``__global__`` kernel of a CUDA/HIP file inside the root on this machine's GPU.

    vado writes the timing driver itself (device buffers of ``n`` elements per
    pointer parameter, event timing, checksums) and builds it with the toolchain
    that fits the GPU; nothing the caller passes is run. Returns vado's bench
    result: median kernel time, achieved GB/s and GFLOP/s against the device's
    roofline, checksums of the written buffers.
    """
    from vado.bench.kernel import bench_kernel as run_kernel_bench
    from vado.model import to_json

    real = root.resolve(path)
    if not real.is_file() or real.suffix not in (".cu", ".hip", ".cuh"):
        raise UsageError(f"{path!r} is not a .cu/.hip file", "bench_kernel times a kernel of one source file",
                         "pass the file that defines the __global__ function")
    if not (1 <= n <= 1 << 30) or not (1 <= block <= 1024) or not (1 <= iters <= 1000):
        raise UsageError("n, block or iters out of range", "1 ≤ n ≤ 2^30, 1 ≤ block ≤ 1024, 1 ≤ iters ≤ 1000")
    result = run_kernel_bench(str(real), kernel=kernel, n=n, block=block, iters=iters, label=root.relative(real))
    return to_json(result)
