"""Classify the differences of the second review (07a0c68 -> main 703c591); prints anything unclassified.

Reads REGRESS_DIR/auditdiff.json and portdiff.json (diffaudit.py, diffport.py) and the ported trees under
REGRESS_DIR/out; writes REGRESS_DIR/classified.json. Every class names the commits that meant it."""
import collections, difflib, json, os

R = os.environ.get("REGRESS_DIR", "/tmp/regress2")
AD = json.load(open(R + "/auditdiff.json"))
PD = json.load(open(R + "/portdiff.json"))

CLASSES = {
    "project-scope-own-rocm": {"judgement": "intended", "commits": ["0a0f8ea", "c1d9871", "4c3f160", "b899525", "86a7af4", "a5a2aa5"],
        "description": "A project with its own complete ROCm build (kokkos Kokkos_ENABLE_HIP, AMReX AMReX_GPU_BACKEND=HIP): its CUDA backend files, #error-guarded CUDA setup files, CUDA-only CMake probes and C++ that only tests CUDA's compiler macros are not compiled for AMD and are left as written; their findings leave the ROCm verdict or become moves-as-is (with its own ROCm build), and the port no longer edits them"},
    "lib012-hipcub-names": {"judgement": "intended", "commits": ["f43639c"],
        "description": "LIB012: a cub:: name hipCUB 4.2.0 does not declare keeps a needs-manual-work finding (DispatchRadixSort, ScanTileState, TilePrefixCallbackOp, SmVersion, CurrentDevice, agent policies)"},
    "ptx-warp-hints": {"judgement": "intended", "commits": ["21d4a7e"],
        "description": "PTX001 message: the warp-collective PTX (redux.sync, elect.sync) names the warp32 helpers and the --wave native builtins"},
    "api009-tile-size-messages": {"judgement": "intended", "commits": ["dbafbfc", "4229cc3", "08b0516"],
        "description": "API009 message: a tile size computed from values vado cannot read says so (was: 'not defined in this file')"},
    "bld005-flag-fix-no-empty-call": {"judgement": "intended", "commits": ["5a467fa"],
        "description": "BLD005: a flag fix that would empty the call (args.append('--ptxas-options=-v') -> args.append()) or cut a quoted value is reported without a fix (manual) instead of breaking the build script"},
    "api021-new-rule": {"judgement": "intended", "commits": ["48b5ff6"],
        "description": "API021 (new): torchcompactradius 0.5.5 getOffsets calls power, deviceInline constexpr (3 calls), as its commit measured"},
    "REGRESSION-api021-flashinfer": {"judgement": "regression", "commits": ["48b5ff6"], "fixed_by": "7396adc",
        "description": "API021 false positives on flashinfer csrc/xqa: 'sizeof' taken for a device-only constexpr function (from '__device__ constexpr uint32_t smemSize = sizeof(SharedMem);'), kernel_mha_impl/kernel_mha taken for host code (their __device__/__global__ sit in #ifdef branches above the return type), and mha::min (using std::min; in the active branch) taken for the __device__ min of the #else branch"},
    "runtime-include-torch-port": {"judgement": "intended", "commits": ["2d08ee4", "d260038"],
        "description": "torch-extension port: a .cu TU that PyTorch's hipify gives no hip_runtime.h (no kernel, shared memory, __syncthreads or launch, no mapped CUDA header) gets '#if defined(USE_ROCM) #include <hip/hip_runtime.h> #endif' (explicit template-instantiation TUs of FasterTransformer, apex, flashinfer, mamba, flash-attention, detectron2); a no-op outside PyTorch's ROCm build"},
    "hipcc-rejects-flag-own-amd-setup": {"judgement": "intended", "commits": ["5a467fa"],
        "description": "A setup.py that builds for AMD itself keeps an nvcc flag hipcc rejects from hipcc (*([] if torch.version.hip else [...]), -ffast-math for --use_fast_math, -U__HIP_NO_HALF_* for -U__CUDA_NO_HALF_*); the port summary says so"},
    "port-report-text": {"judgement": "intended", "commits": ["5a467fa", "2d08ee4", "f43639c", "21d4a7e"],
        "description": "vado-port-report.md lines that follow the classes above (own-AMD setup.py sentence, remaining-findings table, runtime-include lines, file counts, the truncated file list)"},
}


