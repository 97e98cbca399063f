"""vado plan for mixed clusters: DRA claims for portable workloads, Kueue flavors, and AMD patches without NVIDIA leftovers."""

from __future__ import annotations

import yaml
import pytest

from vado.errors import UsageError
from vado.model.plan import PoolFit, Readiness, RepoSpec
from vado.model import Verdict
from vado.plan.dra import DEVICE_CLASSES, claim_template, portable_pools, resource_flavors
from vado.plan.placement import apply_strategic_merge, discover_manifests, generic_patch, pod_spec_patch
from vado.plan.pools import default_pools
from vado.plan.render import placement_files

from plan_helpers import by_key

POOLS = {p.name: p for p in default_pools()}


def _fit(pool: str, route: str = "rocm-7.2") -> PoolFit:
    return PoolFit(pool, route, Verdict.MOVES_AS_IS, Readiness.NOW, "")


def test_claim_template_is_a_valid_resource_claim_template():
    kubernetes = pytest.importorskip("kubernetes")
    doc = claim_template("serve", [POOLS["nvidia"], POOLS["amd"]], 2, {"amd": "rocm/vllm:latest"})
    api = kubernetes.client.ApiClient()
    model = api._ApiClient__deserialize(doc, "V1ResourceClaimTemplate")
    (request,) = model.spec.spec.devices.requests
    assert [s.device_class_name for s in request.first_available] == ["gpu.nvidia.com", "gpu.amd.com"]
    assert [s.count for s in request.first_available] == [2, 2]
    assert doc["metadata"]["annotations"] == {"vado.dev/image.amd": "rocm/vllm:latest"}
    assert set(DEVICE_CLASSES) == {"nvidia", "amd", "intel"}


def test_plan_emits_a_claim_for_workloads_that_run_now_on_several_pools(fleet_plan):
    files = placement_files(fleet_plan)
    w = by_key(fleet_plan)
    dra = {k: v for k, v in files.items() if "/dra/" in k}
    for key, wp in w.items():
        usable = portable_pools(wp, default_pools())
        named = [k for k in dra if k.startswith(f"k8s/{wp.repo}/")
                 and k.split("/")[2] == (wp.path if wp.path != "." else "root")]
        assert bool(usable) == bool(named), key
    assert "blocked" not in "".join(dra)  # runs on NVIDIA only: no claim
    text = dra["k8s/portable/root/dra/portable.yaml"]
    claim, patch = list(yaml.safe_load_all(text))
    assert claim["kind"] == "ResourceClaimTemplate"
    classes = [s["deviceClassName"] for s in claim["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"]]
    assert classes == ["gpu.nvidia.com", "gpu.amd.com"]
    assert patch["spec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "portable-gpu"}]
    assert patch["spec"]["containers"][0]["resources"] == {"claims": [{"name": "gpu"}]}
    # Images per pool: each pool's own image, never an NVIDIA image for another pool.
    for pool, image in (claim["metadata"].get("annotations") or {}).items():
        assert not (pool.endswith(".amd") and "nvidia" in image)
    flavors = list(yaml.safe_load_all(files["k8s/kueue-resourceflavors.yaml"]))
    assert [f["metadata"]["name"] for f in flavors] == list(fleet_plan.pools)
    assert flavors[0]["spec"]["nodeLabels"] == {"nvidia.com/gpu.present": "true"}


def test_resource_flavors_name_single_value_labels_and_say_when_none_fits():
    flavors, notes = resource_flavors(default_pools())
    assert {f["kind"] for f in flavors} == {"ResourceFlavor"}
    assert any("amd" in n and "amd.com/gpu.family" in n for n in notes)


def test_amd_patch_drops_the_nvidia_runtime_class():
    spec = {"runtimeClassName": "nvidia", "containers": [{"name": "c", "image": "nvcr.io/nvidia/pytorch:26.03-py3",
                                                           "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}
    patch, notes = pod_spec_patch(spec, POOLS["amd"], _fit("amd"), None)
    assert patch["runtimeClassName"] is None
    merged = apply_strategic_merge(spec, patch)
    assert "runtimeClassName" not in merged
    assert any("runtimeClassName nvidia" in n for n in notes)
    same, _ = pod_spec_patch(spec, POOLS["nvidia"], PoolFit("nvidia", "cuda", Verdict.MOVES_AS_IS, Readiness.NOW, ""), None)
    assert "runtimeClassName" not in same


def test_generic_patch_never_runs_the_dockerfile_base_image():
    from vado.model import Effort
    from vado.model.plan import WorkloadPlan

    w = WorkloadPlan(repo="r", name="train", path=".", files=1, verdicts=(), effort=Effort())
    p = generic_patch(w, POOLS["amd"], _fit("amd"), None, "nvidia/cuda:12.8.0-devel-ubuntu22.04")
    (container,) = p.patch["spec"]["containers"]
    assert "image" not in container
    assert any("builds FROM nvidia/cuda:12.8.0-devel-ubuntu22.04" in n and "rocm" in n for n in p.notes)
    named = generic_patch(w, POOLS["amd"], _fit("amd"), RepoSpec(name="r", images={"amd": "registry/app:rocm"}),
                          "nvidia/cuda:12.8.0-devel-ubuntu22.04")
    assert named.patch["spec"]["containers"][0]["image"] == "registry/app:rocm"


def test_no_zluda_route_into_the_instinct_pool():
    assert "zluda" not in POOLS["amd"].families


def test_a_named_manifest_that_is_missing_is_an_error(tmp_path):
    (tmp_path / "deploy").mkdir()
    with pytest.raises(UsageError, match="names deploy/job.yaml, which is not a file"):
        discover_manifests(tmp_path, RepoSpec(name="r", manifests=(("deploy/job.yaml", ""),)))
