"""``vado verify`` on a PyTorch extension: each CUDAExtension compiled as ``torch.utils.cpp_extension`` builds it on ROCm.

A torch extension's sources keep their CUDA spelling (:mod:`vado.port.torch_ext`); a ROCm build of PyTorch
hipifies them at build time and compiles them against its own headers. verify's ordinary path compiles the
tree as it is and finds neither ``torch/extension.h`` nor ``Python.h``: every unit would fail. Here, for a tree
that :func:`vado.port.torch_ext.is_torch_extension` recognises (what ``vado port --torch-extension auto``
asks):

- the CUDAExtensions are derived from ``setup.py`` as a ROCm build evaluates it (:mod:`vado.build.torch_setup`:
  read, never run); what it could not decide is carried to the report;
- a copy of the tree is hipified per extension as ``cpp_extension`` does (:func:`vado.verify.torch_ext.hipify_sources`,
  PyTorch's own hipify from the assembled headers' wheel);
- each source becomes a unit of verify's own compile (:func:`vado.verify.compile.verify_compile`: confined,
  cached, per arch, front end or code generation): a ``.hip`` file as HIP with ``COMMON_HIPCC_FLAGS +
  COMMON_HIP_FLAGS -fno-gpu-rdc`` and the extension's ``nvcc`` flags (``--offload-arch`` is verify's, per arch),
  a host ``.cpp`` as C++ with ``COMMON_HIP_FLAGS`` and its ``cxx`` flags, both against the assembled ROCm headers
  (:mod:`vado.verify.torch_headers`) and this Python's include directory, which the confined compiler is shown;
- diagnostics in the hipified copy are mapped back to the project's file and line (:func:`finish`).

Without assembled headers nothing of the extensions is compiled: each source gets a record with status
``not-checked`` (never a pass, never a compile failure) naming the command that assembles them. The copy
lives in the cache directory at a path fixed per project, so that verify's result cache can hit on a run
whose files did not change (the copy is removed when the run ends); a lock keeps two runs on one project
apart. Nothing here prints.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from vado.build.model import IncludePath, Language, TranslationUnit
from vado.errors import VadoError
from vado.model import Evidence, Target
from vado.model.text import decode_source
from vado.safefs import copy_ignore
from vado.verify.compile import CompileReport, Unit
from vado.verify.mapping import Diagnostic, DiagnosticMapper, line_map
from vado.verify.torch_ext import COMMON_HIP_FLAGS, COMMON_HIPCC_FLAGS, hipify_sources
from vado.verify.torch_headers import find_assembled

#: The torch version whose ROCm headers the compile uses (the one :mod:`vado.build.torch_setup` assumes).
TORCH_VERSION = "2.13.0"

#: Status of a record whose unit could not be compiled here (no headers, hipify failed): neither pass nor fail.
NOT_CHECKED = "not-checked"

_TORCH_INCLUDE = re.compile(rb"#\s*include\s*[<\"](?:torch/|ATen/|c10/|pybind11/|Python\.h)")
_DEFINES = ("-DTORCH_API_INCLUDE_EXTENSION_H", "-D_GLIBCXX_USE_CXX11_ABI=1")
#: Macros every extension unit gets here (a unit read from elsewhere may name them too: given once).
_OWN_DEFINES = frozenset({"TORCH_EXTENSION_NAME", "TORCH_API_INCLUDE_EXTENSION_H", "_GLIBCXX_USE_CXX11_ABI"})


def assemble_command(torch_version: str = TORCH_VERSION, cache_root: Path | None = None) -> str:
    """The command that assembles the ROCm headers this module looks for."""
    where = f" --cache-root {cache_root}" if cache_root is not None else ""
    return (f"python3 tools/torch_rocm_headers.py --wheel torch-{torch_version}+cpu-…whl "
            f"--pytorch-src DIR{where}  (DIR: PyTorch v{torch_version}'s c10/cuda/impl/cuda_cmake_macros.h.in and "
            "aten/src/ATen/cuda/CUDAConfig.h.in; see docs/torch-extensions.md)")


@dataclass
class TorchPlan:
    """What verify does with a torch extension: ``units`` to compile (their subjects are the project's
    paths), ``covered`` the project files (absolute) the extensions compile, ``not_checked`` records for the
    sources that cannot be compiled here, ``info`` the report's section. :meth:`release` frees the copy."""

    root: Path
    units: list[Unit] = field(default_factory=list)
    covered: set[str] = field(default_factory=set)
    not_checked: list[Evidence] = field(default_factory=list)
    info: dict = field(default_factory=dict)
    work: Path | None = None
    #: hipified path (relative to the copy) -> the project's path, for mapping diagnostics back
    origin: dict[str, str] = field(default_factory=dict)
    #: ``-I`` words of PyTorch's assembled headers and of Python's, after each unit's own flags (cpp_extension's
    #: order): given to the compile as verify's extra flags, so that the confined compiler is shown them
    #: read-only and they count, like ROCm's headers, as the toolchain's, not as the unit's own files.
    flags: list[str] = field(default_factory=list)
    _lock: object = None
    _tmp: object = None

    def release(self) -> None:
        """Remove the copy and drop its lock. verify's result cache keeps the digests of the files a compile
        read, not the files: the next run's copy, made at the same path, is what they are compared with."""
        if self.work is not None and self._lock is not None:
            shutil.rmtree(self.work, ignore_errors=True)
        if self._lock is not None:
            import fcntl

            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _work_area(plan: TorchPlan, use_cache: bool) -> Path:
    """The directory the hipified copy goes into: fixed per project in the cache (locked), else temporary."""
    from vado.knowledge._cache import cache_dir

    base = cache_dir() if use_cache else None
    if base is not None:
        try:
            import fcntl

            area = base / "torch-ext-work" / hashlib.sha256(str(plan.root).encode()).hexdigest()[:16]
            area.mkdir(parents=True, exist_ok=True)
            lock = open(area / "lock", "w")
            fcntl.flock(lock, fcntl.LOCK_EX)
            plan._lock = lock
            return area
        except OSError:
            pass
    plan._tmp = tempfile.TemporaryDirectory(prefix="vado-torch-verify-")
    return Path(plan._tmp.name)


