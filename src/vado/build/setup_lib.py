"""What :mod:`vado.build.setup_eval` knows of the libraries a ``setup.py`` calls, per platform.

Three tables: the names whose value depends on the build (:func:`resolve`: ``torch.version.hip``,
``IS_HIP_EXTENSION``, ``CUDA_HOME``…), the library functions evaluated (:func:`call`: ``os.path``,
``glob``, ``pathlib``, ``itertools.product``, ``packaging.version``, pure builtins; the extension
constructors and ``setup()`` are recorded), and the methods of values (``str``, ``list``, ``dict``,
``Path``). Files are looked at only inside the project's root (a path outside it is :class:`Unknown`);
nothing runs a program or imports the project.
"""

from __future__ import annotations

import ast
import os
import posixpath
import sys
from dataclasses import dataclass

from vado.build import setup_classes
from vado.build.setup_eval import Evaluator
from vado.build.setup_values import (_EXT_KINDS, _EXT_MODULES, _LIST_MUTATORS, _PURE_BUILTINS, _STR_METHODS,
                                     EvalLimit, ExtCall, Func, PathV, Sym, Unknown, _has_unknown, _Raise, _truth,
                                     glob_in, inside, product)


@dataclass(frozen=True)
class Method:
    """A bound method of a value (``flags.append``, ``path.split``, ``Path(...).glob``)."""

    obj: object
    name: str

    def __deepcopy__(self, memo):
        import copy

        return Method(copy.deepcopy(self.obj, memo), self.name)  # the copy's list, not the original's


def resolve(ev: Evaluator, sym: Sym, line: int):
    """The value of a qualified name on ``ev``'s platform; module and function names stay :class:`Sym`."""
    p = ev.platform
    n = sym.name
    short = n.rsplit(".", 1)[-1]
    ext = n.startswith("torch.utils.cpp_extension.")
    if n == "torch.version.hip":
        return Unknown("torch.version.hip (the ROCm build's HIP version)", line, True) if p.rocm else None
    if n == "torch.version.cuda":
        return None if p.rocm else Unknown("torch.version.cuda (the CUDA build's version)", line, True)
    if n in ("torch.__version__", "torch.version.__version__"):
        return p.torch_version
    if ext and short == "IS_HIP_EXTENSION":
        return p.rocm
    if ext and short == "CUDA_HOME":
        return None if p.rocm else Unknown("CUDA_HOME (the CUDA toolkit's directory)", line, True)
    if ext and short in ("ROCM_HOME", "HIP_HOME"):
        return Unknown(f"{short} (the ROCm directory)", line, True) if p.rocm else None
    if ext and short == "ROCM_VERSION":
        return Unknown("ROCM_VERSION (the ROCm version)", line, True) if p.rocm else None
    if n == "sys.platform":
        return "linux"
    if n == "os.name":
        return "posix"
    if n in ("os.sep", "os.path.sep"):
        return "/"
    if n == "os.pathsep":
        return ":"
    if n == "sys.version_info":
        return tuple(sys.version_info[:3])
    if n == "sys.argv":
        if ev.argv is None:  # one list per evaluation: `sys.argv.remove(...)` is seen by later reads
            ev.argv = list(ev.platform.argv)
        return ev.argv
    return sym


def attribute(ev: Evaluator, obj, attr: str, line: int):
    """``obj.attr``."""
    if isinstance(obj, (setup_classes.Instance, setup_classes.ClassV)):
        return setup_classes.attribute(ev, obj, attr, line)
    if isinstance(obj, Sym):
        return resolve(ev, Sym(f"{obj.name}.{attr}"), line)
    if isinstance(obj, PathV):
        path = obj.path
        if attr == "parent":
            return PathV(posixpath.dirname(path.rstrip("/")) or ".")
        if attr == "name":
            return posixpath.basename(path.rstrip("/"))
        if attr == "stem":
            return posixpath.splitext(posixpath.basename(path))[0]
        if attr == "suffix":
            return posixpath.splitext(path)[1]
        if attr == "parts":
            return tuple(p for p in path.split("/") if p) if not path.startswith("/") else \
                ("/", *(p for p in path.split("/") if p))
        return Method(obj, attr)
    if isinstance(obj, (str, list, dict, set, tuple)):
        return Method(obj, attr)
    if isinstance(obj, ExtCall):
        return obj.kwargs.get(attr, Unknown(f"the extension's {attr}", line))
    if isinstance(obj, Unknown):
        return Unknown(f"{obj.why}.{attr}", line)
    if hasattr(obj, "major") and attr in ("major", "minor", "micro", "release", "base_version", "public"):
        return getattr(obj, attr)  # packaging.version.Version
    return Unknown(f"`.{attr}` of a {type(obj).__name__}", line)


