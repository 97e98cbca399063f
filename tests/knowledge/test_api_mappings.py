"""The CUDA→HIP API tables: row counts, facts checked against HIPIFY's tables, target answers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vado.errors import KnowledgeError

from vado.knowledge import api
from vado.knowledge.api import ApiSupport, AvailabilityStatus, availability, lookup
from vado.model import Target

ROCM_72 = Target(name="rocm-7.2", family="rocm", version="7.2.4", hip_version="7.2")
ROCM_64 = Target(name="rocm-6.4", family="rocm", version="6.4", hip_version="6.4")
HIP_52 = Target(name="hip-5.2", family="rocm", version="5.2.3", hip_version="5.2")
ONEAPI = Target(name="oneapi", family="oneapi", version="2026.0")
SCALE = Target(name="scale", family="scale", version="1.7.1")
SCALE_OLD = Target(name="scale-1.2", family="scale", version="1.2.0")
ZLUDA = Target(name="zluda", family="zluda", version="6")


def test_row_count_covers_every_hipify_table():
    # HIPIFY's tables hold 8,932 CUDA names; newer tables add cuTENSOR, cuSPARSELt, cuFile.
    entries = api.api_table().entries
    assert len(entries) >= 8932
    rows = {t["name"]: t["rows"] for t in api.sources()}
    assert rows["CUDA_Runtime_API_functions_supported_by_HIP"] == 1436
    assert rows["CUDA_Driver_API_functions_supported_by_HIP"] == 2008
    # cuBLAS and cuBLASLt share one HIPIFY table; vado splits it by section.
    assert rows["CUBLAS_API_supported_by_HIP_and_ROC"] + rows["CUBLAS_API_supported_by_HIP_and_ROC (cuBLASLt sections)"] == 1473
    assert rows["CUDNN_API_supported_by_HIP_and_MIOPEN"] == 1162
    assert sum(1 for e in entries if e.kind != "header" and e.library not in ("nccl", "nvtx", "thrust")) >= 8932
    # stats() counts CUDA names: a name with a removed row and the row that replaced it counts once.
    per_lib = api.stats()
    names = {(e.library, e.cuda_name) for e in entries}
    assert sum(s["total"] for s in per_lib.values()) == len(names)
    assert sum(s.get(level.value, 0) for s in per_lib.values() for level in ApiSupport) == len(names)


def test_stats_count_a_renamed_name_once_at_its_current_level():
    # hipBLAS 3.0 (ROCm 7.0) removed hipblasDotEx_v2 and gave its CUDA name the plain hipblasDotEx.
    rows = [e for e in api.api_table().entries if e.cuda_name == "cublasDotEx"]
    assert {e.support.value for e in rows} == {"removed", "supported"}
    cublas = api.stats()["cublas"]
    assert cublas["total"] == len({e.cuda_name for e in api.api_table().entries if e.library == "cublas"})
    assert cublas.get("removed", 0) == 0


def test_every_table_names_its_source():
    tables = api.sources()
    assert {t["library"] for t in tables} >= {"runtime", "driver", "device", "cublas", "cudnn", "headers", "nccl"}
    for t in tables:
        src = t["source"]
        assert src["repo"] and src["path"], t
        if src["repo"] == "https://github.com/ROCm/HIPIFY":
            assert len(src["commit"]) == 40
    device = next(t for t in tables if t["library"] == "device")
    assert device["source"]["commit"] == "74a213facc33eb0b32bc9ac83ccc6fb7b2cf564a"
    assert device["source"]["path"] == "docs/reference/tables/CUDA_Device_API_supported_by_HIP.md"
    runtime = next(t for t in tables if t["library"] == "runtime")
    assert runtime["source"]["commit"].startswith("014177bc")
    assert api.source_of(lookup("cublas_v2.h"))["path"] == "src/CUDA2HIP.cpp"
    assert api.source_of(lookup("cudaMallocAsync"))["path"].endswith("CUDA_Runtime_API_functions_supported_by_HIP.md")
    assert "compat.yaml" in api.source_of(lookup("nccl.h"))["path"]


def test_cuda_malloc_async():
    e = lookup("cudaMallocAsync")
    assert (e.library, e.kind, e.hip_name, e.support) == ("runtime", "function", "hipMallocAsync", ApiSupport.SUPPORTED)
    assert (e.cuda_added, e.hip_added) == ("11.2", "5.2.0")
    assert e.section == "Stream Ordered Memory Allocator"


def test_curand_state_is_a_type():
    e = lookup("curandState")
    assert (e.library, e.kind, e.hip_name, e.hip_added) == ("curand", "type", "hiprandState", "1.8.0")


def test_cublas_sgemm_v2_keeps_both_names():
    # HIPIFY maps cublasSgemm_v2 to hipblasSgemm (not a _v2 name) and to rocBLAS's rocblas_sgemm.
    e = lookup("cublasSgemm_v2")
    assert (e.hip_name, e.hip_added, e.roc_name, e.roc_added) == ("hipblasSgemm", "1.8.2", "rocblas_sgemm", "1.5.0")


def test_cudnn_uses_the_miopen_column():
    e = lookup("cudnnConvolutionForward")
    assert (e.roc_name, e.roc_added, e.cuda_deprecated) == ("miopenConvolutionForward", "2.1.0", "9.0.0")
    assert e.rocm_name == "miopenConvolutionForward"  # hipDNN's name has no version: MIOpen answers
    a = availability(e, ROCM_72)
    assert (a.status, a.replacement, a.since) == (AvailabilityStatus.RENAMED, "miopenConvolutionForward", "2.1.0")


def test_shfl_down_sync_versions():
    e = lookup("__shfl_down_sync")
    assert (e.library, e.hip_name, e.cuda_added, e.hip_added) == ("device", "__shfl_down_sync", "9.0", "6.2.0")


def test_header_row_uses_rocm6_path():
    e = lookup("cublas_v2.h")
    assert (e.kind, e.library, e.hip_name, e.roc_name) == ("header", "cublas", "hipblas/hipblas.h", "rocblas/rocblas.h")
    headers = {h.cuda_name: h for h in api.headers()}
    assert headers["curand.h"].hip_name == "hiprand/hiprand.h"
    assert headers["cusparse.h"].hip_name == "hipsparse/hipsparse.h"
    assert headers["cusolverDn.h"].hip_name == "hipsolver/hipsolver.h"
    assert headers["cufft.h"].hip_name == "hipfft/hipfft.h"
    assert headers["cublasLt.h"].hip_name == "hipblaslt/hipblaslt.h"
    assert (headers["cudnn.h"].hip_name, headers["cudnn.h"].roc_name) == ("", "miopen/miopen.h")
    assert headers["cub/cub.cuh"].hip_name == "hipcub/hipcub.hpp"
    assert headers["nccl.h"].hip_name == "rccl/rccl.h"
    assert headers["nvToolsExt.h"].hip_name == "rocprofiler-sdk-roctx/roctx.h"
    assert headers["thrust/device_vector.h"].hip_name == "thrust/device_vector.h"
    assert not any(h.hip_name in ("hipblas.h", "hipsparse.h", "hipsolver.h") for h in headers.values())


def test_unsupported_name():
    e = lookup("cudaInitDevice")
    assert (e.support, e.hip_name, e.roc_name, e.cuda_added) == (ApiSupport.UNSUPPORTED, "", "", "12.0")
    a = availability(e, ROCM_72)
    assert a.status is AvailabilityStatus.UNAVAILABLE and a.replacement is None
    assert "no HIP or ROCm library counterpart" in a.reason


def test_deprecated_name():
    e = lookup("cusparseCbsric02")
    assert (e.support, e.hip_name, e.hip_added, e.hip_deprecated) == (ApiSupport.DEPRECATED, "hipsparseCbsric02", "3.8.0", "6.2.0")
    assert availability(e, ROCM_72).status is AvailabilityStatus.DEPRECATED
    assert availability(e, HIP_52).status is AvailabilityStatus.RENAMED  # not yet deprecated in HIP 5.2


def test_removed_name_depends_on_target():
    e = lookup("cutensorContraction")
    assert (e.library, e.support, e.hip_added, e.hip_removed) == ("cutensor", ApiSupport.REMOVED, "6.1.0", "7.0.0")
    assert availability(e, ROCM_72).status is AvailabilityStatus.REMOVED
    assert availability(e, ROCM_64).status is AvailabilityStatus.RENAMED
    assert availability(e, HIP_52).status is AvailabilityStatus.NEWER_THAN_TARGET


def test_rocm_newer_than_target():
    e = lookup("__shfl_down_sync")
    old = availability(e, HIP_52)
    assert (old.status, old.replacement, old.since) == (AvailabilityStatus.NEWER_THAN_TARGET, "__shfl_down_sync", "6.2.0")
    assert "HIP 6.2.0" in old.reason and "HIP 5.2" in old.reason
    assert availability(e, ROCM_72).status is AvailabilityStatus.AVAILABLE
    assert availability(lookup("cudaMallocAsync"), HIP_52).status is AvailabilityStatus.RENAMED


def test_oneapi_is_honestly_unknown():
    a = availability(lookup("cudaMallocAsync"), ONEAPI)
    assert (a.status, a.replacement) == (AvailabilityStatus.UNKNOWN, None)
    assert a.reason.startswith("SYCLomatic migrates")


def test_scale_keeps_cuda_names():
    a = availability(lookup("cudaMallocAsync"), SCALE)
    assert (a.status, a.replacement) == (AvailabilityStatus.AVAILABLE, "cudaMallocAsync")
    lib = availability(lookup("cublasSgemm_v2"), SCALE)
    assert lib.status is AvailabilityStatus.UNKNOWN and "rocBLAS" in lib.reason
    nvtx = lookup("nvtxRangePushA")
    assert availability(nvtx, SCALE).status is AvailabilityStatus.AVAILABLE
    assert availability(nvtx, SCALE_OLD).status is AvailabilityStatus.NEWER_THAN_TARGET


def test_zluda_only_where_it_ships_a_shim():
    assert availability(lookup("cudaMallocAsync"), ZLUDA).status is AvailabilityStatus.AVAILABLE
    blas = availability(lookup("cublasSgemm_v2"), ZLUDA)
    assert (blas.status, blas.replacement) == (AvailabilityStatus.AVAILABLE, "cublasSgemm_v2")
    assert "zluda_blas" in blas.reason
    solver = availability(lookup("cusolverDnCreate"), ZLUDA)
    assert solver.status is AvailabilityStatus.UNAVAILABLE and "no cusolver" in solver.reason
    nccl = availability(lookup("ncclAllReduce"), ZLUDA)
    assert nccl.status is AvailabilityStatus.UNAVAILABLE


def test_nccl_nvtx_thrust_facts():
    assert lookup("ncclAllReduce").hip_name == "ncclAllReduce"
    assert lookup("nvtxRangePushA").hip_name == "roctxRangePushA"
    assert lookup("nvtxRangePop").hip_name == "roctxRangePop"
    assert lookup("nvtxMarkA").hip_name == "roctxMarkA"
    assert lookup("thrust::").hip_name == "thrust::"
    assert availability(lookup("ncclAllReduce"), ROCM_72).status is AvailabilityStatus.AVAILABLE


def test_kinds_come_from_hipify_maps_or_sections():
    assert lookup("cudaError_t").kind == "type"
    assert lookup("cudaSuccess").kind == "enum"
    assert lookup("CUDART_PI").kind == "define"
    assert lookup("CUTENSOR_OP_ADD").kind == "enum"  # cuTENSOR: no HIPIFY map in the mirror; section rule
    assert lookup("cutensorHandle_t").kind == "type"
    assert lookup("cutensorCreate").kind == "function"


def test_cublaslt_rows_are_their_own_library():
    e = lookup("cublasLtMatmul")
    assert (e.library, e.hip_name) == ("cublaslt", "hipblasLtMatmul")


def test_lookup_unknown_and_suggest():
    assert lookup("cudaMallocAsyn") is None
    assert api.suggest("cudaMallocAsyn")[0] == "cudaMallocAsync"
    assert "cublasSgemm" in api.suggest("cublasSgem")
    assert api.suggest("zzzqqq") == []


def test_version_compare_is_numeric():
    assert api.version_less("5.2", "6.2.0")
    assert api.version_less("6.4", "6.10")
    assert not api.version_less("5.2", "5.2.0")
    assert not api.version_less("7.2", "7.0.0")


def test_import_reads_nothing():
    code = (
        "import sys, vado.knowledge.api as a; "
        "assert a.api_table.cache_info().currsize == 0; "
        "assert 'yaml' not in sys.modules and 'csv' not in sys.modules and 'difflib' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", ["cudaMallocAsync", "cublas_v2.h", "ncclAllReduce", "cudaInitDevice"])
def test_every_family_answers(name):
    e = lookup(name)
    for t in (ROCM_72, HIP_52, ONEAPI, SCALE, ZLUDA):
        a = availability(e, t)
        assert a.target == t.name and a.reason


def _importer():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "tools" / "import_hipify.py"
    spec = importlib.util.spec_from_file_location("import_hipify", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(mod)
    return mod


SNIPPET = """# CUBLAS API supported by HIP and ROC

