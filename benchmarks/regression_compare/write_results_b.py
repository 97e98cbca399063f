"""Write benchmarks/results/regression_2026-12-05b.json from REGRESS_DIR's diffs, classification, timings and
the re-run with the fixes (same shape as regression_2026-12-05.json, plus timing and fixed_rerun)."""
import collections, json, os, subprocess, sys

R = os.environ.get("REGRESS_DIR", "/tmp/regress2")
WT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AD = json.load(open(R + "/auditdiff.json")); PD = json.load(open(R + "/portdiff.json"))
CL = json.load(open(R + "/classified.json")); EXTRA = json.load(open(R + "/extra.json"))


def rev(ref):
    return subprocess.run(["git", "-C", WT, "rev-parse", ref], capture_output=True, text=True).stdout.strip()


audits = collections.Counter(n.split("__")[0] for n in os.listdir(R + "/out/after/audit") if n.endswith(".json"))
ports = collections.Counter(n.split("__")[0] for n in os.listdir(R + "/out/after/port") if n.endswith(".report.json"))
classes = {}
for cid, meta in CL["classes"].items():
    items = CL["audit"].get(cid, []); pitems = CL["port"].get(cid, [])
    classes[cid] = dict(meta, audit_differences=len(items), audit_where=sorted({i["where"] for i in items}),
                        port_files=len(pitems), port_where=sorted({i["where"] for i in pitems}))
res = {
    "_about": "Second regression review of 2026-12-05 (five helper branches merged: project scope for kokkos/AMReX/OCCA, static Makefile reading, LIB012 hipCUB names, own-HIP WARP_SIZE 32, WARP001/002 own-HIP kinds, API009 tile sizes, operator words, PTX warp hints, API019/API021 torch rules, derive_config, HIP-on-CUDA layer): vado audit (JSON) and vado port of the same trees at the session's starting commit 07a0c68 and at main 703c591, every difference classified as intended (the commit that meant it) or a regression. Scripts: benchmarks/regression_compare/ (drive.py, diffaudit.py, diffport.py with REGRESS_DIR/BEFORE_SRC/AFTER_SRC/REGRESS_OUT; classify_b.py; write_results_b.py).",
    "trees": {"before": {"path": "/work/wt/regress2-old (detached git worktree, native .so copied)", "commit": rev("07a0c68")},
              "after": {"path": "/work/wt/regress2/src (branch regress2 at main)", "commit": rev("703c591")}},
    "commands": {"audit": "nice -n 10 python3 -m vado audit -f json -q --exit-zero -j 1 -o OUT PATH (PYTHONPATH=<tree>/src), one tree at a time (JOBS=1)",
                 "port": "nice -n 10 python3 -m vado port [--torch-extension auto for pypi*/tproj] -f json -q -j 1 --report R -o OUT PATH"},
    "corpora": {"repos": "/work/repos: llm.c mamba nccl-tests bitsandbytes moderngpu gunrock nvdiffrast stdgpu cuCollections exllamav2 DeepSpeed apex CTranslate2 cccl AMGX raft faiss xgboost lightseq ggml flashinfer ginkgo arrayfire tiny-cuda-nn FasterTransformer mmcv",
                "w64r": "/work/repos/w64r: BGHT GPUSorting SlabHash sputnik warpcore dgSPARSE-Lib Learn-CUDA-Programming RAJA amrex kokkos",
                "cudasamples": "/work/repos/cuda-samples/Samples: 0_Introduction 2_Concepts_and_Techniques 3_CUDA_Features 6_Performance",
                "hecbench": "/work/repos/HeCBench/src/*-cuda, every 17th of 526 (30 programs)",
                "pypi": "/work/repos/pypi (6 PyTorch-extension sdists, the pypi-port sources), --torch-extension auto",
                "pypi6": "/work/repos/pypi6 (11 sdists), --torch-extension auto",
                "tproj": "/work/repos/tproj: detectron2 pytorch3d flash-attention xformers (torch repos with their own ROCm path), --torch-extension auto"},
    "counts": {c: {"audited": audits[c], "ported": ports[c], "findings_before": v[0], "findings_after": v[1]} for c, v in AD["counts"].items()},
    "audit_changed": {k: {"findings": [v["nb"], v["na"]], "rocm_verdict": [v["verdicts_before"][0][1], v["verdicts_after"][0][1]],
                          "differences": len(v["diffs"])} for k, v in AD["changed"].items()},
    "port_changed_files": {k: {"files": len(v), "first": v[:5]} for k, v in PD.items()},
    "classes": classes,
    "differences_by_judgement": {j: {"audit": sum(c["audit_differences"] for c in classes.values() if c["judgement"] == j),
                                     "port_files": sum(c["port_files"] for c in classes.values() if c["judgement"] == j)}
                                 for j in ("intended", "regression")},
    "unclassified": CL["unclassified"],
    **EXTRA,
}
out = os.path.join(WT, "benchmarks/results/regression_2026-12-05b.json")
json.dump(res, open(out, "w"), indent=1, default=str)
print("written", out, len(classes), "classes")
