"""Placement: the pools each workload may run on, as Kubernetes patches and Ray options.

Kubernetes cannot ask for "a GPU of any vendor": each device plugin serves its own
resource (``nvidia.com/gpu``, ``amd.com/gpu``, ``gpu.intel.com/xe``) and each pool
needs its own image. So a portable workload gets one variant per pool: a
strategic-merge patch of its manifest that swaps the GPU resource, steers the pod
onto the pool's nodes (node affinity on the labels the pool's device plugin or
labeller sets), drops node selectors and tolerations of other vendors, and sets
the pool's image. :func:`apply_strategic_merge` applies it, giving the patched
object too.

Ray can: GPUs of every vendor are the ``GPU`` resource, and Ray labels each node
with ``ray.io/accelerator-type`` (``H100``, ``AMD-Instinct-MI300X-OAM``, …). One
label selector ``in(...)`` over the accelerator types of every pool a workload may
use lets the same task land on either kind of node.

A workload may use a pool when its readiness there is ``now`` or ``after-port``
(:attr:`vado.model.plan.Readiness.schedulable`).
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Sequence

from vado.model.plan import K8sPatch, Placement, PoolFit, RayPlacement, RepoSpec, WorkloadPlan
from vado.plan.pools import Pool

#: Where the pod spec sits in each kind that runs pods.
POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
#: The Ray node label that carries the accelerator type (set by Ray itself).
RAY_ACCELERATOR_LABEL = "ray.io/accelerator-type"
#: Lists merged element-wise by this key in a strategic-merge patch (the rest are replaced).
_MERGE_KEYS = {"containers": "name", "initContainers": "name", "env": "name", "volumes": "name",
               "ports": "containerPort", "volumeMounts": "mountPath"}
_MAX_MANIFEST_BYTES = 1 << 20
_MAX_MANIFEST_FILES = 2000
_SKIP_DIRS = frozenset({".git", "node_modules", "third_party", "vendor", "external", "build", "dist"})
_IMAGE_REF = re.compile(r"^[a-z0-9][a-z0-9._/:@-]*$")


@dataclass(frozen=True)
class ManifestObject:
    """One Kubernetes object that runs GPU pods, read from a repository.

    ``path`` is the file relative to the repository root, ``index`` the document's
    position in it, ``workload`` the workload the fleet manifest assigned (empty
    when vado should match it).
    """

    path: str
    index: int
    doc: dict[str, Any]
    workload: str = ""

    @property
    def kind(self) -> str:
        """The object's kind."""
        return str(self.doc.get("kind", ""))

    @property
    def name(self) -> str:
        """``metadata.name``, empty when absent."""
        meta = self.doc.get("metadata") or {}
        return str(meta.get("name", "")) if isinstance(meta, dict) else ""


# --- reading manifests -------------------------------------------------------------


