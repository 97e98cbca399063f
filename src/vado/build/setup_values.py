"""The values :mod:`vado.build.setup_eval` works with: what it knows, what it does not (:class:`Unknown`), what it
records (:class:`ExtCall`, :class:`Undecidable`), the platform it evaluates for, and the bounds it keeps.

Also the file-system helpers it uses, which look inside the project's root only (:func:`glob_in`,
:func:`inside`).
"""

from __future__ import annotations

import ast
import glob as _glob
import itertools
import os
import posixpath
from dataclasses import dataclass, field

#: Nodes evaluated before the evaluation is given up (a setup.py needs a few thousand).
MAX_STEPS = 400_000
#: Nested user-function calls.
MAX_DEPTH = 40
#: Items of one list/str/loop the evaluator makes.
MAX_ITEMS = 20_000
#: Files one glob may return.
MAX_GLOB = 20_000

class EvalLimit(Exception):
    """The evaluation went past one of the bounds above."""


class _Raise(Exception):
    """The evaluated code raised (``raise``, ``sys.exit``): this path stops the build."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


class _Return(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass(frozen=True)
class Unknown:
    """A value the evaluator cannot know here: ``why`` and the line it came from. ``truth`` is its
    truthiness where that is known (``torch.version.hip`` on ROCm: some string, true)."""

    why: str
    line: int = 0
    truth: bool | None = None

    def __deepcopy__(self, memo):
        return self


@dataclass(frozen=True)
class Sym:
    """A name of a module or library function (``os.path.join``, ``torch.version``), resolved lazily."""

    name: str

    def __deepcopy__(self, memo):
        return self


@dataclass(frozen=True, order=True)
class PathV:
    """A ``pathlib.Path`` value (its string, absolute or relative)."""

    path: str

    def __deepcopy__(self, memo):
        return self


@dataclass(eq=False)
class Func:
    """A function of the file (``def`` or ``lambda``), with the locals it closes over."""

    node: ast.AST
    closure: dict | None = None

    def __deepcopy__(self, memo):
        return self


@dataclass
class ExtCall:
    """A call of an extension constructor (``CUDAExtension``, ``CppExtension``, ``Extension``)."""

    kind: str
    line: int
    args: tuple
    kwargs: dict


@dataclass(frozen=True)
class Undecidable:
    """What the reader could not decide: where (``file:line``), what kind, and a sentence."""

    file: str
    line: int
    kind: str  # branch | value | loop | call | exec | raise | limit
    what: str
    platforms: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        """JSON form."""
        return {"at": f"{self.file}:{self.line}", "kind": self.kind, "what": self.what,
                "platforms": list(self.platforms)}


@dataclass
class Platform:
    """The build the file is evaluated for: ``rocm`` or ``cuda``, and what is assumed of the machine."""

    name: str
    torch_version: str = "2.13.0"
    env: dict = field(default_factory=dict)
    gpu_visible: bool = True
    #: ``sys.argv``: the command taken to run setup.py, one that builds the extensions (``setup.py build_ext``;
    #: pip's wheel build runs ``bdist_wheel``, which builds them as a sub-command without naming it)
    argv: tuple = ("setup.py", "build_ext")

    @property
    def rocm(self) -> bool:
        return self.name == "rocm"


_EXT_KINDS = {"CUDAExtension": "CUDAExtension", "CppExtension": "CppExtension", "Extension": "Extension",
              "HIPExtension": "CUDAExtension"}
_EXT_MODULES = ("torch.utils.cpp_extension.", "setuptools.", "setuptools.extension.", "distutils.core.",
                "distutils.extension.")
_PURE_BUILTINS = {"len": len, "str": str, "int": int, "float": float, "bool": bool, "abs": abs, "min": min,
                  "max": max, "any": any, "all": all, "sorted": sorted, "repr": repr, "tuple": tuple,
                  "list": list, "set": set, "dict": dict, "reversed": lambda x: list(reversed(x)),
                  "enumerate": lambda *a: list(enumerate(*a)), "zip": lambda *a: list(zip(*a)),
                  "round": round, "ord": ord, "chr": chr, "frozenset": frozenset, "hasattr": None}
_STR_METHODS = frozenset({"split", "rsplit", "join", "replace", "strip", "lstrip", "rstrip", "startswith",
                          "endswith", "lower", "upper", "splitlines", "partition", "rpartition", "find", "rfind",
                          "count", "format", "isdigit", "isalpha", "removeprefix", "removesuffix", "index",
                          "casefold", "title", "zfill", "encode"})
_LIST_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "sort", "reverse", "clear"})
_DICT_METHODS = frozenset({"get", "items", "keys", "values", "update", "setdefault", "pop", "copy"})


def _truth(v) -> bool | None:
    if isinstance(v, Unknown):
        return v.truth
    if isinstance(v, (Sym, Func, ExtCall, PathV)):
        return True
    try:
        return bool(v)
    except Exception:  # noqa: BLE001 - a value of ours that has no truth
        return None


def _plain(v, depth: int = 0) -> str:
    """A short rendering of a value for a message (an unknown part is ``?``)."""
    if isinstance(v, Unknown) or depth > 6:
        return "?"
    if isinstance(v, list):
        return "[" + ", ".join(_plain(x, depth + 1) for x in v[:40]) + (", …" if len(v) > 40 else "") + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(_plain(x, depth + 1) for x in v[:40]) + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_plain(k, depth + 1)}: {_plain(x, depth + 1)}" for k, x in list(v.items())[:20]) + "}"
    if isinstance(v, (Sym, Func, ExtCall, PathV)):
        return type(v).__name__
    return repr(v)


def _first_unknown(v, depth: int = 0) -> Unknown | None:
    if isinstance(v, Unknown):
        return v
    if depth < 50 and isinstance(v, (list, tuple, set, frozenset)):
        for x in v:
            u = _first_unknown(x, depth + 1)
            if u is not None:
                return u
    if depth < 50 and isinstance(v, dict):
        for x in (*v.keys(), *v.values()):
            u = _first_unknown(x, depth + 1)
            if u is not None:
                return u
    return None


def _has_unknown(v, depth: int = 0) -> bool:
    if depth > 50:
        return True
    if isinstance(v, Unknown):
        return True
    if isinstance(v, (list, tuple, set, frozenset)):
        return any(_has_unknown(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return any(_has_unknown(x, depth + 1) for x in (*v.keys(), *v.values()))
    return False


def inside(root: str, path: str) -> bool:
    """Whether ``path`` (absolute, normalised) lies in ``root``."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def glob_in(root: str, pattern: str, recursive: bool = False) -> list[str] | None:
    """``glob.glob(pattern)`` run with the project's root as working directory, results sorted; None when the
    pattern reaches outside the root. Absolute results stay absolute, relative ones relative."""
    absolute = pattern.startswith("/")
    full = posixpath.normpath(pattern if absolute else posixpath.join(root, pattern))
    if not inside(root, full):
        return None
    rel = posixpath.relpath(full, root)
    found: list[str] = []
    for hit in _glob.iglob(rel, root_dir=root, recursive=recursive):
        real = os.path.realpath(os.path.join(root, hit))
        if not inside(os.path.realpath(root), real):
            continue  # a link out of the tree is not the project's
        found.append(posixpath.join(root, hit) if absolute else
                     (hit if not pattern.startswith("./") else "./" + hit))
        if len(found) > MAX_GLOB:
            raise EvalLimit(f"a glob of more than {MAX_GLOB} files")
    return sorted(found)


def product(*seqs) -> list:
    """``itertools.product`` of known sequences (bounded)."""
    n = 1
    for s in seqs:
        n *= max(len(s), 1)
    if n > MAX_ITEMS:
        raise EvalLimit(f"a product of {n} items")
    return list(itertools.product(*seqs))
