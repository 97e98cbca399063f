"""DEP rules: Python dependencies that tie a workload to CUDA.

Requirements come from :mod:`vado.scan.pydeps` (requirements/constraints files,
``pyproject.toml``, ``setup.cfg``, ``setup.py``, conda environment files) and
from ``pip install``/``conda install`` lines in Dockerfiles
(:mod:`vado.scan.dockerfile`); package facts from :mod:`vado.knowledge.packages`.

How the targets differ:

- ``rocm`` and ``oneapi`` have their own builds of many packages (the table's
  ``rocm``/``intel`` status); a CUDA pin (``+cu121``, ``cupy-cuda12x``,
  ``jax[cuda12]``, a ``…/whl/cu121`` index) must become the platform's build.
- ``scale`` is a compiler: it builds CUDA *source* for AMD GPUs and cannot run
  the CUDA binaries a wheel ships. A package is usable only if it is rebuilt
  from source with SCALE, and SCALE's own validation suite fails PyTorch 2.9.0,
  vLLM and FAISS, so PyTorch-based packages are blocked there.
- ``zluda`` runs CUDA binaries: CUDA wheels may run, llama.cpp is reported to
  work, but PyTorch support is "not robust" (ZLUDA's own updates), so
  PyTorch-based packages need manual verification.

A requirement with no CUDA pin and no entry in the table (``numpy``,
``torch==2.9.1`` installed from the platform's index) is not reported.
"""

from __future__ import annotations

import re
from typing import Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity, Target, Verdict
from vado.rules.base import FileContext, Rule
from vado.scan.classify import FileKind
from vado.scan.pydeps import (
    CondaSpec,
    DependencyFile,
    IndexOption,
    Problem,
    PythonFacts,
    Requirement,
    cuda_local,
    parse_dependency_file,
    scan_python_imports,
)

_AS_IS = Verdict.MOVES_AS_IS
_AUTO = Verdict.AUTOMATIC
_MANUAL = Verdict.MANUAL
_BLOCKED = Verdict.BLOCKED

DEP_KINDS = frozenset({FileKind.REQUIREMENTS, FileKind.PYPROJECT, FileKind.SETUP_CFG, FileKind.SETUP_PY,
                       FileKind.CONDA_ENV})
#: Kinds whose dependency declarations the DEP rules read (Dockerfile RUN pip/conda install lines too).
DECLARING_KINDS = DEP_KINDS | {FileKind.DOCKERFILE}

#: Categories of packages built on PyTorch (or shipping CUDA kernels for it).
_TORCH_BASED = {"framework", "kernels", "training", "serving", "vision", "graph", "inference-runtime",
                "data-loading", "cuda-runtime-wheels"}
#: Categories a SCALE source rebuild might serve (nothing vado can confirm).
_SCALE_REBUILD = {"bindings", "array", "compiler", "search", "data-science"}
#: Packages whose ROCm build is not what ``pip install NAME`` from PyPI gives.
_SEPARATE_ROCM_BUILD = {"vllm", "sglang", "tensorflow", "llama-cpp-python"}


class Deps:
    """The dependency facts of one file, whatever declared them."""

    def __init__(self, requirements, indexes, conda, channels, problems) -> None:
        self.requirements: list[Requirement] = list(requirements)
        self.indexes: list[IndexOption] = list(indexes)
        self.conda: list[CondaSpec] = list(conda)
        self.channels: list[tuple[str, int, int]] = list(channels)
        self.problems: list[Problem] = list(problems)


def deps(ctx: FileContext) -> Deps:
    """Parse the file's dependency declarations once and share them among the DEP rules."""
    cached = getattr(ctx, "_vado_deps", None)
    if cached is not None:
        return cached
    if ctx.kind is FileKind.DOCKERFILE:
        from vado.rules.img import docker_facts

        d = docker_facts(ctx)
        result = Deps(
            [r for p in d.pip_installs for r in p.requirements],
            [i for p in d.pip_installs for i in p.indexes],
            [s for c in d.conda_installs for s in c.specs],
            [ch for c in d.conda_installs for ch in c.channels],
            # Problems of FROM lines are the image rules' business, not a dependency's.
            [p for p in d.problems if not p.reason.startswith("FROM")],
        )
    elif ctx.kind in DEP_KINDS:
        f: DependencyFile = parse_dependency_file(ctx.path, ctx.text, ctx.kind.value)
        result = Deps(f.requirements, f.indexes, f.conda, [(c.name, c.start, c.end) for c in f.channels], f.problems)
    else:
        result = Deps((), (), (), (), ())
    setattr(ctx, "_vado_deps", result)
    return result