def pod_spec(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The pod spec inside a pod-running object, or None for other kinds."""
    path = POD_SPEC_PATHS.get(str(doc.get("kind", "")))
    node: Any = doc
    for key in path or ():
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node if path and isinstance(node, dict) else None


def gpu_resources(container: dict[str, Any]) -> dict[str, int]:
    """The GPU resources a container asks for in its limits (else requests), by name."""
    from vado.knowledge.kubernetes import vendor_for_resource

    res = container.get("resources") or {}
    out: dict[str, int] = {}
    for section in ("limits", "requests"):
        for name, value in (res.get(section) or {}).items():
            if name in out or vendor_for_resource(str(name)) is None:
                continue
            try:
                out[str(name)] = int(str(value))
            except ValueError:
                out[str(name)] = 1
    return out


def requests_gpus(doc: dict[str, Any]) -> bool:
    """True when a pod-running object has a container that asks for a GPU."""
    spec = pod_spec(doc)
    if spec is None:
        return False
    return any(gpu_resources(c) for c in (spec.get("containers") or ()) if isinstance(c, dict))


def _load_docs(path: Path) -> list[Any]:
    import yaml

    from vado.scan.discover import read_regular

    try:
        raw = read_regular(path, _MAX_MANIFEST_BYTES + 1)  # a FIFO is refused, not waited on
        if len(raw) > _MAX_MANIFEST_BYTES:
            return []
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if "apiVersion" not in text or "kind" not in text:
        return []
    try:
        return list(yaml.safe_load_all(text))
    except (yaml.YAMLError, RecursionError):
        # Helm templates and other non-YAML with a .yaml name are not manifests vado can patch.
        return []


def discover_manifests(root: str | os.PathLike, spec: RepoSpec | None = None) -> tuple[ManifestObject, ...]:
    """The GPU-requesting objects of ``root``: those ``spec.manifests`` names, else every YAML file's.

    A named manifest that does not exist raises :class:`~vado.errors.UsageError`. Discovery skips hidden and vendored directories and files over 1 MiB; files
    that are not YAML (Helm templates) are ignored.
    """
    base = Path(root)
    named = list(spec.manifests) if spec and spec.manifests else []
    files: list[tuple[str, str]] = []
    if named:
        files = named
    else:
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
            for fn in sorted(filenames):
                if fn.endswith((".yaml", ".yml")):
                    files.append((Path(dirpath, fn).relative_to(base).as_posix(), ""))
            if len(files) >= _MAX_MANIFEST_FILES:
                break
    out = []
    for rel, workload in files:
        if named and not (base / rel).is_file():
            from vado.errors import UsageError

            raise UsageError(f"the fleet manifest names {rel}, which is not a file in {base}",
                             "a named manifest is the one vado patches; leaving it out would plan without it",
                             "fix the path under manifests:, or remove the entry")
        for i, doc in enumerate(_load_docs(base / rel)):
            if isinstance(doc, dict) and requests_gpus(doc):
                out.append(ManifestObject(rel, i, doc, workload))
    return tuple(out)


def assign_manifests(objects: Sequence[ManifestObject], workloads: Sequence[WorkloadPlan]) -> tuple[dict[str, list[ManifestObject]], list[ManifestObject]]:
    """Match manifest objects to workloads (by ``path``); return the matches and the unmatched.

    In order: the workload the fleet manifest named (by name or path); the deepest
    workload directory that holds the file; a workload whose name equals the
    object's name or one of its containers'; the only workload of the repository.
    """
    by_path = {w.path: w for w in workloads}
    matches: dict[str, list[ManifestObject]] = {}
    unmatched = []
    for obj in objects:
        target = None
        if obj.workload:
            target = next((w.path for w in workloads if obj.workload in (w.name, w.path)), None)
        if target is None:
            parents = [w.path for w in workloads if w.path != "." and PurePosixPath(obj.path).is_relative_to(w.path)]
            target = max(parents, key=len) if parents else None
        if target is None:
            names = {obj.name} | {str(c.get("name", "")) for c in (pod_spec(obj.doc) or {}).get("containers") or ()}
            hits = [w.path for w in workloads if w.name in names]
            target = hits[0] if len(hits) == 1 else None
        if target is None and len(workloads) == 1:
            target = workloads[0].path
        if target is None or target not in by_path:
            unmatched.append(obj)
        else:
            matches.setdefault(target, []).append(obj)
    return matches, unmatched


# --- strategic merge ---------------------------------------------------------------


def apply_strategic_merge(obj: Any, patch: Any, key: str = "") -> Any:
    """``obj`` with a strategic-merge ``patch`` applied (a new object; the inputs are unchanged).

    The subset of Kubernetes' strategic merge that vado's patches use: mappings
    merge recursively, ``None`` deletes a key, lists named in ``_MERGE_KEYS``
    (containers by ``name``, …) merge element by element, other lists are replaced.
    """
    if isinstance(patch, dict) and isinstance(obj, dict):
        out = copy.deepcopy(obj)
        for k, v in patch.items():
            if v is None:
                out.pop(k, None)
            elif k in out:
                out[k] = apply_strategic_merge(out[k], v, k)
            else:
                out[k] = _without_nulls(v)
        return out
    if isinstance(patch, list) and isinstance(obj, list) and key in _MERGE_KEYS:
        mk = _MERGE_KEYS[key]
        out = copy.deepcopy(obj)
        for item in patch:
            idx = next((i for i, o in enumerate(out) if isinstance(o, dict) and isinstance(item, dict)
                        and o.get(mk) == item.get(mk)), None)
            if idx is None:
                out.append(_without_nulls(item))
            else:
                out[idx] = apply_strategic_merge(out[idx], item)
        return out
    return _without_nulls(copy.deepcopy(patch))


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


# --- images ------------------------------------------------------------------------


def pool_image(image: str, pool: Pool, fit: PoolFit, spec: RepoSpec | None) -> tuple[str, str]:
    """The image a container runs on ``pool`` and a note (empty when nothing needs checking).

    The fleet manifest's ``images`` win; on NVIDIA the image stays; otherwise vado
    suggests the counterpart of a recognised NVIDIA base image, and keeps the
    image with a note when it knows none.
    """
    from vado.knowledge.images import image_vendor, match_image

    if spec and spec.images.get(pool.name):
        return spec.images[pool.name], ""
    if not pool.families or not image:
        return image, ""
    if image_vendor(image) == pool.vendor:
        return image, ""
    fact = match_image(image, fit.route if fit.route.startswith("rocm") else None)
    if fact is None:
        return image, (f"{image} is not an NVIDIA base image vado knows; if it was built for CUDA, build a "
                       f"{pool.name} variant and set images.{pool.name} in the fleet manifest")
    if pool.vendor == "amd":
        s = fact.rocm
        if s.status == "counterpart" and s.reference and not s.incomplete:
            checked = "" if s.seen_in_sources else f"; vado built the tag {s.reference}: check that it is published"
            return s.reference, f"{image} → {s.reference} ({fact.name} counterpart{checked})"
        alts = ", ".join(s.alternatives) or "none known"
        return image, f"{fact.name} has no AMD image; alternatives: {alts}; set images.amd in the fleet manifest"
    if pool.vendor == "intel":
        ref = fact.intel_counterpart
        if ref and _IMAGE_REF.match(ref):
            return ref, f"{image} → {ref} (Intel counterpart)"
        return image, (f"{fact.name}: Intel counterpart is {ref or 'not known'}; "
                       "set images.intel in the fleet manifest")
    return image, ""


# --- Kubernetes patches -------------------------------------------------------------


def _requirement_vendor(key: str) -> str | None:
    from vado.knowledge.kubernetes import vendor_for_label, vendor_for_resource

    fact = vendor_for_label(key) or vendor_for_resource(key)
    return fact.vendor if fact else None


def _affinity_patch(spec: dict[str, Any], pool: Pool) -> dict[str, Any] | None:
    """Required node affinity for ``pool``, keeping the pod's terms about other things."""
    node_aff = ((spec.get("affinity") or {}).get("nodeAffinity") or {})
    required = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    terms = [t for t in required.get("nodeSelectorTerms") or () if isinstance(t, dict)]
    foreign = any(_requirement_vendor(str(e.get("key", ""))) not in (None, pool.vendor)
                  for t in terms for e in t.get("matchExpressions") or ())
    if not pool.node_affinity and not foreign:
        return None
    kept = []
    for t in terms or [{}]:
        # Keep what the pod asks of nodes besides GPUs, and this vendor's own labels
        # (nvidia.com/gpu.product stays on the NVIDIA variant); drop other vendors'.
        exprs = [e for e in t.get("matchExpressions") or ()
                 if _requirement_vendor(str(e.get("key", ""))) in (None, pool.vendor)]
        have = {e.get("key") for e in exprs}
        exprs += [dict(e) for e in pool.node_affinity if e["key"] not in have]
        term = {**{k: v for k, v in t.items() if k != "matchExpressions"}, "matchExpressions": exprs}
        if term["matchExpressions"] or term.get("matchFields"):
            kept.append(term)
    if not kept:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": None}}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": kept}}}


