"""LIB rules: which CUDA libraries a file uses, and what each target offers instead.

One rule per class of library; the libraries, how to recognise them and what
replaces them per target are data (:mod:`vado.knowledge.libraries`). A rule
reports one finding per file and library, at the first piece of evidence, with
all the evidence in ``data``: the headers included, the identifiers used (with
counts) and the library binaries named in the source (``#pragma comment(lib,
…)``, ``dlopen("libcudnn.so.9")``).

Verdicts come from the library facts, never from the rule:

- ROCm: the ``api_shape`` of the ROCm counterpart — drop-in or near-drop-in →
  moves with automatic edits; rework → needs manual work; none → blocked. A
  counterpart the facts call early-access needs manual work whatever its shape.
- oneAPI: the Intel counterpart's shape (there is no rename path to SYCL, so
  anything short of drop-in needs manual work); no known equivalent → blocked.
- SCALE: the recorded status (supported → moves as is; partial, failing or
  undocumented → needs manual work; none → blocked).
- ZLUDA: a shim library (``zluda_blas`` …) → as the shim's status says; a
  binary library without a shim → blocked (NVIDIA's binary does not run on
  AMD); a header-only template library is compiled into the application's own
  PTX, which ZLUDA translates, but its coverage is not documented → manual.

Precision first: an identifier counts as evidence when it is an exact name of
the CUDA→HIP table for that library, or when it matches one of the library's
identifier prefixes in the library's own style (``cudnnCreate``, ``CUDNN_…``;
not a user's ``cudnn_enabled`` flag); snake-case names (``nvshmem_malloc``)
count when they are called and the table does not cover the library. Names the file ``#define``s
itself are user macros, not evidence. A quoted include counts only when it is
a library header by exact name or directory (``"cutlass/gemm/gemm.h"``), never
by a wildcard pattern: ``"cudnn_utils.h"`` is a user header.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Iterator

from vado.model import Effort, Finding, Severity, Target, Verdict
from vado.rules.base import FileContext, Rule
from vado.scan.classify import FileKind
from vado.scan.facts import source_facts

#: C/C++/CUDA kinds; ``.hip`` files are already ported and are not read.
CUDA_KINDS = frozenset(
    {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER}
)

#: Header-only template libraries: no binary to shim, they compile into the
#: application. (A property of the library; kept here until libraries.yaml
#: carries a ``header_only`` field.)
HEADER_ONLY = frozenset({"thrust", "cub", "libcudacxx", "cutlass"})

# Where a fact's product name ends: a parenthesis, a dash remark, a clause.
_REMARK = re.compile(r"\s+\(|\s+[–-]\s|[;:,]|\s+via\s|\s+over\s")
_VERSION = re.compile(r"\s+v?\d+(?:\.\d+)+\b")


def _libs():
    from vado.knowledge import libraries

    return libraries


def _short(text: str) -> str:
    """The product named at the start of a fact's text, without versions or remarks.

    ``MIOpen 3.5.1 (ROCm 7.2)`` → ``MIOpen``; ``Intel SHMEM (ISHMEM) – OpenSHMEM …``
    → ``Intel SHMEM``; ``oneCCL 2022.0 (oneAPI 2026.0): NCCL-like …`` → ``oneCCL``.
    """
    head = _REMARK.split(text.strip(), 1)[0]
    return _VERSION.sub("", head).strip()


def _versioned(name: str, target: Target) -> str:
    """``hipBLAS 3.2.0``: ``name`` with the version the target ships (each part of ``a + b``)."""
    parts = []
    for part in name.split(" + "):
        key = part.strip()
        version = target.libraries.get(key) or target.libraries.get(key.replace(" ", "_").replace("-", "_"))
        parts.append(f"{key} {version}" if version else key)
    return " + ".join(parts)


def _is_none(text: str) -> bool:
    return text.strip().lower().startswith("none")


def _confidence_note(section: Any) -> str:
    return " (unverified)" if getattr(section, "confidence", "") == "low" else ""


def _early_access(section: Any) -> str:
    """The fact text that calls the counterpart early-access or a preview, or ''."""
    for text in (section.equivalent, *section.gaps, *section.notes):
        low = text.lower()
        if "early-access" in low or "early access" in low or "preview" in low:
            return text
    return ""


def rocm_replacement(lib: Any, target: Target, *, roc: bool = False) -> str:
    """``hipBLAS 3.2.0 / rocBLAS 5.2.0``: the ROCm names for ``lib`` with the target's versions.

    For a rework the native library comes first (cuDNN → MIOpen before hipDNN);
    with ``roc`` the roc* library comes first in any case.
    """
    section = lib.rocm
    names = []
    for text in (section.hip_wrapper, section.roc_native):
        if text and not _is_none(text):
            names.append(_short(text))
    if (section.api_shape == "rework" or roc) and len(names) == 2:
        names.reverse()
    if not names and section.equivalent and not _is_none(section.equivalent):
        names.append(_short(section.equivalent))
    return " / ".join(_versioned(n, target) for n in names)


def _route(lib: Any, target: Target) -> str:
    """``; route: MIGraphX 2.15.0`` — the alternative the ROCm facts name for a library with no port."""
    eq = lib.rocm.equivalent.strip() if lib.rocm else ""
    if not eq or _is_none(eq):
        return ""
    if eq.lower().startswith("no "):  # "No HIP port of CUTLASS; use Composable Kernel …"
        rest = eq.split(";", 1)[1].strip() if ";" in eq else ""
        return f"; {rest}" if rest else ""
    return f"; route: {_versioned(_short(eq), target)}"


def library_verdict(lib: Any, target: Target, *, roc: bool = False) -> tuple[Verdict, str]:
    """What using ``lib`` means on ``target``, and the reason in a few words (from the facts)."""
    family = target.family
    section = lib.on(family)
    if family == "rocm":
        shape = section.api_shape if section else ""
        repl = rocm_replacement(lib, target, roc=roc) if section else ""
        ea = _early_access(section) if section else ""
        if shape == "none" or not section:
            return Verdict.BLOCKED, "no ROCm port" + _route(lib, target)
        if ea:
            return Verdict.MANUAL, f"{repl} ({shape}) is early-access"
        if shape in ("drop-in", "near-drop-in"):
            return Verdict.AUTOMATIC, f"{shape} → {repl}"
        if shape == "rework":
            return Verdict.MANUAL, f"rework → {repl}"
        return Verdict.MANUAL, f"ROCm counterpart {repl or 'unknown'} (shape not recorded)"
    if family == "oneapi":
        if section is None:
            return Verdict.MANUAL, "no oneAPI fact recorded"
        eq = _short(section.equivalent) or section.equivalent
        note = _confidence_note(section)
        if section.api_shape == "none":
            return Verdict.BLOCKED, f"no SYCL port; route: {eq}{note}"
        if _is_none(section.equivalent):
            return Verdict.BLOCKED, f"no oneAPI equivalent found{note}"
        if section.api_shape == "drop-in":
            return Verdict.AUTOMATIC, f"drop-in → {eq}{note}"
        shape = section.api_shape or "shape not recorded"
        return Verdict.MANUAL, f"{shape} → {eq}{note}"
    if family == "scale":
        status = section.status if section else ""
        if status == "supported":
            return Verdict.MOVES_AS_IS, "supported"
        if status == "none":
            return Verdict.BLOCKED, "not supported"
        if status == "partial":
            return Verdict.MANUAL, "partial coverage"
        if status == "failing":
            return Verdict.MANUAL, "fails SCALE validation"
        return Verdict.MANUAL, "coverage not documented"
    if family == "zluda":
        if section is not None and section.status:
            shim = f" {section.shim}" if section.shim else ""
            if section.status == "supported":
                return Verdict.MOVES_AS_IS, f"shim{shim}" if shim else "supported"
            if section.status == "none":
                return Verdict.BLOCKED, "not supported"
            return Verdict.MANUAL, f"{section.status} shim{shim}" if shim else section.status
        if lib.id in HEADER_ONLY:
            return Verdict.MANUAL, "header-only, compiled to PTX; coverage not documented"
        return Verdict.BLOCKED, "no ZLUDA shim"
    return Verdict.MANUAL, f"no facts for target family {family!r}"


@functools.cache
def _table_libraries() -> frozenset[str]:
    """Ids of the libraries whose names the CUDA→HIP table lists (empty without a table)."""
    try:
        from vado.knowledge import api
    except ImportError:  # pragma: no cover - the table ships with vado
        return frozenset()
    libs = _libs()
    out = set()
    for lib_name in api.api_table().libraries:
        lib = libs.find_library(lib_name) if lib_name else None
        if lib is not None:
            out.add(lib.id)
    return frozenset(out)


def _table_library_of(name: str) -> str | None:
    """The library id of ``name`` in the CUDA→HIP table, or None."""
    try:
        from vado.knowledge import api
    except ImportError:  # pragma: no cover
        return None
    entry = api.lookup(name)
    if entry is None:
        return None
    lib = _libs().find_library(str(getattr(entry, "library", "")))
    return lib.id if lib is not None else None


def _in_library_style(name: str, lib: Any, *, called: bool, covered: bool) -> bool:
    """True when ``name`` continues one of ``lib``'s prefixes the way the library's own names do.

    ``cudnnCreate`` and ``CUDNN_STATUS_SUCCESS`` do; ``cudnn_enabled`` (a user's
    flag) does not. Prefixes that end in ``_`` or are all capitals are styled
    by themselves. A snake-case continuation (``nvshmem_malloc``) counts only
    when it is called and the CUDA→HIP table does not cover the library (the
    table would have listed a real API name).
    """
    best = ""
    for p in lib.identifier_prefixes:
        if name.startswith(p) and len(p) > len(best):
            best = p
    if not best:
        return True  # matched through a namespace or pattern
    if best.endswith("_") or best.isupper():
        return True
    rest = name[len(best):]
    if rest and (rest[0].isupper() or rest[0].isdigit()):
        return True
    return called and not covered and len(rest) > 1 and rest[0] == "_"


@dataclass
class LibraryUse:
    """Evidence that one file uses one library."""

    lib: Any
    first: tuple[int, int]
    headers: list[str] = field(default_factory=list)
    identifiers: dict[str, int] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)
    lines: set[int] = field(default_factory=set)

    def add(self, start: int, end: int) -> None:
        if start < self.first[0]:
            self.first = (start, end)


def _own_header(ctx: FileContext, name: str) -> bool:
    """Whether ``name`` (``cuda/scatter_cuda.h``) is a file of the audited tree (rule option
    ``source_root``) in the including file's folder or a folder above it, inside the tree: the
    ``-I`` roots a project's own ``<cuda/…>`` headers are found from. A link out of the tree, or no
    known root, counts as no."""
    root = (ctx.options or {}).get("source_root")
    if not root or name.startswith("/") or ".." in name.split("/"):
        return False
    real_root = os.path.realpath(root)
    folder = posixpath.dirname(ctx.path.replace(os.sep, "/"))
    while True:
        candidate = os.path.join(root, folder, name)
        try:
            if os.path.isfile(candidate) and os.path.realpath(candidate).startswith(real_root + os.sep):
                return True
        except OSError:
            return False
        if not folder or folder in (".", "/"):
            return False
        folder = posixpath.dirname(folder)


def library_uses(ctx: FileContext) -> dict[str, LibraryUse]:
    """Evidence per library id for ``ctx``'s file (computed once per file, kept on the context)."""
    cached = getattr(ctx, "_vado_library_uses", None)
    if cached is not None:
        return cached
    libs = _libs()
    facts = source_facts(ctx)
    uses: dict[str, LibraryUse] = {}

    def note(lib, start: int, end: int) -> LibraryUse:
        use = uses.get(lib.id)
        if use is None:
            use = uses[lib.id] = LibraryUse(lib, (start, end))
        else:
            use.add(start, end)
        use.lines.add(ctx.lines.position(start)[0])
        return use

    for inc in facts.includes:
        lib = libs.library_for_header(inc.path)
        if lib is None:
            continue
        if not inc.system and not _names_header(lib, inc.path):
            continue  # a quoted include matched only by a wildcard is a user header
        if lib.id == "libcudacxx" and _own_header(ctx, inc.path):
            continue  # torch_scatter's <cuda/scatter_cuda.h>: the project's csrc/cuda/, not libcu++
        use = note(lib, inc.start, inc.end)
        if inc.path not in use.headers:
            use.headers.append(inc.path)

    covered = _table_libraries()
    idents = facts.idents
    # The names some library claims, in first-use order (the order of ``idents``).
    for name in sorted(libs.names_with_library(idents.keys()), key=lambda n: idents[n][0]):
        starts = idents[name]
        if name in facts.defines:
            continue  # the file's own macro (CUDNN_CHECK), not the library's
        lib = libs.library_for_identifier(name)
        if lib is None:
            continue
        if name + "::" in _namespace_keys(lib):
            continue  # a namespace counts where it qualifies a name (the scopes below), not as a lone word
        is_covered = lib.id in covered
        if not (is_covered and _table_library_of(name) == lib.id) and not _in_library_style(
            name, lib, called=name in facts.calls, covered=is_covered
        ):
            continue
        plain = [s for s in starts if s not in facts.qualifiers]
        if not plain:
            continue
        use = note(lib, plain[0], plain[0] + len(name))
        use.identifiers[name] = use.identifiers.get(name, 0) + len(plain)
        for s in plain[1:]:
            use.lines.add(ctx.lines.position(s)[0])

    for ns, starts in facts.scopes.items():
        lib = libs.library_for_identifier(ns + "::")
        if lib is None or ns + "::" not in _namespace_keys(lib):
            continue
        use = note(lib, starts[0], starts[0] + len(ns))
        key = ns + "::"
        use.identifiers[key] = use.identifiers.get(key, 0) + len(starts)
        for s in starts[1:]:
            use.lines.add(ctx.lines.position(s)[0])

    for link in facts.links:
        lib = libs.library_for_link(link.file) or libs.library_for_link(link.name)
        if lib is None:
            continue
        use = note(lib, link.start, link.end)
        if link.file not in use.links:
            use.links.append(link.file)

    setattr(ctx, "_vado_library_uses", uses)
    return uses


