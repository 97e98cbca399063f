"""Unit tests of the API rules against a small hand-made CUDA→HIP table.

The real table is exercised by the fixtures (tests/fixtures/API); here the
table is a fake with a handful of entries, so each status and each target
family can be tested on its own and the expected findings are known exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from vado.model import Severity, Target, Verdict
from vado.rules import api as api_rules
from vado.rules.engine import check_text

ROCM = Target("rocm-7.2", "rocm", "7.2.4", hip_version="7.2")
HIP52 = Target("hip-5.2", "rocm", "5.2.3", hip_version="5.2")
ONEAPI = Target("oneapi", "oneapi", "2026.0")
SCALE = Target("scale", "scale", "1.7.1")
ZLUDA = Target("zluda", "zluda", "6")
ALL = (ROCM, HIP52, ONEAPI, SCALE, ZLUDA)


@dataclass(frozen=True)
class Entry:
    cuda_name: str
    kind: str
    library: str
    hip_name: str
    roc_name: str = ""
    added: str = ""  # HIP version the counterpart appeared in
    removed: str = ""
    deprecated: str = ""
    unsupported: bool = False


@dataclass(frozen=True)
class Av:
    target: str
    status: str
    replacement: str | None = None
    since: str | None = None
    reason: str = ""


def _v(s: str) -> tuple[int, ...]:
    return tuple(int(x) for x in s.split("."))


TABLE = {
    e.cuda_name: e
    for e in (
        Entry("cudaMalloc", "function", "CUDA Runtime", "hipMalloc"),
        Entry("cudaFree", "function", "CUDA Runtime", "hipFree"),
        Entry("cudaMemcpy", "function", "CUDA Runtime", "hipMemcpy"),
        Entry("cudaMemcpyHostToDevice", "enum", "CUDA Runtime", "hipMemcpyHostToDevice"),
        Entry("cudaMallocAsync", "function", "CUDA Runtime", "hipMallocAsync", added="5.3"),
        Entry("thrust/sort.h", "header", "Thrust", "thrust/sort.h"),
        Entry("cudaGraphInstantiateWithParams", "function", "CUDA Runtime", "", unsupported=True),
        Entry("cudaBindTexture", "function", "CUDA Runtime", "hipBindTexture", deprecated="3.8", removed="7.0"),
        Entry("cudaProfilerStart", "function", "CUDA Runtime", "hipProfilerStart", deprecated="3.0"),
        Entry("__syncthreads", "device", "CUDA Device", "__syncthreads"),
        Entry("cublasSgemm", "function", "cuBLAS", "hipblasSgemm", roc_name="rocblas_sgemm"),
        Entry("cub::DeviceReduce", "class", "CUB", "hipcub::DeviceReduce"),
        Entry("cuda_runtime.h", "header", "CUDA Runtime", "hip/hip_runtime.h"),
        Entry("cublas_v2.h", "header", "cuBLAS", "hipblas/hipblas.h"),
        Entry("cuda_awbarrier.h", "header", "CUDA Device", "", unsupported=True),
    )
}
LOOKUPS: list[str] = []


def fake_lookup(name: str):
    LOOKUPS.append(name)
    return TABLE.get(name)


def fake_availability(entry: Entry, target: Target) -> Av:
    if not target.hip_version:
        return Av(target.name, "unknown", reason="not a HIP target")
    hv = _v(target.hip_version)
    if entry.unsupported:
        return Av(target.name, "unavailable", reason="unsupported by HIP")
    if entry.removed and hv >= _v(entry.removed):
        return Av(target.name, "removed", since=entry.added or None, replacement="hipCreateTextureObject",
                  reason=f"{entry.hip_name} was removed in HIP {entry.removed}")
    if entry.added and hv < _v(entry.added):
        return Av(target.name, "newer-than-target", since=entry.added)
    if entry.deprecated and hv >= _v(entry.deprecated):
        return Av(target.name, "deprecated", since=entry.added or None, replacement=entry.hip_name,
                  reason=f"{entry.hip_name} is deprecated since HIP {entry.deprecated}")
    return Av(target.name, "renamed" if entry.hip_name != entry.cuda_name else "available")


@pytest.fixture(autouse=True)
def fake_table(monkeypatch):
    LOOKUPS.clear()
    monkeypatch.setattr(api_rules, "_api", lambda: SimpleNamespace(lookup=fake_lookup, availability=fake_availability))
    # Library-level blocking is LIB's business; keep these tests on the API table alone.
    monkeypatch.setattr(api_rules, "_library_blocked_on", lambda name, target: None)


RULES = (
    api_rules.CudaNameWithoutHipEquivalent,
    api_rules.HipCounterpartDeprecatedOrRemoved,
    api_rules.HipCounterpartNewerThanTarget,
    api_rules.CudaNamesWithHipRenames,
    api_rules.CudaHeaderInclude,
)


def run(src: str, targets=ALL, rules=RULES, **kw):
    return check_text("a.cu", src, targets, rules=rules, **kw)


def codes_at(findings, src: str) -> list[tuple[str, str]]:
    return [(f.code, src[f.span.start : f.span.end]) for f in findings]


def test_unsupported_name_one_finding_per_use_on_hip_targets_only():
    src = "void f() { cudaGraphInstantiateWithParams(a); CHECK(cudaGraphInstantiateWithParams(b)); }"
    found = run(src, rules=(api_rules.CudaNameWithoutHipEquivalent,))
    assert codes_at(found, src) == [("API001", "cudaGraphInstantiateWithParams")] * 2
    f = found[0]
    assert f.severity is Severity.HIGH
    assert f.verdicts == {"rocm-7.2": Verdict.MANUAL, "hip-5.2": Verdict.MANUAL}
    assert f.data["cuda_name"] == "cudaGraphInstantiateWithParams" and f.data["library"] == "CUDA Runtime"
    assert "no HIP equivalent on rocm-7.2, hip-5.2" in f.message and "unsupported by HIP" in f.message


def test_blocked_when_the_library_has_no_rocm_counterpart(monkeypatch):
    monkeypatch.setattr(api_rules, "_library_blocked_on", lambda name, target: "the library has no ROCm port")
    found = run("cudaGraphInstantiateWithParams(a);", targets=(ROCM,), rules=(api_rules.CudaNameWithoutHipEquivalent,))
    assert found[0].verdicts == {"rocm-7.2": Verdict.BLOCKED}
    assert "the library has no ROCm port" in found[0].message


def test_negative_cases_are_not_uses():
    src = (
        "// cudaGraphInstantiateWithParams(a);\n"
        'const char* s = "cudaGraphInstantiateWithParams";\n'
        "obj.cudaGraphInstantiateWithParams(a); p->cudaGraphInstantiateWithParams(a);\n"
        "mylib::cudaGraphInstantiateWithParams(a);\n"
        "#define cudaGraphInstantiateWithParams my_instantiate\n"
        "int cudaCheck(int); int cudaMallocWrapper;\n"
    )
    assert run(src) == []


def test_global_qualifier_still_matches():
    found = run("::cudaGraphInstantiateWithParams(a);", targets=(ROCM,), rules=(api_rules.CudaNameWithoutHipEquivalent,))
    assert len(found) == 1


def test_removed_and_deprecated():
    src = "cudaBindTexture(0, tex, p); cudaProfilerStart();"
    found = run(src, rules=(api_rules.HipCounterpartDeprecatedOrRemoved,))
    assert codes_at(found, src) == [("API002", "cudaBindTexture"), ("API002", "cudaProfilerStart")]
    removed, deprecated = found
    # Removed in HIP 7.0: blocks the rename on rocm-7.2; only deprecated on hip-5.2.
    assert removed.verdicts == {"rocm-7.2": Verdict.MANUAL, "hip-5.2": Verdict.AUTOMATIC}
    assert removed.message == (
        "`cudaBindTexture` maps to `hipBindTexture`, which is removed on rocm-7.2 (hipBindTexture was removed in "
        "HIP 7.0); deprecated on hip-5.2 (hipBindTexture is deprecated since HIP 3.8); use `hipCreateTextureObject` instead"
    )
    assert deprecated.verdicts == {"rocm-7.2": Verdict.AUTOMATIC, "hip-5.2": Verdict.AUTOMATIC}
    # One clause for targets that agree; no "use X instead" when X is the mapped name itself.
    assert deprecated.message == (
        "`cudaProfilerStart` maps to `hipProfilerStart`, which is deprecated on rocm-7.2, hip-5.2 "
        "(hipProfilerStart is deprecated since HIP 3.0)"
    )


def test_newer_than_target_only_for_the_old_target():
    found = run("cudaMallocAsync(&p, n, s);", rules=(api_rules.HipCounterpartNewerThanTarget,))
    assert len(found) == 1
    assert found[0].verdicts == {"hip-5.2": Verdict.MANUAL}
    assert "hip-5.2 has HIP 5.2, `hipMallocAsync` needs 5.3" in found[0].message


def test_renames_one_finding_per_library_with_counts():
    src = (
        "void f() {\n"
        "  cudaMalloc(&d, n); cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);\n"
        "  cudaMemcpy(h, d, n, cudaMemcpyHostToDevice); cudaFree(d);\n"
        "  cublasSgemm(handle); __syncthreads();\n"
        "  cub::DeviceReduce::Sum(t, b, i, o, n);\n"
        "}\n"
    )
    found = run(src, rules=(api_rules.CudaNamesWithHipRenames,))
    assert [(f.data["library"], src[f.span.start : f.span.end]) for f in found] == [
        ("CUDA Runtime", "cudaMalloc"),
        ("cuBLAS", "cublasSgemm"),
        ("CUB", "DeviceReduce"),
    ]
    runtime = found[0]
    assert runtime.severity is Severity.INFO
    assert runtime.data["counts"] == {"cudaMalloc": 1, "cudaMemcpy": 2, "cudaMemcpyHostToDevice": 2, "cudaFree": 1}
    assert runtime.message == (
        "6 uses of 4 CUDA Runtime names rename 1:1 to HIP "
        "(cudaMalloc→hipMalloc, cudaMemcpy→hipMemcpy, cudaMemcpyHostToDevice→hipMemcpyHostToDevice and 1 more)"
    )
    assert runtime.effort.lines == 2
    assert runtime.verdicts == {
        "rocm-7.2": Verdict.AUTOMATIC,
        "hip-5.2": Verdict.AUTOMATIC,
        "oneapi": Verdict.MANUAL,
        "scale": Verdict.MOVES_AS_IS,
        "zluda": Verdict.MOVES_AS_IS,
    }
    assert "SYCLomatic" in runtime.data["reasons"]["oneapi"]
    assert found[2].data["counts"] == {"cub::DeviceReduce": 1}


def test_roc_option_prefers_roc_names():
    found = run("cublasSgemm(h);", rules=(api_rules.CudaNamesWithHipRenames,), options={"roc": True})
    assert found[0].data["renames"] == {"cublasSgemm": "rocblas_sgemm"}


def test_names_not_available_everywhere_are_left_to_the_status_rules():
    # Newer than hip-5.2: API003 reports it; it is not counted as a plain rename.
    found = run("cudaMallocAsync(&p, n, s);", rules=(api_rules.CudaNamesWithHipRenames,))
    assert found == []
    found = run("cudaMallocAsync(&p, n, s);", targets=(ROCM,), rules=(api_rules.CudaNamesWithHipRenames,))
    assert [f.data["counts"] for f in found] == [{"cudaMallocAsync": 1}]


def test_includes():
    src = (
        "#include <cuda_runtime.h>\n"
        '#include "cublas_v2.h"\n'
        '#include "my_cudnn_helpers.h"\n'
        "#include <cuda_awbarrier.h>\n"
        "#include <vector>\n"
        "#include <thrust/sort.h>\n"  # same header on ROCm: nothing to report
    )
    found = run(src, targets=(ROCM, SCALE, ONEAPI), rules=(api_rules.CudaHeaderInclude,))
    assert codes_at(found, src) == [
        ("API005", "<cuda_runtime.h>"),
        ("API005", '"cublas_v2.h"'),
        ("API005", "<cuda_awbarrier.h>"),
    ]
    assert found[0].message == "<cuda_runtime.h> (CUDA Runtime) becomes <hip/hip_runtime.h> on HIP"
    assert found[0].verdicts == {"rocm-7.2": Verdict.AUTOMATIC, "scale": Verdict.MOVES_AS_IS, "oneapi": Verdict.MANUAL}
    assert found[1].data == {"cuda_header": "cublas_v2.h", "hip_header": "hipblas/hipblas.h", "library": "cuBLAS",
                             "system": False}
    assert found[2].verdicts["rocm-7.2"] is Verdict.MANUAL
    assert found[2].severity is Severity.MEDIUM
    assert "has no HIP header" in found[2].message


def test_each_distinct_name_is_looked_up_once():
    src = "void f() { " + "cudaFree(p); x = y + z; " * 500 + "}"
    found = run(src, targets=(ROCM,))
    assert found[0].data["counts"] == {"cudaFree": 500}
    assert sorted(LOOKUPS) == sorted(set(LOOKUPS))  # one lookup per distinct identifier


def test_header_rows_are_not_identifier_matches():
    # An identifier spelt like a header row key cannot occur, but a table may key
    # headers by stem; header rows must never count as identifier uses.
    TABLE["cuda_fp16"] = Entry("cuda_fp16", "header", "CUDA Device", "hip/hip_fp16.h")
    try:
        assert run("int cuda_fp16;", targets=(ROCM,)) == []
    finally:
        del TABLE["cuda_fp16"]


def test_files_that_are_not_cuda_or_cxx_are_not_read():
    assert check_text("a.hip", "cudaMalloc(&p, n);", ALL, rules=RULES) == []
    assert check_text("requirements.txt", "cudaMalloc\n", ALL, rules=RULES) == []
