"""Kubernetes table: resources and labels per vendor, translation between vendors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vado.errors import KnowledgeError
from vado.knowledge import kubernetes as K


def test_not_loaded_at_import_time():
    code = "import vado.knowledge.kubernetes as K; assert K.cache_info().currsize == 0; K.vendor('amd'); assert K.cache_info().currsize == 1"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_all_vendors_sourced():
    assert [v.vendor for v in K.all_vendors()] == ["nvidia", "amd", "intel"]
    for v in K.all_vendors():
        assert v.source.startswith("https://") and v.resources and v.node_labels and v.plugin
    assert all(n["source"] for n in K.scheduling_notes())


@pytest.mark.parametrize(
    "resource,vendor",
    [("nvidia.com/gpu", "nvidia"), ("nvidia.com/mig-1g.10gb", "nvidia"), ("amd.com/gpu", "amd"), ("amd.com/cpx_nps4", "amd"),
     ("amd.com/spx_nps1", "amd"), ("gpu.intel.com/xe", "intel"), ("gpu.intel.com/i915", "intel"), ("gpu.intel.com/millicores", "intel")],
)
def test_vendor_for_resource(resource, vendor):
    assert K.vendor_for_resource(resource).vendor == vendor


@pytest.mark.parametrize("resource", ["cpu", "memory", "example.com/foo", "nvidia.com/gpu.product"])
def test_non_gpu_resources(resource):
    assert K.vendor_for_resource(resource) is None


def test_translate_resource():
    assert K.translate_resource("nvidia.com/gpu", "amd") == "amd.com/gpu"
    assert K.translate_resource("nvidia.com/mig-3g.40gb", "amd") == "amd.com/gpu"
    assert K.translate_resource("amd.com/gpu", "intel") == "gpu.intel.com/xe"
    with pytest.raises(KnowledgeError):
        K.translate_resource("cpu", "amd")
    with pytest.raises(KnowledgeError) as info:
        K.vendor("amdd")
    assert "'amd'" in info.value.tip


def test_labels():
    assert K.vendor_for_label("nvidia.com/gpu.product=Tesla-T4").vendor == "nvidia"
    assert K.vendor_for_label("beta.amd.com/gpu.cu-count").vendor == "amd"
    assert K.vendor_for_label("kubernetes.io/hostname") is None
    eq = K.label_equivalent("nvidia.com/gpu.product")
    assert eq.amd == "amd.com/gpu.product-name" and not eq.approximate
    assert K.label_equivalent("nvidia.com/gpu.family").approximate
    assert K.label_equivalent("nvidia.com/gpu.replicas") is None
    assert "gfx-target" in " ".join(K.vendor("amd").notes)
