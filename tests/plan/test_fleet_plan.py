"""Planning the fixture fleet: verdicts, blockers, order, pools, and the generated placement."""

from __future__ import annotations

import json

import pytest

from vado.model import Verdict
from vado.model.plan import Readiness
from vado.plan import plan_fleet
from vado.plan.fleet import FleetSpec, specs_from_args
from vado.plan.placement import apply_strategic_merge, assign_manifests, discover_manifests, dns_label, pod_spec
from vado.plan.pools import default_pools, pool_of_family, with_overrides
from vado.errors import UsageError

from plan_helpers import FLEET, by_key

ORDER = ["partial:serve", "portable", "partial:kernels", "blocked"]


def test_verdicts_per_workload_and_target(fleet_plan):
    w = by_key(fleet_plan)
    assert set(w) == set(ORDER)
    assert fleet_plan.targets == ("rocm-7.2", "oneapi", "scale", "zluda") and fleet_plan.primary == "rocm-7.2"
    expect = {
        "partial:serve": ("moves-as-is", "moves-as-is", "moves-as-is", "moves-as-is"),
        "portable": ("moves-with-automatic-edits", "needs-manual-work", "moves-as-is", "moves-as-is"),
        "partial:kernels": ("needs-manual-work", "needs-manual-work", "moves-as-is", "moves-as-is"),
        "blocked": ("blocked", "blocked", "blocked", "needs-manual-work"),
    }
    for key, verdicts in expect.items():
        assert tuple(w[key].verdict_for(t).value for t in fleet_plan.targets) == verdicts, key


def test_order_is_cheapest_wins_first(fleet_plan):
    assert [w.key for w in fleet_plan.workloads] == ORDER
    assert [w.order for w in fleet_plan.workloads] == [1, 2, 3, 4]
    assert [w.wave for w in fleet_plan.workloads] == ["moves as is", "automatic edits", "manual work", "stays on NVIDIA"]
    # Within the plan, effort for the primary target never decreases inside a wave.
    kernels = by_key(fleet_plan)["partial:kernels"]
    assert kernels.effort_by_target["rocm-7.2"].hours > 0
    assert by_key(fleet_plan)["partial:serve"].effort_by_target["rocm-7.2"].hours == 0


def test_effort_breaks_ties_inside_a_wave(tmp_path):
    import shutil

    # Two copies of the portable repo, one with an extra CUDA file: the smaller one goes first.
    small, big = tmp_path / "small", tmp_path / "big"
    shutil.copytree(FLEET / "portable", small)
    shutil.copytree(FLEET / "portable", big)
    (big / "src" / "more.cu").write_text((FLEET / "portable" / "src" / "saxpy.cu").read_text().replace("saxpy", "saxpy2"))
    plan = plan_fleet(FleetSpec(specs_from_args([str(big), str(small)])), targets=["rocm-7.2"], cache_dir=None)
    assert [w.repo for w in plan.workloads] == ["small", "big"]
    a, b = (w.effort_by_target["rocm-7.2"] for w in plan.workloads)
    assert (a.hours, a.lines) < (b.hours, b.lines)


def test_blockers(fleet_plan):
    w = by_key(fleet_plan)
    blocked = w["blocked"].blockers
    assert [b.code for b in blocked] == ["DEP001", "DEP005"]
    assert blocked[0].targets == ("oneapi", "rocm-7.2", "scale")
    assert all(b.summary for b in blocked)
    assert all(not w[k].blockers for k in ORDER[:3])