def _python_include() -> str:
    return sysconfig.get_paths()["include"]


def prepare(root: str | os.PathLike, *, target: Target, archs: Sequence[str], use_cache: bool = True,
            cache_root: Path | None = None, torch_version: str = TORCH_VERSION) -> TorchPlan | str:
    """Derive the extensions of the tree at ``root``, hipify a copy and make their units (``archs``: the run's
    offload targets, for the records of units not checked), or why not (a sentence) where ``setup.py`` yields
    no CUDAExtension on ROCm: the ordinary path then stays. ``cache_root`` is where the assembled headers are
    looked for (default: vado's cache). The caller calls :meth:`TorchPlan.release` when done."""
    from vado.build.torch_setup import derive_config

    plan = TorchPlan(Path(root).resolve())
    cfg, d = derive_config(plan.root)
    rocm = {e.name: e for e in d.cuda_extensions("rocm")} if cfg is not None else {}
    if cfg is None or not rocm:
        return (d.skipped or "its setup.py makes no CUDAExtension on a ROCm build of PyTorch") + \
            " (setup.py read, not run): its sources take verify's ordinary path"
    if not any(e.sources for e in rocm.values()):
        # An extension whose sources are not known without running the package (load(sources=<read from the
        # environment>)) compiles nothing as derived: the sources that include PyTorch's headers are then compiled
        # the torch way as not derived (prepare_implied), never left out as no unit of the build.
        return (f"its CUDAExtensions' sources are not known without running it ({', '.join(sorted(rocm))}: sources "
                "undecidable)") + " (setup.py read, not run): its sources take verify's ordinary path"
    exts = [e for e in cfg["extensions"] if e["full_name"] in rocm]
    headers = _with_headers(plan, torch_version, cache_root, {
        "extensions": [e["full_name"] for e in exts],
        "undecidable": [u for u in cfg["derived"]["undecidable"] if not u.get("platforms") or "rocm" in u["platforms"]],
        "assumptions": cfg["derived"]["assumptions"],
        "left_out": list(cfg["derived"].get("not_cuda_extensions", [])),
    })
    _make_units(plan, exts, {name: e.sources for name, e in rocm.items()}, cfg, headers, target, archs, use_cache)
    return plan