def pod_spec_patch(spec: dict[str, Any], pool: Pool, fit: PoolFit, repo: RepoSpec | None) -> tuple[dict[str, Any], list[str]]:
    """The strategic-merge patch of one pod spec for ``pool``, and notes for a person."""
    from vado.knowledge.kubernetes import label_equivalent

    notes: list[str] = []
    resource = pool.resource
    containers = []
    for c in spec.get("containers") or ():
        if not isinstance(c, dict):
            continue
        gpus = gpu_resources(c)
        if not gpus:
            continue
        count = sum(gpus.values())
        cpatch: dict[str, Any] = {"name": c.get("name", "")}
        res = c.get("resources") or {}
        rpatch: dict[str, Any] = {}
        for section in ("limits", "requests"):
            current = res.get(section) or {}
            present = [k for k in current if k in gpus]
            if section == "requests" and not present:
                continue
            sec: dict[str, Any] = {k: None for k in present if k != resource}
            # Quantities as strings: what the API server returns, and what the
            # kubernetes client's models accept (they reject a bare int).
            if current.get(resource) != str(count):
                sec[resource] = str(count)
            if sec:
                rpatch[section] = sec
        if rpatch:
            cpatch["resources"] = rpatch
        image, note = pool_image(str(c.get("image", "")), pool, fit, repo)
        if image and image != c.get("image"):
            cpatch["image"] = image
        if note:
            notes.append(f"container {c.get('name', '')}: {note}")
        if len(cpatch) > 1:
            containers.append(cpatch)
    patch: dict[str, Any] = {}
    if containers:
        patch["containers"] = containers
    affinity = _affinity_patch(spec, pool)
    if affinity:
        patch["affinity"] = affinity
    selector = spec.get("nodeSelector") or {}
    dropped = {}
    for key, value in selector.items():
        vendor = _requirement_vendor(str(key))
        if vendor is not None and vendor != pool.vendor:
            dropped[key] = None
            eq = label_equivalent(str(key))
            other = getattr(eq, pool.vendor, "") if eq else ""
            hint = f"; nearest {pool.name} label: {other}{' (values differ)' if eq and eq.approximate else ''}" if other else ""
            notes.append(f"dropped nodeSelector {key}={value} ({vendor} label){hint}")
    if dropped:
        patch["nodeSelector"] = dropped
    tolerations = spec.get("tolerations")
    if isinstance(tolerations, list):
        changed = False
        new = []
        for t in tolerations:
            vendor = _requirement_vendor(str((t or {}).get("key", ""))) if isinstance(t, dict) else None
            if vendor is not None and vendor != pool.vendor:
                changed = True
                new.append({**t, "key": resource})
            else:
                new.append(t)
        if changed:
            # Tolerations have no merge key: the patch carries the whole list.
            patch["tolerations"] = new
            notes.append(f"GPU taint tolerations now tolerate {resource}; check the taint key your {pool.name} nodes use")
    runtime = spec.get("runtimeClassName")
    if isinstance(runtime, str) and pool.vendor != "nvidia" and "nvidia" in runtime.lower():
        # The NVIDIA container runtime does not exist on the other pools' nodes: a pod that
        # names it stays Pending there. The device plugin's resource request is enough.
        patch["runtimeClassName"] = None
        notes.append(f"dropped runtimeClassName {runtime} (NVIDIA's container runtime); {pool.name} nodes run "
                     f"their default runtime and the {resource} device plugin")
    if not pool.node_affinity and pool.families:
        notes.append(f"no node label selects {pool.name} nodes; the {resource} request alone places the pod")
    notes.extend(route_notes(fit))
    return patch, notes


