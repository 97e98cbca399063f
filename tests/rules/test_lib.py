"""Unit tests of the LIB rules: verdicts from hand-made library facts, detection precision on real ones."""

from __future__ import annotations

import pytest

from vado.knowledge.libraries import LibraryFact, VendorFact
from vado.model import Target, Verdict
from vado.rules import lib as lib_rules
from vado.rules.base import FileContext
from vado.rules.engine import check_text
from vado.scan.classify import FileKind

ROCM = Target("rocm-7.2", "rocm", "7.2.4", hip_version="7.2", libraries={"hipFoo": "3.2.0", "rocFoo": "5.2.0"})
ONEAPI = Target("oneapi", "oneapi", "2026.0")
SCALE = Target("scale", "scale", "1.7.1")
ZLUDA = Target("zluda", "zluda", "6")


def fact(lib_id="foo", *, rocm=None, intel=None, scale=None, zluda=None) -> LibraryFact:
    return LibraryFact(
        id=lib_id, name="Foo", kind="library", source="test",
        rocm=rocm or VendorFact("rocm", "test"), intel=intel, scale=scale, zluda=zluda,
    )


@pytest.mark.parametrize(
    ("shape", "expected"),
    [("drop-in", Verdict.AUTOMATIC), ("near-drop-in", Verdict.AUTOMATIC), ("rework", Verdict.MANUAL),
     ("none", Verdict.BLOCKED), ("", Verdict.MANUAL)],
)
def test_rocm_verdict_follows_api_shape(shape, expected):
    f = fact(rocm=VendorFact("rocm", "t", api_shape=shape, hip_wrapper="hipFoo", roc_native="rocFoo 5.2.0 (ROCm 7.2)"))
    verdict, reason = lib_rules.library_verdict(f, ROCM)
    assert verdict is expected
    if shape in ("drop-in", "near-drop-in"):
        assert reason == f"{shape} → hipFoo 3.2.0 / rocFoo 5.2.0"
    if shape == "rework":  # the native library first for a rework
        assert reason == "rework → rocFoo 5.2.0 / hipFoo 3.2.0"


def test_rocm_roc_option_puts_roc_library_first():
    f = fact(rocm=VendorFact("rocm", "t", api_shape="drop-in", hip_wrapper="hipFoo", roc_native="rocFoo"))
    assert lib_rules.library_verdict(f, ROCM, roc=True)[1] == "drop-in → rocFoo 5.2.0 / hipFoo 3.2.0"


def test_rocm_early_access_needs_manual_work():
    f = fact(rocm=VendorFact("rocm", "t", api_shape="near-drop-in", equivalent="hipFoo (preview)",
                             gaps=("Early-access; needs an opt-in",)))
    verdict, reason = lib_rules.library_verdict(f, ROCM)
    assert verdict is Verdict.MANUAL and "early-access" in reason


def test_rocm_no_port_names_the_route():
    f = fact(rocm=VendorFact("rocm", "t", api_shape="none", equivalent="MIGraphX 2.15.0 (ROCm 7.2) via ONNX Runtime"))
    assert lib_rules.library_verdict(f, Target("r", "rocm", "7.2", hip_version="7.2", libraries={"MIGraphX": "2.15.0"})) == (
        Verdict.BLOCKED, "no ROCm port; route: MIGraphX 2.15.0")
    g = fact(rocm=VendorFact("rocm", "t", api_shape="none", equivalent="No HIP port of Foo; use Bar or Baz"))
    assert lib_rules.library_verdict(g, ROCM) == (Verdict.BLOCKED, "no ROCm port; use Bar or Baz")