def _packages():
    from vado.knowledge import packages

    return packages


def per_family(ctx: FileContext, **by_family: Verdict | None) -> dict[str, Verdict]:
    """``{target name: verdict}`` from one verdict per target family (absent: not affected)."""
    return {t.name: by_family[t.family] for t in ctx.targets if by_family.get(t.family) is not None}


def _rocm_target(ctx: FileContext) -> Target | None:
    return next((t for t in ctx.targets if t.family == "rocm"), None)


def platform_verdict(status: str, fact, pinned: bool) -> Verdict:
    """Verdict from a table status (``official``/``partial``/… /``none``) for ROCm or Intel."""
    if status == "official":
        return _AUTO if pinned else _AS_IS
    if status == "none":
        return _BLOCKED if fact.blockers else _MANUAL
    return _MANUAL


def binary_verdicts(fact) -> dict[str, Verdict]:
    """SCALE and ZLUDA verdicts for a CUDA-bound package (see the module docstring)."""
    if fact.name == "llama-cpp-python":
        return {"scale": _MANUAL, "zluda": _AS_IS}
    scale = _MANUAL if fact.category in _SCALE_REBUILD else _BLOCKED
    return {"scale": scale, "zluda": _MANUAL}


def cuda_pin(req: Requirement, match) -> str:
    """What pins ``req`` to a CUDA build (``cu121``, ``cuda12x``, ``cuda12``), or ``""``."""
    if match is not None and match.cuda_variant:
        return match.cuda_variant
    if req.local and (cuda_local(req.local) or re.search(r"cu\d{2,3}", req.local)):
        return req.local
    if req.url:
        um = re.search(r"(?:/|%2B|\+)(cu\d{2,3})(?:/|-|\.|$)", req.url, re.I)
        if um:
            return um.group(1).lower()
    if match is not None:
        for extra in req.extras:
            norm = re.sub(r"[-_.]+", "-", extra).lower()
            if any(re.fullmatch(p, norm) for p in match.fact.cuda_extras):
                return norm
    return ""


#: Packages served by PyTorch's wheel indexes with the index's local version (``2.9.1+rocm6.4``).
_TORCH_FAMILY = frozenset({"torch", "torchvision", "torchaudio"})


def torch_rocm_backend(ctx: FileContext, rocm_t: Target) -> tuple[str, str, bool]:
    """``(backend, torch version, known)``: the PyTorch ROCm index (``rocm6.4``) this file's torch
    pin must install from. The target's index (``rocm7.2``) unless the file pins a torch release
    that vado's table lists on other ROCm indexes only; ``known`` says the table lists the
    release on the returned index (else it is the target's, unverified for that release)."""
    pk = _packages()
    version = next((r.version for r in deps(ctx).requirements if r.version and normalise_name(r.name) == "torch"), "")
    default = f"rocm{rocm_t.hip_version}"
    if not version:
        return default, "", False
    published = pk.torch_rocm_indexes(version.split("+", 1)[0])
    if not published:
        return default, version.split("+", 1)[0], False
    return (default if default in published else published[-1]), version.split("+", 1)[0], True


def normalise_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _matches(ctx: FileContext):
    """``(requirement, match, pin)`` for every requirement the package table knows."""
    cached = getattr(ctx, "_vado_dep_matches", None)
    if cached is not None:
        return cached
    pk = _packages()
    out = []
    own = set((ctx.options or {}).get("own_packages") or ())
    for r in deps(ctx).requirements:
        if not r.name:
            continue
        if own and re.sub(r"[-_.]+", "-", r.name).lower() in own:
            continue  # the project itself (a sub-project that needs the repository's own package): its build is here
        m = pk.match_package(r.name)
        if m is None:
            continue
        out.append((r, m, cuda_pin(r, m)))
    setattr(ctx, "_vado_dep_matches", out)
    return out