def _with_headers(plan: TorchPlan, torch_version: str, cache_root: Path | None, info: dict):
    """Fill ``plan.info`` (``info`` between the setup/version and the headers' entries) and ``plan.flags`` from the
    assembled headers, or say how to assemble them; the headers found (None where none)."""
    headers = find_assembled(torch_version, cache_root)
    py_inc = _python_include()
    plan.info = {"setup": str(plan.root / "setup.py"), "torch_version": torch_version, **info,
                 "headers": str(headers.root) if headers else None, "python_include": py_inc}
    if headers is None:
        plan.info["not_checked"] = (f"no assembled torch {torch_version} ROCm headers"
                                    + (f" under {cache_root}" if cache_root is not None else "")
                                    + f"; assemble them: {assemble_command(torch_version, cache_root)}")
    else:
        plan.flags = [f"-I{p}" for p in headers.include_dirs()] + [f"-I{py_inc}"]
    return headers


def prepare_implied(root: str | os.PathLike, units: Sequence[Unit], why: str, *, target: Target,
                    archs: Sequence[str], use_cache: bool = True, cache_root: Path | None = None,
                    torch_version: str = TORCH_VERSION) -> TorchPlan | None:
    """A torch extension whose ``setup.py`` yields no CUDAExtension here (``why``: it builds the extension in a
    second setup file, with ``load()`` at import time, through a function vado does not follow): the ordinary
    ``units`` that include PyTorch's or Python's headers, and its CUDA sources, are compiled the torch way all the
    same — hipified in a copy, against the assembled ROCm headers — with the include directories and macros vado's
    build model read for them, not the extension's own flags (the report says so). Compiled bare they would fail
    on ``torch/extension.h`` or ``cuda_runtime.h``, a failure of verify, not of the port. None when no unit
    includes those headers."""
    plan = TorchPlan(Path(root).resolve())
    # Its CUDA sources too, torch's headers or not: cpp_extension hipifies every source of an extension, and a
    # .cu of a torch extension's tree is one (a kernel file whose header includes <cuda_runtime.h> only).
    reads = [_reads_torch(plan.root, u) for u in units]
    if not any(reads):
        return None
    mine = [u for u, r in zip(units, reads) if r or u.device]
    origins = sorted({u.tu.origin for u in mine if u.tu is not None and u.tu.origin} or {"the sources found"})
    headers = _with_headers(plan, torch_version, cache_root, {
        "extensions": [], "implied": why, "implied_from": origins, "undecidable": [], "assumptions": [],
        "left_out": []})
    # One extension per set of flags (a guessed build gives every unit the same): hipified in one run, as
    # cpp_extension hipifies an extension's sources together (a header they share is hipified once).
    groups: dict[tuple, list[str]] = {}
    for u in mine:
        inc = []
        for i in (u.tu.includes if u.tu else ()):
            try:
                inc.append(Path(i.path).resolve().relative_to(plan.root).as_posix())
            except (ValueError, OSError):
                continue  # outside the project: not shown to the confined compiler either
        defines = [d for d in (u.tu.defines if u.tu else ()) if d.split("=", 1)[0] not in _OWN_DEFINES]
        origin = u.tu.origin if u.tu and u.tu.origin else "found"
        groups.setdefault((tuple(inc), tuple(defines), origin), []).append(u.path)
    exts, rocm, settings = [], {}, {}
    for n, ((inc, defines, origin), paths) in enumerate(groups.items()):
        name = "ext" if len(groups) == 1 else f"ext{n}"
        ext = {"name": name, "full_name": f"{name} (not derived)", "line": "?",
               "origin": f"torch extension source, not derived ({origin}; ROCm, hipified)"}
        exts.append(ext)
        rocm[ext["full_name"]] = tuple(paths)
        settings[ext["full_name"]] = {"include_dirs": list(inc), "flag_include_dirs": [], "nvcc": [], "cxx": [],
                                      "defines": list(defines)}
    _make_units(plan, exts, rocm, None, headers, target, archs, use_cache, settings=settings)
    return plan


