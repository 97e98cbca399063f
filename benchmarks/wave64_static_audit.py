#!/usr/bin/env python3
"""Issue 26, statically: 32-lane residue in vado's default port of HeCBench programs that no finding covers.

No GPU is needed. For every ``-cuda`` program of HeCBench (``--hecbench``) except those the wave64
differential already ran (the seed-15 set that ``benchmarks/wave64_differential.py prepare --seed 15
--count 38`` chooses, and the HeCBench names of ``benchmarks/wave64_programs.json``):

1. ``port``: vado's default port (``vado.port.tree.port_tree(X-cuda, out, get_target("rocm-7.2"))``, as
   ``vado port X-cuda -o out`` does; the ``../Y-cuda`` siblings a program names are ported beside it,
   other siblings copied, as ``benchmarks/port_hecbench.py`` lays them out). The findings the port left
   open are kept per program (``findings.json``).
2. ``scan``: in the PORT's device functions (``__global__``/``__device__`` bodies, comments and strings
   blanked), lines that carry 32-lane residue (:data:`PATTERNS`: literal lane arithmetic beside a lane
   or thread index, 32-bit masks, mask-less shuffles, ballot counts against 32, ``__activemask() ==
   0xffffffff``, 32-wide cooperative-groups tiles, CUB warp primitives without an explicit width,
   ``WARP_SIZE 32``-style macros). A hit is *covered* when a finding the port left open lies in the same
   function (or, outside functions, within two lines). Hits are written to ``hits.json`` for triage.
3. ``compile``: a seeded random sample (``--sample 40 --seed``) of the same programs, ported as in 1,
   compiled with ROCm 7.2.4 hipcc for gfx942 by ``benchmarks/hecbench_build.build_variant`` (units and
   flags from the ``-cuda`` Makefile's ``make -n -B``, ``--offload-arch=gfx942 --cuda-device-only -x hip -c``),
   one program at a time.

4. ``record``: one results file from the scans and compile samples made before and after vado's fixes.

Hits in vado's own ``vado_*`` helpers are counted apart (they call HIP's 64-lane builtins on purpose). Every
uncovered hit is triaged: :func:`auto_triage` reads the cases that need no judgement (a 32-bit mask given to
a ``vado_*32`` helper; 32-lane arithmetic in a function, or for a macro a file, where no warp operation acts
on the whole wavefront; HIP's ``tiled_partition<32>``), :data:`MANUAL` holds what was read by hand.

Usage (run under ``nice -n 10``; benchmarks/results/wave64_static_audit_2026-12-05.json came from these,
``port``/``scan`` once with vado at the branch point and once with the fixes)::

    python3 benchmarks/wave64_static_audit.py port --work /tmp/hba/work
    python3 benchmarks/wave64_static_audit.py scan --work /tmp/hba/work --json scan_before.json
    python3 benchmarks/wave64_static_audit.py compile --work /tmp/hba/cwork --sample 40 --seed 26 --json c.json
    python3 benchmarks/wave64_static_audit.py record --scan-before scan_before.json --scan-after scan_after.json \\
        --compile-before c.json --compile-after c2.json --out benchmarks/results/wave64_static_audit_2026-12-05.json
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

HECBENCH = Path("/work/repos/HeCBench/src")
MIRROR = Path("/work/.mirror/zjin-lcf+HeCBench/repo")
C_FAMILY = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".inl", ".cxx", ".hxx")

_LANEISH = r"(?:threadIdx\s*\.\s*[xyz]|\btid\b|\blane\w*|\bthread_?id\w*|\bidx\b|\bt\b|\bwarp\w*|\bwid\b|\bltid\b)"
#: (name, expression) of the 32-lane residue looked for on one line of device code.
PATTERNS: tuple[tuple[str, re.Pattern], ...] = (
    ("lane-arith", re.compile(_LANEISH + r"[^;]{0,40}?(?:&\s*(?:31|0x1[fF])\b|%\s*32\b|>>\s*5\b|/\s*32\b)"
                              r"|(?:\b32\s*\*|\*\s*32\b)[^;]{0,20}?" + _LANEISH)),
    ("mask32", re.compile(r"0x[fF]{8}[uU]?(?![0-9a-fA-F])|\b4294967295[uU]?\b|~0u\b|\bFULL_MASK\b|\bfull_mask\b")),
    ("shfl-no-width", re.compile(r"\b__shfl(?:_up|_down|_xor)?(?:_sync)?\s*\(")),
    ("ballot-count-32", re.compile(r"__popc\w*\s*\([^;]*__ballot[^;]*==\s*32|==\s*32[^;]*__popc\w*\s*\([^;]*__ballot")),
    ("activemask-full", re.compile(r"__activemask\s*\(\s*\)\s*==|==\s*__activemask\s*\(")),
    ("ballot", re.compile(r"\b__ballot(?:_sync)?\s*\(")),
    ("vote", re.compile(r"\b__(?:any|all)(?:_sync)?\s*\(|\b__activemask\s*\(|\b__lanemask_\w+|%lanemask")),
    ("cg-coalesced", re.compile(r"\bcoalesced_threads\s*\(")),
    ("cg-tile32", re.compile(r"tiled_partition\s*<\s*32\s*>|tiled_partition\s*\([^;]*,\s*32\s*\)|thread_block_tile\s*<\s*32\b")),
    ("cub-warp-default", re.compile(r"\b(?:hip)?cub::Warp(?:Reduce|Scan|Load|Store|Exchange|MergeSort)\s*<\s*[^,<>]+>")),
    ("warp-size-32-macro", re.compile(r"#\s*define\s+\w*WARP\w*\s+\(?32\)?\b|\b(?:constexpr|const)\s+\w+\s+\w*[wW][aA][rR][pP]\w*\s*=\s*32\b")),
    ("warpSize", re.compile(r"\bwarpSize\b")),
    ("laneid-asm", re.compile(r"%laneid|__lane_id\s*\(")),
)


def excluded(hecbench: Path, seed: int = 15, count: int = 38) -> dict[str, list[str]]:
    """The programs issue 26's runs already used: the seed-15 set and wave64_programs.json's HeCBench names."""
    import wave64_differential as w64

    pool = w64.eligible(hecbench)
    seed_set = sorted(p["name"] for p in random.Random(seed).sample(pool, min(count, len(pool))))
    listed = json.loads((ROOT / "benchmarks" / "wave64_programs.json").read_text())
    named = sorted(p["name"] for p in listed["programs"] if p.get("source") == "HeCBench")
    return {"seed_15": seed_set, "wave64_programs_json": named}


def remaining_programs(hecbench: Path) -> tuple[list[str], dict[str, list[str]]]:
    """Every ``-cuda`` program's name not in :func:`excluded`, sorted; and the exclusions."""
    ex = excluded(hecbench)
    gone = set(ex["seed_15"]) | set(ex["wave64_programs_json"])
    names = sorted(d.name[: -len("-cuda")] for d in hecbench.glob("*-cuda") if d.is_dir())
    return [n for n in names if n not in gone], ex