def _verdicts(ctx: FileContext, fact, *, rocm: Verdict, oneapi: Verdict) -> dict[str, Verdict]:
    b = binary_verdicts(fact)
    return per_family(ctx, rocm=rocm, oneapi=oneapi, scale=b["scale"], zluda=b["zluda"])


def _short(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# ---------------------------------------------------------------------------


class PackageWithoutRocmBuild(Rule):
    """A dependency has no ROCm build at all (TensorRT, TensorRT-LLM, PyCUDA, DALI, nvidia-* wheels …).

    What it does
    ------------
    Finds requirements whose package vado's table marks as having no ROCm
    build: ``tensorrt``, ``tensorrt-llm``, ``pycuda``, ``nvidia-dali-cuda*``,
    ``nvidia-ml-py``/``pynvml``, FlashAttention-4, and NVIDIA's CUDA runtime
    wheels (``nvidia-cublas-cu12``, ``nvidia-cudnn-cu12``, ``cuda-toolkit`` …).

    Why is this bad?
    ----------------
    Installing the workload on an AMD GPU fails or installs something that
    cannot run. Each has a different way out, which the message names:
    TensorRT engines → MIGraphX (ONNX Runtime MIGraphX EP, torch_migraphx);
    TensorRT-LLM → vLLM or SGLang on ROCm; PyCUDA → hip-python; DALI → rocAL;
    NVML → AMD SMI. NVIDIA's runtime wheels are simply not needed on ROCm
    (ROCm's libraries come from the system, a ``rocm/*`` image or TheRock wheels).
    SCALE compiles CUDA source and cannot run these binaries; under ZLUDA they
    are untested.

    Example
    -------
    .. code-block:: text

        tensorrt==10.0.1
        nvidia-cublas-cu12==12.4.5.8

    Use instead
    -----------
    .. code-block:: text

        # inference through ONNX Runtime's MIGraphX execution provider on ROCm
        # (no nvidia-* runtime wheels: ROCm's libraries come with ROCm)

    Fix safety
    ----------
    Only the ``nvidia-*``/``cuda-toolkit`` runtime wheels get a fix: deleting the
    requirement. It is unsafe: something may load those libraries directly.

    References
    ----------
    - https://github.com/ROCm/torch_migraphx
    - https://rocm.docs.amd.com/projects/hip-python/en/latest
    - https://rocm.docs.amd.com/projects/rocAL/en/latest
    """

    code = "DEP001"
    can_fix = True
    name = "package-without-rocm-build"
    severity = Severity.HIGH
    file_kinds = DECLARING_KINDS

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for r, m, pin in _matches(ctx):
            fact = m.fact
            if fact.rocm.status != "none":
                continue
            runtime_wheel = fact.category == "cuda-runtime-wheels"
            route = _short(fact.rocm.replacement or "no ROCm counterpart in vado's table")
            fix = None
            if runtime_wheel:
                fix = Fix((ctx.edit(r.start, r.end, ""),), Applicability.UNSAFE, f"remove {r.name}")
                rocm_v = _AUTO
                oneapi_v = _AUTO
            else:
                rocm_v = platform_verdict("none", fact, bool(pin))
                oneapi_v = platform_verdict(fact.intel.status, fact, bool(pin))
            intel = fact.intel.replacement or fact.intel.package
            msg = f"{r.name} has no ROCm build ({route})"
            if intel and not runtime_wheel:
                msg += f"; Intel XPU: {_short(intel, 60)}"
            if fact.blockers:
                msg += f"; blocker: {_short(fact.blockers[0], 80)}"
            yield self.finding(
                ctx, r.name_start if r.name_end > r.name_start else r.start, r.end if runtime_wheel else max(r.name_end, r.start + 1),
                msg, _verdicts(ctx, fact, rocm=rocm_v, oneapi=oneapi_v),
                effort=Effort(lines=1, constructs=1, hours=0.0 if runtime_wheel else (16.0 if fact.blockers else 8.0)),
                fix=fix,
                severity=Severity.MEDIUM if runtime_wheel else None,
                data={"package": fact.name, "requirement": r.name, "rocm_status": "none", "replacement": route,
                      "intel_status": fact.intel.status, "cuda_pin": pin},
            )


class CudaBuildOfPackage(Rule):
    """A dependency pins the CUDA build of a package that has a ROCm build under another name, version or extra.

    What it does
    ------------
    Finds requirements pinned to CUDA: ``torch==2.5.1+cu121`` (a CUDA local
    version), ``cupy-cuda12x`` (a per-CUDA wheel name), ``jax[cuda12]`` (a CUDA
    extra), a direct ``…/cu121/torch-…whl`` URL, ``tensorflow[and-cuda]``.

    Why is this bad?
    ----------------
    The CUDA build does not run on AMD GPUs, but a ROCm build exists:
    ``torch`` from the ROCm wheel index (``+rocmX.Y`` locals), ``jax[rocm7-local]``,
    ``cupy-rocm-*`` wheels, ``tensorflow-rocm``. Intel XPU has its own builds of
    some (torch from ``…/whl/xpu``).

    Example
    -------
    .. code-block:: text

        torch==2.5.1+cu121
        jax[cuda12]==0.8.2

    Use instead
    -----------
    .. code-block:: text

        --index-url https://download.pytorch.org/whl/rocm7.2
        torch==2.9.1
        jax[rocm7-local]==0.8.2

    Fix safety
    ----------
    Unsafe. The fix drops a CUDA local label (``+cu121``) or swaps a CUDA
    extra for the ROCm one (``cuda12`` → ``rocm7-local``); the ROCm index for
    the wheel is DEP004's fix. The pinned version may not exist for the ROCm
    release (ROCm 7.2's matrix lists PyTorch 2.9.1, 2.8.0, 2.7.1), and
    ``rocm7-local`` expects ROCm installed on the host. Renamed wheels
    (``cupy-cuda12x``) and source builds get no fix.

    References
    ----------
    - https://docs.pytorch.org/docs/stable/notes/hip.html
    - https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html
    - https://rocm.blogs.amd.com/software-tools-optimization/openxla-jax-rocm/README.html
    """

    code = "DEP002"
    can_fix = True
    name = "cuda-build-of-package"
    severity = Severity.MEDIUM
    file_kinds = DECLARING_KINDS

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for r, m, pin in _matches(ctx):
            fact = m.fact
            if fact.rocm.status == "none" or not pin:
                continue
            fix = self._fix(ctx, r, m, pin)
            rocm_v = _AUTO if fix is not None else _MANUAL
            if fact.rocm.status not in ("official",) and fix is None:
                rocm_v = _MANUAL
            oneapi_v = platform_verdict(fact.intel.status, fact, True)
            if oneapi_v is _AUTO and fix is None:
                oneapi_v = _MANUAL
            rocm_build = _short(fact.rocm.replacement or fact.rocm.package or "see the ROCm docs", 120)
            msg = f"{r.name} pins its CUDA build ({pin}); on ROCm: {rocm_build}"
            if fact.intel.status not in ("none", "unknown", ""):
                msg += f"; Intel XPU ({fact.intel.status}): {_short(fact.intel.package or fact.intel.replacement, 50)}"
            yield self.finding(
                ctx, r.start, r.end, msg, _verdicts(ctx, fact, rocm=rocm_v, oneapi=oneapi_v),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 2.0),
                fix=fix,
                data={"package": fact.name, "requirement": r.name, "cuda_pin": pin, "rocm_status": fact.rocm.status,
                      "rocm_package": fact.rocm.package, "intel_status": fact.intel.status},
            )

    def _fix(self, ctx: FileContext, r: Requirement, m, pin: str) -> Fix | None:
        fact = m.fact
        if r.url or fact.rocm.status != "official":
            return None
        if r.local and pin == r.local and fact.category == "framework":
            spec = ctx.text[r.spec_start : r.spec_end]
            at = spec.find("+" + r.local) if "+" + r.local in spec else spec.lower().find("+" + r.local)
            if at == -1:
                return None
            start = r.spec_start + at
            rocm_t = _rocm_target(ctx)
            if normalise_name(r.name) in _TORCH_FAMILY and rocm_t is not None and rocm_t.hip_version:
                # The ROCm index's own local version: pip then takes the wheel from that index or
                # fails, never PyPI's CUDA wheel of the same version.
                backend, _version, _known = torch_rocm_backend(ctx, rocm_t)
                return Fix((ctx.edit(start, start + 1 + len(r.local), "+" + backend),), Applicability.UNSAFE,
                           f"+{r.local} → +{backend}, the build on the PyTorch {backend} index")
            return Fix((ctx.edit(start, start + 1 + len(r.local), ""),), Applicability.UNSAFE,
                       f"drop the CUDA local version +{r.local} (install from the ROCm index)")
        rocm_pkg = fact.rocm.package
        em = re.fullmatch(r"[A-Za-z0-9._-]+\[([^\]]+)\]", rocm_pkg or "")
        if em and r.extras:
            # Replace the CUDA extra inside the brackets, keep the others.
            body_start = ctx.text.find("[", r.name_end, r.end)
            body_end = ctx.text.find("]", body_start, r.end) if body_start != -1 else -1
            if body_start == -1 or body_end == -1:
                return None
            extras = [e.strip() for e in ctx.text[body_start + 1 : body_end].split(",")]
            new = [em.group(1) if re.sub(r"[-_.]+", "-", e).lower() == pin else e for e in extras]
            if new == extras:
                return None
            return Fix((ctx.edit(body_start + 1, body_end, ",".join(new)),), Applicability.UNSAFE,
                       f"use the ROCm extra [{em.group(1)}]")
        return None


