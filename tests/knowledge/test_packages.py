"""Python package table: PEP 503 names, CUDA wheel patterns, requirement lines, index URLs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vado.errors import KnowledgeError
from vado.knowledge import packages as P


def test_not_loaded_at_import_time():
    code = "import vado.knowledge.packages as P; assert P.cache_info().currsize == 0; P.package('torch'); assert P.cache_info().currsize == 1"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_entry_is_sourced_and_has_statuses():
    facts = P.all_packages()
    assert len(facts) >= 40
    for f in facts:
        assert f.source.startswith("http"), f.name
        assert f.rocm.status in P.STATUSES and f.intel.status in P.STATUSES, f.name
        assert f.as_of and f.confidence, f.name
    assert P.index_provenance()["source"].startswith("https://")


@pytest.mark.parametrize("raw,norm", [("Flash_Attn", "flash-attn"), ("tensorrt_llm", "tensorrt-llm"), ("A.B__c", "a-b-c")])
def test_pep503_normalisation(raw, norm):
    assert P.normalise(raw) == norm


@pytest.mark.parametrize(
    "name,canonical,variant,library",
    [("Flash_Attn", "flash-attn", "", ""), ("flash_attn_3", "flash-attn-3", "", "hopper-tma"),
     ("cupy-cuda12x", "cupy", "cuda12x", ""), ("cupy_cuda11x", "cupy", "cuda11x", ""),
     ("nvidia-cublas-cu12", "nvidia-wheels", "cu12", "cublas"), ("nvidia_cudnn_cu12", "nvidia-wheels", "cu12", "cudnn"),
     ("nvidia-nccl-cu12", "nvidia-wheels", "cu12", "nccl"), ("nvidia-cublas", "nvidia-wheels", "", "cublas"),
     ("nvidia-dali-cuda120", "nvidia-dali", "cuda120", ""), ("faiss-gpu-cu12", "faiss-gpu", "cu12", ""),
     ("cudf-cu12", "cudf", "cu12", "rapids"), ("TensorRT", "tensorrt", "", "tensorrt"),
     ("tensorrt-cu12-bindings", "tensorrt", "cu12", "tensorrt"), ("jax-cuda12-plugin", "jax", "cuda12", ""),
     ("pynvml", "nvidia-ml-py", "", "nvml"), ("Megatron_Core", "megatron-core", "", "")],
)
def test_names_and_patterns(name, canonical, variant, library):
    m = P.match_package(name)
    assert m is not None
    assert (m.fact.name, m.cuda_variant, m.library) == (canonical, variant, library)


@pytest.mark.parametrize("name", ["numpy", "requests", "nvidia-modelopt", ""])
def test_unrelated_names_do_not_match(name):
    assert P.package(name) is None


def test_get_package_suggests():
    with pytest.raises(KnowledgeError) as info:
        P.get_package("flash-atn")
    assert "'flash-attn'" in info.value.tip


@pytest.mark.parametrize(
    "line,name,variant",
    [("torch==2.5.1+cu121", "torch", "cu121"), ("jax[cuda12]>=0.4.30", "jax", "cuda12"),
     ("tensorflow[and-cuda]==2.16.1", "tensorflow", "and-cuda"), ('flash-attn>=2.6 ; platform_system=="Linux"', "flash-attn", ""),
     ("torchvision @ https://download.pytorch.org/whl/cu121/torchvision-0.20.1%2Bcu121-cp311-linux_x86_64.whl", "torchvision", "cu121"),
     ("xformers  # attention", "xformers", "")],
)
def test_requirement_lines(line, name, variant):
    m = P.match_requirement(line)
    assert m is not None and m.fact.name == name and m.cuda_variant == variant


@pytest.mark.parametrize("line", ["--extra-index-url https://download.pytorch.org/whl/cu121", "# comment", "", "-r base.txt"])
def test_options_and_comments_are_not_requirements(line):
    assert P.match_requirement(line) is None


@pytest.mark.parametrize(
    "url,vendor,backend,cuda,rocm",
    [("https://download.pytorch.org/whl/cu121", "nvidia", "cu121", "12.1", ""),
     ("https://download.pytorch.org/whl/cu130/", "nvidia", "cu130", "13.0", ""),
     ("https://download.pytorch.org/whl/rocm6.4", "amd", "rocm6.4", "", "6.4"),
     ("https://download.pytorch.org/whl/nightly/rocm7.2", "amd", "rocm7.2", "", "7.2"),
     ("https://download.pytorch.org/whl/xpu", "intel", "xpu", "", ""),
     ("https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/", "amd", "gfx94X-dcgpu", "", "")],
)
def test_index_urls(url, vendor, backend, cuda, rocm):
    f = P.classify_index_url(url)
    assert (f.vendor, f.backend, f.cuda_version, f.rocm_version) == (vendor, backend, cuda, rocm)


def test_unrelated_index_is_none():
    assert P.classify_index_url("https://pypi.org/simple") is None


def test_rocm_replacements():
    from vado.knowledge.targets import get_target

    torch = P.package("torch")
    assert torch.rocm.status == "official"
    assert torch.rocm.index_for(get_target("rocm-7.2").hip_version) == "https://download.pytorch.org/whl/rocm7.2"
    assert torch.intel.index_for(None) == "https://download.pytorch.org/whl/xpu"
    assert P.rocm_index_url("6.4") == "https://download.pytorch.org/whl/rocm6.4"
    assert P.therock_index_url("gfx942") == "https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/"
    assert P.package("tensorrt").rocm.status == "none"
    assert P.package("flash-attn-4").rocm.status == "none"
    assert P.package("bitsandbytes").rocm.package == "bitsandbytes>=0.50.0"


def test_imports():
    assert P.package_for_import("flash_attn.cute.interface").name == "flash-attn-4"
    assert P.package_for_import("flash_attn").name == "flash-attn"
    assert P.package_for_import("numba.cuda").name == "numba"
    assert P.package_for_import("numba") is None  # CPU numba is not CUDA-bound
    assert P.package_for_import("nvidia.dali.fn").name == "nvidia-dali"
    assert P.package_for_import("os") is None
