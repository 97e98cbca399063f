"""IMG rules: container images built on NVIDIA's stack.

Facts come from :mod:`vado.scan.dockerfile` (``FROM`` with ARG substitution,
stages, ENV/LABEL pairs); image facts and AMD counterparts from
:mod:`vado.knowledge.images`. ``pip install`` lines inside ``RUN`` are read by
the DEP rules.
"""

from __future__ import annotations

import re
from typing import Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity, Target, Verdict
from vado.rules.base import FileContext, Rule
from vado.scan.classify import FileKind
from vado.scan.dockerfile import DockerFacts, FromLine, parse_dockerfile

_AS_IS = Verdict.MOVES_AS_IS
_AUTO = Verdict.AUTOMATIC
_MANUAL = Verdict.MANUAL
_BLOCKED = Verdict.BLOCKED

#: What AMD GPUs need from ``docker run`` (the rocm/pytorch images' documented flags).
ROCM_RUN_FLAGS = "--device=/dev/kfd --device=/dev/dri --group-add video"
INTEL_RUN_FLAGS = "--device=/dev/dri"


def docker_facts(ctx: FileContext) -> DockerFacts:
    """The Dockerfile's facts, parsed once per file (shared with the DEP rules)."""
    cached = getattr(ctx, "_vado_docker_facts", None)
    if cached is None:
        cached = parse_dockerfile(ctx.text, ctx.path)
        setattr(ctx, "_vado_docker_facts", cached)
    return cached


def _per_family(ctx: FileContext, **by_family: Verdict | None) -> dict[str, Verdict]:
    return {t.name: by_family[t.family] for t in ctx.targets if by_family.get(t.family) is not None}


def _rocm_target(ctx: FileContext) -> Target | None:
    return next((t for t in ctx.targets if t.family == "rocm"), None)


def _image_facts(ctx: FileContext):
    """``(from line, image fact)`` for every FROM that names an NVIDIA image vado knows."""
    from vado.knowledge.images import match_image

    target = _rocm_target(ctx)
    out = []
    for fl in docker_facts(ctx).froms:
        ref = fl.ref
        if ref is None:
            continue
        fact = match_image(fl.resolved, target)
        if fact is not None:
            out.append((fl, fact))
    return out


def _edit_target(ctx: FileContext, fl: FromLine) -> tuple[int, int]:
    """Where the image reference is written: the FROM text, or the ARG default it is entirely made of."""
    d = docker_facts(ctx)
    if len(fl.variables) == 1 and fl.image.strip() in (f"${fl.variables[0]}", f"${{{fl.variables[0]}}}"):
        for a in d.args:
            if a.global_ and a.name == fl.variables[0] and a.default is not None:
                return a.value_start, a.value_end
    return fl.start, fl.end


class NvidiaBaseImage(Rule):
    """A Dockerfile builds FROM an NVIDIA CUDA or NGC image that has an AMD counterpart.

    What it does
    ------------
    Finds ``FROM nvidia/cuda:*``, ``FROM nvcr.io/nvidia/pytorch:*`` and other
    NGC images (after substituting global ``ARG`` defaults, e.g.
    ``FROM nvidia/cuda:${CUDA_VERSION}-devel-ubuntu22.04``), and suggests the
    ROCm image for the audited ROCm target: ``rocm/dev-ubuntu-<os>:<rocm>[-complete]``
    for CUDA images, ``rocm/pytorch:rocm<ver>_ubuntu<os>_py<py>_pytorch_release_<torch>``
    for NGC PyTorch.

    Why is this bad?
    ----------------
    NVIDIA's images carry CUDA, cuDNN, NCCL and NVIDIA-built frameworks that do
    not run on AMD GPUs. Intel's counterparts are the oneAPI images
    (``intel/oneapi-basekit``) or a plain image with PyTorch's XPU wheels.
    SCALE and ZLUDA publish no images: they are installed into an AMD (ROCm)
    base image, so the base image changes there too.

    Example
    -------
    .. code-block:: dockerfile

        ARG CUDA_VERSION=12.1.0
        FROM nvidia/cuda:${CUDA_VERSION}-devel-ubuntu22.04

    Use instead
    -----------
    .. code-block:: dockerfile

        FROM rocm/dev-ubuntu-22.04:7.2-complete

    Fix safety
    ----------
    Unsafe: the tag is built from the target profile and table defaults
    (ROCm version, Python, PyTorch from the target's compatibility matrix) and
    may not be published; the image's contents (Python version, preinstalled
    packages) differ from NVIDIA's. When the reference is exactly one ``ARG``,
    the ARG's default is rewritten; a reference that mixes text and variables
    is replaced as a whole. Incomplete suggestions get no fix.

    References
    ----------
    - https://hub.docker.com/u/rocm
    - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/pytorch-install.html
    - https://github.com/intel/oneapi-containers
    """

    code = "IMG001"
    can_fix = True
    name = "nvidia-base-image"
    severity = Severity.HIGH
    file_kinds = frozenset({FileKind.DOCKERFILE})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for fl, fact in _image_facts(ctx):
            s = fact.rocm
            if s.status == "none":
                continue  # IMG002
            suggestion = s.reference if s.status == "counterpart" else ""
            fix = None
            if suggestion and not s.incomplete:
                start, end = _edit_target(ctx, fl)
                fix = Fix((ctx.edit(start, end, suggestion),), Applicability.UNSAFE,
                          f"build FROM {suggestion}")
            written = fl.image if fl.image == fl.resolved else f"{fl.image} (= {fl.resolved})"
            if suggestion:
                msg = f"FROM {written} is {fact.name}; AMD counterpart: {suggestion}"
                if not s.seen_in_sources:
                    msg += " (tag built by vado; check it is published)"
            else:
                msg = f"FROM {written} is {fact.name}; vado knows no AMD counterpart for it"
            if fact.intel_counterpart:
                msg += f"; Intel: {fact.intel_counterpart.split(' (')[0]}"
            yield self.finding(
                ctx, fl.start, fl.end, msg,
                _per_family(ctx, rocm=_AUTO if fix else _MANUAL, oneapi=_MANUAL, scale=_MANUAL, zluda=_MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.5 if fix else 2.0),
                fix=fix,
                data={"image": fl.resolved, "kind": fact.kind, "rocm_image": suggestion,
                      "suggested_parts": dict(s.suggested_parts), "intel_image": fact.intel_counterpart,
                      "run_flags": s.run_flags or ROCM_RUN_FLAGS, "stage": fl.stage},
            )