class PackagePartiallyOnRocm(Rule):
    """A dependency works on ROCm only in part, from another build, or above a version floor.

    What it does
    ------------
    Finds packages whose ROCm support is partial, community or experimental
    (flash-attn, xformers, deepspeed, apex, transformer-engine, numba.cuda,
    onnxruntime-gpu → the MIGraphX EP build, faiss-gpu → a ROCm source build,
    mmcv …), packages whose ROCm build is not the PyPI wheel (vllm, sglang,
    tensorflow, llama-cpp-python), and bitsandbytes pinned below 0.50.0, the
    first release with the ROCm backend.

    Why is this bad?
    ----------------
    ``pip install`` gets the CUDA build, and the ROCm build may lack features:
    FlashAttention 2 runs on ROCm through Composable Kernel or Triton, but
    FA3 (``hopper/``) and FA4 (CuTe DSL) are NVIDIA-only; xformers has no
    cutlass/fa2/fa3 backends on ROCm; Transformer Engine's FP8 needs gfx94x/gfx95x.
    The message carries the table's specifics for each package.

    Example
    -------
    .. code-block:: text

        flash-attn==2.6.3
        bitsandbytes==0.43.1

    Use instead
    -----------
    .. code-block:: text

        # build flash-attention from source for ROCm (CK backend, or Triton with
        # FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE)
        bitsandbytes>=0.50.0

    Fix safety
    ----------
    No fix: the route (a source build, another index, an image) is a decision.

    References
    ----------
    - https://github.com/Dao-AILab/flash-attention
    - https://github.com/ROCm/TransformerEngine
    - https://huggingface.co/docs/bitsandbytes/v0.50.0/installation
    """

    code = "DEP003"
    name = "package-partially-on-rocm"
    severity = Severity.MEDIUM
    file_kinds = DECLARING_KINDS

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for r, m, pin in _matches(ctx):
            fact = m.fact
            status = fact.rocm.status
            if pin or status == "none":
                continue  # DEP001 / DEP002
            reason = ""
            if fact.name == "bitsandbytes":
                if not _below(r, (0, 50, 0)):
                    continue
                reason = "this pin is older than 0.50.0, the first release with the ROCm backend"
            elif status in ("partial", "community", "experimental"):
                reason = f"ROCm support is {status}"
            elif fact.name in _SEPARATE_ROCM_BUILD:
                reason = "the PyPI build is the CUDA one"
            else:
                continue
            detail = _short("; ".join(x for x in (fact.rocm.replacement, *fact.rocm.notes[:1]) if x), 160)
            msg = f"{r.name}: {reason}; {detail}" if detail else f"{r.name}: {reason}"
            if fact.blockers:
                msg += f"; blocker: {_short(fact.blockers[0], 80)}"
            yield self.finding(
                ctx, r.start, r.end, msg,
                _verdicts(ctx, fact, rocm=_MANUAL, oneapi=platform_verdict(fact.intel.status, fact, False)),
                effort=Effort(lines=1, constructs=1, hours=4.0),
                data={"package": fact.name, "rocm_status": status, "intel_status": fact.intel.status,
                      "rocm_notes": list(fact.rocm.notes), "blockers": list(fact.blockers)},
            )