def _namespace_keys(lib: Any) -> frozenset[str]:
    return frozenset(ns + "::" for ns in lib.namespaces)


def _names_header(lib: Any, path: str) -> bool:
    """True when ``path`` is one of ``lib``'s headers by exact name or directory prefix."""
    for h in lib.headers:
        if h.endswith("/"):
            if path.startswith(h) or path.startswith("cccl/" + h):
                return True
        elif not any(c in h for c in "*?[") and (path == h or path == "cccl/" + h):
            return True
    return False


def _evidence_text(use: LibraryUse) -> str:
    parts = []
    if use.headers:
        parts.append(", ".join(f"<{h}>" for h in use.headers[:2]) + (" …" if len(use.headers) > 2 else ""))
    if use.identifiers:
        n = sum(use.identifiers.values())
        parts.append(f"{n} identifier use{'s' if n != 1 else ''}")
    if use.links:
        parts.append("loads " + ", ".join(use.links[:2]))
    return "; ".join(parts)


class _LibraryRule(Rule):
    """Shared body: one finding per file and library of ``library_ids`` that the file uses."""

    library_ids: ClassVar[tuple[str, ...]] = ()
    #: Hours of manual work per distinct API name when the verdict is needs-manual-work.
    hours_per_name: ClassVar[float] = 0.5

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        uses = library_uses(ctx)
        if uses.keys().isdisjoint(self.library_ids):
            return ()  # most files use none of this rule's libraries: no generator to run
        return self._findings(ctx, uses)

    def _findings(self, ctx: FileContext, uses: dict[str, LibraryUse]) -> Iterator[Finding]:
        roc = bool(ctx.options.get("roc"))
        for lib_id in self.library_ids:
            use = uses.get(lib_id)
            if use is None:
                continue
            lib = use.lib
            verdicts: dict[str, Verdict] = {}
            reasons: dict[str, str] = {}
            for t in ctx.targets:
                verdicts[t.name], reasons[t.name] = library_verdict(lib, t, roc=roc)
            per_target = "; ".join(f"{t}: {reasons[t]}" for t in verdicts)
            evidence = _evidence_text(use)
            message = f"uses {lib.name} ({evidence}) — {per_target}" if per_target else f"uses {lib.name} ({evidence})"
            distinct = len(use.identifiers)
            worst = Verdict.worst(verdicts.values())
            manual = worst.rank >= Verdict.MANUAL.rank
            effort = Effort(
                lines=len(use.lines),
                constructs=distinct if manual else 0,
                hours=round(self.hours_per_name * max(distinct, 1), 2) if manual else 0.0,
            )
            yield self.finding(
                ctx,
                use.first[0],
                use.first[1],
                message,
                verdicts,
                effort=effort,
                data={
                    "library": lib.id,
                    "name": lib.name,
                    "headers": list(use.headers),
                    "identifiers": dict(use.identifiers),
                    "links": list(use.links),
                    "count": sum(use.identifiers.values()) + len(use.headers) + len(use.links),
                    "reasons": reasons,
                },
            )