def _finding_json(f) -> dict:
    return {"code": f.code, "path": f.span.path, "line": f.span.line, "end_line": f.span.end_line or f.span.line,
            "message": f.message[:300]}


def port_one(hecbench: Path, work: Path, name: str, mirror: Path | None) -> dict:
    """Port ``name`` (and its siblings) under ``work/name/vado``; the open findings and the port's status."""
    import port_hecbench as ph

    layout = ph.Layout(hecbench.resolve(), work.resolve(), mirror)
    cuda = hecbench / f"{name}-cuda"
    root = work / name / "vado"
    root.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    out = root / cuda.name
    from vado.knowledge.targets import get_target
    from vado.port.tree import port_tree

    rec: dict = {"name": name, "out": str(out)}
    try:
        result = port_tree(cuda, out, get_target("rocm-7.2"))
    except Exception as exc:  # noqa: BLE001 (a crash of the tool is a measured outcome)
        rec["crash"] = f"{type(exc).__name__}: {exc}"
        return rec
    sibs = ph.referenced_siblings([cuda], {cuda.name})
    rec["siblings"] = [str(p) for p in layout.link_siblings(root, sibs, "vado")]
    rec["findings"] = [_finding_json(f) for f in result.remaining]
    rec["failed_files"] = [f"{f.path}: {f.error}" for f in result.files if f.status == "failed"]
    rec["seconds"] = round(time.perf_counter() - started, 2)
    return rec