def test_pool_fits(fleet_plan):
    w = by_key(fleet_plan)
    fits = {k: {f.pool: (f.route, f.readiness) for f in w[k].fits} for k in ORDER}
    assert fits["partial:serve"] == {"nvidia": ("cuda", Readiness.NOW), "amd": ("rocm-7.2", Readiness.NOW),
                                     "intel": ("oneapi", Readiness.NOW)}
    # SCALE compiles the runtime-API code unchanged, so AMD is reachable now; ROCm needs the port.
    assert fits["portable"]["amd"] == ("scale", Readiness.NOW)
    assert fits["portable"]["intel"] == ("oneapi", Readiness.AFTER_MANUAL_WORK)
    # ZLUDA runs on Radeon only, and the AMD pool is Instinct: no ZLUDA route into it.
    assert fits["blocked"]["amd"] == ("rocm-7.2", Readiness.NO)
    assert fits["blocked"]["intel"] == ("oneapi", Readiness.NO)
    assert w["partial:serve"].placement.pools == ("nvidia", "amd", "intel")
    assert w["portable"].placement.pools == ("nvidia", "amd")
    assert w["partial:kernels"].placement.pools == ("nvidia", "amd")
    assert w["blocked"].placement.pools == ("nvidia",)


def test_rocm_only_plan_uses_the_port_route():
    spec = FleetSpec(specs_from_args([str(FLEET / r) for r in ("portable", "partial")]))
    plan = plan_fleet(spec, targets=["rocm-7.2"], cache_dir=None)
    assert plan.pools == ("nvidia", "amd")
    w = by_key(plan)
    assert {f.pool: f.readiness for f in w["portable"].fits}["amd"] is Readiness.AFTER_PORT
    assert w["portable"].placement.pools == ("nvidia", "amd")
    assert w["partial:kernels"].placement.pools == ("nvidia",)


def test_primary_must_be_audited(fleet_spec):
    with pytest.raises(UsageError, match="primary target"):
        plan_fleet(fleet_spec, targets=["rocm-7.2"], primary="oneapi", cache_dir=None)


def test_a_missing_repository_is_reported_not_fatal(tmp_path):
    spec = FleetSpec(specs_from_args([str(FLEET / "portable"), str(tmp_path / "gone")]))
    plan = plan_fleet(spec, targets=["rocm-7.2"], cache_dir=None)
    assert plan.stats.repos_failed == 1
    gone = plan.repos[1]
    assert gone.error["type"] == "PlanError" and "is not a directory" in gone.error["what"]
    assert [w.key for w in plan.workloads] == ["portable"]


# --- placement: manifests ----------------------------------------------------------


def test_manifest_discovery_and_assignment(fleet_plan):
    objs = discover_manifests(FLEET / "partial")
    # The Service in the same file asks for no GPU and is not a placement object.
    assert [(o.path, o.kind, o.name) for o in objs] == [("deploy/serve.yaml", "Deployment", "serve")]
    w = [x for x in fleet_plan.workloads if x.repo == "partial"]
    matches, unmatched = assign_manifests(objs, w)
    assert list(matches) == ["serve"] and not unmatched


def _k8s(plan, key, pool):
    return [k for k in by_key(plan)[key].placement.kubernetes if k.pool == pool]


def test_amd_patch_of_the_job(fleet_plan):
    (patch,) = _k8s(fleet_plan, "portable", "amd")
    assert (patch.manifest, patch.kind, patch.name) == ("deploy/job.yaml", "Job", "saxpy")
    pod = patch.patch["spec"]["template"]["spec"]
    assert pod["containers"] == [{"name": "saxpy",
                                  "resources": {"limits": {"nvidia.com/gpu": None, "amd.com/gpu": "1"}},
                                  "image": "rocm/dev-ubuntu-22.04:7.2-complete"}]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.product": None}
    assert pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "amd.com/gpu.family", "operator": "Exists"}]}]}
    assert [t["key"] for t in pod["tolerations"]] == ["amd.com/gpu", "dedicated"]
    done = pod_spec(patch.patched)
    assert done["nodeSelector"] == {"kubernetes.io/os": "linux"}
    assert done["containers"][0]["resources"]["limits"] == {"memory": "4Gi", "amd.com/gpu": "1"}
    assert done["containers"][0]["command"] == ["/opt/saxpy/bin/saxpy"]
    assert any("route scale" in n for n in patch.notes)
    assert any("dropped nodeSelector nvidia.com/gpu.product" in n for n in patch.notes)


