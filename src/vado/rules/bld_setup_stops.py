"""Calls at a setup.py's top level that stop it on a ROCm build of PyTorch (part of BLD005).

A ROCm build of PyTorch has no nvcc: ``torch.utils.cpp_extension.CUDA_HOME`` is None there. apex's
setup.py helpers, copied into many extensions (rotary-emb 0.5.2, flash-attn's forks), call
``raise_if_cuda_home_none(...)`` (raises ``RuntimeError`` when ``CUDA_HOME`` is None) and
``get_cuda_bare_metal_version(CUDA_HOME)`` (runs ``CUDA_HOME + "/bin/nvcc" -V``: a ``TypeError`` with None)
on every run of the file, not only where a CUDA build is asked for. Such a setup.py builds nothing on
ROCm whatever its sources are; a port that says "nothing remains" over it is wrong.

:func:`toolkit_stops` finds them: a call, in a statement that runs whenever the file does (module level,
also inside ``if``/``for``/``with``/``try`` blocks, not in a function or class body, not in a branch whose
test names ``CUDA_HOME`` or asks for a ROCm build), of a function of the file that names ``nvcc`` in a
string or raises under a test of ``CUDA_HOME``, or that calls such a function (followed through the file's
own functions).

``torch.version.cuda`` is None on a ROCm build too: :func:`cuda_version_stops` finds the top-level uses of it as a
string (``torch.version.cuda.replace(...)``: AttributeError), :func:`cuda_version_gates` the tests of it that decide
whether the ``CUDAExtension`` is built (``WITH_CUDA = torch.version.cuda is not None and ...``: left out on ROCm).
"""

from __future__ import annotations

import ast
import re

#: ``nvcc`` as a word of a string (``"nvcc"``, ``"/bin/nvcc"``, ``"nvcc -V"``), not ``NVCC_FLAGS``.
NVCC_WORD = re.compile(r"(?<![\w-])nvcc(?![\w-])")
#: A test that asks for a ROCm build (``torch.version.hip``, ``IS_HIP_EXTENSION``, ``ROCM_HOME``, ``HIP_BUILD``).
_ROCM_TEST = re.compile(r"(?:\b|_)(?:hip|rocm)(?:\b|_)", re.I)


