"""BLD005: a setup.py that builds a PyTorch CUDA extension, the nvcc flags it gives it, and the tests and
calls that leave the extension out (or stop setup.py) on a ROCm build of PyTorch.

The flag fixes are :mod:`vado.rules.bld.setup_flags`; the top-level calls that stop setup.py are
:mod:`vado.rules.bld_setup_stops`.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import (
    AS_IS,
    AUTO,
    BLOCKED,
    MANUAL,
    build_facts,
    builds_just_in_time,
    offload_archs,
    per_family,
)
from vado.rules.bld.setup_flags import (
    HIP_TEST,
    TORCH_IMPORTED,
    SetupShape,
    conditional_flag_fix,
    formatted_flag_fix,
    hip_test,
    hipcc_flag,
    item_quotes,
    setup_flag_fix,
    setup_shape,
    torch_import_edit,
)
from vado.rules.bld_setup_stops import NVCC_WORD
from vado.scan.buildfiles import FactKind

#: The tag of a fix that keeps an nvcc flag hipcc rejects from hipcc: applied even in a setup.py with its own
#: ROCm build (torchcompactradius 0.5.5: f'-extended-lambda', "clang++: error: unknown argument").
HIPCC_REJECTS = "hipcc-rejects"
from vado.scan.classify import FileKind


class TorchCudaExtension(Rule):
    """setup.py builds a PyTorch CUDA extension (CUDAExtension, cpp_extension.load) or gives it nvcc flags.

    What it does
    ------------
    Finds ``CUDAExtension(...)``, ``torch.utils.cpp_extension.load``/``load_inline``
    and the nvcc flags in their ``extra_compile_args={"nvcc": [...]}`` or
    ``extra_cuda_cflags=[...]``.

    Why is this bad?
    ----------------
    On a ROCm build of PyTorch, ``CUDAExtension`` hipifies the extension's
    sources itself and compiles them with hipcc, so the extension usually
    builds unchanged - unless its sources use inline PTX, CUTLASS or
    NVIDIA-only libraries (see the other rule families). But the ``nvcc`` flag
    list is passed to hipcc unchanged (``torch.utils.cpp_extension``), and
    hipcc (clang) rejects ``--use_fast_math``, ``--expt-relaxed-constexpr``,
    ``--expt-extended-lambda``, ``-gencode``, ``-rdc=true`` and ``--threads``
    (measured, hipcc 5.2). On SCALE the extension would need a CUDA build of
    PyTorch running on AMD, which SCALE's validation suite fails (PyTorch
    2.9.0); ZLUDA's PyTorch support is not robust yet.

    Example
    -------
    .. code-block:: python

        CUDAExtension("ops", ["ops.cu"],
                      extra_compile_args={"nvcc": ["-O3", "--use_fast_math"]})

    Use instead
    -----------
    .. code-block:: python

        from torch.utils.cpp_extension import IS_HIP_EXTENSION
        nvcc = ["-O3"] + ([] if IS_HIP_EXTENSION else ["--use_fast_math"])
        CUDAExtension("ops", ["ops.cu"], extra_compile_args={"nvcc": nvcc})

    Fix safety
    ----------
    Unsafe, for the flags of the ``nvcc`` list (a port's tree builds for
    ROCm; keep the CUDA flags behind ``IS_HIP_EXTENSION`` by hand if one
    ``setup.py`` must serve both): ``--use_fast_math`` → ``-ffast-math``,
    ``-lineinfo`` → ``-gline-tables-only``, ``-Xcompiler X`` → ``X``;
    ``-gencode``/``-arch`` (``PYTORCH_ROCM_ARCH`` picks the AMD
    architectures), ``--expt-*``, ``-Xptxas``, ``--threads`` and
    ``-Wno-deprecated-gpu-targets``, ``-maxrregcount`` (HIP has no register
    cap flag: ``__launch_bounds__``) and nvcc's own switches
    (``--extra-device-vectorization``, ``-prec-div=``, ``-fmad=``, ``-Xfatbin``
    ...; ``-ftz=true`` → ``-fgpu-flush-denormals-to-zero``) are removed with
    their list item when they are all of it. ``-rdc`` gets no fix. A flag and
    its value in two list items (``"--threads", "2"``) go together.

    References
    ----------
    - https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py
    - https://docs.pytorch.org/docs/stable/notes/hip.html
    - https://github.com/spectral-compute/scale-validation
    """

    code = "BLD005"
    can_fix = True
    name = "torch-cuda-extension"
    severity = Severity.MEDIUM
    # A package module that builds its extension just in time (cpp_extension.load/load_inline) too.
    file_kinds = frozenset({FileKind.SETUP_PY, FileKind.PYTHON})

    #: Flags hipcc rejects (errors) vs. accepts with a warning or ignores. Measured with ROCm 7.2.4's
    #: hipcc for gfx942: --use_fast_math, --expt-*, -gencode=, -Xptxas=/--ptxas-options=, --threads and
    #: -diag-suppress N are errors; -lineinfo is a warning (an unused linker input).
    #: -arch=sm_80/-arch=compute_50/-arch=native, -code=, --gpu-architecture= too ("unknown argument").
    #: --maxrregcount=N and the nvcc-only switches (--extra-device-vectorization, -ftz=, -prec-div=, -Xfatbin ...)
    #: are "unknown argument" errors too (ROCm 7.2.4 hipcc; biwkv4-cuda 0.3.2, clic-inference-extensions 0.1.0).
    BREAKS = {"fast-math", "expt", "gencode", "threads", "rdc", "xptxas", "diag", "arch", "maxrregcount",
              "nvcc-only", "xcudafe", "cuda-half-undef"}
    IGNORED = {"lineinfo", "xcompiler", "xnvlink", "ccbin", "cudart",
               "default-stream", "deprecated-targets"}

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.kind is FileKind.PYTHON and not builds_just_in_time(ctx.text):
            return
        facts = build_facts(ctx)
        shape: SetupShape | None = None
        # A ROCm-aware setup.py whose ROCm build vado derived (vado.scan.scope: it makes CUDAExtensions there, with
        # these flags): its CUDA_HOME tests gate nothing on ROCm, and a flag its ROCm extensions do not get stays in
        # a branch only CUDA builds take (xformers ca6d2aa: nvcc flags under `torch.version.cuda is not None`).
        rocm_flags = dict((ctx.options or {}).get("rocm_setups") or ()).get(ctx.path)
        # (a module that builds just in time runs when the package is used: setup.py's gates and stops are not its)
        if facts.of(FactKind.CUDA_EXTENSION) and rocm_flags is None and ctx.kind is FileKind.SETUP_PY:
            yield from self._cuda_home_tests(ctx)
        if facts.of(FactKind.CUDA_EXTENSION) and ctx.kind is FileKind.SETUP_PY and _OLD_STD.search(ctx.text):
            yield from self._old_cxx_standard(ctx)
        for f in facts.of(FactKind.CUDA_EXTENSION, FactKind.NVCC_FLAG):
            if rocm_flags is not None and f.kind is FactKind.NVCC_FLAG and not _reaches(f.text, rocm_flags):
                continue
            if f.kind is FactKind.CUDA_EXTENSION:
                if f.context == "BuildExtension":
                    continue  # the build command; CUDAExtension carries the finding
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text} builds a PyTorch CUDA extension; a ROCm build of PyTorch hipifies and "
                    "compiles it with hipcc, so its CUDA-spelled sources stay as they are (check them for "
                    "PTX, warp size, CUTLASS and NVIDIA-only libraries); build with "
                    f"PYTORCH_ROCM_ARCH={';'.join(offload_archs(ctx)) or 'gfx942'}",
                    per_family(ctx, rocm=AUTO, oneapi=MANUAL, scale=BLOCKED, zluda=MANUAL),
                    effort=Effort(lines=0, constructs=1, hours=0.5),
                    severity=Severity.INFO,
                    data={"call": f.data.get("call", f.text)},
                )
                continue
            if shape is None:
                shape = setup_shape(ctx.text)
            if shape.guarded(f.start):
                continue  # in a branch only CUDA builds of PyTorch take: never reaches hipcc
            kind = f.data["flag"]
            if kind == "cuda-half-undef" and shape.rocm_branch(f.start):
                continue  # the project's own ROCm flags (causal-conv1d, mamba-ssm): built and tested as they are
            breaks = kind in self.BREAKS
            how = "rejects" if breaks else "ignores or misreads"
            # A flag and its value from two statements (append("-gencode"); append("arch=...")): no edit
            # spans both safely.
            # Two items of one list ("--threads",\n "2": fpscan 0.1.2) are no two statements.
            split = any(c in f.text for c in "()") or ("\n" in f.text and not shape.list_items >= item_quotes(ctx.text, f))
            fix = None
            if f.data.get("formatted"):  # built at run time: only the whole expression can be made conditional
                test, bind = hip_test(ctx.text, f.start), None
                if test is None and TORCH_IMPORTED.search(ctx.text):
                    bind = torch_import_edit(ctx.text, f.start)
                    test = "torch.version.hip" if bind else None
                fix = formatted_flag_fix(ctx, f, test, bind)
            elif not split:
                test, bind = hip_test(ctx.text, f.start), None
                if test is None and TORCH_IMPORTED.search(ctx.text):
                    bind = torch_import_edit(ctx.text, f.start)
                    test = "torch.version.hip" if bind else None
                fix = conditional_flag_fix(ctx, f, test, shape, bind) or setup_flag_fix(ctx, f)
            if fix is not None and breaks:
                # A flag hipcc rejects breaks the project's own ROCm build too: the port applies this fix in a
                # setup.py that builds for AMD itself (vado.port.tree), where it leaves the other build fixes out.
                fix = dataclasses.replace(fix, tags=(*fix.tags, HIPCC_REJECTS))
            yield self.finding(
                ctx, f.start, f.end,
                (f"{f.text} undoes a define of PyTorch's CUDA build; a ROCm build of PyTorch defines "
                 f"{hipcc_flag(kind, f.data.get('option', ''), '')[2:]} instead (torch.utils.cpp_extension), which "
                 "this leaves on: its half operators and conversions stay off for hipcc; undo that one on ROCm"
                 if kind == "cuda-half-undef" else
                 f"nvcc flag {f.text} reaches hipcc unchanged on ROCm builds of PyTorch, and hipcc {how} it; "
                 "add it only when not IS_HIP_EXTENSION"),
                per_family(ctx, rocm=AUTO if fix else MANUAL, oneapi=MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.25),
                fix=fix,
                severity=Severity.MEDIUM if breaks else Severity.LOW,
                data={"flag": kind, "option": f.data.get("option", ""), "breaks_hipcc": breaks,
                      **({"formatted": f.data["formatted"]} if f.data.get("formatted") else {})},
            )


    def _old_cxx_standard(self, ctx: FileContext) -> Iterator[Finding]:
        """``-std=c++14`` (or older) among a torch extension's flags: PyTorch's headers require C++17 since 2.1
        (torch 2.13.0's ``torch/csrc/api/include/torch/all.h``: "C++17 or later compatible compiler is required to
        use PyTorch"), so every TU fails, on CUDA and on ROCm (polygon-iou 1.0.7: ``'-std=c++14'`` in its cxx and
        nvcc flags). The fix (unsafe) gives a ROCm build ``-std=c++17``; a CUDA build keeps the project's flag."""
        try:
            tree = ast.parse(ctx.text.encode("latin-1"))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return
        starts = [0] + [m.end() for m in re.finditer("\n", ctx.text)]
        shape = setup_shape(ctx.text)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and _OLD_STD.fullmatch(node.value)
                    and node.lineno == node.end_lineno):
                continue
            start = starts[node.lineno - 1] + node.col_offset
            end = starts[node.end_lineno - 1] + node.end_col_offset
            if shape.guarded(start):
                continue  # a branch only CUDA builds take
            literal = ctx.text[start:end]
            test, bind = hip_test(ctx.text, start), None
            if test is None and TORCH_IMPORTED.search(ctx.text):
                bind = torch_import_edit(ctx.text, start)  # as the flag fixes do: bind torch where the flags are
                test = "torch.version.hip" if bind else None
            fix = None
            if test is not None and literal[:1] in "\"'" and literal[-1:] == literal[:1]:
                q = literal[0]
                edits = (ctx.edit(start, end, f"({q}-std=c++17{q} if {test} else {literal})"),)
                if bind is not None:
                    edits = (ctx.edit(bind[0], bind[0], bind[1]),) + edits
                fix = Fix(edits, Applicability.UNSAFE, f"{literal} → -std=c++17 on ROCm builds of PyTorch ({test}"
                          f"{f', torch imported {bind[2]}' if bind else ''})", ("build",))
            yield self.finding(
                ctx, start, end,
                f"{literal} asks for an older C++ than PyTorch's headers need: they require C++17 since PyTorch 2.1 "
                "('C++17 or later compatible compiler is required to use PyTorch', torch 2.13.0), so every TU of the "
                "extension fails, on CUDA as on ROCm; build with -std=c++17",
                per_family(ctx, rocm=AUTO if fix else MANUAL, oneapi=MANUAL, scale=MANUAL, zluda=MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.1),
                fix=fix, severity=Severity.HIGH, data={"flag": "old-std", "option": node.value, "breaks_hipcc": True},
            )

    def _cuda_home_tests(self, ctx: FileContext) -> Iterator[Finding]:
        """``CUDA_HOME is not None`` deciding whether the CUDA extension is built (an assignment such as
        ``WITH_CUDA = torch.cuda.is_available() and CUDA_HOME is not None``, or the test of an ``if``
        whose branch makes a ``CUDAExtension``): a ROCm build of PyTorch has no nvcc, so ``CUDA_HOME``
        is None and the extension is silently left out. torch_scatter's idiom tests
        ``CUDA_HOME is not None or torch.version.hip``."""
        from vado.rules.bld_setup_stops import (cuda_version_gates, cuda_version_stops, missing_extension_classes,
                                                probe_stops, toolkit_stops)

        def stops_on_rocm(start: int, end: int, msg: str, lines: int, hours: float, data: dict) -> Finding:
            # setup.py stops or builds nothing on a ROCm (or oneAPI) build of PyTorch: manual there, high
            return self.finding(ctx, start, end, msg,
                                per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                                effort=Effort(lines=lines, constructs=1, hours=hours), severity=Severity.HIGH, data=data)

        for start, end, callee, why in toolkit_stops(ctx.text):
            yield stops_on_rocm(
                start, end,
                f"{callee}() runs on every run of setup.py and {why}: a ROCm build of PyTorch has no nvcc "
                f"(CUDA_HOME is None), so setup.py stops before it builds anything; call it only when not "
                f"{hip_test(ctx.text, start) or 'torch.version.hip'} (and give what it computes a ROCm value)",
                2, 0.25, {"stop": callee})
        for start, end, callee in probe_stops(ctx.text):
            yield stops_on_rocm(
                start, end,
                f"{callee}() looks for nvcc (the CUDA toolkit) and setup.py raises or exits where it finds none, on "
                f"every run: a ROCm build of PyTorch has no nvcc, so setup.py stops before it builds anything; test "
                f"{hip_test(ctx.text, start) or 'torch.version.hip'} first (a ROCm build needs no CUDA toolkit)",
                2, 0.25, {"stop": callee})
        for start, end, name in missing_extension_classes(ctx.text):
            yield stops_on_rocm(
                start, end,
                f"torch.utils.cpp_extension has no {name} (PyTorch has CppExtension, CUDAExtension and SyclExtension): "
                "on a ROCm build of PyTorch CUDAExtension is the class that hipifies the sources, compiles them with "
                "hipcc and links the HIP libraries; a fallback to CppExtension builds none of that",
                2, 0.25, {"missing": name})
        for start, end, use in cuda_version_stops(ctx.text):
            yield stops_on_rocm(
                start, end,
                f"{use} runs on every run of setup.py, and torch.version.cuda is None on a ROCm build of PyTorch: "
                f"setup.py stops there before it builds anything; use it only when not "
                f"{hip_test(ctx.text, start) or 'torch.version.hip'} (or fall back to torch.version.hip)",
                1, 0.1, {"stop": use})
        gates = [(s, e, "CUDA_HOME" if g != BAILOUT and ctx.text[s:e].startswith("CUDA_HOME") else g)
                 for s, e, g in _cuda_home_gates(ctx.text)]
        gates += [(s, e, "torch.version.cuda") for s, e in cuda_version_gates(ctx.text)]
        for start, end, gate in sorted(set(gates)):
            fix = None
            expr = ctx.text[start:end]
            test = hip_test(ctx.text, start)
            if test is not None:
                new = f"({expr} and not {test})" if gate == BAILOUT else f"({expr} or {test})"
                fix = Fix((ctx.edit(start, end, new),), Applicability.UNSAFE,
                          f"build the extension on ROCm builds of PyTorch too ({test})", ("build",))
            why = ("a ROCm build of PyTorch has no nvcc (CUDA_HOME is None)" if gate in ("CUDA_HOME", BAILOUT) else
                   "torch.version.cuda is None on a ROCm build of PyTorch" if gate == "torch.version.cuda" else
                   "it looks for nvcc, which a ROCm build of PyTorch does not have")
            joined = f"and not {test or 'torch.version.hip'}" if gate == BAILOUT else f"or {test or 'torch.version.hip'}"
            yield self.finding(
                ctx, start, end,
                f"{expr} decides whether the CUDA extension is built; {why}, so the extension is left out "
                f"there: test `{expr} {joined}`",
                per_family(ctx, rocm=AUTO if fix else MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.1),
                fix=fix,
                severity=Severity.MEDIUM,
                data={"gate": gate},
            )