def route_notes(fit: PoolFit) -> list[str]:
    """What the route into a pool asks of the image (SCALE and ZLUDA need their own runtime in it)."""
    if fit.route == "scale":
        return ["route scale: build the CUDA sources with SCALE's nvcc-compatible compiler; the image needs the "
                "SCALE toolkit on top of ROCm"]
    if fit.route == "zluda":
        return ["route zluda: run the CUDA build with ZLUDA's libraries on ROCm; the image needs ZLUDA installed"]
    return []


def _nest(path: Sequence[str], value: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = value
    for key in reversed(path):
        out = {key: out}
    return out


def manifest_patch(obj: ManifestObject, pool: Pool, fit: PoolFit, repo: RepoSpec | None) -> K8sPatch:
    """The patch (and the patched object) that puts ``obj`` on ``pool``."""
    spec = pod_spec(obj.doc) or {}
    inner, notes = pod_spec_patch(spec, pool, fit, repo)
    patch = _nest(POD_SPEC_PATHS[obj.kind], inner)
    meta = {"name": obj.name}
    if isinstance(obj.doc.get("metadata"), dict) and obj.doc["metadata"].get("namespace"):
        meta["namespace"] = obj.doc["metadata"]["namespace"]
    patch = {"apiVersion": obj.doc.get("apiVersion", ""), "kind": obj.kind, "metadata": meta, **patch}
    return K8sPatch(pool=pool.name, manifest=obj.path, kind=obj.kind, name=obj.name, patch=patch,
                    patched=apply_strategic_merge(obj.doc, patch), notes=tuple(notes))


def dns_label(text: str) -> str:
    """``text`` as a DNS-1123 label (a valid container name)."""
    label = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:63].strip("-")
    return label or "workload"