def _make_units(plan: TorchPlan, exts, sources_of: dict, cfg, headers, target: Target, archs, use_cache: bool,
                settings: dict | None = None) -> None:
    """Hipify each extension's sources (``sources_of``: full name -> its sources on ROCm) in the copy and make a
    unit of each (a ``not-checked`` record where not); the plan is released if that fails."""
    try:
        _units(plan, exts, sources_of, cfg, headers, target, archs, use_cache, settings)
    except BaseException:
        plan.release()
        raise


def _units(plan: TorchPlan, exts, sources_of: dict, cfg, headers, target: Target, archs, use_cache: bool,
           settings: dict | None) -> None:
    from vado.build.torch_setup import arch_free, extension_settings

    work = None
    seen: dict[str, int] = {}
    for ext in exts:
        st = settings[ext["full_name"]] if settings is not None else extension_settings(cfg, ext, "rocm")
        listed = list(sources_of[ext["full_name"]])
        sources = [s for s in listed if _inside(s) and (plan.root / s).is_file() and not (plan.root / s).is_symlink()]
        for s in listed:
            if _inside(s):
                plan.covered.add(str((plan.root / s).resolve()))
        why = plan.info.get("not_checked", "")
        mapping: dict[str, str] = {}
        if not why and work is None:
            try:
                work = _copy(plan, use_cache)
            except (OSError, shutil.Error) as exc:
                plan.info["not_checked"] = why = f"the project could not be copied for hipify: {str(exc)[:300]}"
            plan.work = work
        if not why and sources:
            try:
                mapping = hipify_sources(work, sources, headers, st["include_dirs"])
            except VadoError as exc:
                why = f"hipify of {ext['full_name']} failed: {exc.message}"
        for s in listed:
            n = seen.get(s, 0)
            seen[s] = n + 1
            subject = s if n == 0 else f"{s} [{ext['name']}]"
            if why or s not in mapping:
                because = why or f"{s} is not a file inside the project"
                sides = archs if s.endswith((".cu", ".hip")) else ["host"]
                plan.not_checked += [_not_checked(subject, target, because, a) for a in sides]
                continue
            hip = mapping[s]
            plan.origin[hip] = s
            plan.units.append(_unit(subject, work, hip, ext, st, arch_free))


def _copy(plan: TorchPlan, use_cache: bool) -> Path:
    """A fresh copy of the project in the work area (the user's tree is never written)."""
    area = _work_area(plan, use_cache)
    work = area / "src"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(plan.root, work, symlinks=True, ignore=copy_ignore)
    return work


def _inside(source: str) -> bool:
    return not os.path.isabs(source) and not os.path.normpath(source).startswith("..")


def _not_checked(subject: str, target: Target, why: str, arch: str) -> Evidence:
    return Evidence(kind="compile", subject=subject, passed=False, target=target.name, arch=arch,
                    toolchain="hipcc", detail={"status": NOT_CHECKED, "why_not_checked": why,
                                               "flags_source": "torch extension (setup.py, ROCm)"})


def _macros(words: Sequence[str]) -> tuple[tuple[str, str], ...]:
    return tuple((w[1], w[2:]) for w in words)