_FIX_NONE = "No fix: the library's API differs on the target; the port is a rewrite."


class CudnnUse(_LibraryRule):
    """The file uses cuDNN.

    What it does
    ------------
    Reports one finding per file that includes cuDNN headers, calls ``cudnn*``
    functions, uses the cuDNN frontend or loads ``libcudnn``, with the headers,
    names and counts as evidence.

    Why is this bad?
    ----------------
    cuDNN has no drop-in ROCm counterpart. MIOpen (ROCm 7.2) has a different
    API (descriptors, find/solution flow); hipDNN offers a graph API like the
    cuDNN frontend but is a beta for ROCm 7.12+. Each call site is rework.
    SYCL goes through oneDNN (also rework); ZLUDA shims cuDNN 8/9 partially,
    mapping some paths to slow kernels.

    Example
    -------
    .. code-block:: cuda

        cudnnConvolutionForward(h, &a, xDesc, x, wDesc, w, convDesc, algo, ws, wsSize, &b, yDesc, y);

    Use instead
    -----------
    ``miopenConvolutionForward`` with MIOpen's find step, or hipDNN's graph API
    on ROCm ≥ 7.12, or a framework op (PyTorch, MIGraphX) instead of hand-written cuDNN.

    Fix safety
    ----------
    No fix: descriptor and algorithm-selection code has to be rewritten.

    References
    ----------
    - MIOpen / hipDNN, https://rocm.docs.amd.com/projects/hipdnn/en/latest/
    - HIP porting guide (cuDNN → MIOpen), https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md
    """

    code = "LIB001"
    name = "cudnn-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("cudnn",)


