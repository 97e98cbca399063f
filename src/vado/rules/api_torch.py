"""API rule about PyTorch APIs that PyTorch no longer has (API015): THC headers, ``Tensor.type()`` dispatch,
``AT_CHECK``.

PyTorch removed its legacy THC library in 1.11: ``THC/THC.h``, ``THC/THCAtomics.cuh``,
``THC/THCDeviceUtils.cuh`` and the rest are gone from the headers a wheel installs (torch 2.13.0: the
CUDA wheel's ``include/`` and the ROCm wheel's have no ``THC``/``THH`` directory). Extensions written
for older releases still include them (DCNv4 1.0.0.post2: ``<THC/THCAtomics.cuh>`` in four headers). On a
ROCm build PyTorch's hipify rewrites the path to ``THH/THHAtomics.cuh``, which does not exist either,
so every TU fails on its first line; the CUDA build fails the same way on any PyTorch from 1.11 on.

``AT_DISPATCH_FLOATING_TYPES(x.type(), ...)``: ``Tensor::type()`` returns ``DeprecatedTypeProperties``, which
the dispatch macros of torch 2.13.0 no longer convert to a ``ScalarType`` ("no viable conversion from 'const
DeprecatedTypeProperties' to 'torch::headeronly::ScalarType'": auto-gptq 0.7.1's 8 dispatches, either build);
``x.scalar_type()`` is the replacement PyTorch's deprecation message names.

``C10_WARP_SIZE`` in host code: on ROCm (torch 2.13.0 ``torch/headeronly/macros/Macros.h``) it is
``at::cuda::warp_size()``, a call at run time, in host code; PyTorch asks for ``C10_WARP_SIZE_UPPER_BOUND``
/ ``LOWER_BOUND`` where a constant is needed. ``constexpr int block_x = C10_WARP_SIZE;`` (torchani 2.9.0's
launch code) does not compile, and the launch layout around it was written for 32 lanes (64 on gfx942): a
manual finding.
"""

from __future__ import annotations

from typing import Iterable

import re

from vado.model import Applicability, Edit, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.facts import source_facts
from vado.scan.lexer import Kind

#: Removed THC headers → the ATen header that took over what extensions used of them (None: no one header;
#: the finding stays for a person). ``THCAtomics.cuh``'s ``gpuAtomicAdd`` and ``atomicAdd`` overloads for
#: ``at::Half``/``at::BFloat16``/the integer types are ``ATen/cuda/Atomic.cuh``'s (torch 2.13.0: ROCm's
#: ``ATen/hip/Atomic.cuh`` declares ``atomicAdd(at::Half*, at::Half)`` and the rest); ``THCDeviceUtils.cuh``'s
#: ``WARP_SHFL*``/``WARP_BALLOT`` are ``ATen/cuda/DeviceUtils.cuh``'s; ``THCNumerics.cuh`` is ``ATen/cuda/NumericLimits.cuh``
#: only in part, and ``THC.h``/``THCGeneral.h`` carried ``THCState`` and ``THCudaCheck``, which have no successor
#: header (``at::cuda::getCurrentCUDAStream()``, ``C10_CUDA_CHECK``).
REMOVED = {
    "THC/THCAtomics.cuh": "ATen/cuda/Atomic.cuh",
    "THC/THCDeviceUtils.cuh": "ATen/cuda/DeviceUtils.cuh",
    "THC/THC.h": None,
    "THC/THCGeneral.h": None,
    "THC/THCNumerics.cuh": None,
    "THC/THCTensor.h": None,
    "THC/THCStorage.h": None,
    "THC/THCDeviceTensor.cuh": None,
    "THC/THCDeviceTensorUtils.cuh": None,
    "THC/THCThrustAllocator.cuh": "ATen/cuda/ThrustAllocator.h",
    "TH/TH.h": None,
}


#: ROCm guards torch 2.13.0 no longer declares under their HIP names → the masquerading guards hipify gives extensions.
_HIP_GUARDS = {name: name + "MasqueradingAsCUDA" for name in
               ("HIPGuard", "OptionalHIPGuard", "HIPStreamGuard", "OptionalHIPStreamGuard")}