def audit_class(prog, d):
    code = d["key"][0]
    if prog in ("w64r__kokkos", "w64r__amrex") or (prog == "repos__stdgpu" and d["key"][1].startswith("cmake/")):
        return "project-scope-own-rocm"
    if prog == "repos__CTranslate2" and code == "ARCH007":
        return "project-scope-own-rocm"
    if code == "LIB012":
        return "lib012-hipcub-names"
    if code == "PTX001" and d.get("msgonly"):
        return "ptx-warp-hints"
    if code == "API009" and d.get("msgonly"):
        return "api009-tile-size-messages"
    if code == "BLD005" and prog in ("repos__DeepSpeed", "pypi6__torchcompactradius-0.5.5"):
        return "bld005-flag-fix-no-empty-call"
    if code == "API021":
        return "api021-new-rule" if prog.startswith("pypi6__torchcompactradius") else "REGRESSION-api021-flashinfer"
    return None


RUNTIME = ("+#if defined(USE_ROCM)", "+#include <hip/hip_runtime.h>", "+#endif")


def port_class(prog, f):
    if f == "vado-port-report.md":
        return "port-report-text"
    if prog in ("w64r__kokkos", "w64r__amrex", "repos__stdgpu", "repos__CTranslate2"):
        return "project-scope-own-rocm"
    b = open(f"{R}/out/before/port/{prog}/{f}", errors="replace").read().splitlines()
    a = open(f"{R}/out/after/port/{prog}/{f}", errors="replace").read().splitlines()
    d = [l for l in difflib.unified_diff(b, a, n=0, lineterm="") if l[:1] in "+-" and not l.startswith(("+++", "---"))]
    if all(l[1:].strip() in ("", "#if defined(USE_ROCM)", "#include <hip/hip_runtime.h>", "#endif") for l in d) \
            or d == ["+#include <hip/hip_runtime.h>"]:
        return "runtime-include-torch-port"
    if f.endswith(".py") and all("torch.version.hip" in l or l.startswith("-") for l in d):
        return "hipcc-rejects-flag-own-amd-setup"
    if prog == "repos__DeepSpeed" and f == "op_builder/builder.py":
        return "bld005-flag-fix-no-empty-call"
    return None


out = {"audit": collections.defaultdict(list), "port": collections.defaultdict(list), "unclassified": []}
for prog, o in AD["changed"].items():
    for d in o["diffs"]:
        c = audit_class(prog, d)
        item = {"where": prog, "code": d["key"][0], "path": d["key"][1], "line": d["key"][2],
                "change": "message" if d.get("msgonly") else ("added" if not d["before"] else "removed" if not d["after"] else "verdict/severity/fix")}
        (out["audit"][c] if c else out["unclassified"]).append(item)
    if o["verdicts_before"] != o["verdicts_after"] and prog not in ("w64r__kokkos", "w64r__amrex", "repos__stdgpu"):
        out["unclassified"].append({"where": prog, "verdicts": [o["verdicts_before"], o["verdicts_after"]]})
for prog, files in PD.items():
    for f, kind, n in files:
        c = port_class(prog, f) if kind == "differs" else None
        item = {"where": prog, "file": f, "change": kind, "lines": n}
        (out["port"][c] if c else out["unclassified"]).append(item)
json.dump({"classes": CLASSES, **out}, open(R + "/classified.json", "w"), indent=1)
for c in CLASSES:
    a, p = out["audit"].get(c, []), out["port"].get(c, [])
    print(f"{c}: audit {len(a)} in {sorted({x['where'] for x in a})}; port files {len(p)} in {len({x['where'] for x in p})} trees")
print("UNCLASSIFIED", len(out["unclassified"]))
for u in out["unclassified"][:30]:
    print("  ", u)