def generic_patch(w: WorkloadPlan, pool: Pool, fit: PoolFit, repo: RepoSpec | None, image: str) -> K8sPatch:
    """A pod-template patch for a workload the repository ships no manifest for.

    ``image`` is the base image the workload's Dockerfile builds FROM, or empty.
    It is not the workload's image (that is what the Dockerfile builds), so the
    patch names an image only where the fleet manifest gives one for the pool
    (``images.<pool>``); the notes say which base the pool's build should use.
    """
    name = dns_label(w.name)
    pool_img = repo.images.get(pool.name, "") if repo else ""
    note = ""
    if image and not pool_img:
        base, why = pool_image(image, pool, fit, repo)
        if base != image:
            note = (f"the Dockerfile builds FROM {image}: build the {pool.name} image FROM {base} "
                    f"and set images.{pool.name} in the fleet manifest")
        elif why:
            note = why
    container: dict[str, Any] = {"name": name}
    if pool_img:
        container["image"] = pool_img
    container["resources"] = {"limits": {pool.resource: "1"}}
    spec: dict[str, Any] = {"containers": [container]}
    affinity = _affinity_patch({}, pool)
    if affinity:
        spec["affinity"] = affinity
    notes = [f"the repository has no Kubernetes manifest for {w.name}: merge this into its pod template"]
    if note:
        notes.append(note)
    notes.extend(route_notes(fit))
    if not pool_img:
        notes.append(f"no image known for {pool.name}: set images.{pool.name} in the fleet manifest")
    return K8sPatch(pool=pool.name, manifest="", kind="PodTemplateSpec", name=name,
                    patch={"metadata": {"labels": {"app.kubernetes.io/name": name}}, "spec": spec},
                    notes=tuple(notes))


# --- Ray ---------------------------------------------------------------------------


def _selector(types: Iterable[str]) -> dict[str, str]:
    names = sorted(dict.fromkeys(types))
    return {RAY_ACCELERATOR_LABEL: "in(" + ", ".join(names) + ")"} if names else {}


def ray_placement(pools: Sequence[Pool], gpus: int, images: dict[str, str]) -> RayPlacement:
    """Ray options for a workload that may run on ``pools`` with ``gpus`` GPUs per task."""
    notes = []
    any_pool: dict[str, Any] = {"num_gpus": gpus}
    sel = _selector(t for p in pools for t in p.ray_accelerator_types)
    if sel:
        any_pool["label_selector"] = sel
    if len({images.get(p.name, "") for p in pools}) > 1:
        notes.append("the pools run different images: on a mixed cluster use per_pool options, or an image "
                     "that carries both runtimes (container runtime_env applies to one image)")
    per_pool: dict[str, dict[str, Any]] = {}
    for p in pools:
        opts: dict[str, Any] = {"num_gpus": gpus}
        s = _selector(p.ray_accelerator_types)
        if s:
            opts["label_selector"] = s
        else:
            notes.append(f"no Ray accelerator types are known for {p.name}; add ray_accelerator_types to the fleet manifest")
        if images.get(p.name):
            opts["runtime_env"] = {"image_uri": images[p.name]}
        per_pool[p.name] = opts
    return RayPlacement(any_pool=any_pool, per_pool=per_pool, notes=tuple(notes))


def _dockerfile_image(w: WorkloadPlan, dockerfile_images: dict[str, str]) -> str:
    # The workload's own Dockerfile base, else the repository root's.
    return dockerfile_images.get(w.path) or dockerfile_images.get(".", "")


def place(
    w: WorkloadPlan,
    pools: Sequence[Pool],
    objects: Sequence[ManifestObject],
    repo: RepoSpec | None,
    dockerfile_images: dict[str, str] | None = None,
) -> Placement:
    """The placement of one workload: its schedulable pools, one patch per manifest object and pool, Ray options."""
    fits = {f.pool: f for f in w.fits if f.readiness.schedulable}
    usable = [p for p in pools if p.name in fits]
    patches: list[K8sPatch] = []
    gpus = max((sum(gpu_resources(c).values()) for o in objects
                for c in (pod_spec(o.doc) or {}).get("containers") or () if isinstance(c, dict)), default=1) or 1
    images: dict[str, str] = {}
    base_image = _dockerfile_image(w, dockerfile_images or {})
    for pool in usable:
        if objects:
            for obj in objects:
                patches.append(manifest_patch(obj, pool, fits[pool.name], repo))
        else:
            patches.append(generic_patch(w, pool, fits[pool.name], repo, base_image))
        img = _first_image(patches[-1])
        if img:
            images[pool.name] = img
    return Placement(pools=tuple(p.name for p in usable), kubernetes=tuple(patches),
                     ray=ray_placement(usable, gpus, images))


def _first_image(p: K8sPatch) -> str:
    source = p.patched or p.patch
    spec = pod_spec(source) if p.patched else (source.get("spec") or {})
    for c in (spec or {}).get("containers") or ():
        if isinstance(c, dict) and gpu_resources(c) and c.get("image"):
            return str(c["image"])
    return ""
