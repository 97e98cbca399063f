"""API rules about a project's own code that stops its build whatever the port does (API016, API017).

API016: a quoted ``#include`` of a header the source tree does not have. auto-gptq 0.7.1's sdist ships the
``.cu``/``.cpp`` files of its exllama and exllamav2 extensions without a single one of their headers
(``util.cuh``, ``q4_matmul.cuh``, ``config.h`` ...): eight TUs fail on their first include, for CUDA as for ROCm,
and no port edit can change that. The audit said nothing of it.

API017: a project's own ROCm code written for ROCm 5's ``__half2``, whose ``x``/``y`` were ``unsigned short``
(HIP 5.2's ``amd_hip_fp16.h``); from ROCm 6 on they are ``__half``, which ``__builtin_amdgcn_rcph`` and the other
half-precision builtins (``__fp16`` parameters) do not take: exllama 0.1.0's ``hip_compat.cuh``
``__compat_h2rcp`` ("no viable conversion from '__half' to '__fp16'", ROCm 7.2.4), included by four TUs. Its
``_Float16_2 data`` member is in both layouts.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from typing import Iterable

from vado.model import Applicability, Edit, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.facts import source_facts

#: A tree past this many files is not indexed (the rule then reports nothing rather than guess).
_MAX_FILES = 200_000
#: Folders the index does not enter (version control, caches, build output a port or build writes).
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".tox", ".venv", "node_modules"})
#: Suffixes of the templates a configure step turns into a header (config.h.in → config.h).
_TEMPLATE_SUFFIXES = (".in", ".cmake", ".in.h", ".template")


@functools.lru_cache(maxsize=4)
def _tree_files(root: str) -> frozenset[str] | None:
    """Every file under ``root`` as a relative POSIX path (links not followed); None past :data:`_MAX_FILES` or
    where ``root`` cannot be read."""
    out: list[str] = []
    try:
        for folder, dirs, files in os.walk(root, followlinks=False):
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            for name in files:
                out.append(name if rel == "." else f"{rel}/{name}")
            if len(out) > _MAX_FILES:
                return None
    except OSError:
        return None
    return frozenset(out)


@functools.lru_cache(maxsize=4)
def _by_tail(root: str) -> dict[str, frozenset[str]] | None:
    """The tree's files by their last path component."""
    files = _tree_files(root)
    if files is None:
        return None
    index: dict[str, set[str]] = {}
    for path in files:
        index.setdefault(path.rsplit("/", 1)[-1], set()).add(path)
    return {k: frozenset(v) for k, v in index.items()}


def _known_elsewhere(name: str) -> bool:
    """Whether a quoted include names a library's or the toolkit's header (``"cuda_runtime.h"``,
    ``"torch/extension.h"``, ``"cub/cub.cuh"``): found on the compiler's include path, not in the tree."""
    from vado.knowledge import libraries as libs

    tail = name.rsplit("/", 1)[-1]
    if "." not in tail or tail in _C_HEADERS or name.endswith(_GENERATED):
        return True  # "algorithm", "assert.h", "Python.h" in quotes; protoc's output
    if libs.library_for_header(name) is not None:
        return True
    head = name.split("/", 1)[0]
    return head in _SYSTEM_ROOTS or re.match(r"(?:cuda|cu[a-z]+|nv[a-z]*|hip|roc[a-z]*|mma|sm_\d+)[\w.]*\.h$", name) is not None


#: Suffixes of CUDA/HIP headers: a project's own (no system library ships ``.cuh`` in a quoted include).
_DEVICE_SUFFIXES = (".cuh", ".cu", ".hip", ".hpp.cu", ".inl.cuh")
#: C and POSIX headers, and Python's, that projects include in quotes now and then.
_C_HEADERS = frozenset({
    "assert.h", "ctype.h", "errno.h", "float.h", "limits.h", "math.h", "stdarg.h", "stddef.h", "stdint.h", "stdio.h",
    "stdlib.h", "string.h", "time.h", "inttypes.h", "stdbool.h", "unistd.h", "pthread.h", "dlfcn.h", "fcntl.h",
    "Python.h", "omp.h", "immintrin.h", "malloc.h", "signal.h", "setjmp.h", "locale.h", "wchar.h", "complex.h",
})
#: Headers a code generator writes at build time (protoc; flashinfer's JIT writes its *_config.inc).
_GENERATED = (".pb.h", ".grpc.pb.h", ".inc")


#: First path components of headers a compiler finds outside the project (the toolkit's, PyTorch's, pybind11's).
_SYSTEM_ROOTS = frozenset({"torch", "ATen", "c10", "pybind11", "cub", "thrust", "cuda", "hip", "hipcub", "rocprim",
                           "cutlass", "cute", "THC", "TH", "caffe2", "Eigen", "boost", "omp.h", "sys", "crt",
                           "tensorflow", "absl", "google", "gtest", "gmock", "glog", "fmt", "spdlog", "nlohmann",
                           "yaml-cpp", "opencv2", "triton", "tvm", "dlpack", "nccl", "mpi", "folly", "onnx"})