def test_oneapi_verdicts():
    low = VendorFact("intel", "t", equivalent="none found", confidence="low")
    assert lib_rules.library_verdict(fact(intel=low), ONEAPI) == (Verdict.BLOCKED, "no oneAPI equivalent found (unverified)")
    rework = VendorFact("intel", "t", api_shape="rework", equivalent="oneMKL BLAS (SYCL API)")
    assert lib_rules.library_verdict(fact(intel=rework), ONEAPI) == (Verdict.MANUAL, "rework → oneMKL BLAS")
    none = VendorFact("intel", "t", api_shape="none", equivalent="OpenVINO (ONNX Runtime OpenVINO EP)")
    assert lib_rules.library_verdict(fact(intel=none), ONEAPI) == (Verdict.BLOCKED, "no SYCL port; route: OpenVINO")
    assert lib_rules.library_verdict(fact(), ONEAPI) == (Verdict.MANUAL, "no oneAPI fact recorded")


@pytest.mark.parametrize(
    ("status", "expected"),
    [("supported", Verdict.MOVES_AS_IS), ("partial", Verdict.MANUAL), ("failing", Verdict.MANUAL),
     ("none", Verdict.BLOCKED), ("unknown", Verdict.MANUAL)],
)
def test_scale_verdict_follows_status(status, expected):
    assert lib_rules.library_verdict(fact(scale=VendorFact("scale", "t", status=status)), SCALE)[0] is expected
    assert lib_rules.library_verdict(fact(), SCALE) == (Verdict.MANUAL, "coverage not documented")


def test_zluda_shims_binaries_and_header_only_libraries():
    shim = VendorFact("zluda", "t", status="supported", shim="zluda_foo")
    assert lib_rules.library_verdict(fact(zluda=shim), ZLUDA) == (Verdict.MOVES_AS_IS, "shim zluda_foo")
    partial = VendorFact("zluda", "t", status="partial", shim="zluda_dnn9")
    assert lib_rules.library_verdict(fact(zluda=partial), ZLUDA) == (Verdict.MANUAL, "partial shim zluda_dnn9")
    assert lib_rules.library_verdict(fact(), ZLUDA) == (Verdict.BLOCKED, "no ZLUDA shim")
    assert lib_rules.library_verdict(fact("thrust"), ZLUDA)[0] is Verdict.MANUAL


# Detection, against the real library table -------------------------------------------------


def uses(src: str, path: str = "a.cu"):
    ctx = FileContext(path, FileKind.CUDA_SOURCE, src, (ROCM,))
    return lib_rules.library_uses(ctx)


def test_detection_precision():
    src = (
        '#include "my_cudnn_helpers.h"\n'
        '#include "cudnn_utils.h"\n'  # a quoted include matched only by the cudnn_*.h wildcard
        "#define CUDNN_CHECK(x) x\n"
        "bool cudnn_enabled = true; int nvml_available = 0;\n"
        '// cudnnCreate(&h);\nconst char* s = "nvmlInit";\n'
        "obj.cudnnCreate(); mylib::nvmlInit();\n"
    )
    assert uses(src) == {}


def test_detection_evidence_and_first_position():
    src = (
        "int f() {\n"
        "  nvshmem_init();\n"
        "  void* p = nvshmem_malloc(8);\n"
        '  void* h = dlopen("libcudnn.so.9", 0);\n'
        "}\n"
        "#include <cudnn.h>\n"
        "cudnnHandle_t handle;\n"
    )
    found = uses(src)
    assert set(found) == {"nvshmem", "cudnn"}
    nv = found["nvshmem"]
    assert nv.identifiers == {"nvshmem_init": 1, "nvshmem_malloc": 1}
    assert src[nv.first[0] : nv.first[1]] == "nvshmem_init"
    dnn = found["cudnn"]
    assert dnn.headers == ["cudnn.h"] and dnn.links == ["libcudnn.so.9"] and dnn.identifiers == {"cudnnHandle_t": 1}
    assert src[dnn.first[0] : dnn.first[1]] == '"libcudnn.so.9"'  # the earliest evidence


def test_namespaces_are_evidence_but_user_namespaces_are_not():
    found = uses("cutlass::gemm::GemmCoord c; cute::Tensor t; std::vector<int> v; my::cutlass_like x;")
    assert set(found) == {"cutlass"}
    assert found["cutlass"].identifiers == {"cutlass::": 1, "cute::": 1}