class TensorrtUse(_LibraryRule):
    """The file uses TensorRT (``NvInfer.h``, ``nvinfer1::``, ``NvOnnxParser``).

    What it does
    ------------
    Reports one finding per file that includes TensorRT headers, uses the
    ``nvinfer1`` / ``nvonnxparser`` namespaces or loads ``libnvinfer``.

    Why is this bad?
    ----------------
    TensorRT engines, builders and plugins exist only for NVIDIA GPUs. There is
    no port: on ROCm the route is MIGraphX (through ONNX Runtime's MIGraphX
    execution provider or torch_migraphx), on Intel it is OpenVINO. The model
    has to be re-exported (ONNX) and the serving code rewritten; custom
    TensorRT plugins become MIGraphX or framework ops.

    Example
    -------
    .. code-block:: cpp

        auto builder = nvinfer1::createInferBuilder(logger);

    Use instead
    -----------
    Export the model to ONNX and run it with ONNX Runtime (MIGraphX EP on ROCm,
    OpenVINO EP on Intel), or compile it with MIGraphX directly.

    Fix safety
    ----------
    No fix: this is a redesign of the inference path.

    References
    ----------
    - MIGraphX, https://rocm.docs.amd.com/projects/ai-ecosystem/en/latest/inference/migraphx.html
    - ONNX Runtime OpenVINO EP, https://github.com/microsoft/onnxruntime/pull/13813
    """

    code = "LIB002"
    name = "tensorrt-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("tensorrt",)
    hours_per_name = 2.0