def _args(ev: Evaluator, node: ast.Call, env: dict) -> tuple[list, dict]:
    args: list = []
    for a in node.args:
        if isinstance(a, ast.Starred):
            v = ev.expr(a.value, env)
            seq = ev.iterate(v, node.lineno, "")
            args.extend(seq if seq is not None else [Unknown(f"*{ev._src(a.value)}", node.lineno)])
        else:
            args.append(ev.expr(a, env))
    kwargs: dict = {}
    for k in node.keywords:
        v = ev.expr(k.value, env)
        if k.arg is None:
            if isinstance(v, dict):
                kwargs.update({str(key): val for key, val in v.items()})
            else:
                kwargs["**"] = Unknown(f"**{ev._src(k.value)}", node.lineno)
        else:
            kwargs[k.arg] = v
    return args, kwargs


def call(ev: Evaluator, node: ast.Call, env: dict):
    """A call: a function of the file, a method, a known library function, or :class:`Unknown`."""
    line = node.lineno
    fn = ev.expr(node.func, env)
    args, kwargs = _args(ev, node, env)
    if isinstance(fn, Func):
        return ev.call_func(fn, args, kwargs, line)
    if isinstance(fn, Method):
        return _method(ev, fn, args, kwargs, line)
    if isinstance(fn, (setup_classes.ClassV, setup_classes.Bound)):
        return setup_classes.call(ev, fn, args, kwargs, line)
    if isinstance(fn, Sym):
        return _library(ev, fn.name, args, kwargs, line, node)
    if isinstance(fn, Unknown):
        return Unknown(f"the result of `{ev._src(node.func)}(…)` ({fn.why})", line)
    return Unknown(f"a call of a {type(fn).__name__}", line)


def _path_str(v):
    if isinstance(v, PathV):
        return v.path
    return v if isinstance(v, str) else None


def _abs(ev: Evaluator, path: str) -> str:
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(ev.root, path))


def _on_disk(ev: Evaluator, path: str, test, line: int):
    full = _abs(ev, path)
    if not inside(ev.root, full):
        return Unknown(f"a file outside the project ({path})", line)
    found = bool(test(full))
    if not found:
        module = _absent_submodule(ev.root, full)
        if module:
            # A checkout with its submodules has it (xformers' `if not os.path.exists(cutlass_dir): raise` on
            # third_party/cutlass): a tree without them says nothing of what the build does.
            return Unknown(f"a path in the git submodule {module}, not checked out here ({path})", line)
    return found


def _absent_submodule(root: str, full: str) -> str:
    """The submodule path (``.gitmodules`` of ``root``) holding ``full`` when that submodule's directory is
    missing or empty here (not checked out); ``""`` otherwise."""
    from vado.scan.discover import _submodule_paths

    rel = posixpath.relpath(full, root)
    for module in sorted(_submodule_paths(os.path.join(root, ".gitmodules"))):
        if rel == module or rel.startswith(module + "/"):
            where = os.path.join(root, module)
            try:
                empty = not os.path.isdir(where) or not os.listdir(where)
            except OSError:
                empty = True
            return module if empty else ""
    return ""


