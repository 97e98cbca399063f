"""An audit names the build files that already build for AMD GPUs (AuditResult.amd_support): auto-gptq 0.7.1's
setup.py tests torch.version.hip, exllama 0.1.0's cuda_ext.py load()s with ROCm flags; neither audit said the
project supports ROCm itself."""

from __future__ import annotations

import json

from vado.audit.pipeline import audit
from vado.report import render
from vado.report.json_report import load_audit_json

_CU = "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"


def _tree(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_build_files_that_build_for_amd_are_named(tmp_path):
    setup = _tree(tmp_path / "setup", {
        "k.cu": _CU,
        "setup.py": "import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                    "flags = ['-DROCM'] if torch.version.hip else []\n"
                    "e = CUDAExtension('k', ['k.cu'], extra_compile_args={'nvcc': flags})\n"})
    jit = _tree(tmp_path / "jit", {
        "p/k.cu": _CU, "setup.py": "from setuptools import setup\nsetup(name='p')\n",
        "p/ext.py": "import torch\nfrom torch.utils.cpp_extension import load\n"
                    "k = load('k', ['k.cu'], extra_cuda_cflags=['-O3'] + (['-U__HIP_NO_HALF_CONVERSIONS__'] "
                    "if torch.version.hip else []))\n",
        # a Python file that is no extension build says nothing, whatever it names
        "p/info.py": "import torch\nprint(torch.version.hip)\n"})
    plain = _tree(tmp_path / "plain", {
        "k.cu": _CU, "setup.py": "from torch.utils.cpp_extension import CUDAExtension\ne = CUDAExtension('k', ['k.cu'])\n",
        "README.md": "Builds with torch.version.hip too, one day.\n"})
    got = {name: audit(tree).amd_support for name, tree in (("setup", setup), ("jit", jit), ("plain", plain))}
    assert got == {"setup": ("setup.py: torch.version.hip",), "jit": ("p/ext.py: torch.version.hip",), "plain": ()}
    result = audit(setup)
    text = render(result, "text", width=200)
    assert "Existing AMD support: setup.py: torch.version.hip" in text
    assert "Existing AMD support" not in render(audit(plain), "text", width=200)
    doc = json.loads(render(result, "json"))
    assert doc["amd_support"] == ["setup.py: torch.version.hip"]
    assert load_audit_json(render(result, "json")).amd_support == ("setup.py: torch.version.hip",)
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - the test extra installs it
        return
    from vado.report.json_report import audit_schema

    jsonschema.Draft202012Validator(audit_schema()).validate(doc)


_UTILS = ("#define FULL_MASK 0xffffffff\n#ifdef USE_ROCM\n#define SHFL_SYNC(mask, var, delta) __shfl(var, delta)\n"
          "#else\n#define SHFL_SYNC __shfl_sync\n#endif\n")
_SPMM = ('#include "utils.cuh"\n__global__ void k(const int* col, float* out) {\n'
         "  int row = threadIdx.x >> 5, lane = threadIdx.x & (32 - 1);\n  int c = col[row * 32 + lane];\n"
         "  for (int i = 0; i < 32; i++) out[row * 32 + i] += SHFL_SYNC(FULL_MASK, c, i);\n}\n")
_SETUP = ("import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
          "flags = ['-DUSE_ROCM'] if torch.version.hip else []\n"
          "e = CUDAExtension('k', ['csrc/spmm.cu'], extra_compile_args={'nvcc': flags})\n")


def test_existing_amd_support_says_when_its_own_rocm_path_is_wrong_on_wave64(tmp_path):
    """torch_sparse 0.6.18's shape: the project builds for ROCm itself, but its USE_ROCM shuffle macro is HIP's
    __shfl without a width under kernels that index 32-lane warps. The audit must not stop at "builds for ROCm
    already": the summary and the ROCm verdict say its own ROCm path is wrong on 64-lane wavefronts, and where."""
    wrong = audit(_tree(tmp_path / "wrong", {"csrc/utils.cuh": _UTILS, "csrc/spmm.cu": _SPMM, "setup.py": _SETUP}))
    text = render(wrong, "text", width=250)
    assert "its own ROCm code, except the calls below" in text
    assert "Its own ROCm path is wrong on 64-lane wavefronts (gfx90a/gfx942/gfx950): 1 cross-lane call of its AMD " \
           "branch (csrc/utils.cuh:3)" in text
    (rocm,) = [v for v in wrong.verdicts if v.target == "rocm-7.2"]
    assert "but its own ROCm path is wrong on 64-lane wavefronts" in rocm.reason
    # Negative: a user sized by warpSize proves nothing: "builds for ROCm already" as before, no such line.
    sized = _SPMM.replace("threadIdx.x >> 5", "threadIdx.x / warpSize")
    right = audit(_tree(tmp_path / "right", {"csrc/utils.cuh": _UTILS, "csrc/spmm.cu": sized, "setup.py": _SETUP}))
    text = render(right, "text", width=250)
    assert "Existing AMD support" in text and "wrong on 64-lane wavefronts" not in text