class CutlassUse(_LibraryRule):
    """The file uses CUTLASS or CuTe (``cutlass/``, ``cute/`` headers, ``cutlass::``, ``cute::``).

    What it does
    ------------
    Reports one finding per file that includes CUTLASS or CuTe headers or uses
    their namespaces.

    Why is this bad?
    ----------------
    CUTLASS has no HIP port: it depends on libcu++ and on NVIDIA tensor-core
    PTX (``mma``, ``wgmma``, TMA). Kernels written with it are rewritten for
    AMD with Composable Kernel (CK / CK Tile), Triton or AITER. SCALE compiles
    CUTLASS 4.1 on some AMD GPUs (partial); SYCL has cutlass-sycl.

    Example
    -------
    .. code-block:: cpp

        #include <cutlass/gemm/device/gemm.h>
        using Gemm = cutlass::gemm::device::Gemm<float, Row, float, Row, float, Row>;

    Use instead
    -----------
    A Composable Kernel GEMM (``ck::tensor_operation::device::DeviceGemm…``),
    hipBLASLt for plain GEMMs, or a Triton kernel.

    Fix safety
    ----------
    No fix: the kernel is rewritten against another library.

    References
    ----------
    - HIPIFY issue on CUTLASS, https://github.com/ROCm/HIPIFY/issues/1374
    - Composable Kernel, https://rocm.docs.amd.com/projects/composable_kernel/en/develop/
    """

    code = "LIB003"
    name = "cutlass-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("cutlass",)
    hours_per_name = 4.0


