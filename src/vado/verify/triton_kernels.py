"""Finding Triton kernels in Python files and compiling them for AMD targets.

Discovery reads Python with :mod:`ast` (never imports it): a kernel is a
top-level function decorated with ``@triton.jit``, ``@jit`` (imported from
triton) or ``@triton.jit(...)``.

``triton.compile`` needs each parameter's type and each constexpr's value.
They come from, in order:

1. a sidecar file ``<module>.triton.json`` beside the module::

       {"add_kernel": {"signature": {"x_ptr": "*fp16", "n": "i32"},
                       "constexprs": {"BLOCK": 1024}}}

2. an annotation comment on the line(s) just above the decorator::

       # vado-triton: x_ptr=*fp16, n=i64, BLOCK=256

   an entry whose value is a Triton type (``*fp32``, ``i32``, ``fp16`` …) is a
   parameter type; any other value (a number, ``True``) is a constexpr value;
3. derivation for simple kernels: a parameter annotated ``tl.constexpr`` with
   a default takes it; a name ending in ``ptr`` (``x_ptr``, ``out_ptr``) is
   ``*fp32``; sizes, counts and strides (``n``, ``N``, ``M``, ``K``,
   ``n_elements``, ``numel``, ``*_size``, ``stride*``, ``num_*``) are ``i32``;
   Python hints ``int``/``float``/``bool`` give ``i32``/``fp32``/``i1``.

A kernel with a parameter none of these covers is skipped with the names it
lacks (a skip, not a pass and not a failure).

Compiling happens in a child interpreter (``$VADO_PYTHON`` or this one) that
runs :mod:`vado.verify._triton_driver` on modules vado *builds* into a scratch
directory (:mod:`vado.verify.triton_module`): no line of the tree's Python runs,
not its imports, decorators, defaults or module code. A kernel whose parts are not
literals or ``triton.language`` names is refused with the reason (a skip that says
so), not compiled. The driver runs confined (:mod:`vado.verify.sandbox`): it sees
the interpreter, Triton, the scratch directory, and no network. Triton's cache is
pointed at the scratch directory, so each run really compiles.
"""

from __future__ import annotations

import ast
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from vado.model import Evidence
from vado.model.text import decode_source
from vado.verify.sandbox import COMPILE_LIMITS, Confinement, Limits, python_dirs, run_limited
from vado.verify.triton_module import build_module
from vado.verify.toolchains import TRITON_ARCHS, triton_info, triton_python

_TRITON_TYPE = re.compile(r"^(?:\*(?:k)?)?(?:i1|i8|i16|i32|i64|u1|u8|u16|u32|u64|fp8e4nv|fp8e5|fp8e4b8|fp8e5b16|fp16|bf16|fp32|fp64)$")
_INT_NAME = re.compile(
    r"^(?:n|N|M|K|L|B|H|D|numel|n_elements|n_elem|size|length|count|"
    r"n_\w+|num_\w+|\w+_size|\w*stride\w*|\w+_len|\w+_numel|[A-Z]_?\w*_SIZE)$"
)
_PTR_NAME = re.compile(r"(?:^|_)ptr$|^ptr_|Ptr$", re.IGNORECASE)
_ANNOT = re.compile(r"#\s*vado-triton:\s*(?P<spec>.*)$")


@dataclass(frozen=True)
class TritonKernel:
    """A discovered kernel: where it is, its parameters and (when known) its compile spec."""

    file: str
    name: str
    line: int
    params: tuple[str, ...]
    signature: dict = field(default_factory=dict, hash=False, compare=False)
    constexprs: dict = field(default_factory=dict, hash=False, compare=False)
    source: str = ""  # sidecar | annotation | derived
    missing: tuple[str, ...] = ()

    @property
    def subject(self) -> str:
        """``path.py::kernel``."""
        return f"{self.file}::{self.name}"


def _is_jit(dec: ast.expr, jit_names: set[str]) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(target, ast.Attribute) and target.attr == "jit":
        return isinstance(target.value, ast.Name) and target.value.id in ("triton",)
    return isinstance(target, ast.Name) and target.id in jit_names


def _jit_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "triton":
            for a in node.names:
                if a.name == "jit":
                    names.add(a.asname or "jit")
    return names


def _is_constexpr(ann: ast.expr | None) -> bool:
    if ann is None:
        return False
    text = ast.unparse(ann)
    return text.endswith("constexpr")


def _parse_annotation(lines: list[str], first_line: int) -> dict[str, str] | None:
    """``name=value`` pairs from ``# vado-triton:`` comments right above line ``first_line`` (1-based)."""
    spec: dict[str, str] = {}
    found = False
    k = first_line - 2
    while k >= 0 and lines[k].strip().startswith("#"):
        m = _ANNOT.search(lines[k])
        if m:
            found = True
            for part in m.group("spec").split(","):
                if "=" in part:
                    key, val = part.split("=", 1)
                    spec[key.strip()] = val.strip()
        k -= 1
    return spec if found else None


