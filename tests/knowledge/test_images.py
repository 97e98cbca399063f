"""Image table: NVIDIA references parsed, AMD counterparts suggested, other images ignored."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vado.knowledge import images as I


def test_not_loaded_at_import_time():
    code = "import vado.knowledge.images as I; assert I.cache_info().currsize == 0; I.match_image('python:3'); assert I.cache_info().currsize == 1"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_ngc_pytorch_maps_to_rocm_pytorch_for_the_default_target():
    f = I.match_image("nvcr.io/nvidia/pytorch:26.03-py3")
    assert f.kind == "ngc-pytorch" and f.vendor == "nvidia"
    assert f.parts["release"] == "26.03"
    assert "CUDA 13.2.0" in f.contents
    assert f.rocm.reference == "rocm/pytorch:rocm7.2_ubuntu24.04_py3.12_pytorch_release_2.9.1"
    assert f.rocm.seen_in_sources and not f.rocm.incomplete
    assert set(f.rocm.suggested_parts) == {"rocm", "os", "py", "torch"}
    assert "--device=/dev/kfd" in f.rocm.run_flags
    assert f.source.startswith("https://") and f.rocm.source.startswith("https://")


def test_target_without_pytorch_versions_gives_an_incomplete_tag():
    f = I.match_image("nvcr.io/nvidia/pytorch:25.01-py3", "rocm-6.4")
    assert f.rocm.tag.startswith("rocm6.4_") and f.rocm.incomplete
    assert f.rocm.suggested_parts["torch"].startswith("unknown")


@pytest.mark.parametrize(
    "ref,reference,seen",
    [("nvidia/cuda:13.0.2-cudnn-devel-ubuntu24.04", "rocm/dev-ubuntu-24.04:7.2-complete", True),
     ("docker.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04", "rocm/dev-ubuntu-22.04:7.2", False),
     ("nvcr.io/nvidia/cuda:12.8.0-devel-ubuntu22.04", "rocm/dev-ubuntu-22.04:7.2-complete", False),
     ("nvidia/cuda:12.4.1-base-ubi8", "rocm/dev-almalinux-8:7.2", False)],
)
def test_cuda_base_images(ref, reference, seen):
    f = I.match_image(ref)
    assert f.kind == "cuda"
    assert f.rocm.reference == reference and f.rocm.seen_in_sources is seen


def test_cuda_image_parts():
    f = I.match_image("nvidia/cuda:13.0.2-cudnn-devel-ubuntu24.04")
    assert f.parts == {"cuda": "13.0.2", "cudnn": "cudnn", "flavor": "devel", "os": "ubuntu24.04"}
    assert "oneapi-basekit" in f.intel_counterpart


def test_unknown_os_falls_back_and_says_so():
    f = I.match_image("nvidia/cuda:12.4.1-base-ubi9")
    assert f.rocm.image == "rocm/dev-ubuntu-24.04" and "image" in f.rocm.suggested_parts


@pytest.mark.parametrize("ref,kind", [("nvcr.io/nvidia/tritonserver:25.12-trtllm-python-py3", "tritonserver"),
                                      ("nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc13", "tensorrt-llm"),
                                      ("nvcr.io/nvidia/tensorrt-llm/devel:1.2.0", "tensorrt-llm")])
def test_serving_images_have_no_counterpart_but_alternatives(ref, kind):
    f = I.match_image(ref)
    assert f.kind == kind and f.rocm.status == "none" and f.rocm.reference == ""
    assert "rocm/vllm" in f.rocm.alternatives


def test_vllm_image_keeps_its_tag_as_a_suggestion():
    f = I.match_image("vllm/vllm-openai:v0.6.3")
    assert f.rocm.reference == "vllm/vllm-openai-rocm:v0.6.3" and "tag" in f.rocm.suggested_parts


def test_other_ngc_images_are_recognised_as_nvidia():
    f = I.match_image("nvcr.io/nvidia/tensorflow:25.02-tf2-py3")
    assert f.kind == "ngc-other" and f.rocm.status == "unknown"


@pytest.mark.parametrize("ref", ["rocm/pytorch:rocm7.2_ubuntu24.04_py3.12_pytorch_release_2.9.1", "python:3.12-slim",
                                 "ubuntu:24.04", "vllm/vllm-openai-rocm:latest", "intel/oneapi-basekit:2025.0", ""])
def test_non_nvidia_images_return_none(ref):
    assert I.match_image(ref) is None


def test_image_vendor():
    assert I.image_vendor("rocm/dev-ubuntu-24.04:7.2-complete") == "amd"
    assert I.image_vendor("intel/oneapi-basekit:2025.0") == "intel"
    assert I.image_vendor("nvidia/cuda:12.4.1-base-ubuntu22.04") == "nvidia"
    assert I.image_vendor("alpine:3") is None


def test_to_dict_is_json():
    d = I.match_image("nvidia/cuda:13.0.2-cudnn-devel-ubuntu24.04").to_dict()
    assert json.loads(json.dumps(d))["rocm"]["reference"] == "rocm/dev-ubuntu-24.04:7.2-complete"