_MASQUERADING_HEADER = "ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h"

#: A file's own definition of ``AT_CHECK`` (a shim for PyTorch >= 1.5).
_DEFINES_AT_CHECK = re.compile(r"^[ \t]*#[ \t]*define[ \t]+AT_CHECK\b", re.M)

#: The dispatch macros whose first argument is a ``ScalarType`` (``AT_DISPATCH_FLOATING_TYPES``, ``…_AND2`` …).
_DISPATCH = re.compile(r"AT_DISPATCH_\w+")


class TorchRemovedApi(Rule):
    """An ``#include`` of a PyTorch THC/TH header (removed in 1.11), or ``Tensor.type()`` given to ``AT_DISPATCH_*``.

    What it does
    ------------
    Reports each ``#include`` of a header of PyTorch's legacy THC/TH libraries (``THC/THC.h``,
    ``THC/THCAtomics.cuh``, ``THC/THCDeviceUtils.cuh`` …). Where one ATen header took over what
    extensions used (``THCAtomics.cuh``'s ``atomicAdd`` overloads for ``at::Half`` are
    ``ATen/cuda/Atomic.cuh``'s), the fix includes that instead; elsewhere (``THCState``,
    ``THCudaCheck``) the finding stays for a person. Also ``x.type()`` as the first argument of an
    ``AT_DISPATCH_*`` macro, which becomes ``x.scalar_type()``, and ``c10::hip::HIPGuard`` (and the optional
    and stream guards), which become ``c10::hip::HIPGuardMasqueradingAsCUDA`` (torch 2.13.0's ROCm headers keep
    CUDA's names in ``c10/hip/HIPGuard.h``: torch-ans 0.4.0's own ROCm branch fails in all 6 TUs).

    Why is this bad?
    ----------------
    No PyTorch from 1.11 on ships these headers, for CUDA or ROCm (torch 2.13.0: no ``THC``
    directory in the CUDA wheel's headers, no ``THH`` in the ROCm wheel's). On a ROCm build PyTorch's
    hipify rewrites ``THC/THCAtomics.cuh`` to ``THH/THHAtomics.cuh``, and the TU fails there
    ("'THH/THHAtomics.cuh' file not found", DCNv4 1.0.0.post2); the original's CUDA build fails the
    same way on the same PyTorch. ``AT_DISPATCH_FLOATING_TYPES(x.type(), ...)`` does not compile on torch
    2.13.0 ("no viable conversion from 'const DeprecatedTypeProperties' to 'torch::headeronly::ScalarType'",
    auto-gptq 0.7.1).

    Example
    -------
    .. code-block:: cuda

        #include <THC/THCAtomics.cuh>
        AT_DISPATCH_FLOATING_TYPES(x.type(), "k", ([&] { k<scalar_t><<<g, b>>>(x.data_ptr<scalar_t>()); }));

    Use instead
    -----------
    .. code-block:: cuda

        #include <ATen/cuda/Atomic.cuh>
        AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "k", ([&] { k<scalar_t><<<g, b>>>(x.data_ptr<scalar_t>()); }));

    Fix safety
    ----------
    Safe for the headers with one successor (the same declarations under ATen's name) and for
    ``.type()`` → ``.scalar_type()`` (what the dispatch read of it); none for the other headers. A PyTorch extension's port (``--torch-extension``) writes it in the ``USE_ROCM`` branch only,
    so its CUDA build keeps the original line (and fails on PyTorch >= 1.11 as the original does).

    References
    ----------
    - PyTorch 1.11 release notes (THC removed): https://github.com/pytorch/pytorch/releases/tag/v1.11.0
    - torch 2.13.0 headers: ``ATen/cuda/Atomic.cuh`` (``gpuAtomicAdd``, ``atomicAdd(at::Half*, at::Half)``)
    """

    code = "API015"
    name = "pytorch-removed-api"
    severity = Severity.HIGH
    can_fix = True
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        if "AT_DISPATCH_" in ctx.text:
            yield from self._dispatch_types(ctx)
        if "C10_WARP_SIZE" in ctx.text:
            yield from self._host_warp_size(ctx)
        if "Guard" in ctx.text and "hip" in ctx.text:
            yield from self._hip_guards(ctx)
        if "AT_CHECK" in ctx.text:
            yield from self._at_check(ctx)
        if "TH" not in ctx.text:
            return
        for inc in source_facts(ctx).includes:
            if inc.path not in REMOVED:
                continue
            new = REMOVED[inc.path]
            fix = None
            if new is not None:
                open_, close = ("<", ">") if inc.system else ('"', '"')
                fix = Fix((Edit(ctx.path, inc.start, inc.end, f"{open_}{new}{close}"),), Applicability.SAFE,
                          f"<{inc.path}> → <{new}> (PyTorch moved it to ATen)", ("torch-header",))
            what = (f"include <{new}>, which took over what extensions used of it" if new else
                    "what it declared has no one successor (THCState, THCudaCheck: use "
                    "at::cuda::getCurrentCUDAStream() and C10_CUDA_CHECK)")
            verdict = Verdict.AUTOMATIC if fix else Verdict.MANUAL
            yield self.finding(
                ctx, inc.start, inc.end,
                f"<{inc.path}> is a header of PyTorch's THC library, removed in PyTorch 1.11: no PyTorch build "
                f"from then on (CUDA or ROCm) has it, so this TU does not compile on either; {what}",
                {t.name: verdict for t in ctx.targets},
                fix=fix,
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.5),
                data={"header": inc.path, "successor": new or ""},
            )

    def _dispatch_types(self, ctx: FileContext) -> Iterable[Finding]:
        """``x.type()`` (or ``x->type()``) as the whole first argument of an ``AT_DISPATCH_*`` call."""
        view = cs.device_view(ctx)
        toks, pairs = view.tokens, view.pairs
        for i in view.idents_matching(_DISPATCH, "AT_DISPATCH_"):
            if i + 1 >= len(toks) or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            close, k, depth = pairs[i + 1], i + 2, 0
            while k < close and not (depth == 0 and toks[k][3] == ","):
                depth += toks[k][3] in ("(", "[", "{")
                depth -= toks[k][3] in (")", "]", "}")
                k += 1
            arg = [t[3] for t in toks[i + 2:k]]
            if len(arg) < 5 or arg[-4] not in (".", "->") or arg[-3:] != ["type", "(", ")"]:
                continue
            t = toks[k - 3]
            fix = Fix((Edit(ctx.path, t[1], t[2], "scalar_type"),), Applicability.SAFE,
                      "Tensor.type() → Tensor.scalar_type() in the dispatch", ("torch-api",))
            yield self.finding(
                ctx, toks[i + 2][1], toks[k - 1][2],
                f"{toks[i][3]} is given Tensor.type(), a DeprecatedTypeProperties that PyTorch's dispatch macros "
                "no longer convert to a ScalarType (torch 2.13.0, CUDA or ROCm: 'no viable conversion'); the port "
                "writes .scalar_type()",
                {tgt.name: Verdict.AUTOMATIC for tgt in ctx.targets},
                fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0),
                data={"macro": toks[i][3]},
            )

    def _at_check(self, ctx: FileContext) -> Iterable[Finding]:
        """``AT_CHECK(cond, ...)``: PyTorch deprecated it for ``TORCH_CHECK`` (same arguments) in 1.2 and removed it
        in 1.5 (torch 2.13.0's headers, CUDA or ROCm, define no ``AT_CHECK``: "use of undeclared identifier
        'AT_CHECK'", modulated-deform-conv 1.0.2). A file that defines ``AT_CHECK`` itself (``#ifndef AT_CHECK``
        ``#define AT_CHECK TORCH_CHECK``) is left alone."""
        if _DEFINES_AT_CHECK.search(ctx.text):
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        for i in view.ident_indices(("AT_CHECK",)):
            if i + 1 >= len(toks) or toks[i + 1][3] != "(":
                continue
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and (prev[3] in (".", "->", "::") or prev[0] is Kind.DIRECTIVE
                                     or prev[0] is Kind.IDENT and prev[3] not in cs.EXPRESSION_WORDS):
                continue  # a member, a macro being defined, or a declaration of the project's own
            t = toks[i]
            fix = Fix((Edit(ctx.path, t[1], t[2], "TORCH_CHECK"),), Applicability.SAFE,
                      "AT_CHECK → TORCH_CHECK (PyTorch's name for it since 1.2)", ("torch-api",))
            yield self.finding(
                ctx, t[1], t[2],
                "AT_CHECK was removed in PyTorch 1.5 (deprecated since 1.2 for TORCH_CHECK, which takes the same "
                "arguments): no PyTorch build from then on (CUDA or ROCm) declares it, so this TU does not compile "
                "on either; the port writes TORCH_CHECK",
                {tgt.name: Verdict.AUTOMATIC for tgt in ctx.targets},
                fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0),
                data={"macro": "AT_CHECK", "successor": "TORCH_CHECK"},
            )

    def _hip_guards(self, ctx: FileContext) -> Iterable[Finding]:
        """``c10::hip::HIPGuard`` (and the optional and stream guards): torch 2.13.0's ROCm ``c10/hip/HIPGuard.h``
        keeps CUDA's names (``c10::cuda::CUDAGuard``), so ``c10::hip::HIPGuard`` is no type there (torch-ans 0.4.0's
        own ROCm branch, all 6 TUs); ``c10::hip::HIPGuardMasqueradingAsCUDA`` of
        ``ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h`` is what PyTorch's hipify gives extensions for
        ``CUDAGuard``, in torch 2.13.0 as before."""
        view = cs.device_view(ctx)
        toks = view.tokens
        facts = source_facts(ctx)
        guard_inc = next((inc for inc in facts.includes if inc.path == "c10/hip/HIPGuard.h"), None)
        has_masq = any(inc.path == _MASQUERADING_HEADER for inc in facts.includes)
        added = False
        for i in view.ident_indices(tuple(_HIP_GUARDS)):
            if i < 2 or toks[i - 1][3] != "::" or toks[i - 2][3] != "hip":
                continue
            name = toks[i][3]
            new = _HIP_GUARDS[name]
            fix = None
            if guard_inc is not None or has_masq:
                edits = [Edit(ctx.path, toks[i][1], toks[i][2], new)]
                if not has_masq and not added:
                    eol = ctx.text.find("\n", guard_inc.end)
                    eol = len(ctx.text) if eol < 0 else eol + 1
                    edits.insert(0, Edit(ctx.path, eol, eol, f"#include <{_MASQUERADING_HEADER}>\n"))
                    added = True
                fix = Fix(tuple(edits), Applicability.SAFE, f"c10::hip::{name} → c10::hip::{new}", ("torch-api",))
            rocm = [t for t in ctx.targets if t.family == "rocm"]
            yield self.finding(
                ctx, toks[i - 2][1] if toks[i - 3][3] != "::" else toks[i - 4][1], toks[i][2],
                f"c10::hip::{name} is no type in torch 2.13.0's ROCm headers (c10/hip/HIPGuard.h keeps CUDA's names: "
                f"c10::cuda::{name.replace('HIP', 'CUDA')}); c10::hip::{new} (<{_MASQUERADING_HEADER}>) is what "
                "PyTorch's hipify gives extensions, in older releases too",
                {t.name: Verdict.AUTOMATIC if fix else Verdict.MANUAL for t in rocm},
                fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.25),
                data={"name": f"c10::hip::{name}", "successor": f"c10::hip::{new}"},
            )

    def _host_warp_size(self, ctx: FileContext) -> Iterable[Finding]:
        """``C10_WARP_SIZE`` in host code where a constant is needed: a ``constexpr`` or ``static_assert``
        statement, or an array bound."""
        rocm = [t for t in ctx.targets if t.family == "rocm"]
        if not rocm:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        for i in view.ident_indices(("C10_WARP_SIZE",)):
            if view.in_device_code(toks[i][1]):
                continue  # device code: a constant on ROCm too (64 on gfx9, 32 elsewhere)
            k, needs = i - 1, ""
            while k >= 0 and toks[k][3] not in (";", "{", "}") and not toks[k][3].startswith("#"):
                if toks[k][3] in ("constexpr", "static_assert"):
                    needs = toks[k][3]
                    break
                k -= 1
            if not needs and i > 0 and toks[i - 1][3] == "[":
                needs = "an array bound"
            if not needs:
                continue
            yield self.finding(
                ctx, toks[i][1], toks[i][2],
                f"C10_WARP_SIZE in host code ({needs}): on ROCm PyTorch defines it as at::cuda::warp_size(), a call "
                "at run time (torch 2.13.0), so this does not compile; and the layout it sizes was written for "
                "32-lane warps (gfx942's are 64): use C10_WARP_SIZE_UPPER_BOUND where a constant bound will do, or "
                "take at::cuda::warp_size() at run time and fit the kernel to it",
                {t.name: Verdict.MANUAL for t in rocm},
                effort=Effort(lines=2, constructs=1, hours=1.0),
                data={"macro": "C10_WARP_SIZE", "context": needs},
            )