#: A C++ standard older than the C++17 PyTorch's headers require (``-std=c++14``, ``-std=gnu++11``, ``-std=c++0x``).
_OLD_STD = re.compile(r"-std=(?:c|gnu)\+\+(?:98|03|0x|11|1y|14)")


def _reaches(flag: str, rocm_flags) -> bool:
    """Whether the flag written ``flag`` (its first word, quotes, string prefixes and commas stripped) is among
    ``rocm_flags`` (torchcompactradius 0.5.5's ``f'-extended-lambda'``: an f-string)."""
    flag = re.sub(r"(?<![\w-])[rRfFbBuU]{1,2}(?=[\"'])", "", flag)
    words = flag.replace('"', " ").replace("'", " ").replace(",", " ").split()
    return bool(words) and any(x == words[0] or x.startswith(words[0] + "=") for x in rocm_flags)


def _cuda_home_gates(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, gate)`` of the tests that decide whether the CUDA extension is built by looking for
    nvcc, where the same expression does not test a ROCm build already (``torch.version.hip``,
    ``IS_HIP_EXTENSION``, ``ROCM_HOME``):

    - gate ``CUDA_HOME``: a ``CUDA_HOME is not None`` comparison in the value of an assignment, or in the
      test of an ``if`` whose body makes a ``CUDAExtension`` (also ``extension = CUDAExtension``);
    - gate ``nvcc``: in such an ``if`` test, a call of ``shutil.which("nvcc")`` or of a function of the file
      whose body names ``"nvcc"`` in a string (torchsort 0.1.10's ``cuda_toolkit_available()`` runs
      ``call(["nvcc"])`` and builds the CUDA extension only where that works).
    """
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def off(line: int, col: int) -> int:
        return starts[line - 1] + col

    def src(node: ast.AST) -> str:
        return text[off(node.lineno, node.col_offset):off(node.end_lineno, node.end_col_offset)]

    def names_nvcc(node: ast.AST) -> bool:
        # "nvcc" as a dict key or subscript (extra_compile_args["nvcc"]) names the compiler's flags, not a probe.
        keys = {id(k) for n in ast.walk(node) if isinstance(n, ast.Dict) for k in n.keys if k is not None}
        keys |= {id(n.slice) for n in ast.walk(node) if isinstance(n, ast.Subscript)}
        return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in keys
                   and NVCC_WORD.search(n.value) for n in ast.walk(node))

    probes = {n.name for n in ast.walk(tree)
              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and names_nvcc(n)}
    gates: list[tuple[int, int, str]] = []
    rocm_names = _rocm_test_names(tree, src)

    def asks_rocm(expr: ast.AST) -> bool:
        # A test of a ROCm build itself, or of a name the file assigns from one (detectron2 02b5c4e:
        # `(CUDA_HOME is not None) or is_rocm_pytorch`, is_rocm_pytorch = torch.version.hip is not None and …).
        text = src(expr)
        return bool(HIP_TEST.search(text) or "ROCM_HOME" in text
                    or any(isinstance(n, ast.Name) and n.id in rocm_names for n in ast.walk(expr)))

    def collect(expr: ast.AST, in_if: bool) -> None:
        if asks_rocm(expr):
            return
        for node in ast.walk(expr):
            if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "CUDA_HOME"
                    and len(node.ops) == 1 and isinstance(node.ops[0], ast.IsNot)
                    and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None
                    and node.lineno == node.end_lineno):
                gates.append((off(node.lineno, node.col_offset), off(node.end_lineno, node.end_col_offset), "CUDA_HOME"))
            elif (in_if and isinstance(node, ast.Call) and node.lineno == node.end_lineno
                  and ((isinstance(node.func, ast.Name) and node.func.id in probes)
                       or (_call_tail(node.func) == "which" and names_nvcc(node)))):
                gates.append((off(node.lineno, node.col_offset), off(node.end_lineno, node.end_col_offset), "nvcc"))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            collect(node.value, False)
        elif isinstance(node, ast.If) and re.search(r"\bCUDAExtension\b", "\n".join(src(b) for b in node.body)):
            collect(node.test, True)
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and re.search(r"\bCUDAExtension\b", src(fn)):
            for stmt in _probe_bailouts(fn, probes, names_nvcc):
                if not asks_rocm(stmt.value):
                    collect(stmt.value, True)
            for node in _cuda_home_bailouts(fn):
                if node.lineno == node.end_lineno:
                    gates.append((off(node.lineno, node.col_offset), off(node.end_lineno, node.end_col_offset),
                                  BAILOUT))
    return sorted(set(gates))


#: The gate of a ``CUDA_HOME is None`` test that makes a function give up building the extension.
BAILOUT = "CUDA_HOME is None"


def _cuda_home_bailouts(fn: ast.AST) -> list[ast.Compare]:
    """The ``X is None`` comparisons, ``X`` being ``CUDA_HOME`` or a name ``fn`` assigns from it alone
    (``cuda_home = CUDA_HOME``), in the test of an ``if`` of ``fn`` (a function that makes a ``CUDAExtension``)
    whose body returns or raises, where the test does not ask for a ROCm build: the function gives up when
    there is no nvcc, which is always on a ROCm build of PyTorch (qgemm 0.0.2's ``build_extensions``:
    ``cuda_home = CUDA_HOME`` … ``if not torch_available or (cuda_home is None): return []``)."""
    def is_cuda_home(v: ast.AST) -> bool:
        return (isinstance(v, ast.Name) and v.id == "CUDA_HOME"
                or isinstance(v, ast.Attribute) and v.attr == "CUDA_HOME")

    names = {"CUDA_HOME"}
    for a in ast.walk(fn):
        if isinstance(a, ast.Assign) and is_cuda_home(a.value):
            names.update(t.id for t in a.targets if isinstance(t, ast.Name))
    out = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.If) and any(isinstance(b, (ast.Return, ast.Raise)) for b in node.body)):
            continue
        if HIP_TEST.search(ast.unparse(node.test)) or "ROCM_HOME" in ast.unparse(node.test):
            continue
        for n in ast.walk(node.test):
            if (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Is)
                    and isinstance(n.left, ast.Name) and n.left.id in names
                    and isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value is None):
                out.append(n)
    return out


def _probe_bailouts(fn: ast.AST, probes: set[str], names_nvcc) -> list[ast.Assign]:
    """The assignments in ``fn`` (a function that makes a ``CUDAExtension``) of a name from an nvcc probe
    (``shutil.which("nvcc")``, a function of the file that runs nvcc) that an ``if`` of ``fn`` tests before it
    returns or raises: the function gives up when nvcc is not found (stainx 0.1.6's
    ``CUDAExtensionBuilder.build``: ``nvcc_path = shutil.which("nvcc")`` … ``if not nvcc_path: return []``)."""
    assigns = {}
    for a in ast.walk(fn):
        if (isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
                and isinstance(a.value, ast.Call) and a.value.lineno == a.value.end_lineno
                and ((isinstance(a.value.func, ast.Name) and a.value.func.id in probes)
                     or (_call_tail(a.value.func) == "which" and names_nvcc(a.value)))):
            assigns.setdefault(a.targets[0].id, a)
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and any(isinstance(b, (ast.Return, ast.Raise)) for b in node.body):
            for n in ast.walk(node.test):
                if isinstance(n, ast.Name) and n.id in assigns and assigns[n.id] not in out:
                    out.append(assigns[n.id])
    return out


def _rocm_test_names(tree: ast.AST, src) -> set[str]:
    """The names a setup.py assigns from a test of a ROCm build (``torch.version.hip``, ``IS_HIP_EXTENSION``,
    ``ROCM_HOME``), directly or through another such name, anywhere in the file."""
    assigns = [(t.id, n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
               for t in n.targets if isinstance(t, ast.Name)]
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in assigns:
            if name in names:
                continue
            text = src(value)
            if (HIP_TEST.search(text) or "ROCM_HOME" in text
                    or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value))):
                names.add(name)
                changed = True
    return names


def _call_tail(func: ast.AST) -> str:
    """The last name of a call's callee (``shutil.which`` → ``which``), or ""."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