def test_nvidia_patch_keeps_the_workload_as_it_is(fleet_plan):
    (patch,) = _k8s(fleet_plan, "portable", "nvidia")
    done = pod_spec(patch.patched)
    assert done["nodeSelector"]["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-80GB"
    assert done["containers"][0]["image"] == "nvidia/cuda:12.8.0-devel-ubuntu22.04"
    # Only the quantity's spelling changes (a string, as the API server returns it): no image, same resource.
    assert patch.patch["spec"]["template"]["spec"]["containers"] == [
        {"name": "saxpy", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]


def test_deployment_sidecar_is_untouched(fleet_plan):
    (patch,) = _k8s(fleet_plan, "partial:serve", "amd")
    done = pod_spec(patch.patched)
    server, metrics = done["containers"]
    assert server["resources"]["limits"] == {"amd.com/gpu": "2"}
    assert server["image"].startswith("rocm/pytorch:rocm7.2_")
    assert metrics == {"name": "metrics", "image": "prom/statsd-exporter:v0.26.0"}
    (intel,) = _k8s(fleet_plan, "partial:serve", "intel")
    assert pod_spec(intel.patched)["containers"][0]["resources"]["limits"] == {"gpu.intel.com/xe": "2"}
    assert any("no node label selects intel nodes" in n for n in intel.notes)


def test_generic_patch_without_manifest(fleet_plan):
    (patch,) = _k8s(fleet_plan, "partial:kernels", "amd")
    assert patch.manifest == "" and patch.kind == "PodTemplateSpec" and patch.patched == {}
    assert patch.patch["spec"]["containers"] == [{"name": "kernels", "resources": {"limits": {"amd.com/gpu": "1"}}}]
    assert any("no Kubernetes manifest" in n for n in patch.notes)


def test_images_from_the_fleet_manifest_win(tmp_path):
    m = tmp_path / "fleet.yaml"
    m.write_text(f"repos:\n- {{path: {FLEET / 'portable'}, images: {{amd: reg.example/saxpy:rocm7.2}}}}\n", encoding="utf-8")
    from vado.plan.fleet import load_manifest

    plan = plan_fleet(load_manifest(m), targets=["rocm-7.2"], cache_dir=None)
    (patch,) = _k8s(plan, "portable", "amd")
    assert pod_spec(patch.patched)["containers"][0]["image"] == "reg.example/saxpy:rocm7.2"
    assert by_key(plan)["portable"].placement.ray.per_pool["amd"]["runtime_env"] == {"image_uri": "reg.example/saxpy:rocm7.2"}


def _normalise(value):
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def test_every_generated_object_validates_against_the_kubernetes_models(fleet_plan):
    pytest.importorskip("kubernetes")
    from kubernetes.client import ApiClient

    api = ApiClient()
    checked = 0
    for w in fleet_plan.workloads:
        for k in w.placement.kubernetes:
            obj, model = (k.patched, f"V1{k.kind}") if k.patched else (k.patch, "V1PodTemplateSpec")
            parsed = api.deserialize(json.dumps(obj), model, "application/json")
            assert type(parsed).__name__ == model
            # The models drop fields they do not know: a round trip that loses nothing has none.
            assert api.sanitize_for_serialization(parsed) == _normalise(obj), (w.key, k.pool)
            checked += 1
    assert checked == 8  # serve 3 pools, portable 2, kernels 2, blocked 1


def test_kubernetes_models_reject_what_vado_must_not_emit():
    pytest.importorskip("kubernetes")
    from kubernetes.client import ApiClient

    api = ApiClient()
    with pytest.raises(Exception, match="name"):
        api.deserialize(json.dumps({"spec": {"containers": [{"image": "x"}]}}), "V1PodTemplateSpec", "application/json")
    with pytest.raises(Exception, match="string"):
        api.deserialize(json.dumps({"spec": {"containers": [{"name": "a", "resources": {"limits": {"amd.com/gpu": 1}}}]}}),
                        "V1PodTemplateSpec", "application/json")


# --- placement: Ray ----------------------------------------------------------------


def test_ray_options(fleet_plan):
    ray_opts = by_key(fleet_plan)["portable"].placement.ray
    sel = ray_opts.any_pool["label_selector"]["ray.io/accelerator-type"]
    assert ray_opts.any_pool["num_gpus"] == 1
    assert sel.startswith("in(") and "H100" in sel and "AMD-Instinct-MI300X-OAM" in sel and "Intel" not in sel
    assert set(ray_opts.per_pool) == {"nvidia", "amd"}
    assert "AMD" not in ray_opts.per_pool["nvidia"]["label_selector"]["ray.io/accelerator-type"]
    assert by_key(fleet_plan)["partial:serve"].placement.ray.any_pool["num_gpus"] == 2


def test_ray_accepts_the_options(fleet_plan):
    ray = pytest.importorskip("ray")

    def task():
        return 1

    for w in fleet_plan.workloads:
        ray.remote(**w.placement.ray.any_pool)(task)
        for opts in w.placement.ray.per_pool.values():
            ray.remote(**{k: v for k, v in opts.items() if k != "runtime_env"})(task)
    with pytest.raises(ValueError):
        ray.remote(num_gpus=1, label_selector={"ray.io/accelerator-type": "in(H100,"})(task)


# --- pools and strategic merge ------------------------------------------------------


def test_pools_defaults_and_overrides():
    assert [p.name for p in default_pools()] == ["nvidia", "amd", "intel"]
    assert pool_of_family("rocm") == pool_of_family("scale") == "amd" and pool_of_family("oneapi") == "intel"
    assert pool_of_family("zluda") is None  # Radeon only; no server pool
    assert [p.resource for p in default_pools()] == ["nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/xe"]
    pools = {p.name: p for p in with_overrides({"amd": {"node_affinity": {"amd.com/gpu.family": "AI"},
                                                         "ray_accelerator_types": ["AMD-Instinct-MI300X-OAM"]},
                                                 "intel": {"node_affinity": [{"key": "gpu.intel.com/device-id.0380-0bd5.present",
                                                                              "operator": "In", "values": [True]}]}})}
    assert pools["amd"].node_affinity == ({"key": "amd.com/gpu.family", "operator": "In", "values": ["AI"]},)
    assert pools["amd"].ray_accelerator_types == ("AMD-Instinct-MI300X-OAM",)
    assert pools["intel"].node_affinity[0]["values"] == ["true"]
    for bad in ({"tpu": {}}, {"amd": {"colour": 1}}, {"amd": {"node_affinity": [{"key": "x", "operator": "Near"}]}},
                {"amd": {"node_affinity": [{"key": "x", "operator": "In"}]}}):
        with pytest.raises(UsageError):
            with_overrides(bad)


def test_strategic_merge():
    obj = {"spec": {"containers": [{"name": "a", "image": "x", "env": [{"name": "K", "value": "1"}]},
                                   {"name": "b", "image": "y"}],
                    "nodeSelector": {"n": "1", "m": "2"}, "tolerations": [{"key": "t"}]}}
    patch = {"spec": {"containers": [{"name": "a", "image": "z", "env": [{"name": "J", "value": "2"}]},
                                     {"name": "c", "image": "w", "x": None}],
                      "nodeSelector": {"n": None}, "tolerations": [{"key": "u"}]}}
    out = apply_strategic_merge(obj, patch)
    assert out == {"spec": {"containers": [{"name": "a", "image": "z", "env": [{"name": "K", "value": "1"},
                                                                               {"name": "J", "value": "2"}]},
                                           {"name": "b", "image": "y"}, {"name": "c", "image": "w"}],
                            "nodeSelector": {"m": "2"}, "tolerations": [{"key": "u"}]}}
    assert obj["spec"]["nodeSelector"] == {"n": "1", "m": "2"}  # the input is not changed


def test_dns_label():
    assert dns_label("Flash_Attention v2") == "flash-attention-v2"
    assert dns_label("___") == "workload"
    assert len(dns_label("x" * 100)) == 63


def test_every_verdict_has_a_readiness():
    assert [Readiness.of(v) for v in Verdict] == list(Readiness)
    assert [r.schedulable for r in Readiness] == [True, True, False, False]