class NvshmemUse(_LibraryRule):
    """The file uses NVSHMEM.

    What it does
    ------------
    Reports one finding per file that includes NVSHMEM headers, calls
    ``nvshmem_*`` / ``nvshmemx_*`` or loads ``libnvshmem``.

    Why is this bad?
    ----------------
    rocSHMEM (ROCm 7.2) is OpenSHMEM-style GPU-initiated communication like
    NVSHMEM, but not API-compatible: names, initialisation, team and memory
    APIs differ, and its transports (IPC, reverse offload, GPU Direct Async)
    have their own setup. On Intel the counterpart is Intel SHMEM.

    Example
    -------
    .. code-block:: cuda

        nvshmem_init(); float* buf = (float*)nvshmem_malloc(bytes);

    Use instead
    -----------
    ``rocshmem_init()`` / ``rocshmem_malloc()`` and rocSHMEM's device APIs.

    Fix safety
    ----------
    No fix: the communication layer is rewritten.

    References
    ----------
    - rocSHMEM, https://rocm.docs.amd.com/projects/rocSHMEM/en/latest
    - Intel SHMEM, https://oneapi-src.github.io/ishmem/intro.html
    """

    code = "LIB004"
    name = "nvshmem-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("nvshmem",)


class NppUse(_LibraryRule):
    """The file uses NPP (NVIDIA Performance Primitives).

    What it does
    ------------
    Reports one finding per file that includes NPP headers, calls ``npp*``
    functions, uses ``Npp*`` types or links an NPP library.

    Why is this bad?
    ----------------
    ROCm's RPP covers image, voxel and audio primitives but is not
    API-compatible with NPP, and some of its functions run only on the CPU
    (histogram balance, min-max-loc, integral, mean-stddev). Each call is
    replaced by an RPP call with its own tensor descriptors, or by a kernel.

    Example
    -------
    .. code-block:: cuda

        nppiResize_8u_C3R(src, srcStep, srcSize, srcRoi, dst, dstStep, dstSize, dstRoi, NPPI_INTER_LINEAR);

    Use instead
    -----------
    ``rppt_resize_gpu`` (RPP) with RPP descriptors, or a HIP kernel.

    Fix safety
    ----------
    No fix: RPP's calling convention differs.

    References
    ----------
    - RPP, https://rocm.docs.amd.com/projects/rpp/en/latest/what-is-rpp.html
    """

    code = "LIB005"
    name = "npp-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("npp",)