def header_in_tree(root: str, including: str, name: str) -> bool | None:
    """Whether the tree at ``root`` holds the header a quoted ``#include "name"`` of ``including`` (a path relative
    to ``root``) can reach: beside the file or in a folder above it (the ``-I`` roots projects use), or anywhere
    in the tree with that path as its tail (an include directory the build names), or a template a configure
    step makes it from; None where the tree cannot be indexed."""
    files = _tree_files(root)
    tails = _by_tail(root)
    if files is None or tails is None:
        return None
    folder = posixpath.dirname(including.replace(os.sep, "/"))
    while True:
        candidate = posixpath.normpath(posixpath.join(folder, name))
        if candidate in files:
            return True
        if not folder or folder in (".", "/"):
            break
        folder = posixpath.dirname(folder)
    tail = name.rsplit("/", 1)[-1]
    if any(p == name or p.endswith("/" + name) for p in tails.get(tail, ())):
        return True
    if not tail.endswith(_DEVICE_SUFFIXES) and "/" not in name and not _companion_of_a_source(tail, tails):
        return True  # a plain "png.h", "mpi.h": as likely a system library's as the project's (HeCBench)
    if "/" in name and name.split("/", 1)[0] not in (".", "..") and name.split("/", 1)[0] not in _tree_dirs(root):
        return True  # "triton/backend/x.h": a dependency's include directory, not one of the tree's
    return any(tail + suffix in tails for suffix in _TEMPLATE_SUFFIXES)


#: Suffixes of the sources a header of the same stem belongs to.
_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def _companion_of_a_source(tail: str, tails: dict) -> bool:
    """Whether a plain header name is the companion of a source of the tree (``inter_union_cuda.h`` where the
    tree has ``inter_union_cuda.cu``: polygon-iou 1.0.7's sdist ships the source without it): the project's own
    header, no system library's."""
    stem = tail.rsplit(".", 1)[0]
    return any(stem + suffix in tails for suffix in _SOURCE_SUFFIXES)


@functools.lru_cache(maxsize=4)
def _tree_dirs(root: str) -> frozenset[str]:
    """The names of the tree's folders (any depth)."""
    return frozenset(part for path in (_tree_files(root) or ()) for part in path.split("/")[:-1])


class HeaderNotInTree(Rule):
    """A quoted ``#include`` of a header the source tree does not have.

    What it does
    ------------
    Reports ``#include "name"`` where no file of the audited tree is that header: not beside the file, not
    in a folder above it, not anywhere in the tree with that path as its tail (an include directory), and
    no configure template (``name.in``) makes it. Headers of the toolkit and of known libraries
    (``"cuda_runtime.h"``, ``"torch/extension.h"``, ``"cub/cub.cuh"``), C and C++ standard headers in quotes,
    protoc's ``.pb.h`` and paths whose first folder the tree has nowhere (``"triton/backend/x.h"``: a
    dependency's include directory) are not the tree's and are left alone, and so is a plain ``"x.h"``
    (``"mpi.h"``, ``"png.h"`` in quotes are a system library's as often as the project's): a ``.cuh`` or a
    path with a folder (``"../config.h"``) is the project's. Runs only where the audit knows
    the tree's root.

    Why is this bad?
    ----------------
    The file does not compile, for CUDA or for ROCm, as the tree stands: the package was shipped without
    the header (auto-gptq 0.7.1's sdist has none of its exllama/exllamav2 headers: eight TUs fail on their
    first include), or a build step that was not run makes it. A port cannot supply it, and verify cannot
    check the file; a report that says "nothing remains" over it would be wrong.

    Example
    -------
    .. code-block:: cuda

        #include "q4_matmul.cuh"   // not in the sdist

    Use instead
    -----------
    Port and build from the project's repository (or a release that ships its headers), or run the step
    that generates the header first.

    Fix safety
    ----------
    No fix: the header's contents are not known.

    References
    ----------
    - auto-gptq 0.7.1 sdist (PyPI): ``autogptq_extension/exllama/*.cu`` without their ``.cuh`` files
    """

    code = "API016"
    name = "header-not-in-tree"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        root = (ctx.options or {}).get("source_root")
        if not root or "#include" not in ctx.text:
            return
        for inc in source_facts(ctx).includes:
            name = inc.path
            if inc.system or not name or name.startswith("/"):
                continue
            if _known_elsewhere(name):
                continue
            found = header_in_tree(root, ctx.path, name)
            if found is None or found:
                continue
            yield self.finding(
                ctx, inc.start, inc.end,
                f'"{name}" is not in the source tree (not beside this file, in a folder above it, or under an '
                "include directory of the tree): this file does not compile, for CUDA or for ROCm, as the tree "
                "stands. The package was shipped without it, or a build step makes it; a port cannot supply it "
                "and verify cannot check this file",
                {t.name: Verdict.MANUAL for t in ctx.targets},
                effort=Effort(lines=0, constructs=1, hours=0.5),
                data={"header": name},
            )


