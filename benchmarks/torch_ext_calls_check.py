#!/usr/bin/env python3
"""Check a calls file (benchmarks/torch_ext/calls/NAME.py) without a GPU: on the CPU build of the package's ops
where it has one, else against the arguments its pybind11 bindings declare.

    # the CPU extension built against a CPU PyTorch (a .so: a pybind11 module, or TORCH_LIBRARY ops with --ops)
    python3 benchmarks/torch_ext_calls_check.py cpu CALLS.py MODULE=LIB.so [MODULE=LIB.so ...] [--ops NS] [--as NAME]
    # the CUDA bindings read from the package's sources (PYBIND11_MODULE m.def + the C++ declarations)
    python3 benchmarks/torch_ext_calls_check.py bindings CALLS.py --config PACKAGES.json --package NAME --root DIR

``cpu`` runs ``cases(ext, torch, "cpu")`` on the CPU ops (one module: ``ext`` is it; several: ``ext.MODULE``, with
``--as CUDA_NAME=CPU_NAME`` mapping the CUDA module names a calls file uses to the CPU modules) and prints each
call's outcome. ``bindings`` gives the calls an ``ext`` made from the binding sources of each CUDAExtension of
the package: each function checks the number and the Python types of its arguments against the C++ parameter
list (Tensor, optional Tensor, integers, floats, bool, string, the module's own classes and enums) and returns
stand-ins shaped like the C++ return type (a tuple of its arity, a braced ``return {a, b}``'s length), so a call
that chains several functions is checked through the chain; a case that computes with the stand-ins (torch ops
on them) stops there and says after how many checked calls. Neither runs a CUDA kernel: values, dtypes and
shapes are the GPU run's to check.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import types
from pathlib import Path

from vado.rules.cuda_syntax.tokens import split_text_args


def _load_calls(path: str):
    spec = importlib.util.spec_from_file_location("calls", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- the bindings' declared arguments ---------------------------------------------------------------------------

_DEF = re.compile(r'\bm\.def\(\s*"(\w+)"\s*,\s*(?:py::overload_cast<([^>]*)>\(\s*)?&(\w+)([^;]*);', re.S)
_REG = re.compile(r'^[ \t]*_REG_FUNC\((\w+)\)', re.M)
_ENUM = re.compile(r'enum_<\w+>\(\s*m\s*,\s*"(\w+)"\)((?:\s*\.value\("\w+"[^)]*\))+)')
_CLASS = re.compile(r'class_<(\w+)>\(\s*m\s*,\s*"(\w+)"\)((?:\s*\.def\w*\([^;]*?\))*)\s*;', re.S)


class Stand:
    """What a checked function returned: any attribute, item or iteration of it is another stand-in."""

    def __init__(self, what: str):
        self.what = what

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Stand(f"{self.what}.{name}")

    def __call__(self, *args, **kw):  # a method of a stand-in (y.clone()): another stand-in
        return Stand(f"{self.what}()")

    def __getitem__(self, key):
        return Stand(f"{self.what}[{key!r}]")

    def __repr__(self):
        return f"<stand-in {self.what}>"


class Checked(Exception):
    """A case reached what the stand-ins cannot follow: what was checked up to there."""


class Mismatch(TypeError):
    """A call whose arguments the binding's C++ declaration does not take."""