def _library(ev: Evaluator, name: str, args: list, kwargs: dict, line: int, node: ast.Call):  # noqa: C901
    short = name.rsplit(".", 1)[-1]
    module = name[: -len(short)]
    if short in _EXT_KINDS and (module in _EXT_MODULES or module == ""):
        if short == "Extension" and module.startswith("torch"):
            short = "CppExtension"
        ext = ExtCall(_EXT_KINDS[short], line, tuple(args), dict(kwargs))
        ev.extensions.append(ext)
        return ext
    if name == "torch.utils.cpp_extension.load":
        if ev.loads is not None:  # vado.build.torch_jit: an extension built at run time
            from vado.build.torch_jit import load_call

            ev.loads.append(load_call(line, args, kwargs))
        return Unknown("the module torch.utils.cpp_extension.load() builds", line)
    if name in ("setuptools.setup", "distutils.core.setup", "skbuild.setup"):
        ev.setup_calls.append((line, dict(kwargs)))
        return None
    if name.startswith("builtins."):
        return _builtin(ev, short, args, kwargs, line)
    if name == "shutil.which" and args and args[0] in ("nvcc", "hipcc"):
        # The platform's compiler is on PATH, the other's is not (the CUDA_HOME/ROCM_HOME assumptions):
        # stainx 0.1.6 builds its extension only `if nvcc_path` (shutil.which("nvcc")).
        ev.which_read = True
        if (args[0] == "hipcc") == ev.platform.rocm:
            return Unknown(f"the path of {args[0]} (on PATH on this platform)", line, True)
        return None
    strs = [_path_str(a) for a in args]
    known = all(s is not None for s in strs)
    if module in ("os.path.", "posixpath."):
        if not known:
            return Unknown(f"os.path.{short} of a value not known here", line)
        if short == "join":
            return posixpath.join(*strs) if strs else Unknown("os.path.join()", line)
        if short == "dirname":
            return posixpath.dirname(strs[0])
        if short == "basename":
            return posixpath.basename(strs[0])
        if short in ("abspath", "realpath"):
            return _abs(ev, strs[0])
        if short == "normpath":
            return posixpath.normpath(strs[0])
        if short == "splitext":
            return posixpath.splitext(strs[0])
        if short == "split":
            return posixpath.split(strs[0])
        if short == "relpath":
            return posixpath.relpath(_abs(ev, strs[0]), _abs(ev, strs[1]) if len(strs) > 1 else ev.root)
        if short == "isabs":
            return strs[0].startswith("/")
        if short in ("exists", "isfile", "isdir", "lexists"):
            test = {"exists": os.path.lexists, "lexists": os.path.lexists, "isfile": os.path.isfile,
                    "isdir": os.path.isdir}[short]
            return _on_disk(ev, strs[0], test, line)
        return Unknown(f"os.path.{short}()", line)
    if name in ("glob.glob", "glob.iglob"):
        if not known or not args:
            return Unknown("glob of a pattern not known here", line)
        found = glob_in(ev.root, strs[0], bool(kwargs.get("recursive", False)))
        return found if found is not None else Unknown(f"a glob outside the project ({strs[0]})", line)
    if name in ("pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"):
        if not known:
            return Unknown("Path() of a value not known here", line)
        return PathV(posixpath.join(*strs) if strs else ".")
    if name in ("os.getcwd",):
        return ev.root
    if name in ("os.getenv", "os.environ.get"):
        if args and isinstance(args[0], str):
            return ev.getenv(args[0], args[1] if len(args) > 1 else kwargs.get("default"), line)
        return Unknown("an environment variable not known here", line)
    if name == "os.listdir":
        d = strs[0] if known and strs else "."
        full = _abs(ev, d)
        if not inside(ev.root, full) or not os.path.isdir(full):
            return Unknown(f"the listing of {d}", line)
        names = sorted(os.listdir(full))
        if len(names) > 20_000:
            raise EvalLimit("a directory of more than 20000 entries")
        return names
    if name == "os.fspath":
        return strs[0] if known and strs else Unknown("os.fspath()", line)
    if name == "itertools.product":
        seqs = [ev.iterate(a, line, "") for a in args]
        if any(s is None for s in seqs):
            return Unknown("itertools.product of a value not known here", line)
        return product(*seqs)
    if name in ("itertools.chain",):
        seqs = [ev.iterate(a, line, "") for a in args]
        return Unknown("itertools.chain", line) if any(s is None for s in seqs) else [x for s in seqs for x in s]
    if name in ("packaging.version.parse", "packaging.version.Version", "pkg_resources.parse_version"):
        if not (args and isinstance(args[0], str)):
            return Unknown("a version not known here", line)
        from packaging.version import InvalidVersion, Version

        try:
            return Version(args[0])
        except InvalidVersion:
            return Unknown(f"version {args[0]!r}", line)
    if name in ("sys.exit", "builtins.exit", "os._exit"):
        raise _Raise(line)
    if name == "torch.cuda.is_available":
        return ev.platform.gpu_visible
    if name == "torch.__config__.parallel_info":
        return Unknown("torch.__config__.parallel_info() (how the installed PyTorch was built)", line)
    if name in ("warnings.warn", "logging.info", "logging.warning", "print", "shutil.rmtree", "os.makedirs",
                "os.environ.pop", "os.environ.setdefault", "os.environ.update", "os.system", "os.remove"):
        if name == "os.environ.setdefault" and args and isinstance(args[0], str):
            return ev.getenv(args[0], args[1] if len(args) > 1 else None, line)
        return None  # side effects on the machine, none on the extensions' arguments
    if module.startswith("subprocess."):
        return Unknown(f"the output of a program setup.py runs ({name})", line)
    if name == "platform.machine":
        return "x86_64"
    if name == "platform.system":
        return "Linux"
    if name == "torch.cuda.get_device_capability" or name == "torch.cuda.get_device_properties":
        return Unknown(f"{name}() (the GPU of the build machine)", line)
    return Unknown(f"the result of {name}()", line, True if short[:1].isupper() else None)