#: Headers: hipify rewrites each that a hipified file includes (``hipify_extra_files_only``: the extension's sources
#: and the headers they include). A source (``lib.cpp`` beside ``lib_cuda.cpp``) is hipified only when the build
#: lists it, which a file alone does not tell (torch-ans 0.4.0 builds lib.cpp only: no collision), so sources are
#: not reported.
_COLLIDING_EXTS = (".h", ".hpp", ".hh", ".cuh")


def _hipify_twin(ctx: FileContext) -> str | None:
    """The file of the tree (path relative to ``source_root``) that PyTorch's hipify writes to the same name as
    ``ctx``'s file: ``X.h`` becomes ``X_hip.h`` when hipify changes it, and ``X_cuda.h`` always becomes
    ``X_hip.h`` (``hipify_python.get_hip_file_path``: 'cuda' → 'hip' in the name, else ``_hip`` appended)."""
    import os
    import posixpath

    root = (ctx.options or {}).get("source_root")
    if not root:
        return None
    folder, name = posixpath.split(ctx.path.replace(os.sep, "/"))
    stem, ext = posixpath.splitext(name)
    if ext not in _COLLIDING_EXTS or "cuda" in stem or "CUDA" in stem:
        return None
    for spelling in ("cuda", "CUDA"):
        twin = posixpath.join(folder, f"{stem}_{spelling}{ext}")
        if os.path.isfile(os.path.join(str(root), twin)):
            return twin
    return None