def _below(r: Requirement, floor: tuple[int, ...]) -> bool:
    """True when every version the specifier allows is below ``floor`` (an exact pin or an upper bound)."""
    m = re.search(r"(==|<=|<|~=)\s*(\d+(?:\.\d+)*)", r.specifier)
    if not m:
        return False
    parts = tuple(int(x) for x in m.group(2).split("."))
    if m.group(1) in ("==", "~="):
        return parts < floor
    return parts <= floor if m.group(1) == "<" else parts < floor


_CONDA_CUDA = {
    "pytorch-cuda": "conda has no ROCm PyTorch; install torch with pip from the ROCm wheel index",
    "cudatoolkit": "ROCm's libraries come from the system ROCm install or a rocm/* image",
    "cuda-toolkit": "ROCm's libraries come from the system ROCm install or a rocm/* image",
    "cuda-runtime": "ROCm's libraries come from the system ROCm install or a rocm/* image",
    "cuda-nvcc": "ROCm compiles with hipcc/amdclang from the ROCm install",
    "cuda-version": "pins a CUDA version; ROCm is not versioned through conda",
    "cudnn": "MIOpen comes with ROCm (the API is a rework of cuDNN's)",
    "nccl": "RCCL comes with ROCm (it implements the NCCL API)",
}