def _callee(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else ""


def _cleared(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``fn`` asks for a ROCm build itself or builds the extension list: what it runs then is its own
    choice per platform (a ``CUDA_HOME`` test in it is a gate, which BLD005 fixes), not a stop."""
    if any(_ROCM_TEST.search(ast.unparse(n.test)) for n in ast.walk(fn) if isinstance(n, (ast.If, ast.IfExp))):
        return True
    return any(isinstance(n, ast.Name) and n.id == "CUDAExtension" or isinstance(n, ast.Attribute) and n.attr == "CUDAExtension"
               for n in ast.walk(fn))


def _needs_toolkit(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """Why ``fn`` itself fails without the CUDA toolkit ("" where it does not): it raises and tests
    ``CUDA_HOME`` (apex's ``raise_if_cuda_home_none``: ``if CUDA_HOME is not None: return`` then ``raise``),
    or runs nvcc: names it in a string that is no ``extra_compile_args`` key, no message (raised, warned,
    printed) and not in a ``try`` that catches (torchsort's ``try: call(["nvcc"]) except ...`` stops nothing).
    A test that asks for a ROCm build in ``fn`` clears it, and so does a ``CUDAExtension`` in it (chamferdist's
    ``get_extensions``: the raise in the else of its ``CUDA_HOME`` gate is the gate's, which BLD005 fixes)."""
    if _cleared(fn):
        return ""
    if (any(isinstance(n, ast.Raise) for n in ast.walk(fn))
            and any(isinstance(n, ast.Name) and n.id == "CUDA_HOME" for n in ast.walk(fn))):
        return "raises when CUDA_HOME is None"
    skip = {id(k) for n in ast.walk(fn) if isinstance(n, ast.Dict) for k in n.keys if k is not None}
    # A string that stands as a statement (a docstring: pytorch3d's get_existing_ccbin, "Given a list of nvcc
    # arguments ...") runs nothing.
    skip |= {id(n.value) for n in ast.walk(fn) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    skip |= {id(n.slice) for n in ast.walk(fn) if isinstance(n, ast.Subscript)}
    skip |= {id(m) for n in ast.walk(fn) if isinstance(n, ast.Try) and n.handlers for s in n.body for m in ast.walk(s)}
    messages = [n for n in ast.walk(fn) if isinstance(n, ast.Raise)
                or (isinstance(n, ast.Call) and (isinstance(n.func, ast.Name) and n.func.id == "print"
                                                 or isinstance(n.func, ast.Attribute) and n.func.attr in _MESSAGES))]
    skip |= {id(m) for n in messages for m in ast.walk(n)}
    if any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip and NVCC_WORD.search(n.value)
           for n in ast.walk(fn)):
        return "runs nvcc"
    return ""


#: Calls whose strings are messages (``warnings.warn``, ``logger.warning``, ...), not commands.
_MESSAGES = frozenset({"warn", "warning", "info", "debug", "error", "write"})


def _functions(tree: ast.Module) -> dict[str, str]:
    """The file's functions that fail without the CUDA toolkit, by name → why (a function calling one of
    them fails as it does: followed to a fixpoint)."""
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    bad = {name: why for name, fn in defs.items() if (why := _needs_toolkit(fn))}
    changed = True
    while changed:
        changed = False
        for name, fn in defs.items():
            if name in bad or _cleared(fn):
                continue  # a function that tells the builds apart calls the others where it chooses to
            for n in ast.walk(fn):
                if isinstance(n, ast.Call) and _callee(n) in bad:
                    bad[name] = bad[_callee(n)]
                    changed = True
                    break
    return bad


def _env_opt_in(test: ast.AST, opt_ins: frozenset[str]) -> bool:
    """Whether ``test`` holds only where the user set an environment variable: ``os.getenv("X", "0") == "1"``,
    ``os.environ.get("X")``, or a module-level name bound to one (torch-ans 0.4.0's ``WITH_STABLE_ABI``)."""
    if isinstance(test, ast.Name):
        return test.id in opt_ins
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_env_opt_in(v, opt_ins) for v in test.values)
    call = test.left if isinstance(test, ast.Compare) else test
    if not (isinstance(call, ast.Call) and ast.unparse(call.func) in ("os.getenv", "os.environ.get", "getenv")):
        return False
    default = call.args[1] if len(call.args) > 1 else None
    if isinstance(test, ast.Call):  # os.getenv("X"): None, or the default's truth
        return default is None or (isinstance(default, ast.Constant) and not default.value)
    if (len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant)
            and isinstance(default, ast.Constant)):
        return default.value != test.comparators[0].value  # == "1" with the default "0"
    return False


def _opt_in_names(tree: ast.Module) -> frozenset[str]:
    """Module-level names bound to an environment opt-in (see :func:`_env_opt_in`)."""
    return frozenset(t.id for n in tree.body if isinstance(n, ast.Assign) and _env_opt_in(n.value, frozenset())
                     for t in n.targets if isinstance(t, ast.Name))


def _always_run(body: list[ast.stmt], opt_ins: frozenset[str] = frozenset(), *, ifs: bool = False):
    """The statements of ``body`` that run whenever the file does, blocks entered; a function or class body
    is not entered, nor an ``if`` whose test names ``CUDA_HOME`` or a ROCm build (either branch may be
    the one a ROCm build skips), nor the body of an ``if`` that holds only where the user set an environment
    variable (its ``else`` is what runs by default). ``ifs``: each ``if`` entered is given too, before its
    branches."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            if "CUDA_HOME" in test or _ROCM_TEST.search(test):
                continue
            if _env_opt_in(stmt.test, opt_ins):
                yield from _always_run(stmt.orelse, opt_ins, ifs=ifs)
                continue
            if ifs:
                yield stmt
            # the test itself is a gate (BLD005's _cuda_home_gates), not a stop
            yield from _always_run(stmt.body, opt_ins, ifs=ifs)
            yield from _always_run(stmt.orelse, opt_ins, ifs=ifs)
            continue
        if isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
            for field in ("iter", "test"):
                if getattr(stmt, field, None) is not None:
                    yield getattr(stmt, field)
            for item in getattr(stmt, "items", []):
                yield item
            for field in ("body", "orelse", "finalbody"):
                yield from _always_run(getattr(stmt, field, []), opt_ins, ifs=ifs)
            for handler in getattr(stmt, "handlers", []):
                yield from _always_run(handler.body, opt_ins, ifs=ifs)
            continue
        yield stmt


def _nvcc_probes(tree: ast.Module) -> set[str]:
    """The file's functions that look for nvcc: name it in a string that is no dict key, subscript or message
    (``subprocess.check_output(["nvcc", "--version"])``, caught or not), or call ``shutil.which("nvcc")``, or call
    such a function (followed to a fixpoint); a function that asks for a ROCm build or makes the extension list
    is no probe (:func:`_cleared`)."""
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def names_nvcc(fn: ast.AST) -> bool:
        skip = {id(k) for n in ast.walk(fn) if isinstance(n, ast.Dict) for k in n.keys if k is not None}
        skip |= {id(n.slice) for n in ast.walk(fn) if isinstance(n, ast.Subscript)}
        skip |= {id(m) for n in ast.walk(fn) if isinstance(n, ast.Raise)
                 or isinstance(n, ast.Call) and (isinstance(n.func, ast.Name) and n.func.id == "print"
                                                 or isinstance(n.func, ast.Attribute) and n.func.attr in _MESSAGES)
                 for m in ast.walk(n)}
        skip |= {id(n.value) for n in ast.walk(fn) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip
                   and NVCC_WORD.search(n.value) for n in ast.walk(fn))

    probes = {name for name, fn in defs.items() if not _cleared(fn) and names_nvcc(fn)}
    changed = True
    while changed:
        changed = False
        for name, fn in defs.items():
            if name not in probes and not _cleared(fn) and any(
                    isinstance(n, ast.Call) and _callee(n) in probes for n in ast.walk(fn)):
                probes.add(name)
                changed = True
    return probes


def _stops(body: list[ast.stmt]) -> bool:
    """Whether ``body`` (an ``if``'s) raises or exits at its own level."""
    for stmt in body:
        if isinstance(stmt, ast.Raise):
            return True
        if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                and ast.unparse(stmt.value.func) in ("sys.exit", "exit", "quit", "os._exit")):
            return True
    return False


def _always_run_ifs(body: list[ast.stmt], opt_ins: frozenset[str]):
    """The ``if`` statements among those :func:`_always_run` walks through (tests of ``CUDA_HOME`` or of a ROCm
    build and environment opt-ins left out as there)."""
    return (n for n in _always_run(body, opt_ins, ifs=True) if isinstance(n, ast.If))


def probe_stops(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, callee)`` of each nvcc probe called in the test of an ``if`` that runs whenever the setup.py
    ``text`` does and raises or exits: fussim 0.3.1's ``if not check_cuda_available(): raise RuntimeError("CUDA is
    required ...")`` (the probe runs ``nvcc --version`` in a ``try`` and looks for a CUDA_HOME), which stops the file
    on a ROCm build of PyTorch, where there is no nvcc. [] where the file does not parse."""
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    probes = _nvcc_probes(tree)
    if not probes:
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for node in _always_run_ifs(tree.body, _opt_in_names(tree)):
        if not _stops(node.body):
            continue
        for n in ast.walk(node.test):
            if isinstance(n, ast.Call) and _callee(n) in probes:
                out.append((starts[n.lineno - 1] + n.col_offset, starts[n.end_lineno - 1] + n.end_col_offset, _callee(n)))
    return sorted(set(out))


def toolkit_stops(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, callee, why)`` of each call at the top level of the setup.py ``text`` that stops it where
    the CUDA toolkit is missing (see the module); [] where the file does not parse or tests for a ROCm
    build around them."""
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    bad = _functions(tree)
    if not bad:
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for node in _always_run(tree.body, _opt_in_names(tree)):
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and _callee(n) in bad:
                start = starts[n.lineno - 1] + n.col_offset
                end = starts[n.end_lineno - 1] + n.end_col_offset
                out.append((start, end, _callee(n), bad[_callee(n)]))
    return sorted(set(out))


def _is_cuda_version(node: ast.AST) -> bool:
    """``torch.version.cuda`` (None on a ROCm build of PyTorch)."""
    return (isinstance(node, ast.Attribute) and node.attr == "cuda" and isinstance(node.value, ast.Attribute)
            and node.value.attr == "version" and isinstance(node.value.value, ast.Name) and node.value.value.id == "torch")


#: Calls that fail on None (``float(None)``: TypeError; ``packaging.version.parse(None)``: TypeError).
_NUMBER_CALLS = frozenset({"float", "int", "parse", "Version", "LooseVersion", "StrictVersion"})


def _tests_cuda_version(node: ast.AST) -> bool:
    """Whether ``node`` (a statement) tests ``torch.version.cuda`` itself somewhere (``x if torch.version.cuda
    else ""``, ``torch.version.cuda and ...``, ``if torch.version.cuda is not None:``): its uses are guarded."""
    for n in ast.walk(node):
        tests = []
        if isinstance(n, (ast.If, ast.IfExp, ast.While)):
            tests = [n.test]
        elif isinstance(n, ast.BoolOp):
            tests = n.values[:-1]
        elif isinstance(n, ast.Assert):
            tests = [n.test]
        if any(_is_cuda_version(m) for t in tests for m in ast.walk(t)):
            return True
    return False


def cuda_version_stops(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, use)`` of each use of ``torch.version.cuda`` as a string (a method of it, an item of it,
    ``float()``/``int()``/``version.parse()`` of it) in a statement that runs whenever setup.py does (see
    :func:`_always_run`) and does not test ``torch.version.cuda`` itself: on a ROCm build of PyTorch
    ``torch.version.cuda`` is None, so setup.py stops there (ramnet-ops 0.1.0rc2's top level computes
    ``torch.version.cuda.replace('.', '')`` for its wheel's build tag: AttributeError before anything is built)."""
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    if "version.cuda" not in text:
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for stmt in _always_run(tree.body, _opt_in_names(tree)):
        if _tests_cuda_version(stmt):
            continue
        for n in ast.walk(stmt):
            use = None
            if isinstance(n, ast.Attribute) and _is_cuda_version(n.value):
                use = f"torch.version.cuda.{n.attr}"
            elif isinstance(n, ast.Subscript) and _is_cuda_version(n.value):
                use = "torch.version.cuda[...]"
            elif (isinstance(n, ast.Call) and n.args and _is_cuda_version(n.args[0])
                  and (n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")) in _NUMBER_CALLS):
                use = f"{ast.unparse(n.func)}(torch.version.cuda)"
            if use is not None:
                out.append((starts[n.lineno - 1] + n.col_offset, starts[n.end_lineno - 1] + n.end_col_offset, use))
    return sorted(set(out))


def _gate_names(tree: ast.Module) -> set[str]:
    """Names whose value decides whether a ``CUDAExtension`` is built: those in the test of an ``if`` or a
    conditional expression one of whose branches names ``CUDAExtension``, and, followed back through
    assignments, the names their values are computed from (dbscan-torch 0.2.0: ``_torch_has_cuda`` →
    ``WITH_CUDA`` → ``ExtCls = CUDAExtension if WITH_CUDA else CppExtension``)."""
    def names_ext(nodes) -> bool:
        return any(isinstance(m, ast.Name) and m.id == "CUDAExtension" or isinstance(m, ast.Attribute)
                   and m.attr == "CUDAExtension" for n in nodes for m in ast.walk(n))

    gate: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and names_ext(n.body + n.orelse) or isinstance(n, ast.IfExp) and names_ext([n.body, n.orelse]):
            gate.update(m.id for m in ast.walk(n.test) if isinstance(m, ast.Name))
    assigns = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)]
    variables = {t.id for a in assigns for t in a.targets if isinstance(t, ast.Name)}  # not torch, os, ...
    gate &= variables
    changed = True
    while changed:
        changed = False
        for a in assigns:
            if any(isinstance(t, ast.Name) and t.id in gate for t in a.targets):
                new = {m.id for m in ast.walk(a.value) if isinstance(m, ast.Name)} & variables - gate
                if new:
                    gate |= new
                    changed = True
    return gate


def cuda_version_gates(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each ``torch.version.cuda is not None`` (or ``!= None``, or ``torch.version.cuda`` as an
    operand of ``and``/``or``) that decides whether the CUDA extension is built (:func:`_gate_names`), where the
    same expression does not ask for a ROCm build already: on a ROCm build of PyTorch ``torch.version.cuda`` is
    None, so the extension is silently left out there."""
    if "version.cuda" not in text:
        return []
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    gate = _gate_names(tree)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    exprs = [a.value for a in ast.walk(tree) if isinstance(a, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id in gate for t in a.targets)]
    exprs += [n.test for n in ast.walk(tree) if isinstance(n, (ast.If, ast.IfExp))
              and any(isinstance(m, ast.Name) and m.id in gate for m in ast.walk(n.test))]

    def names_ext(node: ast.If) -> bool:
        return any(isinstance(m, ast.Name) and m.id == "CUDAExtension" for b in node.body for m in ast.walk(b))

    exprs += [n.test for n in ast.walk(tree) if isinstance(n, ast.If) and names_ext(n)]
    out = set()
    for e in exprs:
        if _ROCM_TEST.search(ast.unparse(e)):
            continue
        if _is_cuda_version(e) and e.lineno == e.end_lineno:  # if torch.version.cuda:
            out.add((starts[e.lineno - 1] + e.col_offset, starts[e.end_lineno - 1] + e.end_col_offset))
        for n in ast.walk(e):
            hit = None
            if (isinstance(n, ast.Compare) and _is_cuda_version(n.left) and len(n.ops) == 1
                    and isinstance(n.ops[0], (ast.IsNot, ast.NotEq)) and isinstance(n.comparators[0], ast.Constant)
                    and n.comparators[0].value is None):
                hit = n
            elif isinstance(n, ast.BoolOp):
                hit = next((v for v in n.values if _is_cuda_version(v)), None)
            if hit is not None and hit.lineno == hit.end_lineno:
                out.add((starts[hit.lineno - 1] + hit.col_offset, starts[hit.end_lineno - 1] + hit.end_col_offset))
    return sorted(out)


#: Extension classes some setup.py files import from ``torch.utils.cpp_extension`` that PyTorch never had (torch
#: 2.13.0 has ``CppExtension``, ``CUDAExtension`` and ``SyclExtension``).
_NO_SUCH_EXTENSION = re.compile(r"^(?:ROCM|ROCm|Rocm|HIP|Hip)Extension$")


def missing_extension_classes(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of each name imported from ``torch.utils.cpp_extension`` that is a ROCm extension
    class PyTorch does not have (torch-ans 0.4.0: ``from torch.utils.cpp_extension import ROCMExtension`` in a
    ``try`` whose ``except ImportError`` falls back to ``CppExtension``: on ROCm its ``.cu`` sources are then
    neither hipified nor linked with the HIP libraries, which only ``CUDAExtension`` does)."""
    if "Extension" not in text:
        return []
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "torch.utils.cpp_extension":
            for alias in node.names:
                if _NO_SUCH_EXTENSION.match(alias.name):
                    line = text[starts[node.lineno - 1]:]
                    at = re.search(rf"\b{alias.name}\b", line)
                    if at is not None:
                        s = starts[node.lineno - 1] + at.start()
                        out.append((s, s + len(alias.name), alias.name))
    return sorted(out)
