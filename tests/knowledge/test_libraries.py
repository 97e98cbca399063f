"""CUDA library table: every entry sourced, detection by header / identifier / link, vendor facts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vado.errors import KnowledgeError
from vado.knowledge import libraries as L

REQUIRED_IDS = {
    "cuda-runtime", "nvrtc", "cublas", "cublaslt", "cudnn", "cufft", "cusparse", "cusparselt", "cusolver", "curand",
    "cutensor", "nccl", "nvshmem", "nvtx", "thrust", "cub", "libcudacxx", "cutlass", "rapids", "npp", "nvjpeg",
    "video-codec", "cufile", "nvml", "cupti", "tensorrt", "cooperative-groups", "cuda-graphs", "wmma", "hopper-tma",
}


def test_not_loaded_at_import_time():
    code = "import vado.knowledge.libraries as L; assert L.cache_info().currsize == 0; L.library('cublas'); assert L.cache_info().currsize == 1"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_compat_library_is_present_and_sourced():
    assert set(L.library_ids()) == REQUIRED_IDS
    for lib in L.all_libraries():
        assert lib.source.startswith("https://"), lib.id
        assert lib.rocm is not None and lib.rocm.api_shape in L.API_SHAPES, lib.id
        for section in (lib.rocm, lib.intel, lib.scale, lib.zluda):
            if section is not None:
                assert section.source and section.as_of and section.confidence, (lib.id, section.vendor)
        assert lib.headers or lib.identifier_prefixes or lib.namespaces, lib.id
    assert all(s["source"] for s in L.detect_sources())


@pytest.mark.parametrize(
    "header,lib_id",
    [("cudnn.h", "cudnn"), ("<cutlass/gemm/device/gemm.h>", "cutlass"), ('"cute/tensor.hpp"', "cutlass"),
     ("NvInfer.h", "tensorrt"), ("NvInferPlugin.h", "tensorrt"), ("nvshmem.h", "nvshmem"), ("nppi_filtering_functions.h", "npp"),
     ("nvjpeg.h", "nvjpeg"), ("cufile.h", "cufile"), ("nvml.h", "nvml"), ("cupti_activity.h", "cupti"),
     ("cuda/std/atomic", "libcudacxx"), ("cccl/cuda/std/atomic", "libcudacxx"), ("thrust/device_vector.h", "thrust"),
     ("cub/cub.cuh", "cub"), ("cuda.h", "cuda-runtime"), ("cublasLt.h", "cublaslt"), ("cublas_v2.h", "cublas"),
     ("cusparseLt.h", "cusparselt"), ("curand_kernel.h", "curand"), ("cooperative_groups/reduce.h", "cooperative-groups"),
     ("mma.h", "wmma"), ("nvtx3/nvToolsExt.h", "nvtx"), ("nvcuvid.h", "video-codec")],
)
def test_header_lookup(header, lib_id):
    assert L.library_for_header(header).id == lib_id


def test_unrelated_header_is_none():
    assert L.library_for_header("stdio.h") is None
    assert L.library_for_header("") is None


@pytest.mark.parametrize(
    "ident,lib_id",
    [("cudnnConvolutionForward", "cudnn"), ("CUDNN_STATUS_SUCCESS", "cudnn"), ("cusparseLtMatmul", "cusparselt"),
     ("cusparseSpMV", "cusparse"), ("cublasLtMatmul", "cublaslt"), ("cublasSgemm", "cublas"), ("cudaMalloc", "cuda-runtime"),
     ("cudaGraphLaunch", "cuda-graphs"), ("cuMemAlloc", "cuda-runtime"), ("cuFileRead", "cufile"), ("nvmlInit_v2", "nvml"),
     ("cuptiActivityEnable", "cupti"), ("nppiResize_8u_C1R", "npp"), ("nvjpegDecode", "nvjpeg"), ("nvshmem_malloc", "nvshmem"),
     ("ncclAllReduce", "nccl"), ("thrust", "thrust"), ("thrust::sort", "thrust"), ("cute::Tensor", "cutlass"),
     ("cuda::std::atomic", "libcudacxx"), ("cooperative_groups", "cooperative-groups"), ("cuTensorMapEncodeTiled", "hopper-tma"),
     ("nvinfer1::IBuilder", "tensorrt")],
)
def test_identifier_lookup_longest_prefix(ident, lib_id):
    assert L.library_for_identifier(ident).id == lib_id


@pytest.mark.parametrize("ident", ["printf", "cursor", "cumsum", "npy", "x"])
def test_unrelated_identifiers_are_none(ident):
    assert L.library_for_identifier(ident) is None


@pytest.mark.parametrize(
    "link,lib_id",
    [("-lcudnn", "cudnn"), ("cudnn", "cudnn"), ("CUDA::cublas", "cublas"), ("libcublas.so.12", "cublas"),
     ("libcublasLt_static.a", "cublaslt"), ("-lnvidia-ml", "nvml"), ("CUDA::nppif", "npp"), ("-lnvinfer", "tensorrt"),
     ("CUDA::cuFile", "cufile"), ("/usr/local/cuda/lib64/libcufft.so", "cufft"), ("CUDA::nvtx3", "nvtx")],
)
def test_link_lookup(link, lib_id):
    assert L.library_for_link(link).id == lib_id


def test_unrelated_link_is_none():
    assert L.library_for_link("-lm") is None
    assert L.library_for_link("pthread") is None


def test_ptx_lookup():
    assert L.library_for_ptx("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16").id == "hopper-tma"
    assert L.library_for_ptx("cp.async.bulk.tensor.2d.shared::cluster.global").id == "hopper-tma"
    assert L.library_for_ptx("mma.sync.aligned.m16n8k16.row.col").id == "wmma"
    assert L.library_for_ptx("add.s32") is None


def test_identifier_lookup_is_fast():
    import time

    names = ["cudnnCreate", "foo", "cudaMalloc", "thrust::sort", "myVariable"] * 4000
    start = time.perf_counter()
    for n in names:
        L.library_for_identifier(n)
    assert time.perf_counter() - start < 0.5


def test_rocm_facts():
    cublas = L.library("cublas")
    assert cublas.rocm.hip_wrapper == "hipBLAS" and cublas.rocm.versions == {"hipBLAS": "3.2.0", "rocBLAS": "5.2.0"}
    assert cublas.rocm.headers["cublas_v2.h"] == "hipblas.h"
    assert L.library("cutlass").rocm.api_shape == "none" and L.library("cutlass").rocm.blockers
    assert L.library("nccl").rocm.api_shape == "drop-in"
    assert L.library("cudnn").on("rocm").api_shape == "rework"
    assert L.library("cudnn").on("oneapi").equivalent.startswith("oneDNN")


def test_zluda_shims_match_the_facts():
    shimmed = {lib.id for lib in L.all_libraries() if lib.zluda is not None and lib.zluda.shim}
    assert shimmed == {"cublas", "cublaslt", "cudnn", "cufft", "cusparse", "nvml"}


def test_scale_status_values():
    assert L.library("hopper-tma").scale.status == "none"
    assert L.library("cublas").scale.status == "supported"
    assert L.library("cutlass").scale.status == "partial"
    for lib in L.all_libraries():
        if lib.scale is not None:
            assert lib.scale.status in L.STATUSES


def test_lookup_by_alias_and_name_and_errors():
    assert L.library("CUTLASS / CuTe").id == "cutlass"
    assert L.library("cute").id == "cutlass"
    assert L.library("libcu++").id == "libcudacxx"
    with pytest.raises(KnowledgeError) as info:
        L.library("cudn")
    assert "'cudnn'" in info.value.tip


def test_to_dict_is_plain_data():
    import json

    d = L.library("cudnn").to_dict()
    json.dumps(d)
    assert d["rocm"]["source"] and d["id"] == "cudnn"


# facts_for (vado.knowledge.facts) is the MCP-facing view over these tables.
@pytest.mark.parametrize(
    "query,kind,ident,how",
    [("cuDNN", "library", "cudnn", "name"), ("cudnn.h", "library", "cudnn", "header"), ("-lcudnn", "library", "cudnn", "link"),
     ("cudnnCreate", "library", "cudnn", "identifier"), ("Flash_Attn", "package", "flash-attn", "name"),
     ("sycl", "target", "oneapi", "name"), ("nvidia/cuda:13.0.2-cudnn-devel-ubuntu24.04", "image", "cuda", "reference")],
)
def test_facts_for(query, kind, ident, how):
    import json

    from vado.knowledge.facts import facts_for

    result = facts_for(query)
    json.dumps(result)
    first = result["matches"][0]
    assert (first["kind"], first["id"], first["matched_by"]) == (kind, ident, how)
    assert first["facts"]["source"]


def test_facts_for_wheel_links_to_its_library():
    from vado.knowledge.facts import facts_for

    kinds = {(m["kind"], m["id"]) for m in facts_for("nvidia-cudnn-cu12")["matches"]}
    assert kinds == {("package", "nvidia-wheels"), ("library", "cudnn")}


def test_facts_for_unknown_name():
    from vado.knowledge.facts import facts_for

    with pytest.raises(KnowledgeError):
        facts_for("left-pad")
    with pytest.raises(KnowledgeError):
        facts_for("  ")


def test_the_two_letter_heads_reject_only_names_no_prefix_takes():
    """A name whose first two characters start no known prefix has no library; the slow path agrees."""
    heads = L._prefix_heads()
    assert heads is not None
    names = ["cudaMalloc", "cublasSgemm", "thrust", "cub", "nvtxRangePush", "ncclAllReduce", "x", "cu", "CU", "th",
             "cute", "cutlass", "main", "myKernel", "__syncwarp", "wmma", "rocblas_init", "CUDNN_STATUS_SUCCESS", "_"]
    for name in names:
        fast = L._identifier_id(name)
        L._prefix_heads.cache_clear()
        try:
            original = L._prefix_heads
            L._prefix_heads = lambda: None  # every name takes the prefix loop
            slow = L._identifier_id.__wrapped__(name)
        finally:
            L._prefix_heads = original
        assert fast == slow, name