class CudaPackageIndex(Rule):
    """A dependency file installs from a CUDA package index or conda's CUDA packages and channel.

    What it does
    ------------
    Finds ``--index-url``/``--extra-index-url``/``-f`` pointing at CUDA wheel
    indexes (``https://download.pytorch.org/whl/cu121``, ``pypi.nvidia.com``),
    Poetry/uv sources with such URLs, CUDA local versions of packages the
    table does not know (``+cu118``), and conda's ``pytorch-cuda``,
    ``cudatoolkit``, ``cuda-toolkit``, ``cuda-version``, builds ``*cuda*`` and
    the ``nvidia`` channel.

    Why is this bad?
    ----------------
    They install CUDA builds. PyTorch's ROCm wheels live at
    ``https://download.pytorch.org/whl/rocmX.Y`` (Intel's at ``…/whl/xpu``);
    conda has no ROCm PyTorch, and ROCm's libraries come from the system or an
    image, not from conda.

    Example
    -------
    .. code-block:: text

        --extra-index-url https://download.pytorch.org/whl/cu121

    Use instead
    -----------
    .. code-block:: text

        --extra-index-url https://download.pytorch.org/whl/rocm7.2

    Fix safety
    ----------
    Unsafe: PyTorch CUDA index URLs become the ROCm index of the audited ROCm
    target (a URL pattern to verify: not every torch version is built for
    every ROCm release). Other indexes and conda entries get no fix.

    References
    ----------
    - https://pytorch.org/get-started/locally/
    - https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html
    - https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/3rd-party/pytorch-install.html
    """

    code = "DEP004"
    can_fix = True
    name = "cuda-package-index"
    severity = Severity.MEDIUM
    file_kinds = DECLARING_KINDS

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        pk = _packages()
        d = deps(ctx)
        rocm_t = _rocm_target(ctx)
        for ix in d.indexes:
            info = pk.classify_index_url(ix.url)
            if info is None or info.vendor != "nvidia":
                continue
            fix = None
            if info.project == "pytorch" and rocm_t is not None and rocm_t.hip_version:
                new = pk.rocm_index_url(rocm_t.hip_version)
                backend, version, known = torch_rocm_backend(ctx, rocm_t)
                if "/nightly/" not in ix.url:
                    new = new.rsplit("/", 1)[0] + "/" + backend
                else:
                    new = new.replace("/whl/", "/whl/nightly/")
                why = ""
                if version and known and backend != f"rocm{rocm_t.hip_version}":
                    why = f" (torch {version} is published for ROCm on {backend}, not rocm{rocm_t.hip_version})"
                elif version and not known and "/nightly/" not in ix.url:
                    why = f" (vado's table does not list torch {version}: check that {new} carries it)"
                fix = Fix((ctx.edit(ix.url_start, ix.url_end, new),), Applicability.UNSAFE,
                          f"install from the PyTorch ROCm index {new}{why}")
                msg = (f"{ix.option} {ix.url} installs CUDA {info.cuda_version or ''} wheels; "
                       f"ROCm wheels: {new}{why}; Intel XPU: https://download.pytorch.org/whl/xpu")
            else:
                msg = f"{ix.option} {ix.url} is NVIDIA's package index; its packages have no ROCm builds there"
            yield self.finding(
                ctx, ix.url_start, ix.url_end, msg.replace("  ", " "),
                per_family(ctx, rocm=_AUTO if fix else _MANUAL, oneapi=_MANUAL, scale=_BLOCKED, zluda=_MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 1.0),
                fix=fix,
                data={"url": ix.url, "vendor": info.vendor, "project": info.project, "backend": info.backend},
            )
        matched = {id(r) for r, _m, _p in _matches(ctx)}
        for r in d.requirements:
            if id(r) in matched or not r.local or not re.search(r"cu\d{2,3}", r.local):
                continue
            yield self.finding(
                ctx, r.start, r.end,
                f"{r.name}=={r.version or r.specifier} is a CUDA build (local version +{r.local}); "
                "use the package's ROCm build",
                per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_BLOCKED, zluda=_MANUAL),
                effort=Effort(lines=1, constructs=1, hours=1.0),
                data={"requirement": r.name, "local": r.local},
            )
        for spec in d.conda:
            why = _CONDA_CUDA.get(spec.key)
            if why is None and re.search(r"cuda", spec.spec, re.I) and spec.key in ("pytorch", "torch", "tensorflow",
                                                                                      "jaxlib", "cupy", "faiss-gpu"):
                why = "a CUDA build string; install the package's ROCm build instead"
            if why is None:
                continue
            yield self.finding(
                ctx, spec.start, spec.end, f"conda {spec.name}{spec.spec} is CUDA-only: {why}",
                per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_BLOCKED, zluda=_MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.5),
                data={"conda": spec.name, "spec": spec.spec},
            )
        for name, s, e in d.channels:
            if name.lower() != "nvidia":
                continue
            yield self.finding(
                ctx, s, e, "the conda nvidia channel serves CUDA packages; ROCm has no conda channel for its stack",
                per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_BLOCKED, zluda=_MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.25),
                severity=Severity.LOW,
                data={"channel": name},
            )