## **1. CUBLAS Data types**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|**ROC**|**A**|**D**|**C**|**R**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|
|`CUBLAS_OP_N`| | | | |`HIPBLAS_OP_N`|1.8.2| | | | |`rocblas_operation_none`|1.5.0| | | | |
|`cublasFoo_t`|10.1| | | | | | | | | | | | | | | |

## **9. BLASLt Function Reference**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|**ROC**|**A**|**D**|**C**|**R**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|
|`cublasLtBar`|11.0| | | |`hipblasLtBar`|5.5.0|6.0.0| | |6.1.0| | | | | | |
"""


def test_importer_reads_columns_sections_and_support():
    imp = _importer()
    src = imp.Source("https://github.com/ROCm/HIPIFY", "0" * 40, "docs/tables/CUBLAS_API_supported_by_HIP_and_ROC.md")
    main, lt = imp.parse_table(SNIPPET, "cublas", src, kinds={})
    op_n, foo = main.rows
    assert (op_n["kind"], op_n["hip_name"], op_n["hip_added"], op_n["roc_name"], op_n["roc_added"]) == (
        "enum", "HIPBLAS_OP_N", "1.8.2", "rocblas_operation_none", "1.5.0")
    assert (foo["kind"], foo["support"], foo["cuda_added"]) == ("type", "unsupported", "10.1")
    (bar,) = lt.rows
    assert (lt.library, bar["library"], bar["kind"]) == ("cublaslt", "cublaslt", "function")
    assert (bar["hip_deprecated"], bar["hip_experimental"], bar["support"]) == ("6.0.0", "6.1.0", "deprecated")
    assert main.kind_from == {"section": 2}


def test_importer_corrects_the_hipdatatype_dates():
    # HIP has had hipDataType with six floating-point values since 3.3 (ROCm/HIP 94eb4155);
    # HIPIFY dates the family to 5.7.0. Rows of other names, and rows without a HIP name, stay.
    imp = _importer()
    rows = [{"cuda_name": "CUDA_R_32F", "hip_name": "HIP_R_32F", "hip_added": "5.7.0", "note": ""},
            {"cuda_name": "CUDA_R_8I", "hip_name": "HIP_R_8I", "hip_added": "5.7.0", "note": ""},
            {"cuda_name": "cudaDataType", "hip_name": "", "hip_added": "", "note": ""}]
    imp.apply_corrections(rows)
    assert [(r["hip_added"], bool(r["note"])) for r in rows] == [("3.3.0", True), ("5.7.0", False), ("", False)]
    from vado.knowledge.api import AvailabilityStatus, availability, lookup
    from vado.knowledge.targets import get_target

    hip52 = get_target("hip-5.2")
    assert availability(lookup("CUDA_R_32F"), hip52).status is AvailabilityStatus.RENAMED
    assert availability(lookup("CUDA_R_8I"), hip52).status is AvailabilityStatus.NEWER_THAN_TARGET


def test_data_regenerates_identically(tmp_path):
    # Needs the HIPIFY mirror and the saved newer tables; CI without them skips.
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    mirror = Path("/work/.mirror/ROCm+HIPIFY/repo")
    tables = root / "scratch" / "helper-api" / "tables"
    compat = Path("/work/shared/knowledge/compat.yaml")
    if not (mirror.is_dir() and tables.is_dir() and compat.is_file()):
        pytest.skip("HIPIFY mirror or saved tables not present")
    imp = _importer()
    imp.main(["--git-mirror", str(mirror), "--commit", "014177bc2e434ce3e834aa4f3d0e2abb1efa9796",
              "--tables", str(tables), "--compat", str(compat), "--out", str(tmp_path)])
    shipped = root / "src" / "vado" / "knowledge" / "data" / "api"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in shipped.iterdir())
    for p in tmp_path.iterdir():
        assert p.read_text(encoding="utf-8") == (shipped / p.name).read_text(encoding="utf-8"), p.name


def _table_from(monkeypatch, csv_text: str):
    from vado.knowledge import api

    files = {"index.yaml": "tables:\n  - library: runtime\n    files: [runtime.csv]\n", "runtime.csv": csv_text}
    monkeypatch.setattr(api, "_read", lambda name: files[name])
    monkeypatch.setenv("VADO_CACHE_DIR", "off")  # the parse cache is keyed on the real files, not these
    api.api_table.cache_clear()
    try:
        return api.api_table()
    finally:
        monkeypatch.undo()
        api.api_table.cache_clear()


def test_api_rows_are_read_by_column_name_and_short_rows_are_filled(monkeypatch):
    table = _table_from(monkeypatch, "support,cuda_name,kind,library,section,hip_name,roc_name,hip_added,note\n"
                                     "supported,cudaFoo,function,runtime,Memory,hipFoo,,1.5.0,a note\n"
                                     "unsupported,cudaBar,function,runtime,Memory,,\n")
    foo, bar = table.entries
    assert (foo.cuda_name, foo.hip_name, foo.hip_added, foo.note, foo.roc_added) == ("cudaFoo", "hipFoo", "1.5.0", "a note", "")
    assert (bar.cuda_name, bar.hip_name, bar.hip_added, bar.note) == ("cudaBar", "", "", "")


@pytest.mark.parametrize("csv_text, why", [
    ("cuda_name,kind,library,section,hip_name,roc_name\ncudaFoo,function,runtime,M,hipFoo,\n", "no column 'support'"),
    ("cuda_name,kind,library,section,hip_name,roc_name,support\ncudaFoo,function,runtime,M,hipFoo,,maybe\n",
     "row 2: 'maybe' is not a valid ApiSupport"),
])
def test_malformed_api_data_names_the_file_and_row(monkeypatch, csv_text, why):
    with pytest.raises(KnowledgeError) as err:
        _table_from(monkeypatch, csv_text)
    assert "runtime.csv" in str(err.value) and why in str(err.value)


def test_fp8_data_types_map_to_the_ocp_hip_types():
    # ROCm 7.2.4's library_types.h: HIP_R_8F_E4M3/E5M2 are the OCP encodings CUDA_R_8F_* name; the FNUZ
    # ones (MI300) are separate values, which ARCH003's finding explains.
    from vado.knowledge.targets import get_target

    for cuda, hip in (("CUDA_R_8F_E4M3", "HIP_R_8F_E4M3"), ("CUDA_R_8F_E5M2", "HIP_R_8F_E5M2")):
        entry = api.lookup(cuda)
        assert entry.hip_name == hip and entry.hip_added == "7.2.0"
        assert api.availability(entry, get_target("rocm-7.2")).status.value in ("renamed", "available")
        assert api.availability(entry, get_target("hip-5.2")).status.value == "newer-than-target"


def test_cuda13_emulation_names_hipify_lacks_are_known_unsupported():
    """CUDA 13's library_types.h and cuBLAS 13's emulation API (CUDALibrarySamples' cuBLAS/utils/cublas_utils.h
    spells cudaEmulationMantissaControl): HIPIFY's tables lack them, so a port left them without a finding and
    hipcc failed on an unknown type. vado's curated rows name them, with no HIP counterpart."""
    for name in ("cudaEmulationMantissaControl", "cudaEmulationStrategy", "cudaEmulationSpecialValuesSupport_t",
                 "CUDA_EMULATION_MANTISSA_CONTROL_FIXED", "cublasSetEmulationStrategy",
                 "cublasGetFixedPointEmulationMantissaControl", "CUBLAS_EMULATION_STRATEGY_EAGER"):
        e = lookup(name)
        assert e is not None and e.support is ApiSupport.UNSUPPORTED and not e.hip_name, name
        assert availability(e, ROCM_72).status is AvailabilityStatus.UNAVAILABLE
        assert "vado" in e.note
    assert lookup("cudaEmulationMantissa") is None  # only the names CUDA declares
    emulation = next(t for t in api.sources() if t["name"] == "CUDA 13 emulation names HIPIFY lacks")
    assert emulation["library"] == "cublas" and emulation["rows"] == 31