_AMDGCN_BUILTIN = re.compile(r"__builtin_amdgcn_\w+")


#: ``NAME`` declared as a ``__half2``/``half2`` (a parameter or a variable): ``__half2 x``, ``const half2& x``.
def _half2_names(text: str) -> frozenset[str]:
    return frozenset(m.group(1) for m in re.finditer(
        r"\b(?:__half2|half2)\s+(?:const\s+)?[&*]?\s*([A-Za-z_]\w*)\b", text))


class Rocm5Half2Members(Rule):
    """``__half2``'s ``.x``/``.y`` given to an ``__builtin_amdgcn_*`` half-precision builtin.

    What it does
    ------------
    Finds ``__builtin_amdgcn_rcph(x.x)`` (and the other ``__builtin_amdgcn_*`` builtins) where ``x`` is
    declared a ``__half2``/``half2`` in the file: code written for ROCm 5's ``__half2``, usually a project's own
    ROCm compatibility header (exllama 0.1.0's ``hip_compat.cuh``).

    Why is this bad?
    ----------------
    In ROCm 5 (HIP 5.2's ``amd_hip_fp16.h``) ``__half2``'s ``x`` and ``y`` were ``unsigned short`` (the raw
    bits, converted to ``__fp16`` as a number); from ROCm 6 on they are ``__half``, which the builtins'
    ``__fp16`` parameters do not take: "no viable conversion from '__half' to '__fp16'" (ROCm 7.2.4), in every
    TU that includes it. The project's own ROCm code is not what a port rewrites, so without this finding the
    failure has no word.

    Example
    -------
    .. code-block:: cuda

        __device__ __half2 h2rcp(__half2 x) {
            return _Float16_2{static_cast<_Float16>(__builtin_amdgcn_rcph(x.x)),
                              static_cast<_Float16>(__builtin_amdgcn_rcph(x.y))};
        }

    Use instead
    -----------
    .. code-block:: cuda

        __device__ __half2 h2rcp(__half2 x) {
            return _Float16_2{static_cast<_Float16>(__builtin_amdgcn_rcph(x.data[0])),
                              static_cast<_Float16>(__builtin_amdgcn_rcph(x.data[1]))};
        }

    Fix safety
    ----------
    Safe: ``data`` (a ``_Float16_2``) is a member of ``__half2`` in ROCm 5 and in ROCm 6 and later, and its
    elements are the halves' values (compiles with HIP 5.2's hipcc and ROCm 7.2.4's; ``x.x`` in ROCm 5
    converted the raw bits as a number). A port leaves a project's own ROCm code as it is: there the
    finding stays for a person.

    References
    ----------
    - ``hip/amd_detail/amd_hip_fp16.h`` of HIP 5.2 and of ROCm 7.2.4 (``struct __half2``)
    - exllamav2's later ``__compat_h2rcp`` (``__halves2half2(hrcp(__low2half(x)), hrcp(__high2half(x)))``)
    """

    code = "API017"
    name = "rocm5-half2-members"
    severity = Severity.HIGH
    can_fix = True
    file_kinds = cs.CUDA_CXX_KINDS
    triggers = ("__half2", "half2")

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        if "__builtin_amdgcn_" not in ctx.text:
            return
        halves = _half2_names(ctx.text)
        if not halves:
            return
        view = cs.device_view(ctx)
        toks, pairs = view.tokens, view.pairs
        for i in view.idents_matching(_AMDGCN_BUILTIN, "__builtin_amdgcn_"):
            t = toks[i]
            if i + 1 >= len(toks) or toks[i + 1][3] != "(":
                continue
            close = pairs.get(i + 1)
            if close is None:
                continue
            k = i + 2
            while k + 2 < close + 1:
                a, dot, member = toks[k], toks[k + 1], toks[k + 2]
                if (a[3] in halves and dot[3] == "." and member[3] in ("x", "y")
                        and toks[k - 1][3] in ("(", ",") and toks[k + 3][3] in (")", ",")):
                    new = f"{a[3]}.data[{0 if member[3] == 'x' else 1}]"
                    yield self.finding(
                        ctx, a[1], member[2],
                        f"{a[3]}.{member[3]} given to {t[3]}: written for ROCm 5's __half2, whose x/y were unsigned "
                        "short; from ROCm 6 on they are __half, which the builtin's __fp16 parameter does not take "
                        f"(\"no viable conversion from '__half' to '__fp16'\", ROCm 7.2.4): use {new}",
                        {tg.name: Verdict.AUTOMATIC if tg.family == "rocm" else Verdict.MOVES_AS_IS for tg in ctx.targets},
                        fix=Fix((Edit(ctx.path, a[1], member[2], new),), Applicability.SAFE,
                                f"{a[3]}.{member[3]} → {new} (__half2's _Float16_2 member)", ("half",)),
                        effort=Effort(lines=1, constructs=1, hours=0.0),
                        data={"member": f"{a[3]}.{member[3]}", "builtin": t[3]},
                    )
                k += 1