def _value(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _derive(fn: ast.FunctionDef) -> tuple[dict, dict, list[str]]:
    sig: dict = {}
    consts: dict = {}
    missing: list[str] = []
    args = fn.args.args
    defaults = [None] * (len(args) - len(fn.args.defaults)) + list(fn.args.defaults)
    for a, d in zip(args, defaults):
        if _is_constexpr(a.annotation):
            sig[a.arg] = "constexpr"
            if d is not None:
                try:
                    consts[a.arg] = ast.literal_eval(d)
                except ValueError:
                    missing.append(a.arg)
            else:
                missing.append(a.arg)
            continue
        hint = ast.unparse(a.annotation) if a.annotation is not None else ""
        if hint in ("int",):
            sig[a.arg] = "i32"
        elif hint in ("float",):
            sig[a.arg] = "fp32"
        elif hint in ("bool",):
            sig[a.arg] = "i1"
        elif _PTR_NAME.search(a.arg):
            sig[a.arg] = "*fp32"
        elif _INT_NAME.match(a.arg):
            sig[a.arg] = "i32"
        else:
            missing.append(a.arg)
    return sig, consts, missing


def _spec_for(fn: ast.FunctionDef, annotation: dict[str, str] | None, sidecar: dict | None) -> tuple[dict, dict, str, list[str]]:
    params = [a.arg for a in fn.args.args]
    sig, consts, missing = _derive(fn)
    source = "derived"
    if annotation is not None:
        source = "annotation"
        for key, val in annotation.items():
            if key not in params:
                continue
            if _TRITON_TYPE.match(val):
                sig[key] = val
            else:
                sig[key] = "constexpr"
                consts[key] = _value(val)
    if sidecar is not None:
        source = "sidecar"
        for key, val in dict(sidecar.get("signature", {})).items():
            sig[key] = str(val)
        for key, val in dict(sidecar.get("constexprs", {})).items():
            sig[key] = "constexpr"
            consts[key] = val
    missing = [p for p in params if p not in sig or (sig[p] == "constexpr" and p not in consts)]
    ordered = {p: sig[p] for p in params if p in sig}
    return ordered, consts, source, missing


def kernels_in(path: str, text: str, sidecar: dict | None = None) -> list[TritonKernel]:
    """Triton kernels in one Python file (``path`` names it in results; ``sidecar`` its .triton.json)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    jit_names = _jit_names(tree)
    lines = text.splitlines()
    sidecar = sidecar or {}
    out = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not any(_is_jit(d, jit_names) for d in node.decorator_list):
            continue
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        ann = _parse_annotation(lines, first)
        sc = sidecar.get(node.name) if isinstance(sidecar.get(node.name), dict) else None
        sig, consts, source, missing = _spec_for(node, ann, sc)
        out.append(TritonKernel(path, node.name, node.lineno, tuple(a.arg for a in node.args.args),
                                sig, consts, source, tuple(missing)))
    return out


def _sidecar(py: Path) -> dict:
    side = py.with_suffix(".triton.json")
    if not side.is_file():
        return {}
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def discover_kernels(root: str | os.PathLike) -> list[TritonKernel]:
    """Triton kernels in every Python file under ``root`` (or in the file ``root``)."""
    from vado.scan.classify import FileKind
    from vado.scan.discover import walk

    plan = walk(root)
    out: list[TritonKernel] = []
    for f in plan.files:
        if f.kind is not FileKind.PYTHON:
            continue
        try:
            text = decode_source(f.abs_path.read_bytes())
        except OSError:
            continue
        if "jit" not in text:
            continue
        out += kernels_in(f.path, text, _sidecar(f.abs_path))
    return out


def extract_module(text: str) -> str:
    """The module the driver runs for a kernel file: built by vado, never copied
    (:func:`vado.verify.triton_module.build_module`); refused kernels are left out."""
    return build_module(text).source


@dataclass(frozen=True)
class TritonReport:
    """Triton compile evidence, the kernels skipped (and why), and the Triton that did it."""

    evidence: tuple[Evidence, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    version: str = ""
    problem: str = ""

    @property
    def passed(self) -> bool:
        """True when every compile passed (and there was no tool problem)."""
        return not self.problem and all(e.passed for e in self.evidence)


def compile_kernels(
    root: str | os.PathLike,
    archs: Sequence[str],
    *,
    kernels: Sequence[TritonKernel] | None = None,
    python: str | None = None,
    limits: Limits = COMPILE_LIMITS,
) -> TritonReport:
    """Compile every Triton kernel under ``root`` for each AMD arch in ``archs``.

    Archs Triton has no wave size for here (not in :data:`TRITON_ARCHS`) are
    compiled with wave 64 when their name starts with ``gfx9`` and 32 otherwise.
    Returns a report with a ``problem`` (and no evidence) when Triton or its AMD
    backend is unavailable.
    """
    root_path = Path(root)
    kernels = list(kernels) if kernels is not None else discover_kernels(root_path)
    if not kernels:
        return TritonReport()
    python = python or triton_python()
    info = triton_info(python)
    if not info.found or not info.amd_backend:
        why = info.problem or ("Triton is not installed" if not info.found else "its AMD backend does not import")
        return TritonReport(skipped=tuple((k.subject, why) for k in kernels), problem=why)
    ready = [k for k in kernels if not k.missing]
    skipped = [(k.subject, "no type or value for " + ", ".join(k.missing) + " (add a `# vado-triton:` comment or a sidecar .triton.json)")
               for k in kernels if k.missing]
    if not ready:
        return TritonReport(skipped=tuple(skipped), version=info.version)
    targets = [[a, TRITON_ARCHS.get(a, 64 if a.startswith("gfx9") else 32)] for a in archs]
    base = root_path if root_path.is_dir() else root_path.parent
    with tempfile.TemporaryDirectory(prefix="vado-triton-") as scratch:
        sp = Path(scratch)
        modules = []
        by_file: dict[str, list[TritonKernel]] = {}
        for k in ready:
            by_file.setdefault(k.file, []).append(k)
        for i, (file, ks) in enumerate(sorted(by_file.items())):
            src = base / file if root_path.is_dir() else root_path
            try:
                built = build_module(decode_source(src.read_bytes()))
            except (OSError, SyntaxError, ValueError, RecursionError) as exc:
                skipped += [(k.subject, f"cannot read the file: {exc}") for k in ks]
                continue
            skipped += [(k.subject, f"refused: {built.refused[k.name]} (vado runs no code from the tree)")
                        for k in ks if k.name in built.refused]
            ks = [k for k in ks if k.name not in built.refused]
            if not ks:
                continue
            mod_path = sp / f"vado_triton_mod_{i}.py"
            mod_path.write_text(built.source, encoding="utf-8")
            modules.append({"name": mod_path.stem, "path": str(mod_path), "file": file,
                            "kernels": [{"name": k.name, "signature": k.signature, "constexprs": k.constexprs,
                                         "reads": built.chains.get(k.name, [])} for k in ks]})
        if not modules:
            return TritonReport(skipped=tuple(skipped), version=info.version)
        job = sp / "job.json"
        job.write_text(json.dumps({"modules": modules, "targets": targets,
                                   "checker": str(Path(__file__).with_name("triton_module.py"))}), encoding="utf-8")
        env = dict(os.environ)
        env.update(TRITON_CACHE_DIR=str(sp / "cache"), HOME=str(sp), TRITON_HOME=str(sp),
                   TRITON_DEFAULT_FP_FUSION=env.get("TRITON_DEFAULT_FP_FUSION", "1"))
        env.pop("PYTHONSTARTUP", None)
        driver = Path(__file__).with_name("_triton_driver.py")
        # The driver sees the interpreter, Triton and the scratch directory: not the tree, not the network.
        view = Confinement(read_only=(*python_dirs(python), str(driver.parent)), writable=(scratch,))
        out = run_limited([python, str(driver), str(job)], cwd=scratch, env=env, limits=limits, confine=view)
    try:
        data = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        why = f"the Triton driver failed ({out.why() or 'no output'}): {out.stderr.strip()[-500:]}"
        return TritonReport(skipped=tuple(skipped), version=info.version, problem=why)
    if "error" in data:
        return TritonReport(skipped=tuple(skipped), version=info.version, problem=data["error"])
    spec = {(k.file, k.name): k for k in ready}
    evidence = []
    for r in data["results"]:
        k = spec[(r["file"], r["kernel"])]
        if r.get("refused"):
            if (k.subject, r["refused"]) not in skipped:
                skipped.append((k.subject, f"refused: {r['refused']} (vado runs no code from the tree)"))
            continue
        detail = {"status": "pass" if r["ok"] else "fail", "signature": k.signature, "constexprs": k.constexprs,
                  "signature_source": k.source, "line": k.line}
        if r["ok"]:
            detail["hsaco_bytes"] = r.get("hsaco_bytes", 0)
        evidence.append(Evidence(
            kind="compile", subject=k.subject, passed=bool(r["ok"]),
            command=(python, "triton.compile", f"GPUTarget('hip', '{r['arch']}', {dict(targets)[r['arch']]})"),
            returncode=0 if r["ok"] else 1, stderr=r.get("error", ""), duration_s=float(r.get("seconds", 0.0)),
            target="triton-hip", arch=r["arch"], toolchain="triton", toolchain_version=data.get("triton", info.version),
            detail=detail,
        ))
    return TritonReport(tuple(evidence), tuple(skipped), data.get("triton", info.version))