def _uncomment(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def _split_params(text: str) -> list[str]:
    """The parameters (or template arguments) of ``text``: its top-level pieces, line comments dropped, blanks left out."""
    pieces = (re.sub(r"//[^\n]*", "", p).strip() for p in split_text_args(text, "()[]<>"))
    return [p for p in pieces if p]


def _kind(param: str) -> str:
    """The Python kind a C++ parameter (type and name) takes."""
    p = re.sub(r"\s+", " ", param)
    p = re.sub(r"\b\w+$", "", p).strip() if re.search(r"[\w>&*]\s+\w+$", p) else p
    if re.search(r"optional<\s*(?:at|torch)::Tensor\s*>", p):
        return "opt-tensor"
    if re.search(r"\b(?:std::vector|c10::ArrayRef|at::TensorList|torch::TensorList)\b.*\bTensor\b|\bTensorList\b", p):
        return "tensor-list"  # pybind11 takes a list or tuple of tensors (bf16-fused-adam 0.1's tensor lists)
    if re.search(r"\b(?:at|torch)::Tensor\b", p):
        return "tensor"
    if re.search(r"\bstd::string\b", p):
        return "str"
    if re.search(r"\bbool\b", p):
        return "bool"
    if re.search(r"\b(?:float|double)\b", p):
        return "float"
    if re.search(r"\b(?:int|int32_t|int64_t|long|size_t|unsigned)\b", p):
        return "int"
    return "class:" + re.sub(r"\b(?:const|struct)\b|[&*]", "", p).strip().split("::")[-1]


def _returns(ret: str, body: str) -> int:
    """How many values a C++ return type gives Python (0: None, 1: one object, n: a sequence of n)."""
    ret = ret.strip()
    if ret == "void":
        return 0
    m = re.match(r"std::tuple<(.*)>$", ret)
    if m:
        return len(_split_params(m.group(1)))
    if ret.startswith("std::vector"):
        r = re.search(r"return\s*\{([^;]*)\}\s*;", body)
        return len(_split_params(r.group(1))) if r else -1
    return 1


def _declarations(sources: list[Path], func: str, types_hint: str | None) -> list[tuple[str, list[str], str]]:
    """(return type, parameters, body) of each definition of ``func`` in ``sources`` (all overloads)."""
    found = []
    pat = re.compile(r"((?:std::\w+<[^;{}()]*?>|[\w:]+)(?:\s*[&*])?)\s+" + re.escape(func) + r"\s*\(([^)]*)\)\s*\{")
    for src in sources:
        text = _uncomment(src.read_text(encoding="latin-1"))
        for m in pat.finditer(text):
            line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
            if "__global__" in line or "__device__" in line or "__global__" in m.group(1):
                continue  # a kernel or a device function of the same name, not the host function bound
            body = text[m.end():m.end() + 20000]
            found.append((m.group(1), _split_params(m.group(2)), body.split("\n}\n", 1)[0]))
    if types_hint is not None:
        want = [_kind(t + " x") for t in _split_params(types_hint)]
        found = [f for f in found if [_kind(p) for p in f[1]] == want]
    return found


def _is_tensor(value) -> bool:
    if isinstance(value, Stand):
        return True
    torch = sys.modules.get("torch")  # a calls file that makes tensors has imported torch
    return torch is not None and isinstance(value, torch.Tensor)


def _accepts(kind: str, value, classes: dict) -> bool:
    if kind == "tensor":
        return _is_tensor(value)
    if kind == "opt-tensor":
        return value is None or _is_tensor(value)
    if kind == "tensor-list":
        return isinstance(value, (list, tuple)) and all(_is_tensor(v) for v in value)
    if kind == "int":
        return isinstance(value, int) or isinstance(value, Stand)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, Stand)
    if kind == "bool":
        return isinstance(value, (bool, int))
    if kind == "str":
        return isinstance(value, str)
    name = kind.split(":", 1)[1]
    cls = classes.get(name)
    return cls is not None and isinstance(value, cls)


def binding_module(cu_sources: list[Path], all_sources: list[Path], log: list) -> types.SimpleNamespace:
    """A stand-in for one pybind11 module: its functions check their arguments (see the module docstring)."""
    text = _uncomment("\n".join(p.read_text(encoding="latin-1") for p in cu_sources))
    ns: dict = {}
    classes: dict = {}
    for name, values in _ENUM.findall(text):
        members = re.findall(r'\.value\("(\w+)"', values)
        enum = type(name, (), {})
        for mem in members:
            setattr(enum, mem, enum())
        ns[name] = enum
        classes[name] = enum
    for cxx, name, defs in _CLASS.findall(text):
        fields = re.findall(r'def_readwrite\("(\w+)"', defs)
        cls = type(name, (), {f: None for f in fields})
        ns[name] = cls
        classes[name] = cls
        classes[cxx] = cls  # a parameter names the C++ type (ds_splat 0.0.2: TorchRasterizationSettings bound as RasterizationSettings)
    defs = [(n, t, f, rest) for n, t, f, rest in _DEF.findall(text)] + [(f, None, f, "") for f in _REG.findall(text)]
    by_name: dict = {}
    for pyname, hint, func, rest in defs:
        decls = _declarations(all_sources, func, hint or None)
        if not decls:
            raise SystemExit(f"no C++ definition of {func} (bound as {pyname}) found")
        n_default = len(re.findall(r"arg\(\"\w+\"\)\s*=", rest))
        names = re.findall(r'arg\("(\w+)"\)', rest)
        by_name.setdefault(pyname, []).extend((d, n_default, names) for d in decls)

    def make(pyname, overloads):
        def fn(*args, **kw):
            errors = []
            for (ret, params, body), n_default, names in overloads:
                kinds = [_kind(p) for p in params]
                got = list(args)
                if kw:
                    if not names:
                        errors.append("keyword arguments to a function bound without names")
                        continue
                    for nm in names[len(got):]:
                        if nm in kw:
                            got.append(kw.pop(nm))
                if not len(params) - n_default <= len(got) <= len(params):
                    errors.append(f"{len(got)} arguments, the C++ takes {len(params)}"
                                  + (f" ({n_default} with defaults)" if n_default else ""))
                    continue
                bad = [f"#{i + 1} ({params[i]}): {type(v).__name__}" for i, v in enumerate(got)
                       if not _accepts(kinds[i], v, classes)]
                if bad:
                    errors.append("; ".join(bad))
                    continue
                log.append(pyname)
                n = _returns(ret, body)
                if n == 0:
                    return None
                if n == 1:
                    return Stand(f"{pyname}()")
                if n < 0:
                    raise Checked(f"{pyname} returns a std::vector of unknown length")
                return tuple(Stand(f"{pyname}()[{i}]") for i in range(n))
            raise Mismatch(f"{pyname}: " + " | ".join(errors))
        return fn

    for pyname, overloads in by_name.items():
        ns[pyname] = make(pyname, overloads)
    return types.SimpleNamespace(**ns)