def _builtin(ev: Evaluator, short: str, args: list, kwargs: dict, line: int):  # noqa: C901
    if short == "print":
        return None
    if short in ("open",):
        return Unknown("the content of a file setup.py opens", line)
    if short in ("exec", "eval"):
        ev.note(line, "exec", f"{short}() of code not read here: what it defines is not known")
        return Unknown(f"{short}()", line)
    if short == "range":
        if not all(isinstance(a, int) for a in args):
            return Unknown("range() of a value not known here", line)
        r = range(*args)
        if len(r) > 20_000:
            raise EvalLimit(f"a range of {len(r)} items")
        return list(r)
    if short in ("map", "filter") and len(args) == 2:
        fn, seq = args
        items = ev.iterate(seq, line, "")
        if items is None:
            return Unknown(f"{short}() over a value not known here", line)
        if fn is None and short == "filter":
            return [x for x in items if x]
        out = []
        for x in items:
            r = _apply(ev, fn, [x], line)
            if short == "map":
                out.append(r)
            else:
                if isinstance(r, Unknown):
                    return Unknown("filter() with a test not decided here", line)
                if r:
                    out.append(x)
        return out
    if short == "isinstance":
        if len(args) == 2 and isinstance(args[1], Sym) and args[1].name.startswith("builtins."):
            t = {"str": str, "list": list, "dict": dict, "tuple": tuple, "int": int, "bool": bool,
                 "float": float, "set": set}.get(args[1].name[9:])
            if t is not None and not isinstance(args[0], (Unknown, Sym)):
                return isinstance(args[0], t)
        return Unknown("isinstance()", line)
    if short == "getattr":
        return Unknown("getattr()", line) if len(args) < 3 else Unknown("getattr()", line)
    if short == "bool" and len(args) == 1 and isinstance(args[0], (Unknown, Sym, Func, PathV, ExtCall, Method)):
        t = _truth(args[0])
        return t if t is not None else Unknown(args[0].why, args[0].line or line) if isinstance(args[0], Unknown) \
            else Unknown("bool()", line)
    if short in ("ValueError", "RuntimeError", "Exception"):
        return Unknown(f"{short}(…)", line, True)
    fn = _PURE_BUILTINS.get(short)
    if fn is None:
        return Unknown(f"{short}()", line)
    if short == "str" and len(args) == 1 and isinstance(args[0], PathV):
        return args[0].path
    if _has_unknown(args) or _has_unknown(list(kwargs.values())) or \
            any(isinstance(a, (Sym, Func, PathV, ExtCall, Method)) for a in args):
        return Unknown(f"{short}() of a value not known here", line)
    if "key" in kwargs and kwargs["key"] is not None:
        return Unknown(f"{short}() with key=", line)
    try:
        return fn(*args, **kwargs)
    except (TypeError, ValueError, OverflowError):
        return Unknown(f"{short}() of these values", line)


def _apply(ev: Evaluator, fn, args: list, line: int):
    if isinstance(fn, Func):
        return ev.call_func(fn, list(args), {}, line)
    if isinstance(fn, Sym) and fn.name.startswith("builtins."):
        return _builtin(ev, fn.name[9:], list(args), {}, line)
    if isinstance(fn, Sym):
        return _library(ev, fn.name, list(args), {}, line, None)  # type: ignore[arg-type]
    return Unknown("a call of a value not known here", line)