def test_scoped_atomics_hipify_lacks():
    """CUDA's *_block atomics and atomicInc_system/atomicDec_system (cuda-samples systemWideAtomics): HIPIFY's
    device table lacks them, so a port left them without a finding and hipcc failed. A *_block form is HIP's
    device-scope atomic; the two system counters have no HIP counterpart (vado.port.compat writes one)."""
    for op in ("Add", "Sub", "Exch", "Min", "Max", "Inc", "Dec", "CAS", "And", "Or", "Xor"):
        e = lookup(f"atomic{op}_block")
        assert e is not None and e.hip_name == f"atomic{op}", op
        assert availability(e, ROCM_72).status is AvailabilityStatus.RENAMED
    for name in ("atomicInc_system", "atomicDec_system"):
        e = lookup(name)
        assert e is not None and e.support is ApiSupport.UNSUPPORTED and not e.hip_name, name
        assert availability(e, ROCM_72).status is AvailabilityStatus.UNAVAILABLE
    assert lookup("atomicAdd_system").hip_name == "atomicAdd_system"  # HIP has it: HIPIFY's row stays
    scoped = next(t for t in api.sources() if t["name"] == "CUDA scoped atomics HIPIFY lacks")
    assert scoped["library"] == "device" and scoped["rows"] == 13
