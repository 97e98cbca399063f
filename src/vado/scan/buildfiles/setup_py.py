"""setup.py (``torch.utils.cpp_extension``): ``CUDAExtension``/``BuildExtension``/``cpp_extension.load`` calls,
the nvcc flags, libraries and architecture list they get, read with :mod:`ast` (never run); a file that does
not parse is read by pattern (:func:`parse_setup_py_build`)."""

from __future__ import annotations

import ast
import re

from vado.scan.buildfiles.facts import BuildFact, BuildFacts, FactKind, dedupe, with_text
from vado.scan.buildfiles.nvcc_flags import CUDA_LIBRARIES, arch_numbers, flag_facts
from vado.scan.pydeps import Problem, call_name, node_span, parse_python, source_bytes_offsets, string_content_span


_EXT_CALLS = {"CUDAExtension", "BuildExtension", "load", "load_inline", "CppExtension"}


def parse_setup_py_build(text: str, path: str = "setup.py") -> BuildFacts:
    """``CUDAExtension``/``BuildExtension``/``cpp_extension.load`` uses and their nvcc flags.

    Flags come from ``extra_compile_args={"nvcc": [...]}`` and
    ``extra_cuda_cflags=[...]`` literals (module-level names are followed).
    """
    tree = parse_python(text)
    if isinstance(tree, SyntaxError):
        facts = _setup_by_pattern(text)
        line = tree.lineno or 0
        starts = source_bytes_offsets(text)
        at = starts[line - 1] if 0 < line <= len(starts) else 0
        return BuildFacts(path, tuple(with_text(text, facts)),
                          (Problem(at, at, f"setup.py does not parse ({tree.msg}, line {line}); read by pattern"),))
    starts = source_bytes_offsets(text)
    names = _setup_names(tree)
    imported_from_cpp_ext = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("torch.utils.cpp_extension"):
            imported_from_cpp_ext.update(a.asname or a.name for a in node.names)
    # Extension = CppExtension if suffix == "cpu" else CUDAExtension; Extension(...) (torch_scatter, torch_cluster)
    aliases = {n for n, vals in names.items() for v in vals if not isinstance(v, _NvccItem)
               and any(isinstance(x, ast.Name) and x.id == "CUDAExtension" for x in ast.walk(v))}
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    facts: list[BuildFact] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            full = call_name(node.func)
            if not full and _picks_cuda_extension(node.func):
                full = "CUDAExtension"  # (CUDAExtension if with_cuda else CppExtension)(...): torch-ms-deform-attn 0.1.1
            short = full.rsplit(".", 1)[-1]
            if short in aliases and short not in _EXT_CALLS:
                short = "CUDAExtension"
            if short not in _EXT_CALLS:
                continue
            if short in ("load", "load_inline") and "cpp_extension" not in full and (
                    short not in imported_from_cpp_ext or full != short):  # json.load(f): not cpp_extension's
                continue
            sp = node_span(node.func, starts)
            if sp is None:
                continue
            # A CppExtension compiles no CUDA: only its nvcc flags (none) could matter.
            if short != "CppExtension":
                facts.append(BuildFact(FactKind.CUDA_EXTENSION, sp[0], sp[1], "", short, {"call": full}))
            for kw in _keywords(node, names, defs):
                if kw.arg == "extra_compile_args":
                    values = names.get(kw.value.id, [kw.value]) if isinstance(kw.value, ast.Name) else [kw.value]
                    for value in values:
                        if isinstance(value, ast.Dict):
                            for k, v in zip(value.keys, value.values):
                                if isinstance(k, ast.Constant) and k.value == "nvcc":
                                    facts += _py_flag_facts(text, v, names, starts, short)
                        elif isinstance(value, _NvccItem):  # extra_compile_args["nvcc"] = flags
                            facts += _py_flag_facts(text, value.node, names, starts, short)
                        elif isinstance(value, (ast.List, ast.BinOp)) and short != "CppExtension":
                            # A list is every compiler's: cpp_extension gives it to nvcc (hipcc on ROCm)
                            # too (pytorch-fast-transformers 0.4.0: extra_compile_args=["-arch=compute_50"]).
                            facts += _py_flag_facts(text, value, names, starts, short)
                elif kw.arg in ("extra_cuda_cflags",):
                    facts += _py_flag_facts(text, kw.value, names, starts, short)
                elif kw.arg in ("extra_ldflags", "libraries", "extra_link_args"):  # stainx 0.1.6: extra_link_args=["-lcudart"]
                    for s, e, w in _py_words(text, kw.value, names, starts):
                        lib = w[2:] if w.startswith("-l") else w if kw.arg == "libraries" else ""
                        if lib in CUDA_LIBRARIES:
                            facts.append(BuildFact(FactKind.CUDA_LIBRARY, s, e, "", short,
                                                   {"library": lib, "form": "-l" if w.startswith("-l") else "name",
                                                    "source": "setup.py"}))
        elif isinstance(node, ast.Name) and node.id in ("CUDA_HOME", "CUDA_PATH"):
            sp = node_span(node, starts)
            if sp:
                facts.append(BuildFact(FactKind.CUDA_PATH, sp[0], sp[1], "", "setup.py",
                                       {"source": "setup.py", "form": "name"}))
    facts += _setup_arch_list_facts(text, tree, starts)
    facts = dedupe(facts)
    return BuildFacts(path, tuple(with_text(text, facts)), ())