class NvjpegUse(_LibraryRule):
    """The file uses nvJPEG.

    What it does
    ------------
    Reports one finding per file that includes ``nvjpeg.h``, calls
    ``nvjpeg*`` or links ``libnvjpeg``.

    Why is this bad?
    ----------------
    rocJPEG (ROCm 7.2) decodes JPEG on AMD's VCN media engines, with its own
    API; there is no JPEG encode in ROCm. Decoding code is rework, encoding
    code needs another encoder (CPU libjpeg-turbo, VA-API).

    Example
    -------
    .. code-block:: cuda

        nvjpegDecode(handle, state, data, size, NVJPEG_OUTPUT_RGB, &img, stream);

    Use instead
    -----------
    ``rocJpegDecode`` with rocJPEG streams; a CPU or VA-API path for encoding.

    Fix safety
    ----------
    No fix: rocJPEG's API differs.

    References
    ----------
    - rocJPEG, https://rocm.docs.amd.com/projects/rocJPEG/en/latest
    """

    code = "LIB006"
    name = "nvjpeg-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("nvjpeg",)


class CufileUse(_LibraryRule):
    """The file uses cuFile (GPUDirect Storage).

    What it does
    ------------
    Reports one finding per file that includes ``cufile.h``, calls
    ``cuFile*`` or links ``libcufile``.

    Why is this bad?
    ----------------
    hipFile (AMD Infinity Storage) mirrors the cuFile API, but it is
    early-access: it needs a ROCm 7.2.x opt-in or the Core SDK, a kernel with
    PCI P2PDMA and a local file system. Until it is part of the production
    stack, the storage path needs manual work and testing.

    Example
    -------
    .. code-block:: cuda

        cuFileRead(handle, devPtr, size, fileOffset, devOffset);

    Use instead
    -----------
    ``hipFileRead`` from hipFile where it is available, or a POSIX read into
    pinned host memory plus ``hipMemcpyAsync``.

    Fix safety
    ----------
    No fix: availability depends on the deployment.

    References
    ----------
    - hipFile, https://rocm.docs.amd.com/projects/hipFile/en/latest/
    - HIPIFY cuFile table, https://github.com/ROCm/HIPIFY/blob/dc74d20c501ad1befd008b72a5582dda6aa110ee/docs/reference/tables/cuFile_API_supported_by_HIP.md
    """

    code = "LIB007"
    name = "cufile-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("cufile",)


class NvmlUse(_LibraryRule):
    """The file uses NVML (GPU management and monitoring).

    What it does
    ------------
    Reports one finding per file that includes ``nvml.h``, calls ``nvml*``
    or loads ``libnvidia-ml``.

    Why is this bad?
    ----------------
    On AMD the management library is AMD SMI (C/C++ and Python), with its own
    handles, units and metric names; queries are rewritten one by one. ZLUDA
    ships an NVML shim (``zluda_ml``).

    Example
    -------
    .. code-block:: cpp

        nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &temp);

    Use instead
    -----------
    ``amdsmi_get_temp_metric(handle, AMDSMI_TEMPERATURE_TYPE_EDGE, AMDSMI_TEMP_CURRENT, &temp)``.

    Fix safety
    ----------
    No fix: the metric sets differ.

    References
    ----------
    - AMD SMI, https://rocm.docs.amd.com/_/downloads/amdsmi/en/docs-6.4.3/pdf/
    """

    code = "LIB008"
    name = "nvml-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("nvml",)