def test_one_finding_per_file_and_library_with_data():
    src = "#include <cudnn.h>\n" + "cudnnCreate(&h);\n" * 50
    found = check_text("a.cu", src, (ROCM, ZLUDA), rules=(lib_rules.CudnnUse,))
    assert len(found) == 1
    f = found[0]
    assert (f.span.line, f.span.column) == (1, 10)
    assert f.data["library"] == "cudnn" and f.data["headers"] == ["cudnn.h"]
    assert f.data["identifiers"] == {"cudnnCreate": 50}
    assert f.verdicts == {"rocm-7.2": Verdict.MANUAL, "zluda": Verdict.MANUAL}
    assert f.message.startswith("uses cuDNN (<cudnn.h>; 50 identifier uses) — rocm-7.2: rework → MIOpen")
    assert f.effort.lines == 51 and f.effort.constructs == 1


def test_rules_split_libraries_between_them():
    src = "#include <cublas_v2.h>\n#include <NvInfer.h>\n"
    found = check_text("a.cu", src, (ROCM,), rules=(lib_rules.MappedLibraryUse, lib_rules.TensorrtUse))
    assert [(f.code, f.data["library"]) for f in found] == [("LIB010", "cublas"), ("LIB002", "tensorrt")]
    assert found[1].verdicts == {"rocm-7.2": Verdict.BLOCKED}


def test_every_lib_rule_names_known_libraries():
    from vado.knowledge.libraries import library_ids

    known = set(library_ids())
    for rule in (r for r in vars(lib_rules).values() if isinstance(r, type) and issubclass(r, lib_rules._LibraryRule)):
        assert set(rule.library_ids) <= known, rule.code


def test_libcudacxx_is_not_a_project_header_of_the_same_name(tmp_path):
    """torch_scatter's shape: csrc/scatter.cpp includes <cuda/scatter_cuda.h>, the project's own
    csrc/cuda/scatter_cuda.h (found from an -I root at or above the including folder); a
    <cuda/std/...> header the tree does not hold is still libcu++."""
    from vado.knowledge.targets import get_target
    from vado.rules.engine import check_text
    from vado.scan.classify import FileKind

    (tmp_path / "csrc" / "cuda").mkdir(parents=True)
    (tmp_path / "csrc" / "cuda" / "scatter_cuda.h").write_text("#pragma once\nvoid scatter_cuda();\n")
    rocm = get_target("rocm-7.2")
    own = '#include <cuda/scatter_cuda.h>\nvoid f() { scatter_cuda(); }\n'
    real = '#include <cuda/scatter_cuda.h>\n#include <cuda/std/atomic>\n'
    options = {"source_root": str(tmp_path)}

    def lib010(text, opts):
        return [f for f in check_text("csrc/scatter.cpp", text, [rocm], kind=FileKind.CUDA_SOURCE, options=opts)
                if f.code == "LIB010" and f.data.get("library") == "libcudacxx"]

    assert lib010(own, options) == []
    assert [f.data["headers"] for f in lib010(real, options)] == [["cuda/std/atomic"]]
    # Without a known tree root, the name tells them apart: libcu++'s headers have no extension (CUDA 13.0's
    # include/cccl/cuda: <cuda/atomic>, <cuda/std/atomic>), so <cuda/scatter_cuda.h> is no libcu++ header (it was
    # reported before), and neither is auto-gptq 0.7.1's "cuda/q_gemm.cuh", which its sdist does not even ship.
    assert lib010(own, {}) == []
    missing = '#include "cuda/q_matrix.cuh"\n#include "cuda/q_gemm.cuh"\n'
    assert lib010(missing, options) == [] and lib010(missing, {}) == []
    assert [f.data["headers"] for f in lib010(real, {})] == [["cuda/std/atomic"]]
    assert [f.data["headers"] for f in lib010('#include <cuda/atomic>\n#include "cuda/barrier"\n', {})] == [
        ["cuda/atomic", "cuda/barrier"]]