def _unit(subject: str, work: Path, hip: str, ext: dict, st: dict, arch_free) -> Unit:
    """One source of an extension as verify's unit, with the words cpp_extension gives it on ROCm."""
    path = work / hip
    device = path.suffix == ".hip"
    flag_incs = [f"-I{work / d}" for d in st["flag_include_dirs"]]
    includes = [IncludePath(str(work / d)) for d in st["include_dirs"] if d not in st["flag_include_dirs"]]
    if device:
        macros = _macros([*COMMON_HIPCC_FLAGS, *(f for f in COMMON_HIP_FLAGS if f.startswith("-D"))])
        options = ["-fPIC", "-fno-gpu-rdc"]
        extra = arch_free(st["nvcc"])
    else:
        macros = _macros([f for f in COMMON_HIP_FLAGS if f.startswith("-D")])
        options = ["-fPIC"]
        extra = list(st["cxx"])
    macros += _macros([f"-D{d}" for d in st["defines"]] + [f"-DTORCH_EXTENSION_NAME={ext['name']}", *_DEFINES])
    tu = TranslationUnit(source=str(path), directory=str(work), language=Language.HIP if device else Language.CXX,
                         macros=macros, includes=tuple(includes), options=("-std=c++17", *options, *extra, *flag_incs),
                         origin=ext.get("origin") or
                         f"torch extension {ext['full_name']} (setup.py:{ext.get('line', '?')}, ROCm, hipified)",
                         target=ext["name"])
    return Unit(subject, path, device, tu)


def _reads_torch(root: Path, unit: Unit) -> bool:
    """Whether the unit or a project header it includes (followed through) includes PyTorch's or Python's headers."""
    from vado.verify.codegen import project_files

    search = [str(unit.abs_path.parent), *((i.path for i in unit.tu.includes) if unit.tu else ())]
    for f in project_files((), str(unit.abs_path), [str(root)], search)[:500]:
        try:
            with open(f, "rb") as fh:
                if _TORCH_INCLUDE.search(fh.read(200_000)):
                    return True
        except OSError:
            continue
    return False


def split_ordinary(plan: TorchPlan, units: Sequence[Unit]) -> tuple[list[Unit], list[tuple[str, str]]]:
    """The ordinary units that stay on verify's ordinary path, and those left out with why: a source an
    extension compiles (checked by the torch path), or one that includes PyTorch's or Python's headers and
    no CUDAExtension compiles (a CppExtension's, a helper's: compiling it bare would be a false failure)."""
    keep: list[Unit] = []
    skipped: list[tuple[str, str]] = []
    for u in units:
        if str(u.abs_path.resolve()) in plan.covered:
            continue
        if _reads_torch(plan.root, u):
            skipped.append((u.path, "not compiled by the build: it includes PyTorch/Python headers and no "
                                    "CUDAExtension of setup.py (ROCm) compiles it"))
            continue
        keep.append(u)
    return keep, skipped


def merge_reports(parts: Sequence[CompileReport]) -> CompileReport:
    """One report of the compiles of ordinary units and of the extension's (run apart: their extra flags differ)."""
    first = parts[0]
    return dataclasses.replace(
        first, evidence=tuple(e for p in parts for e in p.evidence), units=tuple(u for p in parts for u in p.units),
        unsupported={k: v for p in parts for k, v in p.unsupported.items()},
        skipped=tuple(x for p in parts for x in p.skipped), cache_hits=sum(p.cache_hits for p in parts))