def _method(ev: Evaluator, m: Method, args: list, kwargs: dict, line: int):  # noqa: C901
    obj, name = m.obj, m.name
    if isinstance(obj, PathV):
        path = obj.path
        if name in ("resolve", "absolute", "expanduser"):
            return PathV(_abs(ev, path))
        if name in ("glob", "rglob"):
            if not (args and isinstance(args[0], str)):
                return Unknown("a glob of a pattern not known here", line)
            pattern = args[0] if name == "glob" else posixpath.join("**", args[0])
            found = glob_in(ev.root, posixpath.join(path, pattern), recursive=True)
            if found is None:
                return Unknown(f"a glob outside the project ({path})", line)
            return [PathV(f) for f in found]
        if name in ("exists", "is_file", "is_dir"):
            test = {"exists": os.path.lexists, "is_file": os.path.isfile, "is_dir": os.path.isdir}[name]
            return _on_disk(ev, path, test, line)
        if name == "joinpath":
            parts = [_path_str(a) for a in args]
            return PathV(posixpath.join(path, *parts)) if all(p is not None for p in parts) else \
                Unknown("joinpath of a value not known here", line)
        if name == "as_posix" or name == "__str__":
            return path
        if name == "relative_to" and args and _path_str(args[0]) is not None:
            return PathV(posixpath.relpath(_abs(ev, path), _abs(ev, _path_str(args[0]))))
        if name == "with_suffix" and args and isinstance(args[0], str):
            return PathV(posixpath.splitext(path)[0] + args[0])
        return Unknown(f"Path.{name}()", line)
    if isinstance(obj, str):
        if name not in _STR_METHODS or _has_unknown(args) or _has_unknown(list(kwargs.values())) \
                or any(isinstance(a, (Sym, Func, PathV, ExtCall, Method)) for a in args):
            return Unknown(f"str.{name}() here", line)
        if name == "format" and any(isinstance(a, (list, dict)) for a in args):
            return Unknown("str.format of a container", line)
        try:
            result = getattr(obj, name)(*args, **kwargs)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError):
            return Unknown(f"str.{name}() of these values", line)
        if isinstance(result, str):
            return ev._str(result)
        if isinstance(result, (list, tuple)) and len(result) > 20_000:
            raise EvalLimit("a split of more than 20000 items")
        return result
    if isinstance(obj, list):
        if name in _LIST_MUTATORS:
            try:
                if name == "append" and len(args) == 1:
                    obj.append(args[0])
                elif name == "extend" and len(args) == 1:
                    items = ev.iterate(args[0], line, "")
                    obj.extend(items if items is not None else [Unknown("an extend() of a value not known here", line)])
                elif name == "insert" and len(args) == 2 and isinstance(args[0], int):
                    obj.insert(args[0], args[1])
                elif name == "remove" and len(args) == 1:
                    if args[0] in obj:
                        obj.remove(args[0])
                elif name == "pop":
                    return obj.pop(*args) if obj else Unknown("pop() of an empty list", line)
                elif name == "sort" and not kwargs:
                    obj.sort()
                elif name == "reverse":
                    obj.reverse()
                elif name == "clear":
                    obj.clear()
                else:
                    return Unknown(f"list.{name}() here", line)
            except (TypeError, IndexError):
                return Unknown(f"list.{name}() of these values", line)
            ev._bound(len(obj))
            return None
        if name in ("index", "count", "copy") and not _has_unknown(args):
            try:
                return getattr(obj, name)(*args) if name != "copy" else list(obj)
            except (ValueError, TypeError):
                return Unknown(f"list.{name}()", line)
        return Unknown(f"list.{name}()", line)
    if isinstance(obj, dict):
        if name not in ("get", "items", "keys", "values", "update", "setdefault", "pop", "copy"):
            return Unknown(f"dict.{name}()", line)
        if any(isinstance(a, Unknown) for a in args[:1]):
            return Unknown(f"dict.{name}() with a key not known here", line)
        try:
            if name == "get":
                return obj.get(*args)
            if name == "items":
                return list(obj.items())
            if name == "keys":
                return list(obj.keys())
            if name == "values":
                return list(obj.values())
            if name == "update":
                if args and isinstance(args[0], dict):
                    obj.update(args[0])
                obj.update(kwargs)
                return None
            if name == "setdefault":
                return obj.setdefault(*args)
            if name == "pop":
                return obj.pop(*args)
            return dict(obj)
        except (KeyError, TypeError):
            return Unknown(f"dict.{name}() of a missing key", line)
    if isinstance(obj, set) and name in ("add", "update") and not _has_unknown(args):
        try:
            obj.add(args[0]) if name == "add" else obj.update(*args)
        except TypeError:
            return Unknown("set.add()", line)
        return None
    if isinstance(obj, tuple) and name in ("index", "count") and not _has_unknown(args):
        try:
            return getattr(obj, name)(*args)
        except ValueError:
            return Unknown("tuple.index()", line)
    return Unknown(f"{type(obj).__name__}.{name}()", line)