class NvidiaServingImage(Rule):
    """A Dockerfile builds FROM an NVIDIA-only serving image (Triton Inference Server, TensorRT-LLM).

    What it does
    ------------
    Finds ``FROM nvcr.io/nvidia/tritonserver:*`` and
    ``FROM nvcr.io/nvidia/tensorrt-llm/{release,devel}:*``.

    Why is this bad?
    ----------------
    These products have no AMD build: TensorRT and TensorRT-LLM engines are
    NVIDIA-only, and no AMD Triton Inference Server image is published. The
    route on AMD is another serving stack - vLLM (``rocm/vllm``,
    ``vllm/vllm-openai-rocm``) or SGLang (``rocm/sgl-dev``) - with the model
    served from its original weights rather than a TensorRT engine.

    Example
    -------
    .. code-block:: dockerfile

        FROM nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3

    Use instead
    -----------
    .. code-block:: dockerfile

        FROM rocm/vllm:latest

    Fix safety
    ----------
    No fix: changing the serving stack changes the server's API, configuration
    and model format.

    References
    ----------
    - https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/introduction/compatibility.html
    - https://rocm.docs.amd.com/projects/ai-ecosystem/en/latest/inference/vllm.html
    - https://rocm.docs.amd.com/projects/ai-ecosystem/en/latest/inference/sglang.html
    """

    code = "IMG002"
    name = "nvidia-serving-image"
    severity = Severity.HIGH
    file_kinds = frozenset({FileKind.DOCKERFILE})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for fl, fact in _image_facts(ctx):
            if fact.rocm.status != "none":
                continue
            alts = ", ".join(fact.rocm.alternatives) or "another serving stack"
            yield self.finding(
                ctx, fl.start, fl.end,
                f"FROM {fl.resolved} is {fact.name}, which has no AMD build; serve with {alts} instead",
                _per_family(ctx, rocm=_BLOCKED, oneapi=_BLOCKED, scale=_BLOCKED, zluda=_BLOCKED),
                effort=Effort(lines=1, constructs=1, hours=40.0),
                data={"image": fl.resolved, "kind": fact.kind, "alternatives": list(fact.rocm.alternatives)},
            )