def _keywords(call: ast.Call, names: dict, defs: dict) -> list[ast.keyword]:
    """``call``'s keywords, those of a ``**kwargs`` included: the keys of the dict it is bound to (``dict(...)``
    or ``{...}``), directly or as what a function of the file returns (torchani 2.9.0:
    ``CUDAExtension(**cuaev_kwargs)`` with ``cuaev_kwargs = cuaev_extension_kwargs(...)``, a function that
    returns ``dict(..., extra_compile_args={"nvcc": nvcc_args})``)."""
    out = [kw for kw in call.keywords if kw.arg is not None]
    for kw in call.keywords:
        if kw.arg is None:
            for d in _dicts(kw.value, names, defs, frozenset()):
                out += d
    return out


def _dicts(node: ast.AST, names: dict, defs: dict, seen: frozenset[str]) -> list[list[ast.keyword]]:
    """The keyword lists of the dicts ``node`` may be: a ``dict(k=v)`` call, a ``{"k": v}`` literal, a name
    bound to one, or a call of a function of the file whose ``return`` gives one (each name once)."""
    if isinstance(node, ast.Dict):
        return [[ast.keyword(arg=k.value, value=v) for k, v in zip(node.keys, node.values)
                 if isinstance(k, ast.Constant) and isinstance(k.value, str)]]
    if isinstance(node, ast.Name) and node.id not in seen:
        return [d for v in names.get(node.id, []) if not isinstance(v, _NvccItem)
                for d in _dicts(v, names, defs, seen | {node.id})]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "dict":
            return [[kw for kw in node.keywords if kw.arg is not None]]
        fn = defs.get(node.func.id)
        if fn is not None and fn.name not in seen:
            return [d for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None
                    for d in _dicts(r.value, names, defs, seen | {fn.name})]
    return []