class NvidiaOnlyPythonImport(Rule):
    """Python code imports an NVIDIA-only module (tensorrt, pycuda, cuda.bindings, numba.cuda, nvidia.dali, pynvml …).

    What it does
    ------------
    Finds imports of modules whose package has no ROCm build or a different
    one (``import tensorrt``, ``import pycuda.driver``, ``from numba import cuda``,
    ``from cuda import cudart``/``cuda.bindings``/``cuda.core``, ``import nvidia.dali``,
    ``import pynvml``, ``flash_attn_3``, ``flash_attn.cute``) and CuPy raw
    kernels whose source string holds inline PTX (``asm volatile("…")``).
    ``import torch`` and ``torch.cuda`` are fine: ROCm builds of PyTorch keep
    the ``torch.cuda`` API.

    Why is this bad?
    ----------------
    The import fails on an AMD machine, or the module drives NVIDIA's driver
    directly. cuda-python's modules map to hip-python (with hip-python-interop
    providing ``cuda.*`` names over HIP); numba.cuda kernels need ROCm's
    experimental numba-hip; PyCUDA has no ROCm build. Inline PTX does not
    compile for AMD GPUs.

    Example
    -------
    .. code-block:: python

        import pycuda.driver as drv
        from numba import cuda

    Use instead
    -----------
    .. code-block:: python

        from hip import hip          # hip-python
        import torch                 # torch.cuda works on ROCm builds

    Fix safety
    ----------
    No fix: the replacement modules have other APIs.

    References
    ----------
    - https://rocm.docs.amd.com/projects/hip-python/en/latest
    - https://github.com/ROCm/numba-hip
    - https://docs.pytorch.org/docs/stable/notes/hip.html
    """

    code = "DEP005"
    name = "nvidia-only-python-import"
    severity = Severity.HIGH
    file_kinds = frozenset({FileKind.PYTHON})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        pk = _packages()
        facts: PythonFacts = _python_facts(ctx)
        for imp in facts.imports:
            fact = pk.package_for_import(imp.module)
            if fact is None:
                continue
            status = fact.rocm.status
            nvidia_only = status in ("none", "experimental") or fact.name in ("cuda-python",) or (
                fact.name.startswith("flash-attn-"))
            if not nvidia_only:
                continue
            rocm_v = _BLOCKED if status == "none" and fact.blockers else _MANUAL
            route = _short(fact.rocm.replacement or fact.rocm.package or "no ROCm counterpart in vado's table", 110)
            msg = f"import of {imp.module} ({fact.name}): ROCm {status}; {route}"
            if imp.approximate:
                msg += " (file does not parse; import found by pattern)"
            yield self.finding(
                ctx, imp.start, imp.end, msg,
                _verdicts(ctx, fact, rocm=rocm_v, oneapi=platform_verdict(fact.intel.status, fact, False)),
                effort=Effort(lines=1, constructs=1, hours=4.0 if rocm_v is _MANUAL else 16.0),
                severity=Severity.MEDIUM if rocm_v is _MANUAL else None,
                data={"module": imp.module, "package": fact.name, "rocm_status": status},
            )
        for k in facts.raw_kernels:
            if not k.ptx:
                continue
            yield self.finding(
                ctx, k.start, k.end,
                f"{k.call} source has inline PTX ({_short(k.ptx[0], 40)}); it does not compile for AMD GPUs "
                "(CuPy on ROCm compiles raw kernels with hiprtc)",
                per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_MANUAL, zluda=_AS_IS),
                effort=Effort(lines=len(k.ptx), constructs=len(k.ptx), hours=2.0),
                data={"call": k.call, "ptx": list(k.ptx)},
            )


