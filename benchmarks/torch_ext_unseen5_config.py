#!/usr/bin/env python3
"""The batch-5 (issue 29, benchmarks/torch_ext/unseen5_*) package descriptions for torch_ext_gfx942.py.

    PYTHONPATH=src python3 benchmarks/torch_ext_unseen5_config.py PORT_ROOT OUT.json [after]

Derived from setup.py where vado.build.torch_setup.derive_config reads it (the sdist's, /work/repos/pypi6, for CUDA;
PORT_ROOT's for ROCm); hand-written (``hand_written`` says why) for the three it could not read before batch 7
(classes, ``'build_ext' in sys.argv``, ``cpp_extension.load()``): kept as a fallback where it still reads nothing. ``after`` gives the
hand-written entries the ROCm flags of the after port's files (setup.py's BASE_FLAGS, optimizer.py's load() flags),
else the original's. A package whose setup.py leaves the CUDA extension out on ROCm gets the CUDA build's sources
and a ``rocm_gate`` note. Packages missing under PORT_ROOT are left out.
"""
import json, sys
from pathlib import Path
from vado.build.torch_setup import derive_config

ORIG = Path("/work/repos/pypi6")
port_root, out = Path(sys.argv[1]), Path(sys.argv[2])
sha = dict(l.split() for l in (ORIG / "sha.txt").read_text().splitlines())
DIRS = {"torchlpc": "torchlpc-0.7.2", "torch_ms_deform_attn": "torch_ms_deform_attn-0.1.1",
        "torchcompactradius": "torchcompactradius-0.5.5", "torchac_cuda": "torchac_cuda-0.2.5",
        "torch_projectors": "torch_projectors-0.13.1", "beamgrad": "beamgrad-2.3.0",
        "stainx": "stainx-0.1.6", "torch_llm_kernels": "torch_llm_kernels-0.1.0",
        "adafactor8bit": "adafactor8bit-0.4.6"}

def flags(cxx, nvcc, defines=()):
    return {"defines": list(defines), "undefines": [], "cxx": list(cxx), "nvcc": list(nvcc), "flags": list(nvcc)}

HAND = {
    # setup.py builds it inside a class method, gated on torch.cuda.is_available() and shutil.which("nvcc")
    "stainx": dict(module="stainx_cuda_torch", kind="pybind", include_dirs=["src/stainx_cuda_torch/csrc", "."],
        defines=["TARGET_CUDA_ARCH=75"],
        cuda=flags(["-std=c++17", "-O3", "-DNDEBUG"], ["--expt-relaxed-constexpr", "--use_fast_math", "-std=c++17", "-O3", "-DNDEBUG", "-Xcompiler", "-funroll-loops", "-Xcompiler", "-ffast-math", "-Xcompiler", "-finline-functions", "-gencode", "arch=compute_75,code=sm_75"]),
        extensions=[{"name": "stainx_cuda_torch", "full_name": "stainx_cuda_torch.stainx_cuda_torch",
                     "sources": [f"src/stainx_cuda_torch/csrc/{f}" for f in ("bindings.cpp", "histogram_matching.cu", "reinhard.cu", "macenko.cu")]}],
        hand_written="setup.py makes the CUDAExtension in a method of a class (CUDAExtensionBuilder.build), not read by derive_config"),
    # setup.py makes the extension only when 'build_ext' is in sys.argv
    "torch_llm_kernels": dict(module="torch_llm_kernels", kind="ops", include_dirs=["src/torch_llm_kernels/csrc"], defines=[],
        cuda=flags(["-O3", "-fdiagnostics-color=always", "-DPy_LIMITED_API=0x03090000"], ["-O3"]),
        extensions=[{"name": "_C", "full_name": "torch_llm_kernels._C",
                     "sources": ["src/torch_llm_kernels/csrc/module.cpp", "src/torch_llm_kernels/csrc/swiglu_kernel.cu"]}],
        hand_written="setup.py makes the CUDAExtension only under `'build_ext' in sys.argv`, which derive_config does not decide"),
    # JIT: torch.utils.cpp_extension.load(sources=[kernels.cu], extra_cuda_cflags=[-O3, --use_fast_math]) in optimizer.py
    "adafactor8bit": dict(module="adafactor8bit_cuda", kind="pybind", include_dirs=[], defines=[],
        cuda=flags([], ["-O3", "--use_fast_math"]),
        extensions=[{"name": "adafactor8bit_cuda", "full_name": "adafactor8bit_cuda", "sources": ["adafactor8bit/kernels.cu"]}],
        hand_written="JIT: optimizer.py calls torch.utils.cpp_extension.load() at run time; setup.py builds nothing"),
}

AFTER = len(sys.argv) > 3 and sys.argv[3] == "after"
# what the port's files give on ROCm (read from the port: setup.py's BASE_FLAGS / optimizer.py's extra_cuda_cflags)
ROCM_AFTER = {
    "stainx": flags(["-std=c++17", "-O3", "-DNDEBUG"], ["-ffast-math", "-std=c++17", "-O3", "-DNDEBUG", "-funroll-loops", "-ffast-math", "-finline-functions"], ["TARGET_CUDA_ARCH=75"]),
    "torch_llm_kernels": flags(["-O3", "-fdiagnostics-color=always", "-DPy_LIMITED_API=0x03090000"], ["-O3"]),
    "adafactor8bit": flags([], ["-O3", "-ffast-math"]),
}
pk = {}
for name, d in DIRS.items():
    if not (port_root / d).is_dir():
        continue
    sd = next(k for k in sha if k.startswith(d))
    if name in HAND and derive_config(port_root / d)[0] is None:  # derive_config reads all three since batch 7
        h = dict(HAND[name])
        # the ROCm flags are what the port's files give: read from the port where the port changed them
        h["rocm"] = ROCM_AFTER[name] if AFTER else h["cuda"]
        pk[name] = {"sdist": sd, "sha256": sha[sd], "dir": d, **h}
        continue
    o, _ = derive_config(ORIG / d)
    p, dp = derive_config(port_root / d)
    if o is None:
        o = p
    if p is None or not p["extensions"]:
        p = o
    entry = {**p, "sdist": sd, "sha256": sha[sd], "dir": d}
    entry["cuda"] = o["cuda"]
    if not p["extensions"] or any("not built on rocm" in u["what"] for u in p["derived"]["undecidable"]):
        entry["extensions"] = o["extensions"]
        entry["rocm_gate"] = "setup.py does not build the CUDA extension on ROCm; the CUDA build's sources are compiled with the ROCm flags"
    pk[name] = entry
out.write_text(json.dumps({"_about": "batch 5 config (generated by mkconfig.py)", "packages": pk}, indent=1))
for n, e in pk.items():
    print(n, e.get("module"), [(x["name"], len(x["sources"])) for x in e["extensions"]], e["rocm"]["nvcc"], e.get("rocm_gate", ""))