def _setup_arch_list_facts(text: str, tree: ast.AST, starts: list[int]) -> list[BuildFact]:
    """``"TORCH_CUDA_ARCH_LIST"`` strings in setup.py (``os.environ["TORCH_CUDA_ARCH_LIST"] = "8.0;9.0"``,
    ``os.environ.setdefault(…)``, ``os.environ.get(…)``): the name's span, and the literal value set."""
    values: dict[int, tuple[str, int, int]] = {}
    for node in ast.walk(tree):
        value = None
        key = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            key, value = node.targets[0].slice, node.value
        elif isinstance(node, ast.Call) and call_name(node.func).endswith("setdefault") and len(node.args) == 2:
            key, value = node.args
        if isinstance(key, ast.Constant) and key.value == "TORCH_CUDA_ARCH_LIST" and isinstance(value, ast.Constant) \
                and isinstance(value.value, str):
            sp = node_span(value, starts)
            content = string_content_span(text, sp) if sp else None
            if content:
                values[id(key)] = (value.value, content[0], content[1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == "TORCH_CUDA_ARCH_LIST":
            sp = node_span(node, starts)
            content = string_content_span(text, sp) if sp else None
            if content is None:
                continue
            v = values.get(id(node))
            out.append(BuildFact(FactKind.CUDA_ARCH, content[0], content[1], "", "setup.py", {
                "variable": "TORCH_CUDA_ARCH_LIST", "values": [v] if v else [],
                "sm": arch_numbers(v[0]) if v else [], "command": "set" if v else "read",
            }))
    return out


class _NvccItem(ast.AST):
    """``X["nvcc"] = value`` on a name bound to ``extra_compile_args``: stands for the dict's nvcc entry."""

    _fields = ("node",)


def _picks_cuda_extension(func: ast.AST) -> bool:
    """Whether a call's callee is a conditional expression one of whose branches is ``CUDAExtension``
    (``(CUDAExtension if with_cuda else CppExtension)(...)``): the build makes a CUDA extension where that
    branch is taken."""
    return isinstance(func, ast.IfExp) and any(call_name(b).rsplit(".", 1)[-1] == "CUDAExtension"
                                               for b in (func.body, func.orelse))


def _setup_names(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """What each name of a setup.py is bound to or grown by, in source order.

    ``X = v`` and ``X += v`` give ``v``; ``X.append(a)``/``X.insert(i, a)`` a one-item list;
    ``X.extend(v)`` gives ``v``; ``X["nvcc"] = v`` an :class:`_NvccItem` (the way
    torch_scatter fills ``extra_compile_args``). Flags appended in any branch reach the list.
    """
    names: dict = {}
    for stmt in ast.walk(tree):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # What a function or method of the file returns, under ("return", name): a flag list built by a
            # method (stainx 0.1.6's get_architecture_flags) reaches the extension that takes its result.
            names.setdefault(("return", stmt.name), []).extend(
                r.value for r in ast.walk(stmt) if isinstance(r, ast.Return) and r.value is not None)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            names.setdefault(stmt.target.id, []).append(stmt.value)  # BASE_FLAGS: ClassVar[list[str]] = [...]
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            t = stmt.targets[0]
            if isinstance(t, ast.Name):
                names.setdefault(t.id, []).append(stmt.value)
            elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                    and isinstance(t.slice, ast.Constant) and t.slice.value == "nvcc":
                names.setdefault(t.value.id, []).append(_NvccItem(node=stmt.value))
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name):
            names.setdefault(stmt.target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and isinstance(stmt.value.func.value, ast.Name):
            call, owner = stmt.value, stmt.value.func.value.id
            if call.func.attr == "append" and len(call.args) == 1:
                names.setdefault(owner, []).append(ast.List(elts=[call.args[0]], ctx=ast.Load()))
            elif call.func.attr == "insert" and len(call.args) == 2:
                names.setdefault(owner, []).append(ast.List(elts=[call.args[1]], ctx=ast.Load()))
            elif call.func.attr == "extend" and len(call.args) == 1:
                names.setdefault(owner, []).append(call.args[0])
    return names


def _py_words(text: str, node: ast.AST, names: dict, starts: list[int],
              _seen: frozenset[str] = frozenset()) -> list[tuple[int, int, str]]:
    """Words of string constants in a list expression, with spans (one list item may hold several flags).

    Names are followed through every binding and growth (:func:`_setup_names`), once each
    (``X = X + [...]`` does not loop); both arms of ``a if t else b`` count.
    """
    if isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                                       and node.value.id in ("self", "cls")):
        name = node.id if isinstance(node, ast.Name) else node.attr  # self.BASE_FLAGS: the class attribute
        if name not in names or name in _seen:
            return []
        seen = _seen | {name}
        return [w for v in names[name] if not isinstance(v, _NvccItem)
                for w in _py_words(text, v, names, starts, seen)]
    if isinstance(node, ast.Call):
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if callee == "copy" and not node.args and isinstance(node.func, ast.Attribute):  # flags.copy()
            return _py_words(text, node.func.value, names, starts, _seen)
        key = ("return", callee)
        if key in names and key not in _seen:  # what a function or method of the file returns
            returned = [w for v in names[key] for w in _py_words(text, v, names, starts, _seen | {key})]
            # and the list it is given, which it may return grown (flash-attention's append_nvcc_threads(x))
            given = _py_words(text, node.args[0], names, starts, _seen) if node.args else []
            return given + [w for w in returned if w not in given]
    items: list[ast.AST] = []
    if isinstance(node, (ast.List, ast.Tuple)):
        items = list(node.elts)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _py_words(text, node.left, names, starts, _seen) + _py_words(text, node.right, names, starts, _seen)
    elif isinstance(node, ast.IfExp):
        return _py_words(text, node.body, names, starts, _seen) + _py_words(text, node.orelse, names, starts, _seen)
    elif isinstance(node, ast.Call) and node.args:  # list(x), a helper that extends x: append_nvcc_threads(x)
        return _py_words(text, node.args[0], names, starts, _seen)
    elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        # [f"-gencode=arch=compute_{sm},code=sm_{sm}" for sm in sms] (torchani 2.9.0): one word per flag of
        # the element, each spanning the whole comprehension.
        return _formatted_words(node, node.elt, starts)
    out = []
    for it in items:
        if isinstance(it, ast.Starred):
            out += _py_words(text, it.value, names, starts, _seen)
            continue
        if isinstance(it, ast.JoinedStr):  # f"-arch=sm_{cc}"
            if out and out[-1][2].startswith("-") and _is_value_fstring(it):
                # the value of the option before it (stainx 0.1.6: "-gencode", f"arch={a},code={c}"): its content,
                # as a plain string's, so that the pair is two items of one list
                sp = node_span(it, starts)
                content = string_content_span(text, sp) if sp else None
                words = _formatted_words(it, it, starts, values=True)
                if content is not None and words:
                    out.append((content[0], content[1], words[0][2]))
                    continue
            out += _formatted_words(it, it, starts)
            continue
        if not (isinstance(it, ast.Constant) and isinstance(it.value, str)):
            continue
        sp = node_span(it, starts)
        content = string_content_span(text, sp) if sp else None
        if content is None:
            continue
        s, e = content
        for m in re.finditer(r"\S+", text[s:e]):
            out.append((s + m.start(), s + m.end(), m.group(0)))
    return out


def _is_value_fstring(node: ast.JoinedStr) -> bool:
    """Whether an f-string renders one word that is no flag (``f"arch=compute_{a},code=sm_{a}"``)."""
    rendered = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "0" for v in node.values)
    return len(rendered.split()) == 1 and not rendered.startswith("-")


def _formatted_words(node: ast.AST, elt: ast.AST, starts: list[int], values: bool = False) -> list[tuple[int, int, str]]:
    """The words of an f-string (or a string) ``elt`` with each replacement field read as ``0``
    (``-gencode=arch=compute_0,code=sm_0``: enough to tell the flag), each spanning ``node``. Only a flag
    (``-…``) unless ``values`` (the value of the option before it)."""
    if isinstance(elt, ast.JoinedStr):
        rendered = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "0"
                           for v in elt.values)
    elif isinstance(elt, ast.Constant) and isinstance(elt.value, str):
        rendered = elt.value
    else:
        return []
    sp = node_span(node, starts)
    if sp is None or not (values or rendered.startswith("-")):
        return []
    return [(sp[0], sp[1], w) for w in rendered.split()]