def _python_facts(ctx: FileContext) -> PythonFacts:
    cached = getattr(ctx, "_vado_python_facts", None)
    if cached is None:
        cached = scan_python_imports(ctx.text, ctx.path)
        setattr(ctx, "_vado_python_facts", cached)
    return cached


class UnparsedDependencyEntry(Rule):
    """vado could not read a dependency entry or file (a malformed requirement, invalid TOML/YAML, a setup.py syntax error).

    What it does
    ------------
    Reports each requirement line, option or file that the dependency parsers
    could not read, with the reason (``bad version specifier 'line !!'``,
    ``unknown pip option --bogus``, a ``tomllib`` or YAML error).

    Why is this bad?
    ----------------
    A dependency vado cannot read is one it cannot check, so the audit could
    miss a CUDA pin. pip would usually reject the file too.

    Example
    -------
    .. code-block:: text

        torch=2.1.0+cu121

    Use instead
    -----------
    .. code-block:: text

        torch==2.1.0+cu121

    Fix safety
    ----------
    No fix: vado does not guess what a malformed line meant.

    References
    ----------
    - https://pip.pypa.io/en/stable/reference/requirements-file-format/
    - https://packaging.python.org/en/latest/specifications/dependency-specifiers/
    """

    code = "DEP006"
    name = "unparsed-dependency-entry"
    severity = Severity.INFO
    file_kinds = DECLARING_KINDS | {FileKind.PYTHON}

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        problems = _python_facts(ctx).problems if ctx.kind is FileKind.PYTHON else deps(ctx).problems
        for p in problems:
            end = min(p.end, p.start + 200)
            yield self.finding(ctx, p.start, end, p.reason, {}, data={"reason": p.reason, "text": p.text[:200]})
