"""How BLD005 rewrites the nvcc flags of a torch extension's setup.py for hipcc.

What each flag becomes for hipcc (:func:`hipcc_flag`); the test a setup.py can make for a ROCm build of
PyTorch where the flag is (:func:`hip_test`), and where ``import torch`` can be added when nothing is bound
there (:func:`torch_import_edit`); the branches only CUDA or only ROCm builds take (:func:`setup_shape`); and
the three fixes: keep the flag for CUDA builds and give hipcc its spelling (:func:`conditional_flag_fix`),
the same for flags built at run time (:func:`formatted_flag_fix`), or replace or drop it with its list item
(:func:`setup_flag_fix`).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

from vado.model import Applicability, Fix
from vado.rules.base import FileContext
from vado.rules.bld.common import fact_fix, nvcc_only_for_hipcc, xcompiler_flags
from vado.scan.buildfiles import BuildFact


#: What a flag of a torch extension's nvcc list becomes for hipcc ("" drops it; absent: no fix).
_SETUP_FLAG_FOR_HIPCC = {
    "fast-math": "-ffast-math", "lineinfo": "-gline-tables-only", "arch": "", "gencode": "", "expt": "",
    "xptxas": "", "xnvlink": "", "threads": "", "deprecated-targets": "", "ccbin": "", "cudart": "", "diag": "",
    # HIP has no register cap flag (__launch_bounds__ is the way); hipcc rejects nvcc's.
    "maxrregcount": "", "xcudafe": "", "nvcc-only": "",
}


def formatted_flag_fix(ctx: FileContext, f: BuildFact, test: str | None,
                       bind: tuple[int, str, str] | None) -> Fix | None:
    """Keep flags a setup.py builds at run time for CUDA builds only: a comprehension (torchani 2.9.0's
    ``nvcc_args.extend([f"-gencode=arch=compute_{sm},code=sm_{sm}" for sm in sms])``) becomes
    ``([] if TEST else [...])``, an f-string item of a list display ``*([] if TEST else [f"..."])``. Only flags
    hipcc has no spelling for (architectures, nvcc's own switches), and only where ``TEST`` can be bound."""
    if test is None or hipcc_flag(f.data["flag"], f.data.get("option", ""), f.data.get("value", "")) != "":
        return None
    text, start, end = ctx.text, f.start, f.end
    if f.data["formatted"] == "comprehension":
        if text[start] == "(":  # a generator: its parentheses may be a call's
            return None
        content = f"([] if {test} else {text[start:end]})"
    else:
        before = text[:start].rstrip()[-1:]
        after = text[end:].lstrip()[:1]
        if before not in ("[", ",") or after not in ("]", ",", "#"):
            return None  # not an item of a list display
        content = f"*([] if {test} else [{text[start:end]}])"
    edits = (ctx.edit(start, end, content),)
    if bind is not None:
        edits = (ctx.edit(bind[0], bind[0], bind[1]),) + edits
    return Fix(edits, Applicability.UNSAFE,
               f"{f.text!r} (built at run time) for CUDA builds only, nothing on ROCm ({test}"
               f"{f', torch imported {bind[2]}' if bind else ''})", ("build",))


def item_quotes(text: str, f: BuildFact) -> set[int]:
    """The offsets of the opening quotes of the two strings a flag fact spans (its first and its last word), or
    an empty set's complement stand-in ({-1}) where it does not start and end in quotes."""
    qs, qe = f.start - 1, f.end
    if qs < 0 or qe >= len(text) or text[qs] not in "\"'" or text[qe] != text[qs]:
        return {-1}
    last = text.rfind(text[qs], 0, qe)  # the value's opening quote
    return {qs, last}


def hipcc_flag(kind: str, option: str, value: str) -> str | None:
    """What an nvcc flag of a torch extension's list becomes for hipcc ("" drops it; None: no fix)."""
    if kind == "nvcc-only":
        return nvcc_only_for_hipcc(option, value)
    if kind == "cuda-half-undef":  # PyTorch's ROCm build defines the HIP names: undo those
        return "-U__HIP_NO_HALF_CONVERSIONS__" if option.endswith("CONVERSIONS__") else "-U__HIP_NO_HALF_OPERATORS__"
    if kind == "xcompiler":  # host flags through nvcc: hipcc is clang and takes them as they are
        return xcompiler_flags(value) if value and not any(q in value for q in "\"'") else None
    return _SETUP_FLAG_FOR_HIPCC.get(kind)


def hip_test(text: str, at: int | None = None) -> str | None:
    """The expression a setup.py can test for a ROCm build of PyTorch at offset ``at`` with the names bound
    there, or None.

    ``torch.version.hip`` where ``torch`` is imported, else ``IS_HIP_EXTENSION`` where it is imported so from
    ``torch.utils.cpp_extension`` (the two idioms maintained extensions use). An import at the module's level
    binds the name everywhere; one inside a function only in that function's body after it (gsplat 1.5.3 imports
    torch in ``get_extensions()``, where its flags are; torchani 2.9.0 in ``setup_kwargs()`` only, so
    ``torch.version.hip`` in ``cuaev_extension_kwargs()`` would be a NameError). Without ``at``: the module's
    level only.
    """
    scopes = _hip_scopes(text)
    if scopes is None:  # read by pattern: imports at column 0 only
        if re.search(r"^import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*torch[ \t]*(?:,|#|$)", text, re.M):
            return "torch.version.hip"
        if re.search(r"^from[ \t]+torch\.utils\.cpp_extension[ \t]+import[^\n]*\bIS_HIP_EXTENSION\b", text, re.M) or \
                re.search(r"^from[ \t]+torch\.utils\.cpp_extension[ \t]+import[ \t]*\([^)]*\bIS_HIP_EXTENSION\b", text, re.M):
            return "IS_HIP_EXTENSION"
        return None
    module, functions = scopes
    names = set(module)
    if at is not None:
        for start, end, imports, _, _ in functions:
            if start <= at < end:
                names.update(name for name, where in imports if where < at)
    if "torch" in names:
        return "torch.version.hip"
    return "IS_HIP_EXTENSION" if "IS_HIP_EXTENSION" in names else None


def torch_import_edit(text: str, at: int) -> tuple[int, str, str] | None:
    """Where a setup.py without ``torch`` bound at ``at`` can bind it: ``(offset, line, where)`` inserting
    ``import torch`` as the first statement of the innermost function that holds ``at`` (torchani 2.9.0 builds its
    nvcc flags in a helper that does not import torch), or outside functions after a ``from torch... import`` that
    runs before ``at`` (:func:`_after_torch_import`), so the flag fix can keep the CUDA flags for a CUDA build; None
    where there is no such place or setup.py does not parse."""
    scopes = _hip_scopes(text)
    if scopes is None:
        return None
    inner = None
    for start, end, _, body, indent in scopes[1]:
        if start <= at < end and body <= at and (inner is None or start >= inner[0]):
            inner = (start, body, indent)
    if inner is None:
        return _after_torch_import(text, at)
    return inner[1], " " * inner[2] + "import torch  # vado: the ROCm test of the flags below\n", "in the function"


def _after_torch_import(text: str, at: int) -> tuple[int, str, str] | None:
    """``(offset, line)`` inserting ``import torch`` right after the last ``from torch... import`` that runs before
    ``at`` outside any function, in a block that holds ``at`` (clic-inference-extensions 0.1.0 imports only
    ``from torch.utils.cpp_extension import ...`` at its top; fpscan 0.1.2 does so in a ``try:`` whose body builds
    the flags): torch is importable there, so ``torch.version.hip`` can choose the flags; None where there is none."""
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def off(line: int, col: int) -> int:
        return starts[line - 1] + col if line - 1 < len(starts) else len(text)

    best = None
    imported_under: set[str] = set()  # tests of earlier module-level ifs whose body imports from torch

    def torch_from(stmt) -> bool:
        return isinstance(stmt, ast.ImportFrom) and (stmt.module or "").split(".")[0] == "torch" and not stmt.level

    def walk(body: list) -> None:
        nonlocal best
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            s, e = off(stmt.lineno, stmt.col_offset), off(stmt.end_lineno, stmt.end_col_offset)
            if e > at:
                if s <= at:  # the statement holding the flag: its blocks may hold an import before it
                    for field in ("body", "orelse", "finalbody"):
                        walk(getattr(stmt, field, None) or [])
                    for handler in getattr(stmt, "handlers", None) or []:
                        walk(handler.body)
                    # fussim 0.3.1: `if not _building_sdist:` imports from torch, a later `if not _building_sdist:`
                    # builds the flags; the later block runs only where the import ran, so torch is importable at
                    # its top (the test is the same text; a name rebound between the two is not looked for)
                    if best is None and isinstance(stmt, ast.If) and stmt.body and ast.unparse(stmt.test) in imported_under \
                            and off(stmt.body[0].lineno, 0) <= at and stmt.body[0].lineno - 1 < len(starts):
                        best = (starts[stmt.body[0].lineno - 1], stmt.body[0].col_offset)
                return
            if torch_from(stmt) and stmt.end_lineno < len(starts):
                best = (starts[stmt.end_lineno], stmt.col_offset)
            if isinstance(stmt, ast.If) and any(torch_from(x) for x in stmt.body):
                imported_under.add(ast.unparse(stmt.test))

    walk(tree.body)
    if best is None or text[best[0] - 1:best[0]] != "\n":
        return None
    return best[0], " " * best[1] + "import torch  # vado: the ROCm test of the flags below\n", "after its torch import"


@functools.lru_cache(maxsize=16)
def _hip_scopes(text: str) -> tuple[frozenset[str], tuple[tuple[int, int, tuple[tuple[str, int], ...], int, int], ...]] | None:
    """The names ``hip_test`` looks for that setup.py imports: at the module's level, and per function
    (``(start, end, ((name, offset of its import), ...), start of its first statement's line, its indent)``,
    offsets in ``text``, the first statement after a docstring); None when it does not parse."""
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def off(line: int, col: int) -> int:
        return starts[min(line, len(starts)) - 1] + col

    def bound(stmt) -> list[str]:
        if isinstance(stmt, ast.Import):  # import torch.utils.cpp_extension binds torch too
            return ["torch" for a in stmt.names if a.name.split(".")[0] == "torch" and a.asname is None][:1]
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "torch.utils.cpp_extension":
            return [a.name for a in stmt.names if a.name == "IS_HIP_EXTENSION" and a.asname is None]
        return []

    functions: list[tuple[int, int, tuple[tuple[str, int], ...]]] = []

    def walk(body: list, found: list[tuple[str, int]]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                mine: list[tuple[str, int]] = []
                walk(stmt.body, mine)
                first = stmt.body[0]
                if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                        and isinstance(first.value.value, str) and len(stmt.body) > 1):
                    first = stmt.body[1]  # after the docstring
                functions.append((off(stmt.lineno, stmt.col_offset), off(stmt.end_lineno or stmt.lineno,
                                                                          stmt.end_col_offset or 0), tuple(mine),
                                  off(first.lineno, 0), first.col_offset))
                continue
            if isinstance(stmt, ast.ClassDef):
                walk(stmt.body, [])
                continue
            found.extend((name, off(stmt.lineno, stmt.col_offset)) for name in bound(stmt))
            for field in ("body", "orelse", "finalbody"):
                walk(getattr(stmt, field, None) or [], found)
            for handler in getattr(stmt, "handlers", None) or []:
                walk(handler.body, found)

    module: list[tuple[str, int]] = []
    walk(tree.body, module)
    return frozenset(name for name, _ in module), tuple(functions)


HIP_TEST = re.compile(r"\bversion\.hip\b|\bIS_HIP_EXTENSION\b")


@dataclass(frozen=True)
class SetupShape:
    """What the flag rules need from a setup.py's syntax tree (empty when it does not parse).

    ``list_items``: offsets of the opening quotes of one-line string literals that are items of a
    list display. ``cuda_only``: spans of code that runs only when PyTorch is not a ROCm build
    (the branch of ``if torch.version.hip`` / ``IS_HIP_EXTENSION`` / a name bound to either that
    the test sends CUDA builds to); flags there never reach hipcc.
    """

    list_items: frozenset[int] = frozenset()
    cuda_only: tuple[tuple[int, int], ...] = ()
    rocm_only: tuple[tuple[int, int], ...] = ()

    def guarded(self, at: int) -> bool:
        return any(a <= at < b for a, b in self.cuda_only)

    def rocm_branch(self, at: int) -> bool:
        """Whether ``at`` is in a branch only ROCm builds take (the project's own ROCm flags)."""
        return any(a <= at < b for a, b in self.rocm_only)


def setup_shape(text: str) -> SetupShape:
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return SetupShape()
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def off(line: int, col: int) -> int:
        return line_starts[line - 1] + col if line - 1 < len(line_starts) else len(text)

    def src(node: ast.AST) -> str:
        return text[off(node.lineno, node.col_offset):off(node.end_lineno, node.end_col_offset)]

    hip_names = set()
    for node in tree.body:  # module-level names bound to the test: HIP_BUILD = bool(torch.version.hip)
        if isinstance(node, ast.Assign) and HIP_TEST.search(src(node.value)):
            hip_names.update(t.id for t in node.targets if isinstance(t, ast.Name))

    def polarity(test: ast.AST) -> bool | None:
        """True: the test holds on ROCm builds; False: it holds on CUDA builds; None: not a hip test."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = polarity(test.operand)
            return None if inner is None else not inner
        body = src(test)
        if HIP_TEST.search(body) or any(re.search(rf"\b{re.escape(n)}\b", body) for n in hip_names):
            return True if isinstance(test, (ast.Attribute, ast.Name, ast.Call)) else None
        return None

    items, spans, rocm_spans = set(), [], []

    def span(nodes: list, into: list | None = None) -> None:
        for n in nodes:
            (spans if into is None else into).append((off(n.lineno, n.col_offset), off(n.end_lineno, n.end_col_offset)))

    for node in ast.walk(tree):
        if isinstance(node, ast.List):
            for elt in node.elts:
                if isinstance(elt, ast.Constant) and isinstance(elt.value, str) and elt.lineno == elt.end_lineno:
                    items.add(off(elt.lineno, elt.col_offset))
        elif isinstance(node, (ast.If, ast.IfExp)):
            pol = polarity(node.test)
            if pol is None:
                continue
            cuda_branch = node.orelse if pol else node.body
            span(cuda_branch if isinstance(cuda_branch, list) else [cuda_branch])
            rocm_branch = node.body if pol else node.orelse
            span(rocm_branch if isinstance(rocm_branch, list) else [rocm_branch], rocm_spans)
    return SetupShape(frozenset(items), tuple(spans), tuple(rocm_spans))


#: A setup.py that imports torch somewhere (a torch extension's): where a helper does not, the flag fix binds it.
TORCH_IMPORTED = re.compile(r"^[ \t]*(?:import[ \t]+torch\b|from[ \t]+torch(?:\.[\w.]+)?[ \t]+import\b)", re.M)


def conditional_flag_fix(ctx: FileContext, f: BuildFact, test: str | None, shape: SetupShape,
                         bind: tuple[int, str, str] | None = None) -> Fix | None:
    """Keep an nvcc flag for CUDA builds and give hipcc its spelling (or nothing) on ROCm builds.

    The upstream idiom: one setup.py serves both, the flag chosen by ``torch.version.hip``. Only
    for a list item that is the flag alone, in a file that imports the name tested; else None.
    """
    kind = f.data["flag"]
    hip = hipcc_flag(kind, f.data.get("option", ""), f.data.get("value", ""))
    if test is None or hip is None:
        return None
    text, qs, qe = ctx.text, f.start - 1, f.end + 1
    if qs < 0 or qe > len(text) or text[qs] not in "\"'" or text[qe - 1] != text[qs] or qs not in shape.list_items:
        return None
    item = text[qs:qe]
    hip_list = "[" + ", ".join(f"{text[qs]}{w}{text[qs]}" for w in hip.split()) + "]"
    content = f"*({hip_list} if {test} else [{item}])"
    what = f"{hip!r} on ROCm" if hip else "nothing on ROCm"
    try:  # a flag and its value in two list items ("-diag-suppress", "20012,186") read as the command line has them
        shown = " ".join(ast.literal_eval(f"[{item}]"))
    except (ValueError, SyntaxError, TypeError):
        shown = f.text
    edits = (ctx.edit(qs, qe, content),) if bind is None else (ctx.edit(bind[0], bind[0], bind[1]), ctx.edit(qs, qe, content))
    return Fix(edits, Applicability.UNSAFE,
               f"{shown!r} for CUDA builds only, {what} ({test}{f', torch imported {bind[2]}' if bind else ''})",
               ("build",))


def _sole_argument(text: str, qs: int, qe: int) -> bool:
    """Whether the string literal at ``text[qs:qe]`` is the only argument of a call (``(`` before it, ``)`` after,
    blanks aside)."""
    before = text[:qs].rstrip()
    after = text[qe:].lstrip()
    return before.endswith("(") and after.startswith(")")


def setup_flag_fix(ctx: FileContext, f: BuildFact) -> Fix | None:
    """The hipcc spelling of one nvcc flag in a setup.py list; a flag dropped with its whole string
    leaves no empty string behind (hipcc would read ``""`` as an input file)."""
    kind = f.data["flag"]
    if kind == "xcompiler":
        content = xcompiler_flags(f.data.get("value", ""))
        if not content or '"' in f.text or "'" in f.text:
            return None
    elif kind == "default-stream" and f.data.get("value") == "per-thread":
        content = "-fgpu-default-stream=per-thread"
    elif hipcc_flag(kind, f.data.get("option", ""), f.data.get("value", "")) is not None:
        content = hipcc_flag(kind, f.data.get("option", ""), f.data.get("value", ""))
    else:
        return None
    text = ctx.text
    start, end = f.start, f.end
    if '"' in f.text or "'" in f.text:
        return None  # a flag with a quoted value inside a string ('--ptxas-options="-v "'): no edit keeps it whole
    whole = start > 0 and end < len(text) and text[start - 1] in "\"'" and text[end] == text[start - 1]
    if whole and not content and _sole_argument(text, start - 1, end + 1):
        return None  # `flags.append('-x')`: removing the string leaves `append()`, a TypeError when it runs
    if content or not whole:
        if not content:
            return fact_fix(ctx, f, "", Applicability.UNSAFE, f"drop {f.text!r} (hipcc)")
        return Fix((ctx.edit(start, end, content),), Applicability.UNSAFE, f"{f.text!r} → {content!r} (hipcc)", ("build",))
    # The list item is the flag alone: remove the item with its comma (and its line when alone on it).
    qs, qe = start - 1, end + 1
    k = qe
    while k < len(text) and text[k] in " \t":
        k += 1
    line_start = text.rfind("\n", 0, qs) + 1
    if k < len(text) and text[k] == ",":
        k += 1
        while k < len(text) and text[k] in " \t":
            k += 1
        at_eol = k >= len(text) or text[k] in "\r\n"
        if not text[line_start:qs].strip() and at_eol:
            a, b = line_start, (k + 1 if k < len(text) and text[k] == "\n" else k)
        elif at_eol:  # the last item of its line: no blanks left before the line break
            a, b = qs, k
            while a > line_start and text[a - 1] in " \t":
                a -= 1
        else:
            a, b = qs, k
    else:
        j = qs
        while j > 0 and text[j - 1] in " \t":
            j -= 1
        a, b = (j - 1, qe) if j > 0 and text[j - 1] == "," else (qs, qe)
    return Fix((ctx.edit(a, b, ""),), Applicability.UNSAFE, f"drop {f.text!r} (hipcc; not a hipcc flag)", ("build",))