_INCLUDE_ANY = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\r\n]+)[>"]', re.M)
_WORD = re.compile(r"[A-Za-z_]\w*")


def _hipify_changes(root: str, path: str, text: str | None = None, _seen: frozenset[str] = frozenset()) -> bool:
    """Whether PyTorch's hipify rewrites the file at ``path`` (relative to ``root``): it names something hipify
    renames (a CUDA name, ``__CUDACC__``, a CUDA header), includes a file whose name has ``cuda`` in it, or
    includes a project header hipify rewrites (found beside the file or in a folder above it, within the tree),
    whose include line it then points at the ``_hip`` copy."""
    import os
    import posixpath

    from vado.port.torch_ext import hipify_macros, hipify_renames
    from vado.scan.project_headers import in_tree
    from vado.scan.reading import read_regular

    if path in _seen or len(_seen) > 16:
        return False
    if text is None:
        try:
            text = read_regular(os.path.join(root, path), 2 * 1024 * 1024).decode("latin-1")
        except (OSError, ValueError):
            return False
    names, includes = hipify_renames()
    words = set(_WORD.findall(text))
    if words & names or words & set(hipify_macros()):
        return True
    folder = posixpath.dirname(path)
    for inc in _INCLUDE_ANY.findall(text):
        if inc in includes or "cuda" in posixpath.basename(inc).lower():
            return True
        base = folder
        while True:  # the file's folder, then the folders above it (an -I of the project's)
            target = in_tree(base, inc)
            if target is not None and os.path.isfile(os.path.join(root, target)):
                if _hipify_changes(root, target, None, _seen | {path}):
                    return True
                break
            if not base:
                break
            base = posixpath.dirname(base)
    return False


class TorchHipifyNameCollision(Rule):
    """A torch extension's ``X.h`` beside an ``X_cuda.h``: PyTorch's hipify writes both to ``X_hip.h``.

    What it does
    ------------
    In a PyTorch extension (the tree builds one: ``CUDAExtension``, ``cpp_extension.load``), reports a header
    ``X.h`` whose folder also holds ``X_cuda.h`` (or ``X_CUDA.h``), where hipify rewrites ``X.h``: it
    names something hipify renames or includes a file that hipify rewrites (followed through the project's headers).

    Why is this bad?
    ----------------
    On a ROCm build ``torch.utils.cpp_extension`` hipifies every source and the project headers they include, and
    writes each file it changes next to the original: a name with ``cuda`` gets ``hip`` instead
    (``scatter_cuda.h`` → ``scatter_hip.h``), any other name gets ``_hip`` appended (``scatter.h`` →
    ``scatter_hip.h``), and the includes are rewritten to the new names. ``X.h`` changes as soon as it, or a
    project header it includes, names anything hipify renames; then both files are written to ``X_hip.h``, the
    second replacing the first, and every TU that includes the lost one fails (torchcompactradius 0.5.5:
    ``sparseOperations/scatter.h`` and ``scatter_cuda.h``: "use of undeclared identifier 'scatter_sum'" in
    ``cppWrapper.cpp``, "use of undeclared identifier 'std'" in ``scatter_cpu.cpp``). The CUDA build is not
    affected.

    Example
    -------
    .. code-block:: cuda

        // ops/scatter.h (includes <common.h>, which hipify changes) and ops/scatter_cuda.h side by side

    Use instead
    -----------
    Rename one of them (``scatter_cuda.h`` → ``scatter_kernels.h``, with its includes), so that the two hipified
    names differ.

    Fix safety
    ----------
    No fix: a rename of a project file and of every include of it is a person's call.

    References
    ----------
    - PyTorch ``torch/utils/hipify/hipify_python.py`` (``get_hip_file_path``, torch 2.13.0)
    """

    code = "API018"
    name = "hipify-file-name-collision"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        if not (ctx.options or {}).get("torch_extension"):
            return
        twin = _hipify_twin(ctx)
        if twin is None or not _hipify_changes(str(ctx.options["source_root"]), ctx.path.replace("\\", "/"), ctx.text):
            return  # hipify leaves this file as it is (beamgrad 2.3.0's include/dbs.h beside dbs_cuda.h): no collision
        import posixpath

        stem, ext = posixpath.splitext(posixpath.basename(ctx.path))
        # at the file's first line of code (past its leading comments)
        first = re.search(r"^[ \t]*(?!//|/\*|\*|[ \t]*$)\S[^\n]*", ctx.text, re.M)
        start, end = (first.start(), first.end()) if first else (0, 0)
        yield self.finding(
            ctx, start, end,
            f"PyTorch's hipify writes this file (which it rewrites: it, or a project header it includes, names "
            f"something hipify renames) and {twin} both to {stem}_hip{ext} on a ROCm build: the one written last "
            f"replaces the other, and the TUs that include the lost one fail; rename one of them",
            {t.name: (Verdict.MANUAL if t.family == "rocm" else Verdict.MOVES_AS_IS) for t in ctx.targets},
            effort=Effort(lines=2, constructs=1, hours=0.5),
            data={"twin": twin, "hipified": f"{stem}_hip{ext}"},
        )