class CuptiUse(_LibraryRule):
    """The file uses CUPTI (profiling and tracing).

    What it does
    ------------
    Reports one finding per file that includes CUPTI headers, calls
    ``cupti*`` or links ``libcupti``.

    Why is this bad?
    ----------------
    ROCprofiler-SDK offers callback and buffered tracing and counters on AMD,
    with a different API and different activity records; tools built on CUPTI
    are rewritten against it.

    Example
    -------
    .. code-block:: cpp

        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL);

    Use instead
    -----------
    ``rocprofiler_configure_buffer_tracing_service`` (ROCprofiler-SDK), or
    the ``rocprofv3`` command line for traces without code.

    Fix safety
    ----------
    No fix: the tracing model differs.

    References
    ----------
    - ROCprofiler-SDK, https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/
    """

    code = "LIB009"
    name = "cupti-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("cupti",)


class MappedLibraryUse(_LibraryRule):
    """The file uses a CUDA math, communication or template library with a ROCm counterpart.

    What it does
    ------------
    Reports one finding per file and library for cuBLAS, cuBLASLt, cuFFT,
    cuRAND, cuSPARSE, cuSOLVER, cuTENSOR, cuSPARSELt, NVRTC, NCCL, NVTX,
    Thrust, CUB and libcu++, naming the hip*/roc* library and its version on
    the target. The verdict per target comes from the library facts: a
    drop-in or near-drop-in counterpart moves with automatic edits (hipify
    renames the calls, headers and link names), a rework needs manual work;
    on ZLUDA only the libraries with a shim move as they are.

    Why is this bad?
    ----------------
    Usually it is not: these libraries are the cheap part of a port. It is
    reported so the build gets the right libraries (``-lhipblas``,
    ``roc::rocthrust``), so near-drop-in gaps (hipBLAS 3 data types, hipCUB's
    unsupported iterators) get a look, and so oneAPI, SCALE and ZLUDA verdicts
    are explicit.

    Example
    -------
    .. code-block:: cuda

        #include <cublas_v2.h>
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m);

    Use instead
    -----------
    .. code-block:: cpp

        #include <hipblas/hipblas.h>
        hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m);

    Fix safety
    ----------
    The renames are the API rules' edits (API004, API005) and are safe; the
    link changes belong to the build rules.

    References
    ----------
    - HIP porting guide (library equivalents), https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md
    - ROCm 7.2 compatibility matrix, https://github.com/ROCm/legacy-rocm-build/blob/fff7efbd0c870e1bfba278faa91d517996b7a33a/docs/compatibility/compatibility-matrix.rst
    - ZLUDA, https://github.com/vosen/ZLUDA
    """

    code = "LIB010"
    name = "mapped-library-use"
    severity = Severity.INFO
    file_kinds = CUDA_KINDS
    library_ids = (
        "cublas",
        "cublaslt",
        "cufft",
        "curand",
        "cusparse",
        "cusolver",
        "cutensor",
        "cusparselt",
        "nvrtc",
        "nccl",
        "nvtx",
        "thrust",
        "cub",
        "libcudacxx",
    )
    hours_per_name = 0.25


class VideoCodecUse(_LibraryRule):
    """The file uses the NVIDIA Video Codec SDK (NVDEC ``nvcuvid.h``, NVENC ``nvEncodeAPI.h``).

    What it does
    ------------
    Reports one finding per file that includes Video Codec SDK headers, calls
    ``cuvid*`` / ``NvEnc*`` or loads ``libnvcuvid`` / ``libnvidia-encode``.

    Why is this bad?
    ----------------
    rocDecode covers hardware decode on AMD with its own API; ROCm has no
    encode library (AMD encode on Linux goes through VA-API or AMF). Decode
    paths are rework, encode paths need another stack.

    Example
    -------
    .. code-block:: cpp

        cuvidCreateDecoder(&decoder, &createInfo);
        NvEncEncodePicture(encoder, &picParams);

    Use instead
    -----------
    ``rocDecCreateDecoder`` (rocDecode) for decoding; FFmpeg with VA-API for encoding.

    Fix safety
    ----------
    No fix: the decode API differs and encode has no ROCm library.

    References
    ----------
    - rocDecode in the ROCm 7.2 matrix, https://github.com/ROCm/legacy-rocm-build/blob/fff7efbd0c870e1bfba278faa91d517996b7a33a/docs/compatibility/compatibility-matrix.rst
    """

    code = "LIB011"
    name = "video-codec-sdk-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("video-codec",)