# --- running the cases ------------------------------------------------------------------------------------------

def _summary(value) -> str:
    """How many tensors and values a case returned, and how many are NaN or infinite (a sign of bad inputs)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return ""
    leaves, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, torch.Tensor):
            leaves.append(v)
    n = sum(t.numel() for t in leaves)
    bad = sum(int((~torch.isfinite(t.double())).sum()) for t in leaves if t.is_floating_point())
    if not leaves:
        return ""
    return f"{len(leaves)} tensor(s), {n} values" + (f", {bad} not finite" if bad else "")


def run_cases(calls, ext, device: str, log: list | None = None) -> dict:
    """Each case's outcome: ok / checked (stopped at a stand-in) / error, with a line of detail."""
    try:
        import torch
    except ImportError:  # a calls file that makes no tensors (the bindings check's own tests)
        torch = None
    out = {}
    for name, fn in calls.cases(ext, torch, device).items():
        start = len(log) if log is not None else 0
        try:
            status, detail = "ok", _summary(fn())
        except Checked as exc:
            status, detail = "checked", str(exc)
        except Mismatch as exc:
            status, detail = "error", f"arguments: {exc}"[:300]
        except Exception as exc:  # the case's own failure; or torch/Python given a stand-in: the chain ends there
            status = "checked" if log is not None and "Stand" in str(exc) else "error"
            detail = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
        if log is not None:
            detail = f"{len(log) - start} call(s) checked ({', '.join(dict.fromkeys(log[start:]))}) {detail}".strip()
        out[name] = {"status": status, "detail": detail}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cpu")
    c.add_argument("calls")
    c.add_argument("libs", nargs="+", help="MODULE=LIB.so")
    c.add_argument("--ops", default="", help="the libraries register TORCH_LIBRARY ops in this namespace")
    c.add_argument("--as", dest="alias", action="append", default=[], help="CUDA_NAME=CPU_NAME")
    b = sub.add_parser("bindings")
    b.add_argument("calls")
    b.add_argument("--config", required=True)
    b.add_argument("--package", required=True)
    b.add_argument("--root", required=True, help="the package's source tree")
    for q in (c, b):
        q.add_argument("--json", default="", help="write each case's outcome here")
    args = ap.parse_args(argv)
    import torch

    calls = _load_calls(args.calls)
    if args.cmd == "cpu":
        mods = {}
        for item in args.libs:
            name, lib = item.split("=", 1)
            if args.ops:
                torch.ops.load_library(lib)
            else:
                spec = importlib.util.spec_from_file_location(name, lib)
                mods[name] = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mods[name])
        if args.ops:
            ext = getattr(torch.ops, args.ops)
        elif len(mods) == 1 and not args.alias:
            ext = next(iter(mods.values()))
        else:
            alias = dict(a.split("=", 1) for a in args.alias)
            ext = types.SimpleNamespace(**{k: mods[v] for k, v in alias.items()}, **mods)
        res = run_cases(calls, ext, "cpu")
    else:
        pkg = json.loads(Path(args.config).read_text())["packages"][args.package]
        root = Path(args.root)
        everything = [p for p in root.rglob("*") if p.suffix in (".cu", ".cpp", ".cuh", ".h", ".hpp") and p.is_file()]
        log: list = []
        mods = {e["name"]: binding_module([root / s for s in e["sources"]], everything, log) for e in pkg["extensions"]}
        ext = next(iter(mods.values())) if len(mods) == 1 else types.SimpleNamespace(**mods)
        res = run_cases(calls, ext, "cpu", log)
        bound = {f"{m}.{f}" if len(mods) > 1 else f for m, mod in mods.items() for f, v in vars(mod).items()
                 if callable(v) and not isinstance(v, type)}
        called = {f"{m}.{f}" if len(mods) > 1 else f for m, mod in mods.items() for f in log if f in vars(mod)}
        print(f"bound functions called: {len(called)}/{len(bound)}"
              + (f"; never: {', '.join(sorted(bound - called))}" if bound - called else ""))
    width = max(map(len, res), default=10)
    for name, r in res.items():
        print(f"{name:{width}}  {r['status']:8} {r['detail']}")
    counts: dict = {}
    for r in res.values():
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"{len(res)} cases: {counts}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0 if "error" not in counts else 1


if __name__ == "__main__":
    sys.exit(main())