class NvidiaContainerRuntimeSetting(Rule):
    """A Dockerfile sets NVIDIA container-runtime variables or labels (NVIDIA_VISIBLE_DEVICES …).

    What it does
    ------------
    Finds ``ENV NVIDIA_VISIBLE_DEVICES``, ``NVIDIA_DRIVER_CAPABILITIES``,
    ``NVIDIA_REQUIRE_CUDA`` and other ``NVIDIA_*`` variables, and
    ``LABEL com.nvidia.*``.

    Why is this bad?
    ----------------
    They configure the NVIDIA Container Toolkit, which does not exist on AMD
    hosts: they are ignored there, and the GPUs are not passed in. An AMD GPU
    reaches a container through device flags -
    ``--device=/dev/kfd --device=/dev/dri --group-add video`` (plus
    ``--ipc=host`` for PyTorch) - or the AMD GPU device plugin on Kubernetes;
    Intel GPUs through ``--device=/dev/dri``.

    Example
    -------
    .. code-block:: dockerfile

        ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility

    Use instead
    -----------
    .. code-block:: shell

        docker run --device=/dev/kfd --device=/dev/dri --group-add video image

    Fix safety
    ----------
    No fix: the setting is harmless on AMD; what changes is how the container
    is run, which is outside the Dockerfile.

    References
    ----------
    - https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html
    - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
    """

    code = "IMG003"
    name = "nvidia-container-runtime-setting"
    severity = Severity.INFO
    file_kinds = frozenset({FileKind.DOCKERFILE})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        d = docker_facts(ctx)
        for pair in (*d.env, *d.labels):
            name = pair.name
            if pair.instruction == "ENV" and not name.startswith("NVIDIA_"):
                continue
            if pair.instruction == "LABEL" and not name.startswith("com.nvidia."):
                continue
            yield self.finding(
                ctx, pair.start, pair.end,
                f"{pair.instruction} {name} configures the NVIDIA Container Toolkit; AMD GPUs reach the "
                f"container with {ROCM_RUN_FLAGS} (Intel: {INTEL_RUN_FLAGS})",
                _per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_MANUAL, zluda=_MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.25),
                data={"variable": name, "value": pair.value, "rocm_run_flags": ROCM_RUN_FLAGS,
                      "intel_run_flags": INTEL_RUN_FLAGS},
            )


class CudaArchListSetting(Rule):
    """A Dockerfile sets TORCH_CUDA_ARCH_LIST for the PyTorch extensions it builds.

    What it does
    ------------
    Finds ``ENV TORCH_CUDA_ARCH_LIST=…`` and ``ARG TORCH_CUDA_ARCH_LIST=…``:
    the NVIDIA compute capabilities ``torch.utils.cpp_extension`` builds
    CUDA extensions for.

    Why is this bad?
    ----------------
    A ROCm build of PyTorch ignores it: ``cpp_extension`` reads the AMD
    offload architectures from ``PYTORCH_ROCM_ARCH`` (``gfx942;gfx950``) and,
    without it, builds for the architectures PyTorch itself was built for,
    which makes extension builds slow and large. SCALE and ZLUDA keep the
    CUDA build.

    Example
    -------
    .. code-block:: dockerfile

        ENV TORCH_CUDA_ARCH_LIST="8.0;9.0"

    Use instead
    -----------
    .. code-block:: dockerfile

        ENV PYTORCH_ROCM_ARCH="gfx942;gfx950"

    Fix safety
    ----------
    Unsafe: the variable is renamed and a literal value becomes the audited
    ROCm targets' architectures (or vado's ``offload_arch`` option), which may
    not be the GPUs you deploy on. A value built from other variables is kept.

    References
    ----------
    - https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py (``_get_rocm_arch_flags``)
    - https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html
    """

    code = "IMG004"
    can_fix = True
    name = "cuda-arch-list-setting"
    severity = Severity.LOW
    file_kinds = frozenset({FileKind.DOCKERFILE})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        from vado.rules.bld import offload_archs

        d = docker_facts(ctx)
        archs = ";".join(offload_archs(ctx))
        spans = [(p.instruction, p.name_start, p.name_end, p.value, p.value_start, p.value_end)
                 for p in d.env if p.name == "TORCH_CUDA_ARCH_LIST"]
        spans += [("ARG", a.start, a.start + len(a.name), a.default or "", a.value_start, a.value_end)
                  for a in d.args if a.name == "TORCH_CUDA_ARCH_LIST"]
        for instruction, ns, ne, value, vs, ve in spans:
            if ctx.text[ns:ne] != "TORCH_CUDA_ARCH_LIST":
                continue
            edits = [ctx.edit(ns, ne, "PYTORCH_ROCM_ARCH")]
            if value and "$" not in value and vs < ve:
                edits.append(ctx.edit(vs, ve, archs))
            else:
                # `ENV TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST}` reads the ARG renamed with it.
                for m in re.finditer(r"\$\{?(TORCH_CUDA_ARCH_LIST)\b", ctx.text[vs:ve]):
                    edits.append(ctx.edit(vs + m.start(1), vs + m.end(1), "PYTORCH_ROCM_ARCH"))
            yield self.finding(
                ctx, ns, ne,
                f"{instruction} TORCH_CUDA_ARCH_LIST names NVIDIA compute capabilities ({value or 'none'}); "
                f"a ROCm build of PyTorch reads PYTORCH_ROCM_ARCH ({archs})",
                _per_family(ctx, rocm=_AUTO, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                effort=Effort(lines=1, constructs=1, hours=0.0),
                fix=Fix(tuple(edits), Applicability.UNSAFE, f"TORCH_CUDA_ARCH_LIST → PYTORCH_ROCM_ARCH={archs}", ("build",)),
                data={"variable": "TORCH_CUDA_ARCH_LIST", "value": value, "replacement": "PYTORCH_ROCM_ARCH",
                      "offload_arch": archs.split(";")},
            )
