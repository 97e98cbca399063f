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
from vado.mcp.root import Root

#: Findings returned by ``audit`` unless the caller asks for more; a large tree has thousands.
DEFAULT_MAX_FINDINGS = 200
#: Characters of diff returned per file by ``port``; the rest is summarised.
MAX_DIFF_CHARS = 20_000


def _targets(names: list[str] | None):
    from vado.errors import KnowledgeError
    from vado.knowledge.targets import default_audit_targets, get_target

    if not names:
        return tuple(default_audit_targets())
    try:
        return tuple(get_target(n) for n in names)
    except KnowledgeError as exc:
        raise UsageError(exc.what, exc.why, exc.tip) from exc


def _finding_json(f, root_rel: str) -> dict[str, Any]:
    from vado.model import to_json

    path = f.span.path if root_rel == "." else f"{root_rel}/{f.span.path}".replace("//", "/")
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
        "fix": None if f.fix is None else {"applicability": f.fix.applicability.value, "description": f.fix.description},
        "data": to_json(f.data),
    }


def audit(root: Root, path: str = ".", targets: list[str] | None = None, min_severity: str = "info",
          max_findings: int = DEFAULT_MAX_FINDINGS) -> dict[str, Any]:
    """Audit ``path`` (inside the root): verdict per target, per-code counts, findings (capped)."""
    from vado.audit import audit as run_audit
    from vado.model import Severity, to_json

    real = root.resolve(path)
    try:
        floor = Severity.parse(min_severity)
    except ValueError as exc:
        raise UsageError("bad min_severity", str(exc)) from None
    if max_findings < 0:
        raise UsageError("bad max_findings", "it must be 0 or more")
    result = run_audit(real, _targets(targets))
    rel = root.relative(real) if real.is_dir() else root.relative(real.parent)
    kept = [f for f in result.findings if f.severity.rank >= floor.rank]
    counts: dict[str, int] = {}
    for f in kept:
        counts[f.code] = counts.get(f.code, 0) + 1
    return {
        "root": root.relative(real),
        "targets": list(result.targets),
        "verdicts": to_json(result.verdicts),
        "files_scanned": result.stats.files_scanned,
        "files_skipped": result.stats.files_skipped,
        "finding_count": len(kept),
        "counts_by_code": dict(sorted(counts.items())),
        "findings": [_finding_json(f, rel) for f in kept[:max_findings]],
        "truncated": len(kept) > max_findings,
        "skips": to_json(result.skips[:50]),
        "errors": list(result.errors),
    }


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
         unsafe: bool = False, include_diffs: bool = True) -> dict[str, Any]:
    """Port ``path`` to HIP. With ``output`` (a new directory inside the root) write the port there;
    without it, port into a temporary directory, return the diffs and write nothing."""
    from vado.model import to_json
    from vado.port.file import PortOptions
    from vado.port.tree import port_tree

    if launch not in ("chevron", "ggl"):
        raise UsageError(f"unknown launch style {launch!r}", "", "use chevron or ggl")
    real = root.resolve(path)
    tgt = _port_target(target)
    options = PortOptions(launch=launch, unsafe=unsafe)
    if output is None:
        with tempfile.TemporaryDirectory(prefix="vado-mcp-port-") as tmp:
            result = port_tree(real, Path(tmp) / "out", tgt, options=options)
        written = None
    else:
        out = root.resolve(output, must_exist=False)
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise McpError(f"output {output!r} exists and is not empty", "a port never writes over files", "name a new directory")
        result = port_tree(real, out, tgt, options=options)
        written = root.relative(out)
    files = []
    for f in result.files:
        item = {"path": f.path, "status": f.status, "applied": f.applied, "remaining": f.remaining}
        if f.error:
            item["error"] = f.error
        if include_diffs and f.diff:
            item["diff"] = f.diff if len(f.diff) <= MAX_DIFF_CHARS else f.diff[:MAX_DIFF_CHARS] + "\n[… diff truncated]\n"
        files.append(item)
    rel = root.relative(real) if real.is_dir() else root.relative(real.parent)
    return {
        "source": root.relative(real),
        "output": written,
        "dry_run": written is None,
        "target": result.target,
        "files": files,
        "remaining": [_finding_json(f, rel) for f in result.remaining],
        "errors": list(result.errors),
        "skips": to_json(result.skips[:50]),
    }


def verify(root: Root, path: str, archs: list[str] | None = None, target: str = "rocm-7.2") -> dict[str, Any]:
    """Compile one HIP/CUDA file (or every .cu/.hip file under a directory) for AMD offload targets.

    Returns the compile evidence per file and arch, and the findings still open
    in each file. Nothing the caller passes is run: the command is vado's own.
    """
    from vado.agent.verify import compile_hip, open_findings
    from vado.model import to_json
    from vado.model.text import decode_source

    real = root.resolve(path)
    tgt = _port_target(target)
    archs = archs or ["gfx90a"]
    if real.is_dir():
        sources = sorted(p for p in real.rglob("*") if p.suffix in (".cu", ".hip") and p.is_file())
        sources = [p for p in sources if root.contains(Path(os.path.realpath(p)))]
    else:
        sources = [real]
    if not sources:
        raise UsageError(f"no .cu or .hip file under {path!r}", "verify compiles translation units", "pass a file or a directory holding .cu/.hip files")
    if len(sources) > 50:
        raise UsageError(f"{len(sources)} files under {path!r}", "verify over MCP compiles at most 50 files per call", "pass a smaller directory or one file")
    results = []
    for src in sources:
        rel = root.relative(src)
        evidence = [compile_hip(src, arch=a, include_dirs=[root.path], target=tgt) for a in archs]
        text = decode_source(src.read_bytes())
        results.append({
            "path": rel,
            "passed": all(e.passed for e in evidence),
            "evidence": to_json(evidence),
            "open_findings": [_finding_json(f, ".") for f in open_findings(rel, text, tgt)],
        })
    return {"passed": all(r["passed"] for r in results), "archs": archs, "files": results}


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
