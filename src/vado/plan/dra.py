"""Dynamic Resource Allocation for workloads that run on either pool: one claim, the first free GPU.

Device plugins make a pod name one vendor's resource (``nvidia.com/gpu`` or
``amd.com/gpu``), so a portable workload needs one manifest per pool. With
Dynamic Resource Allocation (``resource.k8s.io/v1``) a ``ResourceClaimTemplate``
can list alternatives: a request's ``firstAvailable`` subrequests name device
classes in order of preference, and the scheduler allocates the first it can
satisfy. The vendors' DRA drivers publish the device classes ``gpu.nvidia.com``
(NVIDIA's k8s-dra-driver-gpu), ``gpu.amd.com`` (AMD's k8s-gpu-dra-driver) and
``gpu.intel.com`` (Intel's intel-resource-drivers-for-kubernetes).

For queueing, Kueue describes each pool as a ``ResourceFlavor`` whose
``nodeLabels`` select its nodes.

The claim is emitted only for workloads that move *as is* to every pool they
may use (readiness ``now`` on each): a workload that needs a port first runs a
different build per pool. A pod still runs one image, and the pools' images
differ (a CUDA build, a ROCm build): each pool's image is recorded on the claim
template (annotation ``vado.dev/image.<pool>``) and in the notes, for the image
that carries both runtimes or for the admission step that picks one.

Sources: https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/
(prioritized list, ``firstAvailable``), https://kueue.sigs.k8s.io/docs/concepts/resource_flavor/.
"""

from __future__ import annotations

from typing import Any, Sequence

from vado.model.plan import Readiness, WorkloadPlan

#: Device class each vendor's DRA driver publishes.
DEVICE_CLASSES = {"nvidia": "gpu.nvidia.com", "amd": "gpu.amd.com", "intel": "gpu.intel.com"}
CLAIM_NAME = "gpu"


def portable_pools(w: WorkloadPlan, pools: Sequence[Any]) -> list[Any]:
    """The pools ``w`` may use now, in plan order, when there are at least two of them (else [])."""
    now = {f.pool for f in w.fits if f.readiness is Readiness.NOW}
    usable = [p for p in pools if p.name in w.placement.pools and p.name in now and p.vendor in DEVICE_CLASSES]
    if len(usable) < 2 or any(p.name not in now for p in pools if p.name in w.placement.pools):
        return []
    return usable


def claim_template(name: str, pools: Sequence[Any], count: int, images: dict[str, str]) -> dict[str, Any]:
    """A ``ResourceClaimTemplate`` asking for ``count`` GPUs of the first of ``pools`` that has them."""
    annotations = {f"vado.dev/image.{p.name}": images[p.name] for p in pools if images.get(p.name)}
    meta: dict[str, Any] = {"name": f"{name}-gpu"}
    if annotations:
        meta["annotations"] = annotations
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": meta,
        "spec": {"spec": {"devices": {"requests": [{
            "name": CLAIM_NAME,
            "firstAvailable": [
                {"name": p.name, "deviceClassName": DEVICE_CLASSES[p.vendor], "allocationMode": "ExactCount",
                 "count": count}
                for p in pools
            ],
        }]}}},
    }


def pod_spec_patch(name: str, containers: Sequence[str]) -> dict[str, Any]:
    """The pod-spec patch that makes ``containers`` use the claim instead of a device-plugin resource."""
    return {
        "resourceClaims": [{"name": CLAIM_NAME, "resourceClaimTemplateName": f"{name}-gpu"}],
        "containers": [{"name": c, "resources": {"claims": [{"name": CLAIM_NAME}]}} for c in containers],
    }


def resource_flavors(pools: Sequence[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """One Kueue ``ResourceFlavor`` per GPU pool, and notes for pools whose nodes no single label names."""
    flavors, notes = [], []
    for p in pools:
        if p.vendor not in DEVICE_CLASSES:
            continue
        labels = {}
        for req in p.node_affinity:
            values = req.get("values") or []
            if req.get("operator") == "In" and len(values) == 1:
                labels[str(req["key"])] = str(values[0])
        spec: dict[str, Any] = {}
        if labels:
            spec["nodeLabels"] = labels
        else:
            notes.append(f"ResourceFlavor {p.name}: no node label with one value selects its nodes "
                         f"({', '.join(str(r.get('key')) for r in p.node_affinity) or 'none known'}); "
                         "add nodeLabels that your nodes carry")
        flavors.append({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
                        "metadata": {"name": p.name}, "spec": spec})
    return flavors, notes


def dra_files(plan, pools: Sequence[Any], base_of, images_of) -> dict[str, str]:
    """Relative path → YAML: a claim template and pod-spec patch per portable workload, and the flavors.

    ``base_of(w)`` is the workload's output directory, ``images_of(w)`` its image per pool.
    """
    import yaml

    files: dict[str, str] = {}
    for w in plan.workloads:
        usable = portable_pools(w, pools)
        if not usable:
            continue
        from vado.plan.placement import dns_label, gpu_resources, pod_spec

        from vado.knowledge.images import image_vendor

        name = dns_label(w.name)
        # An NVIDIA image kept on another pool (no counterpart known) is no image for that pool.
        images = {pool: img for pool, img in images_of(w).items()
                  if image_vendor(img) in (None, next((p.vendor for p in pools if p.name == pool), None))}
        containers: list[str] = []
        count = 1
        for k in w.placement.kubernetes:
            spec = pod_spec(k.patched) if k.patched else (k.patch.get("spec") or {})
            for c in (spec or {}).get("containers") or ():
                if isinstance(c, dict) and gpu_resources(c):
                    if c.get("name") and c["name"] not in containers:
                        containers.append(str(c["name"]))
                    count = max(count, sum(gpu_resources(c).values()))
        containers = containers or [name]
        notes = [f"{w.key} runs as it is on {', '.join(p.name for p in usable)}: one claim takes the first free GPU",
                 "apply the claim template and merge the pod-spec patch into the pod template; remove the "
                 "nvidia.com/gpu / amd.com/gpu limits the claim replaces"]
        for p in usable:
            notes.append(f"image on {p.name}: {images.get(p.name) or 'not known (set images.' + p.name + ' in the fleet manifest)'}")
        if len({images.get(p.name, "") for p in usable}) > 1:
            notes.append("the pools' images differ: a pod runs one; build one image with both runtimes, or pick "
                         "the image at admission from the vado.dev/image.<pool> annotations")
        header = f"# vado plan: {w.key} on any of {', '.join(p.name for p in usable)} (DRA)" + "".join(
            f"\n# note: {n}" for n in notes) + "\n"
        docs = [claim_template(name, usable, count, images), {"spec": pod_spec_patch(name, containers)}]
        files[f"{base_of(w)}/dra/{name}.yaml"] = header + yaml.safe_dump_all(docs, sort_keys=False)
    if files:
        flavors, notes = resource_flavors(pools)
        header = "# vado plan: Kueue ResourceFlavors, one per GPU pool" + "".join(f"\n# note: {n}" for n in notes) + "\n"
        files["k8s/kueue-resourceflavors.yaml"] = header + yaml.safe_dump_all(flavors, sort_keys=False)
    return files