def finish(comp: CompileReport | None, plan: TorchPlan, *, archs: Sequence[str], original=None,
           target: Target) -> CompileReport | None:
    """``comp`` with the torch units' diagnostics mapped back to the project's files and lines, the
    ``not-checked`` records added, and the copy's path left out of the compiler output."""
    if comp is None and not plan.not_checked:
        return comp
    mapper = DiagnosticMapper(plan.root, original, [target])
    subjects = {u.path for u in plan.units}
    work = str(plan.work) + os.sep if plan.work else None
    evidence = []
    for e in (comp.evidence if comp else ()):
        if e.subject in subjects and work:
            diags = [_back(d, plan, mapper) for d in e.detail.get("diagnostics", [])]
            detail = {**e.detail, "diagnostics": diags, "hipified_copy": plan.work and str(plan.work)}
            e = dataclasses.replace(e, detail=detail, stderr=e.stderr.replace(work, "<hipified copy>/"),
                                    stdout=e.stdout.replace(work, "<hipified copy>/"))
        evidence.append(e)
    evidence += plan.not_checked
    units = list(comp.units if comp else ())
    units += [Unit(s, plan.root / s, False) for s in dict.fromkeys(e.subject for e in plan.not_checked)]
    if comp is None:
        return CompileReport(tuple(evidence), tuple(units), tuple(archs))
    return dataclasses.replace(comp, evidence=tuple(evidence), units=tuple(units))


def _back(d: dict, plan: TorchPlan, mapper: DiagnosticMapper) -> dict:
    """A diagnostic in the hipified copy as one of the project's file and line (``hipified`` keeps where)."""
    assert plan.work is not None
    p = Path(d.get("file", ""))
    if not p.is_absolute():
        p = plan.work / p
    try:
        rel = p.resolve().relative_to(plan.work.resolve()).as_posix()
    except (ValueError, OSError):
        return d
    src = plan.origin.get(rel, rel)
    orig = plan.root / src
    line, exact = int(d.get("line") or 0), False
    try:
        lm = line_map(decode_source(orig.read_bytes()), decode_source(p.read_bytes()))
        if 1 <= line <= len(lm):
            line, exact = lm[line - 1]
    except OSError:
        return d
    mapped = mapper.map(Diagnostic(src, line, int(d.get("col") or 0), str(d.get("severity", "error")),
                                   str(d.get("message", ""))), plan.root).to_json()
    mapped["hipified"] = f"{rel}:{d.get('line')}" + ("" if exact else " (nearest project line)")
    return mapped


def render(info: dict | None) -> list[str]:
    """The report's lines on the torch extension: the derived extensions, headers, Python headers, what was
    not decided and what was not checked."""
    if not info:
        return []
    if info.get("skipped"):
        return [f"torch extension: {info['skipped']}"]
    if info.get("implied"):
        out = [f"torch extension: NOT DERIVED: {info['implied']}",
               "torch extension: its CUDA sources and those that include PyTorch's or Python's headers are hipified "
               "in a copy and "
               "compiled against PyTorch's ROCm headers with the include directories and macros read from "
               f"{'; '.join(info['implied_from'])}, not the extension's own flags: a failure may come from a flag "
               "its build passes (--flag adds one)"]
    else:
        out = [f"torch extension: CUDAExtensions DERIVED from {info['setup']} (read, not run; as a ROCm build of "
               f"PyTorch evaluates it): {', '.join(info['extensions']) or 'none'}",
               "torch extension: each hipified in a copy as torch.utils.cpp_extension does on ROCm; .hip compiled "
               "with its hipcc flags, host .cpp as C++"]
    if info.get("headers"):
        out.append(f"torch extension: against PyTorch {info['torch_version']}'s ROCm headers assembled at {info['headers']}")
    out.append(f"torch extension: Python headers from {info['python_include']} (sysconfig; shown read-only to the "
               "confined compiler)")
    for u in info.get("undecidable", [])[:12]:
        plats = f" [{', '.join(u['platforms'])}]" if u.get("platforms") else ""
        out.append(f"torch extension: undecidable {u['at']}{plats}: {u['what']}")
    if len(info.get("undecidable", [])) > 12:
        out.append(f"torch extension: … {len(info['undecidable']) - 12} more undecidable items (--format json)")
    if info.get("left_out"):
        out.append(f"torch extension: not CUDAExtensions, not compiled here: {', '.join(info['left_out'])}")
    if info.get("not_checked"):
        out.append(f"torch extension: NOT CHECKED: {info['not_checked']}")
    return out