def _py_flag_facts(text: str, node: ast.AST, names: dict, starts: list[int], context: str) -> list[BuildFact]:
    out = []
    for f in flag_facts(_py_words(text, node, names, starts), context, "setup.py"):
        if f.kind is FactKind.CUDA_LIBRARY:
            continue
        head = text[f.start:f.start + 2]
        if head[:1] in "[(":  # a comprehension: its flags are made at run time
            f = BuildFact(f.kind, f.start, f.end, f.text, f.context, {**f.data, "formatted": "comprehension"})
        elif head[:1] in "fF" and head[1:2] in "\"'" or head.lower() in ("rf", "fr"):
            f = BuildFact(f.kind, f.start, f.end, f.text, f.context, {**f.data, "formatted": "f-string"})
        if "formatted" in f.data and "sm" in f.data:  # the numbers come at run time
            f = BuildFact(f.kind, f.start, f.end, f.text, f.context, {**f.data, "sm": [], "value": ""})
        out.append(f)
    return out


_EXT_PATTERN = re.compile(r"\b(CUDAExtension|load_inline|cpp_extension\.load)(?=\s*\()")
_NVCC_LIST = re.compile(r"""["']nvcc["']\s*:\s*\[([^\]]*)\]|extra_cuda_cflags\s*=\s*\[([^\]]*)\]""")


def _setup_by_pattern(text: str) -> list[BuildFact]:
    facts = []
    for m in _EXT_PATTERN.finditer(text):
        facts.append(BuildFact(FactKind.CUDA_EXTENSION, m.start(), m.end(), "", m.group(1), {"call": m.group(1)}))
    for m in _NVCC_LIST.finditer(text):
        g = 1 if m.group(1) is not None else 2
        base = m.start(g)
        words = []
        for sm in re.finditer(r"""(["'])(.*?)\1""", m.group(g)):
            s = base + sm.start(2)
            for w in re.finditer(r"\S+", sm.group(2)):
                words.append((s + w.start(), s + w.end(), w.group(0)))
        facts += [f for f in flag_facts(words, "setup.py", "setup.py") if f.kind is not FactKind.CUDA_LIBRARY]
    return dedupe(facts)
