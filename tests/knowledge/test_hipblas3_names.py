"""hipBLAS 3.0 (ROCm 7.0) names: the plain hipBLAS names replace the removed ``*_v2`` ones on rocm-7.2."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

from vado.knowledge.api import AvailabilityStatus, availability, lookup, lookup_all
from vado.knowledge.targets import get_target
from vado.port.translate import rename_map

ROOT = Path(__file__).resolve().parents[2]
#: The ROCm 7.2.4 headers (scripts/rocm-toolchain.sh); the header checks skip without them.
ROCM72_INCLUDE = Path(os.environ.get("VADO_ROCM72_INCLUDE", "/var/cache/vado/rocm-7.2.4/root/usr/include"))


def _importer():
    path = ROOT / "tools" / "import_hipify.py"
    spec = importlib.util.spec_from_file_location("import_hipify", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_rocm72_never_emits_a_hipblas_v2_name():
    names = rename_map(get_target("rocm-7.2"))
    v2 = sorted(k for k, r in names.items() if r.library == "cublas" and re.search(r"_v2(_64)?$", r.new))
    assert v2 == []
    assert names["cublasDotEx"].new == "hipblasDotEx"
    assert names["cublasCaxpy_v2_64"].new == "hipblasCaxpy_64"
    assert names["cublasGemmStridedBatchedEx"].new == "hipblasGemmStridedBatchedEx"
    # Names that never had a _v2 spelling on the HIP side keep theirs.
    assert names["cublasSgemm_v2"].new == "hipblasSgemm"
    assert names["cudaDataType"].new == "hipDataType"
    assert names["cublasComputeType_t"].new == "hipblasComputeType_t"
    assert names["CUBLAS_COMPUTE_32F"].new == "HIPBLAS_COMPUTE_32F"


def test_each_target_gets_the_spelling_it_has():
    e = lookup("cublasDotEx")
    assert e.hip_name == "hipblasDotEx"  # the current spelling answers lookup()
    assert {r.hip_name for r in lookup_all("cublasDotEx")} == {"hipblasDotEx", "hipblasDotEx_v2"}
    r72 = availability(e, get_target("rocm-7.2"))
    r64 = availability(e, get_target("rocm-6.4"))
    h52 = availability(e, get_target("hip-5.2"))
    assert (r72.status, r72.replacement, r72.since) == (AvailabilityStatus.RENAMED, "hipblasDotEx", "7.0.0")
    assert (r64.status, r64.replacement, r64.since) == (AvailabilityStatus.RENAMED, "hipblasDotEx_v2", "6.0.0")
    # Too old for both: the earliest spelling is the smallest upgrade.
    assert (h52.status, h52.replacement, h52.since) == (AvailabilityStatus.NEWER_THAN_TARGET, "hipblasDotEx_v2", "6.0.0")
    assert rename_map(get_target("rocm-6.4"))["cublasDotEx"].new == "hipblasDotEx_v2"
    assert "cublasDotEx" not in rename_map(get_target("hip-5.2"))
    # Asked with the removed row itself, the answer is the same.
    old = next(r for r in lookup_all("cublasDotEx") if r.hip_name.endswith("_v2"))
    assert availability(old, get_target("rocm-7.2")).replacement == "hipblasDotEx"


def test_importer_adds_the_plain_names_as_a_table_of_their_own():
    imp = _importer()
    src = imp.Source("https://github.com/ROCm/HIPIFY", "0" * 40, "docs/tables/CUBLAS_API_supported_by_HIP_and_ROC.md")
    table = imp.Table("CUBLAS", "cublas", src)
    for cuda, hip, added in (("cublasDotEx", "hipblasDotEx_v2", "6.0.0"), ("cublasCaxpy_64", "hipblasCaxpy_v2_64", "6.1.0"),
                             ("cublasSgemm", "hipblasSgemm", "1.8.2")):
        row = {f: "" for f in imp.FIELDS}
        row.update(cuda_name=cuda, kind="function", library="cublas", section="S", hip_name=hip, hip_added=added)
        row["support"] = imp._support(row)
        table.rows.append(row)
    lt = imp.Table("CUBLASLT", "cublaslt", src, rows=[dict(table.rows[0], library="cublaslt")])
    new = imp.hipblas3_names([table, lt])
    assert [r["hip_name"] for r in new.rows] == ["hipblasDotEx", "hipblasCaxpy_64"]
    assert all(r["hip_added"] == "7.0.0" and r["support"] == "supported" and r["note"].startswith("vado:") for r in new.rows)
    dot, caxpy, sgemm = table.rows
    assert (dot["hip_removed"], dot["support"], caxpy["hip_removed"]) == ("7.0.0", "removed", "7.0.0")
    assert sgemm["hip_removed"] == "" and sgemm["note"] == ""  # no _v2 name: untouched
    assert lt.rows[0]["hip_removed"] == ""  # other libraries: untouched
    assert new.library == "cublas" and new.source.repo.startswith("https://") and new.kind_from == {"curated": 2}
    assert imp.hipblas3_names([table, lt, new]) is None  # a second pass finds nothing left to split


def test_shipped_data_lists_the_new_table():
    from vado.knowledge import api

    table = next(t for t in api.sources() if t["name"] == "hipBLAS 3.0 plain names (ROCm 7.0)")
    plain = [e for e in api.api_table().entries if e.library == "cublas" and e.hip_added == "7.0.0"
             and "takes the arguments of" in (e.note or "")]
    removed = [e for e in api.api_table().entries if e.library == "cublas" and e.hip_removed == "7.0.0"]
    assert table["rows"] == len(plain) == len(removed) == 369


def _header_identifiers() -> set[str]:
    names: set[str] = set()
    for sub in ("hipblas", "hipblas-common", "hipblaslt", "hip", "rocblas"):
        for p in (ROCM72_INCLUDE / sub).rglob("*"):
            if p.is_file() and p.suffix in (".h", ".hpp", ""):
                names.update(re.findall(r"[A-Za-z_]\w*", p.read_text(encoding="latin-1")))
    names.update(re.findall(r"[A-Za-z_]\w*", (ROCM72_INCLUDE / "hipblaslt-export.h").read_text(encoding="latin-1"))
                 if (ROCM72_INCLUDE / "hipblaslt-export.h").is_file() else ())
    return names


@pytest.mark.skipif(not (ROCM72_INCLUDE / "hipblas" / "hipblas.h").is_file(), reason="ROCm 7.2.4 headers not present")
def test_every_cublas_rename_on_rocm72_is_declared_by_rocm_724():
    declared = _header_identifiers()
    names = rename_map(get_target("rocm-7.2"))
    missing = sorted(f"{k}->{r.new}" for k, r in names.items()
                     if r.library in ("cublas", "cublaslt") and r.kind != "header" and r.new not in declared)
    assert missing == []


def test_importer_adds_hip_names_hipify_lacks():
    imp = _importer()
    row = {f: "" for f in imp.FIELDS}
    row.update(cuda_name="cublasGetStatusString", kind="function", library="cublas", section="S",
               roc_name="rocblas_status_to_string", roc_added="3.5.0", support="supported")
    other = dict(row, cuda_name="cublasGetStatusName", roc_name="", roc_added="", support="unsupported")
    imp.apply_corrections([row, other])
    assert (row["hip_name"], row["hip_added"], row["support"]) == ("hipblasStatusToString", "4.3.0", "supported")
    assert row["note"].startswith("vado: hipBLAS 0.46.0") and other["hip_name"] == ""
    e = lookup("cublasGetStatusString")
    assert (e.hip_name, e.rocm_name) == ("hipblasStatusToString", "hipblasStatusToString")
    assert rename_map(get_target("rocm-7.2"))["cublasGetStatusString"].new == "hipblasStatusToString"
    assert rename_map(get_target("rocm-7.2"), roc=True)["cublasGetStatusString"].new == "rocblas_status_to_string"


def test_ilp64_level3_names_hipify_lacks():
    """hipBLAS 2.3.0 (ROCm 6.3) has cuBLAS's _64 level-3 functions; complex and Ex ones match cuBLAS's types from 7.0."""
    imp = _importer()
    added = imp._ilp64_additions()
    assert added["cublasCdgmm_64"]["hip_name"] == "hipblasCdgmm_64"
    assert added["cublasStrmm_v2_64"] == dict(added["cublasStrmm_64"])
    assert {added[n]["hip_added"] for n in ("cublasSdgmm_64", "cublasDsyrk_v2_64")} == {"6.3.0"}
    assert {added[n]["hip_added"] for n in ("cublasZgeam_64", "cublasChemm_v2_64", "cublasGemmEx_64")} == {"7.0.0"}
    assert "cublasShemm_64" not in added  # hemm is complex only
    r72, r64 = rename_map(get_target("rocm-7.2")), rename_map(get_target("rocm-6.4"))
    assert r72["cublasCdgmm_64"].new == "hipblasCdgmm_64"
    assert r72["cublasGemmStridedBatchedEx_64"].new == "hipblasGemmStridedBatchedEx_64"
    assert r64["cublasDgeam_64"].new == "hipblasDgeam_64"
    # Before hipBLAS 3.0 the complex name took hipblasComplex: no CUDA counterpart on rocm-6.4.
    assert "cublasCdgmm_64" not in r64 and "cublasGemmEx_64" not in r64
    assert availability(lookup("cublasCdgmm_64"), get_target("rocm-6.4")).status == AvailabilityStatus.NEWER_THAN_TARGET


@pytest.mark.skipif(not (ROCM72_INCLUDE / "hipblas" / "hipblas.h").is_file(), reason="ROCm 7.2.4 headers not present")
def test_ilp64_additions_are_declared_by_rocm_724():
    declared = _header_identifiers()
    missing = sorted(a["hip_name"] for a in _importer()._ilp64_additions().values() if a["hip_name"] not in declared)
    assert missing == []