def cmd_port(args) -> None:
    names, ex = remaining_programs(args.hecbench)
    if args.programs:
        names = [n for n in args.programs.split(",") if n]
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    recs = []
    for i, n in enumerate(names, 1):
        if (work / n).exists():
            shutil.rmtree(work / n)
        recs.append(port_one(args.hecbench, work, n, args.mirror))
        print(f"[{i}/{len(names)}] {n} {recs[-1].get('seconds', recs[-1].get('crash'))}", file=sys.stderr, flush=True)
    (work / "findings.json").write_text(json.dumps({"excluded": ex, "programs": recs}, indent=1))


def _blank(text: str) -> str:
    """``text`` with comments and string/char literals replaced by spaces (newlines kept)."""
    from vado.scan.lexer import Kind, lex

    parts, last = [], 0
    for kind, start, end, _ in lex(text):
        if kind in (Kind.COMMENT, Kind.STRING, Kind.CHAR):
            parts.append(text[last:start])
            parts.append(re.sub(r"[^\n]", " ", text[start:end]))
            last = end
    parts.append(text[last:])
    return "".join(parts)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*)$", re.MULTILINE)


def device_macros(texts: list[str]) -> set[str]:
    """Object-like macros of a program that stand for a device qualifier (``#define DEV __device__ inline``),
    also through another such macro: functions qualified with them are device code."""
    bodies = {m.group(1): set(re.findall(r"\w+", m.group(2))) for t in texts for m in _DEFINE.finditer(t)}
    device = {n for n, words in bodies.items() if words & {"__device__", "__global__"}}
    while True:
        more = {n for n, words in bodies.items() if n not in device and words & device}
        if not more:
            return device
        device |= more


def device_ranges(text: str, macros: set[str] = frozenset()) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of each device function in ``text``: ``__global__``/``__device__``, or
    qualified through one of ``macros``; extended ``__device__`` lambdas (found as functions named so)."""
    from vado.rules.cuda_syntax import find_functions
    from vado.scan.lexer import Kind, lex

    toks = lex(text)
    code = toks.code() if hasattr(toks, "code") else [t for t in toks if t[0] is not Kind.COMMENT]
    out = []
    for fn in find_functions(code):
        k, words = fn.name_index - 1, set()
        while k >= 0 and code[k][1] >= fn.start:
            words.add(code[k][3])
            k -= 1
        if fn.is_device or fn.name == "__device__" or words & macros:
            out.append((text.count("\n", 0, fn.start) + 1, text.count("\n", 0, fn.body_end) + 1, fn.name))
    return out


def scan_file(path: Path, rel: str, macros: set[str] = frozenset()) -> list[dict]:
    """The :data:`PATTERNS` hits of ``path`` inside device functions (macros: anywhere)."""
    text = path.read_bytes().decode("latin-1")
    ranges = device_ranges(text, macros)
    lines = _blank(text).split("\n")
    raw = text.split("\n")
    hits = []
    for no, line in enumerate(lines, 1):
        fn = next((r for r in ranges if r[0] <= no <= r[1]), None)
        for name, rx in PATTERNS:
            if not rx.search(line):
                continue
            if fn is None and name not in ("warp-size-32-macro",) and not line.lstrip().startswith("#"):
                continue
            hits.append({"file": rel, "line": no, "pattern": name, "function": fn[2] if fn else None,
                         "fn_lines": [fn[0], fn[1]] if fn else None, "text": raw[no - 1].strip()[:200]})
    return hits


#: A warp operation that acts on the whole 64-lane wavefront on gfx942 (not one of vado's ``vado_*32`` helpers).
RAW_WAVE_OPS = re.compile(r"(?<![\w.>])(?:__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__lane_id|__lanemask\w*"
                          r"|__match_\w+|__reduce_\w+_sync|coalesced_threads|__builtin_amdgcn_\w+)\s*\(")
#: Manual triage of the hits :func:`auto_triage` leaves open: (program, file, line) -> (verdict, why).
MANUAL: dict[tuple[str, str, int], tuple[str, str]] = {
    ("bmf", "src/bit_vector_kernels.cuh", 17): (
        "real", ("class warpsize-outside-body (fixed in WARP009): the default argument width = warpSize stayed 64, "
                 "so warpReduceSum's first vado_shfl_down_sync32 by 32 returned each lane's own value and doubled "
                 "the sum")),
    ("bsw", "kernel.cu", 62): ("harmless", "the function's own local `int warpSize = 32;` (line 54)"),
    ("filter", "main.cu", 61): (
        "harmless-here", ("class coalesced-group-spans-the-wave (fixed in WARP009): the group spanned 64 lanes; "
                          "filter's aggregated increment then hands out the same slots in another order, and its "
                          "check sorts the output")),
    ("mpc", "main.cu", 91): ("harmless", "the program's own __shfl_up macro, now forwarding to vado_shfl_up_sync32"),
}


def auto_triage(hit: dict, fn_text: str, file_text: str) -> tuple[str, str] | None:
    """(verdict, why) for the hits whose reading needs no judgement; None leaves the hit for :data:`MANUAL`.

    The default port emulates CUDA's 32-lane warps on a 64-lane wavefront (``--wave warp32``): warp functions
    become ``vado_*32`` helpers of 32-lane width whose masks and ballots name the caller's half, and device
    ``warpSize`` becomes 32. 32-lane arithmetic is then the program's warp, as on CUDA, unless the same
    function (a macro: the same file) still runs a warp operation over the whole wavefront."""
    pat, text = hit["pattern"], hit["text"]
    scope = fn_text if hit["function"] else file_text
    raw = RAW_WAVE_OPS.search(_strip_vado(scope))
    if pat == "mask32":
        if re.search(r"\bvado_\w+32\s*\(", text):
            return "harmless", "a 32-bit mask given to a vado_*32 helper, which names the caller's 32-lane half"
        if not RAW_WAVE_OPS.search(text) and not re.search(r"WARP_SYNC|__syncwarp", text):
            return "harmless", "a 32-bit constant (hash, bit pattern, sentinel), not a lane mask"
    if pat == "cg-coalesced":
        if re.search(r"binary_partition\s*\(\s*[\w:]*coalesced_threads\s*\(\s*\)\s*,\s*vado_half32", text):
            return "harmless", "coalesced_threads() split by 32-lane half: the caller's warp's active lanes"
        return None
    if pat == "cg-tile32":
        return "harmless", ("cg::tiled_partition<32> on HIP is a 32-lane tile of the 64-lane wave: thread_rank, "
                            "meta_group_rank/size, shfl and cg::reduce act within it, as on CUDA's warp")
    if pat == "warpSize":
        if re.search(r"#\s*define\s+warpSize|\bint\s+warpSize\s*=", text):
            return "harmless", "the program's own warpSize (a macro or local set to 32), left as written"
        return None  # HIP's warpSize, 64 on gfx942, left in device code: read by hand
    if pat in ("lane-arith", "warp-size-32-macro", "shfl-no-width", "mask32") and raw is None:
        return "harmless", ("32-lane arithmetic beside 32-lane warps: no warp operation in its "
                            + ("function" if hit["function"] else "file") + " acts on the whole wavefront")
    return None


def _strip_vado(text: str) -> str:
    """``text`` without vado's own helper definitions (their bodies call HIP's mask-less builtins)."""
    return re.sub(r"(?s)#ifndef VADO_\w+.*?#endif", "", text)


def covered(hit: dict, findings: list[dict]) -> list[str]:
    """Codes of the open findings that cover ``hit``: same file, and the same function (else within 2 lines)."""
    codes = []
    for f in findings:
        if not (f["path"] == hit["file"] or f["path"].endswith("/" + hit["file"]) or hit["file"].endswith(f["path"])):
            continue
        lo, hi = hit["fn_lines"] if hit["fn_lines"] else (hit["line"] - 2, hit["line"] + 2)
        if f["line"] <= hi and f["end_line"] >= lo:
            codes.append(f["code"])
    return sorted(set(codes))


def cmd_scan(args) -> None:
    doc = json.loads((args.work / "findings.json").read_text())
    out = {"excluded": doc["excluded"], "programs": []}
    for rec in doc["programs"]:
        prog = {"name": rec["name"], "crash": rec.get("crash", ""), "hits": []}
        out_dir = Path(rec["out"])
        if out_dir.is_dir():
            files = [p for p in sorted(out_dir.rglob("*"))
                     if p.is_file() and p.suffix in C_FAMILY and p.stat().st_size < 4_000_000]
            macros = device_macros([p.read_bytes().decode("latin-1") for p in files])
            prog["device_macros"] = sorted(macros)
            for p in files:
                rel = str(p.relative_to(out_dir))
                text = _blank(p.read_bytes().decode("latin-1"))
                lines = text.split("\n")
                for h in scan_file(p, rel, macros):
                    if (h["function"] or "").startswith("vado_"):
                        prog["vado_helper_lines"] = prog.get("vado_helper_lines", 0) + 1
                        continue  # vado's own helpers: 64-lane builtins on purpose
                    h["covered_by"] = covered(h, rec.get("findings", []))
                    fn_text = "\n".join(lines[h["fn_lines"][0] - 1:h["fn_lines"][1]]) if h["fn_lines"] else ""
                    verdict = MANUAL.get((rec["name"], rel, h["line"])) or auto_triage(h, fn_text, text)
                    h["triage"], h["why"] = verdict if verdict else ("open", "not triaged")
                    prog["hits"].append(h)
        prog["covered"] = sum(1 for h in prog["hits"] if h["covered_by"])
        prog["uncovered"] = len(prog["hits"]) - prog["covered"]
        out["programs"].append(prog)
    tot = sum(len(p["hits"]) for p in out["programs"])
    cov = sum(p["covered"] for p in out["programs"])
    by = {}
    for p in out["programs"]:
        for h in p["hits"]:
            k = by.setdefault(h["pattern"], [0, 0])
            k[0 if h["covered_by"] else 1] += 1
    triage: dict[str, int] = {}
    for p in out["programs"]:
        for h in p["hits"]:
            if not h["covered_by"]:
                triage[h["triage"]] = triage.get(h["triage"], 0) + 1
    out["totals"] = {"uncovered_triage": triage, "programs": len(out["programs"]), "with_hits": sum(1 for p in out["programs"] if p["hits"]),
                     "hits": tot, "covered": cov, "uncovered": tot - cov,
                     "by_pattern": {k: {"covered": v[0], "uncovered": v[1]} for k, v in sorted(by.items())}}
    args.json.write_text(json.dumps(out, indent=1))
    print(json.dumps(out["totals"], indent=1))


def cmd_compile(args) -> None:
    import hecbench_build as hb

    names, _ = remaining_programs(args.hecbench)
    sample = sorted(random.Random(args.seed).sample(names, min(args.sample, len(names))))
    if args.programs:
        sample = [n for n in args.programs.split(",") if n]
    hipcc = args.hipcc
    compiler = hb.compiler_version(hipcc)
    libraries = hb.library_environment(hipcc)
    results = []
    for i, n in enumerate(sample, 1):
        if (args.work / n).exists():
            shutil.rmtree(args.work / n)
        rec = port_one(args.hecbench, args.work, n, args.mirror)
        prog = Path(rec["out"])
        digest = [prog, *map(Path, rec.get("siblings", []))]
        res = hb.build_variant(prog, args.hecbench / f"{n}-cuda" / "Makefile", args.work / n / "objs", args.timeout,
                               args.cache, digest, arch=args.arch, hipcc=hipcc, compiler=compiler,
                               make_vars=hb.DEFAULT_MAKE_VARS, libraries=libraries)
        row = {"name": n, "ok": res.ok, "failure_class": res.failure_class, "first_error": res.first_error[:400],
               "note": res.note, "crash": rec.get("crash", "")}
        results.append(row)
        print(f"[{i}/{len(sample)}] {n}: {'ok' if res.ok else 'FAIL ' + res.failure_class + ' ' + res.first_error[:200]}",
              file=sys.stderr, flush=True)
    doc = {"seed": args.seed, "sample": sample, "arch": args.arch, "compiler": hb.version_summary(compiler),
           "compiled": sum(r["ok"] for r in results), "total": len(results), "results": results}
    args.json.write_text(json.dumps(doc, indent=1))
    print(f"{doc['compiled']}/{doc['total']} compiled")


#: The classes of 32-lane residue this audit found, each fixed with fixtures of vado's own (no HeCBench code).
CLASSES = [
    {"class": "warpsize-outside-body",
     "what": "device warpSize outside every function body vado finds: a device function's default argument "
             "(definition or prototype), a member's default initialiser, a device constructor's initialiser list "
             "or body, an extended __device__ lambda in host code: kept 64 beside 32-lane vado_*32 helpers",
     "effect": "bmf warpReduceSum(T val, const unsigned width = warpSize): first vado_shfl_down_sync32 by 32 in a "
               "32-lane warp returns the lane's own value: every warp sum doubled, port said nothing remained",
     "seen_in": ["bmf"], "fix": "WARP009 rewrites it to 32 (rules/warp/functions.py _device_outside_bodies, "
                                "_in_device_lambda)",
     "fixtures": ["tests/fixtures/WARP/WARP009-default-argument.cu", "tests/fixtures/PORT/warpsize-default-argument.cu"]},
    {"class": "macro-qualified-device-function",
     "what": "a device function qualified through the project's own macro (#define DEV __device__ __forceinline__, "
             "in the file or a project header, also through another macro): not device code to vado, its warpSize "
             "kept 64 while its shuffles became 32-lane helpers",
     "effect": "same doubling as above for a reduction from warpSize / 2",
     "seen_in": [], "note": "found from the scan's own blind spot: 18 of the audited programs qualify functions "
                            "through such macros, none of them with warpSize",
     "fix": "WARP009 reads such macros (rules/warp/common.py device_qualifier_macros)",
     "fixtures": ["tests/fixtures/WARP/WARP009-macro-qualifiers.cu", "tests/fixtures/PORT/warpsize-macro-qualifiers.cu",
                  "tests/port/test_wave.py::test_port_tree_reads_device_qualifier_macros_from_the_project_header"]},
    {"class": "coalesced-group-spans-the-wave",
     "what": "cooperative_groups::coalesced_threads() left as is: on a 64-lane wavefront HIP's group holds the "
             "active lanes of both 32-lane warps (size() up to 64, thread_rank() up to 63, shfl(v, 0) from the "
             "other warp's leader) where CUDA's holds the caller's warp's",
     "effect": "filter's aggregated atomicAdd takes one slot per 64 lanes: the same set of outputs (its check "
               "sorts), a different order; a per-warp table indexed by thread_rank() would overflow",
     "seen_in": ["filter"], "note": "filter's output is the same after its sort: harmless there, the class is not",
     "fix": "WARP009 splits it by half: binary_partition(coalesced_threads(), vado_half32() != 0u) (HIP 6.0+; "
            "a manual finding before)",
     "fixtures": ["tests/fixtures/WARP/WARP009-coalesced-threads.cu", "tests/fixtures/PORT/coalesced-threads-warp32.cu"]},
    {"class": "warp-size-attribute",
     "what": "host warp size from cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, d) / cuDeviceGetAttribute(..., "
             "CU_DEVICE_ATTRIBUTE_WARP_SIZE, ...): hipDeviceAttributeWarpSize is 64 on gfx942 beside 32-lane kernels",
     "effect": "launches sized with it cover half the warps; the port said nothing remained",
     "seen_in": [], "note": "the sibling of prop.warpSize (already 32); no audited HeCBench program queries it",
     "fix": "WARP009 sets the value to 32 after a call that stands alone in a block; a finding (manual) elsewhere",
     "fixtures": ["tests/fixtures/WARP/WARP009-warp-size-attribute.cu", "tests/fixtures/PORT/warp-size-attribute.cu"]},
]


def cmd_record(args) -> None:
    """One results file from the scans before and after the fixes and the compile samples."""
    def load(p):
        return json.loads(Path(p).read_text()) if p else None

    before, after = load(args.scan_before), load(args.scan_after)
    doc = {
        "about": "Issue 26: 32-lane residue in vado's default port (rocm-7.2, warp32 emulation) of HeCBench programs "
                 "not used by the wave64 differential; static (no GPU). benchmarks/wave64_static_audit.py",
        "hecbench": {"repo": "zjin-lcf/HeCBench", "commit": "f27000a5188f8ac79bd43fc95a1b3f890c18823d",
                     "path": str(args.hecbench)},
        "excluded": before["excluded"],
        "commands": [
            "python3 benchmarks/wave64_static_audit.py port --work W   # before: vado at the branch point, after: this branch",
            "python3 benchmarks/wave64_static_audit.py scan --work W --json scan.json",
            "python3 benchmarks/wave64_static_audit.py compile --work C --sample 40 --seed 26 --json compile.json",
        ],
        "patterns": [name for name, _ in PATTERNS],
        "classes": CLASSES,
    }
    keep = ("file", "line", "pattern", "function", "text", "covered_by", "triage", "why")
    for key, scan in (("scan_before_fixes", before), ("scan_after_fixes", after)):
        if scan is None:
            continue
        full = key == "scan_before_fixes"  # every hit once; after the fixes the counts per program
        doc[key] = {"totals": scan["totals"],
                    "programs": [{"name": p["name"], "covered": p["covered"], "uncovered": p["uncovered"],
                                  "crash": p.get("crash", ""), "device_macros": p.get("device_macros", [])}
                                 | ({"hits": [{k: h[k] for k in keep} for h in p["hits"]]} if full else {})
                                 for p in scan["programs"] if p["hits"] or p.get("crash") or p.get("device_macros")],
                    "programs_without_hits": [p["name"] for p in scan["programs"] if not p["hits"]]}
    for key, path in (("compile_before_fixes", args.compile_before), ("compile_after_fixes", args.compile_after)):
        if path:
            doc[key] = load(path)
    if args.extra:
        doc.update(json.loads(Path(args.extra).read_text()))
    args.out.write_text(json.dumps(doc, indent=1) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("port", "scan", "compile"):
        s = sub.add_parser(name)
        s.add_argument("--hecbench", type=Path, default=HECBENCH)
        s.add_argument("--mirror", type=Path, default=MIRROR if MIRROR.is_dir() else None)
        s.add_argument("--work", type=Path, required=True)
        s.add_argument("--programs", default="")
        if name == "scan":
            s.add_argument("--json", type=Path, required=True)
        if name == "compile":
            s.add_argument("--json", type=Path, required=True)
            s.add_argument("--sample", type=int, default=40)
            s.add_argument("--seed", type=int, default=26)
            s.add_argument("--hipcc", default="/var/cache/vado/rocm-7.2.4/bin/hipcc")
            s.add_argument("--arch", default="gfx942")
            s.add_argument("--timeout", type=float, default=300)
            s.add_argument("--cache", type=Path, default=None)
    r = sub.add_parser("record")
    r.add_argument("--hecbench", type=Path, default=HECBENCH)
    r.add_argument("--scan-before", required=True)
    r.add_argument("--scan-after")
    r.add_argument("--compile-before")
    r.add_argument("--compile-after")
    r.add_argument("--extra", help="a JSON object whose keys are added (the compile of bmf before and after)")
    r.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    {"port": cmd_port, "scan": cmd_scan, "compile": cmd_compile, "record": cmd_record}[args.cmd](args)


if __name__ == "__main__":
    main()
