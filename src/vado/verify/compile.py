"""Compiling what the port's build compiles, with its flags, with hipcc, per offload target.

The units and their flags come from the build model (:mod:`vado.build`): a compile database, CMake's
File API, a Make dry run, a ``setup.py`` read statically, or, when none can be read, a guess that
says it is one (``detail["guessed"]``). Each unit is checked on its own, in its build directory, with the build's include paths in the
build's order and nothing put before them (a project's ``dev/unistd.h`` does not shadow the system
header unless the build says so), and with objects and dependency files in a scratch directory:
nothing lands in the user's tree. The compiler runs confined (:func:`vado.verify.sandbox.compiler_confinement`):
it reads the tree, the toolchain and what the build points it at (the unit's include directories and
forced includes, read-only), and writes only its scratch directory.

- CUDA and HIP units are compiled as HIP (``-x hip``) with ``--offload-arch=ARCH`` for each arch (all
  archs in one run; a failure again per arch);
- C units as C (``-x c``) and C++ units as C++ (``-x c++``) once (arch ``host``), by the same hipcc.

What runs of each compile is ``codegen``'s choice (:mod:`vado.verify.codegen`): by default the front
end (``-fsyntax-only``: host and every arch) for every unit, and the build's full compile (``-c``,
code generation included, the object in the scratch directory) for a unit with inline assembly, target
builtins or ``-Werror``; ``detail["checked"]`` says which (``front end`` or ``code generation``). A
front end may read the unit's opening system headers precompiled (:mod:`vado.verify.pch`).

An arch that the toolchain cannot build at all (its probe kernel fails, see
:func:`vado.verify.toolchains.probe_archs`) is not compiled: every unit gets an evidence record with
status ``unsupported-arch`` and ``passed=False``. It is never reported as a pass.

Results are cached (:mod:`vado.verify.compile_cache`) by compiler, command and the digests of the
source and every header the compiler read; compiles run in parallel (default: one per CPU).

Every record is a :class:`vado.model.Evidence` with ``kind="compile"``; ``detail`` holds ``status``
(``pass``, ``fail``, ``timeout``, ``unsupported-arch``), ``flags_source`` (where the unit's flags
came from), ``guessed``, ``cached``, and, on failure, ``diagnostics`` (each error with its original
CUDA line and finding code, :mod:`vado.verify.mapping`) and ``reason`` when the compiler printed no
diagnostic (what failed: a compiler that could not start, a signal, the time limit).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from vado.build.model import BuildConfig, Language, TranslationUnit
from vado.errors import ToolchainError, UsageError
from vado.model import Evidence, Target
from vado.model.text import decode_source
from vado.scan.classify import FileKind
from vado.verify.codegen import CODE_GENERATION, FRONT_END, MODES, UNCHECKED, TextScan, flag_reasons, project_files
from vado.verify.compile_cache import CachedResult, CompileCache, compiler_identity, parse_depfile
from vado.verify.hipcc_direct import direct_command
from vado.verify.mapping import DiagnosticMapper, parse_diagnostics
from vado.verify.pch import Prefixes, leading_includes
from vado.verify.sandbox import COMPILE_LIMITS, Limits, Outcome, compiler_confinement, run_limited
from vado.verify.toolchains import ArchProbe, HipToolchain, hip_env, probe_archs

_DEVICE_KINDS = {FileKind.CUDA_SOURCE, FileKind.HIP_SOURCE}
_HOST_KINDS = {FileKind.CXX_SOURCE}
_HIP_MARKERS = re.compile(r"#\s*include\s*[<\"]hip/|__global__|__device__|<<<|hipLaunchKernelGGL")


@dataclass(frozen=True)
class Unit:
    """A translation unit: ``path`` relative to the port root (the evidence's subject); ``device`` when
    compiled as HIP per arch; ``tu`` the build model's unit (its flags), None for a bare file."""

    path: str
    abs_path: Path
    device: bool
    tu: TranslationUnit | None = None


@dataclass(frozen=True)
class CompileReport:
    """All compile evidence of one ``verify`` run.

    ``unsupported`` lists archs the toolchain cannot build (with the reason); ``units`` the units
    compiled; ``skipped`` sources not compiled and why (among them the tree's sources the build does
    not compile); ``build`` the build config the units came from; ``cache_hits`` the records read
    from the result cache.
    """

    evidence: tuple[Evidence, ...]
    units: tuple[Unit, ...]
    archs: tuple[str, ...]
    unsupported: dict[str, str] = field(default_factory=dict)
    skipped: tuple[tuple[str, str], ...] = ()
    build: BuildConfig | None = None
    cache_hits: int = 0

    @property
    def passed(self) -> bool:
        """True when every record passed and there was something to compile."""
        return bool(self.evidence) and all(e.passed for e in self.evidence)

    def counts(self) -> dict[str, int]:
        """Records per status."""
        out: dict[str, int] = {}
        for e in self.evidence:
            s = e.detail.get("status", "pass" if e.passed else "fail")
            out[s] = out.get(s, 0) + 1
        return out


def find_units(root: str | os.PathLike) -> tuple[list[Unit], list[tuple[str, str]]]:
    """Every C/C++/CUDA/HIP source under ``root`` (respecting .gitignore) as a unit, read without a
    build (C++ files that use HIP are device units), and files skipped with a reason."""
    from vado.scan.discover import walk

    plan = walk(root)
    units: list[Unit] = []
    for f in plan.files:
        if f.kind in _DEVICE_KINDS:
            units.append(Unit(f.path, f.abs_path, True))
        elif f.kind in _HOST_KINDS:
            try:
                text = decode_source(f.abs_path.read_bytes())
            except OSError:
                continue
            units.append(Unit(f.path, f.abs_path, bool(_HIP_MARKERS.search(text))))
    skipped = [(s.path, f"{s.reason.value}: {s.detail}".rstrip(": ")) for s in plan.skips]
    return units, skipped


def units_of(config: BuildConfig, root: str | os.PathLike) -> list[Unit]:
    """The units of a build config, with subjects relative to ``root`` (a source compiled twice with
    different flags gets its build target or a number after its path)."""
    root = str(Path(root).resolve())
    out: list[Unit] = []
    seen: dict[str, int] = {}
    for tu in config.units:
        rel = tu.relpath(root)
        n = seen.get(rel, 0)
        seen[rel] = n + 1
        subject = rel if n == 0 else f"{rel} [{tu.target or n + 1}]"
        out.append(Unit(subject, Path(tu.source), tu.language.device, tu))
    return out


def not_built(config: BuildConfig, root: str | os.PathLike) -> list[tuple[str, str]]:
    """The tree's C/C++/CUDA/HIP sources that the build does not compile, with that reason."""
    if config.guessed:
        return []
    built = {os.path.normpath(tu.source) for tu in config.units}
    units, _ = find_units(root)
    return [(u.path, f"not compiled by the build ({config.reader})") for u in units
            if os.path.normpath(str(u.abs_path.resolve())) not in built]


def _bare_tu(root: Path, unit: Unit) -> TranslationUnit:
    from vado.build.guess import guessed_unit

    lang = Language.HIP if unit.device else (Language.C if unit.abs_path.suffix == ".c" else Language.CXX)
    return guessed_unit(root, unit.abs_path, lang)


def compile_command(tc: HipToolchain, unit: Unit, arch: str | Sequence[str], tu: TranslationUnit, obj: Path,
                    extra: Sequence[str] = (), depfile: Path | None = None, *, front_end: bool = False) -> list[str]:
    """The hipcc command for one unit and arch, or several archs at once (``host`` for a C or C++
    unit): the unit's own flags in the build's order, then ``extra``; the dependency file
    (``-MD -MF``) when asked. ``front_end``: ``-fsyntax-only`` (the host's and each arch's front end,
    no code generation, no object) in place of ``-c … -o OBJ``."""
    cmd = [tc.path]
    if tu.language.device:
        cmd += [f"--offload-arch={a}" for a in ([arch] if isinstance(arch, str) else arch)] + ["-x", "hip"]
    else:
        cmd += ["-x", "c" if tu.language is Language.C else "c++"]
    cmd += tu.flag_args()
    cmd += list(extra)
    if depfile is not None:
        cmd += ["-MD", "-MF", str(depfile)]
    cmd += ["-fsyntax-only", tu.source] if front_end else ["-c", tu.source, "-o", str(obj)]
    return cmd


#: The driver's note that ``-fsyntax-only`` made hipcc's own ``--hip-link`` unused: vado's flag, not the
#: build's, so it is left out of the record.
_FRONT_END_NOISE = re.compile(r"^\S*clang\S*: warning: argument unused during compilation: '--hip-link' "
                              r"\[-Wunused-command-line-argument\]\n?", re.M)


#: Lines of compiler output that say why a compile ended without a located diagnostic.
_WHY = (
    (re.compile(r"unable to execute command: (.*)"), "the compiler could not run a sub-command: {0}"),
    (re.compile(r"(clang[^:]*: error: .*command failed due to signal.*)"), "the compiler crashed: {0}"),
    (re.compile(r"^(.*\berror\b: .*)$", re.M), "{0}"),
    (re.compile(r"^(.*No such file or directory.*)$", re.M), "{0}"),
    # hipcc's own line when the clang it ran failed: name the program, not only the words.
    (re.compile(r"failed to execute:\s*(\S+)"), "hipcc ran {0}, which failed without a file:line diagnostic"),
)


def failure_reason(out: Outcome, limits: Limits) -> str:
    """What failed when a compile printed no ``file:line: error``: the time limit, a signal (and what
    the compiler said about it), or its last words."""
    if out.timed_out:
        return f"timed out after {limits.timeout_s:g}s (--timeout raises the limit)"
    text = (out.stderr + "\n" + out.stdout).strip()
    said = ""
    for rx, fmt in _WHY:
        m = rx.search(text)
        if m:
            said = fmt.format(m.group(1).strip())[:300]
            break
    if not said and text:
        said = text.splitlines()[-1][:300]
    why = out.why()
    if out.returncode < 0:
        hint = " (out of memory? the CPU-time limit?)" if why.endswith(("SIGKILL", "SIGXCPU")) else ""
        return f"{why}{hint}" + (f": {said}" if said else "")
    return f"{why}: {said}" if said else why


def _read_deps(dep: Path) -> list[str]:
    try:
        return parse_depfile(dep.read_text(encoding="utf-8", errors="surrogateescape"))
    except OSError:
        return []


def _resolve_deps(deps: Sequence[str], cwd: str, tu: TranslationUnit,
                  real: Callable[[str], str] = lambda p: p) -> tuple[list[str], list[str]]:
    """Files read (absolute, as the compiler saw them) and, for each header not found, the paths where
    it would have been. ``real`` maps a compiler path to this machine's (a chroot's system headers)."""
    found: list[str] = []
    absent: list[str] = []
    for d in deps:
        p = d if os.path.isabs(d) else os.path.join(cwd, d)
        if os.path.exists(real(p)):
            found.append(p)
            continue
        if os.path.isabs(d):
            absent.append(d)
            continue
        dirs = [os.path.dirname(tu.source), cwd, *(i.path for i in tu.includes)]
        absent += [os.path.normpath(os.path.join(x, d)) for x in dict.fromkeys(dirs)]
    return found, absent


def _compile_dir(compiler: str, base: Path, tu: TranslationUnit) -> str:
    """The directory ``tu`` is compiled in: the build's (``tu.directory``), except with vado's ROCm chroot
    wrapper, which shows the compiler only its working directory and the directories its arguments name.
    There a unit of a directory inside the tree compiles from the tree's root, so that an
    ``#include "../other/x.h"`` finds what the build's own make (run from the root) finds; the build
    model's paths are absolute (sources, ``-I``, ``-include``), so the directory changes nothing else."""
    here = tu.directory if os.path.isdir(tu.directory) else str(base)
    if _chroot_wrapper(compiler):
        root = os.path.normpath(str(base))
        if here == root or here.startswith(root + os.sep):
            return root
    return here


@functools.lru_cache(maxsize=8)
def _chroot_wrapper(compiler: str) -> bool:
    from vado.verify.toolchains import chroot_of

    return bool(chroot_of(compiler))


def _visible(base: Path, tu: TranslationUnit, cwd: str) -> list[str]:
    """What a confined compile of ``tu`` may read besides the toolchain: the tree, and what the build
    itself points the compiler at (its directory, the unit, its include directories and forced
    includes), so that it finds what the build finds."""
    dirs = [str(base), cwd, os.path.dirname(tu.source)]
    dirs += [i.path for i in tu.includes if os.path.isdir(i.path)]
    dirs += [os.path.dirname(f) for f in tu.forced_includes]
    return list(dict.fromkeys(d for d in dirs if d and os.path.isdir(d)))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def verify_compile(
    root: str | os.PathLike,
    tc: HipToolchain,
    archs: Sequence[str],
    *,
    target: Target,
    original: str | os.PathLike | None = None,
    extra_flags: Sequence[str] = (),
    limits: Limits = COMPILE_LIMITS,
    jobs: int = 0,
    probes: dict[str, ArchProbe] | None = None,
    use_cache: bool = True,
    units: Sequence[Unit] | None = None,
    progress: Callable[[Evidence], None] | None = None,
    build: BuildConfig | None = None,
    cache: CompileCache | None = None,
    codegen: str = "auto",
) -> CompileReport:
    """Compile every unit of the port at ``root`` for every arch in ``archs``.

    Units: ``units`` when given (bare files get guessed flags), else those of ``build``, else the
    build read from what the tree already holds (:func:`vado.build.read_build` in ``compile-db``
    mode: nothing of the project runs). ``original`` is the CUDA tree the port came from (for
    mapping errors back to its lines). ``probes`` may carry arch probes already made. ``jobs``: 0
    is one compile per CPU. ``use_cache`` reads and keeps results (``cache`` to pass one).
    ``codegen`` (:mod:`vado.verify.codegen`): ``auto`` runs the front end for every unit (host and each
    arch) and the build's full compile where only code generation can tell (inline assembly, target
    builtins, ``-Werror``); ``all`` the full compile for every unit; ``none`` the front end only.
    Raises :class:`UsageError` when ``root`` does not exist, no arch is asked for, or ``codegen`` is
    none of those.
    """
    root_path = Path(root)
    if not root_path.exists():
        raise UsageError(f"{root} does not exist", "verify reads a ported tree", "pass the directory `vado port -o` wrote")
    archs = list(dict.fromkeys(a.strip() for a in archs if a.strip()))
    if not archs:
        raise UsageError("no offload target", "--arch was empty", "pass --arch gfx90a,gfx942")
    if codegen not in MODES:
        raise UsageError(f"unknown codegen mode {codegen!r}", "verify's code generation is auto, all or none",
                         "pass --codegen auto, all or none")
    text_scan = TextScan()
    base = (root_path if root_path.is_dir() else root_path.parent).resolve()
    skipped: list[tuple[str, str]] = []
    if units is not None:
        found = [u if u.tu is not None else Unit(u.path, u.abs_path, u.device, _bare_tu(base, u)) for u in units]
    else:
        if build is None:
            from vado.build import BuildOptions, read_build

            build = read_build(root_path, BuildOptions(mode="compile-db"))
        found = units_of(build, base)
        skipped = not_built(build, base)
    probes = probes or probe_archs(tc, archs, use_cache=use_cache)
    unsupported = {a: (probes[a].reason or "the probe kernel does not build") for a in archs if not probes[a].ok}
    mapper = DiagnosticMapper(base, original, [target])
    version = f"HIP {tc.hip_version}, clang {tc.clang_version}"
    if cache is None:
        cache = CompileCache(chroot=tc.chroot, enabled=use_cache)
    identity = compiler_identity(tc.path, tc.hip_version, tc.clang_version, tc.chroot)
    jobs_list: list[tuple[Unit, tuple[str, ...]]] = []
    evidence: list[Evidence] = []
    for unit in found:
        todo: list[str] = []
        for arch in (archs if unit.device else ["host"]):
            if arch in unsupported:
                ev = Evidence(
                    kind="compile", subject=unit.path, passed=False, target=target.name, arch=arch,
                    toolchain="hipcc", toolchain_version=version,
                    detail={"status": "unsupported-arch", "reason": unsupported[arch]},
                )
                evidence.append(ev)
                if progress:
                    progress(ev)
            else:
                todo.append(arch)
        if todo:
            jobs_list.append((unit, tuple(todo)))
    # The longest compiles first, so that the last worker does not start the biggest unit.
    jobs_list.sort(key=lambda j: -_size(j[0].abs_path) * len(j[1]))

    with tempfile.TemporaryDirectory(prefix="vado-verify-") as scratch:
        scratch_path = Path(scratch)
        counter = iter(range(1 << 30))
        # The plan below counts only the units whose front end will run (a cache miss): a prefix that enough
        # of them share is built for the first (vado.verify.pch).
        prefixes = Prefixes(scratch_path, planned_runs=True)

        def runnable(cmd: list[str]) -> list[str]:
            """What runs for a hipcc command: with vado's ROCm chroot wrapper, the clang++ command hipcc
            would run, where the toolchain has shown that it is the same (vado.verify.hipcc_direct)."""
            return (direct_command(tc.path, tc.chroot, cmd) if tc.chroot else None) or cmd

        def cache_key(tu: TranslationUnit, cmd: Sequence[str], obj: Path, dep: Path, front_end: bool) -> str:
            cwd = _compile_dir(tc.path, base, tu)
            keyed = [("<obj>" if w == str(obj) else "<dep>" if w == str(dep) else w) for w in cmd]
            return cache.key(identity, [cwd, FRONT_END if front_end else CODE_GENERATION, *keyed], tu.source)

        def run_one(tu: TranslationUnit, unit: Unit, arch: str | tuple[str, ...], front_end: bool = False,
                    precompiled: bool = False) -> tuple[Outcome, bool, tuple[str, ...]]:
            """One compiler run (a cached result when its files are unchanged), and the files it read;
            ``precompiled``: a front end may use a precompiled prefix."""
            tag = arch if isinstance(arch, str) else "+".join(arch)
            stem = f"{next(counter)}-" + os.path.basename(unit.abs_path)
            obj = scratch_path / tag / (stem + ".o")
            dep = scratch_path / tag / (stem + ".d")
            obj.parent.mkdir(parents=True, exist_ok=True)
            cmd = compile_command(tc, unit, arch, tu, obj, extra_flags, dep, front_end=front_end)
            cwd = _compile_dir(tc.path, base, tu)
            key = cache_key(tu, cmd, obj, dep, front_end)
            hit = cache.get(key)
            if hit is not None:
                return Outcome(tuple(cmd), hit.returncode, hit.stdout, hit.stderr, hit.duration_s,
                               confinement=hit.confinement), True, hit.deps
            # The compiler sees the toolchain, a scratch directory and what the build reads (read-only): a
            # source that names another file outside (#include, #embed) finds nothing (vado.verify.sandbox).
            view = compiler_confinement(tc.path, read_only=_visible(base, tu, cwd), writable=[scratch],
                                        flags=extra_flags)
            pre = prefix_for(tu, unit, arch, cwd) if front_end and precompiled else None
            out = None
            if pre is not None:
                # The same front end with the unit's opening headers precompiled (vado.verify.pch); only a
                # pass is taken from it.
                fast = [*cmd[:-2], "-include", pre[0], *cmd[-2:]]
                try:
                    out = run_limited(runnable(fast), cwd=cwd, env=hip_env(), limits=limits, confine=view)
                except ToolchainError:
                    out = None
                if out is not None and not out.ok:
                    out = None
            try:
                if out is None:
                    out = run_limited(runnable(cmd), cwd=cwd, env=hip_env(), limits=limits, confine=view)
                    if pre is not None and out.ok:
                        prefixes.refuse(pre[0])
                    pre = None
            except ToolchainError as exc:
                return Outcome(tuple(cmd), 127, "", f"{exc.what}: {exc.why}", 0.0), False, ()
            if front_end:
                out = dataclasses.replace(out, stderr=_FRONT_END_NOISE.sub("", out.stderr))
            found: list[str] = []
            if not out.timed_out and out.returncode >= 0 and out.returncode != 127:
                deps = _read_deps(dep)
                if pre is not None:
                    # The precompiled header's files in place of the header itself (a scratch file).
                    deps = [d for d in deps if not d.startswith(scratch)] + list(pre[1])
                if not deps and not out.ok:
                    # A failed HIP compile writes no dependency file: ask the preprocessor (-MG lists
                    # the headers it did not find instead of stopping at the first).
                    scan = [*cmd[:cmd.index("-MD")], "-M", "-MG", "-MF", str(dep), tu.source]
                    try:
                        if run_limited(scan, cwd=cwd, env=hip_env(), limits=limits, confine=view).ok:
                            deps = _read_deps(dep)
                    except ToolchainError:
                        deps = []
                found, absent = _resolve_deps(deps, cwd, tu, cache.digests.real)
                if found:
                    # -MD lists the host side's headers only: a header read by a device side alone
                    # (under __HIP_DEVICE_COMPILE__ or an arch test) is kept by the project files the
                    # unit's includes name, followed through, so that editing it is never a cache hit.
                    home = tu.directory if os.path.isdir(tu.directory) else str(base)
                    seen = set(found)
                    found += [p for p in project_files(found, tu.source, _visible(base, tu, home),
                                                       [home, *(i.path for i in tu.includes)])
                              if p not in seen and not seen.add(p)]
                    cache.put(key, CachedResult(out.returncode, out.stdout, out.stderr, out.duration_s,
                                                out.confinement), found, absent)
            return out, False, tuple(found)

        def build_prefix(header: Path, flags: Sequence[str], cwd: str, sides: tuple[str, ...],
                         visible: Sequence[str]) -> tuple[bool, list[str]]:
            """Precompile ``header`` for the host and each arch in ``sides`` into ``header.gch/``, confined
            like a compile; (ok, the files it read). A prefix that reads a file of the project is refused."""
            gch = Path(str(header) + ".gch")
            read: list[str] = []
            offload = [f"--offload-arch={a}" for a in sides]
            runs = [("host", [*offload, "--offload-host-only"])] + [(a, [f"--offload-arch={a}", "--offload-device-only"])
                                                                      for a in sides]
            view = compiler_confinement(tc.path, read_only=[str(base)], writable=[scratch], flags=extra_flags)
            for side, how in runs:
                dep = gch / f"{side}.d"
                cmd = [tc.path, *how, "-x", "hip", *flags, "-MD", "-MF", str(dep), "-fsyntax-only",
                       "-Xclang", "-emit-pch", "-Xclang", "-o", "-Xclang", str(gch / f"{side}.pch"), str(header)]
                try:
                    if not run_limited(runnable(cmd), cwd=cwd, env=hip_env(), limits=limits, confine=view).ok:
                        return False, []
                except ToolchainError:
                    return False, []
                found, absent = _resolve_deps(_read_deps(dep), cwd, unit_tu_stub, cache.digests.real)
                if absent:
                    return False, []
                read += [d for d in found if not d.startswith(scratch)]
            roots = [os.path.join(os.path.normpath(d), "") for d in visible]
            if any(os.path.normpath(d).startswith(r) for d in read for r in roots):
                return False, []
            return True, list(dict.fromkeys(read))

        unit_tu_stub = TranslationUnit(source=str(base / "prefix.h"), directory=str(base), language=Language.HIP)

        def prefix_for(tu: TranslationUnit, unit: Unit, arch: str | tuple[str, ...],
                       cwd: str) -> tuple[str, tuple[str, ...]] | None:
            """The precompiled prefix a device unit's front end may use (vado.verify.pch), or None."""
            flags = [*tu.flag_args(), *extra_flags]
            if not tu.language.device or tu.forced_includes or any(
                    w.startswith(("-include", "-imacros", "--include")) for w in flags):
                return None
            sides = (arch,) if isinstance(arch, str) else tuple(arch)
            visible = [str(base), *(i.path for i in tu.includes)]
            headers = prefixes.prefix(opening(unit), flags, sides, cwd)
            if headers is None:
                return None
            return prefixes.use(headers, flags, sides, cwd,
                                lambda header: build_prefix(header, flags, cwd, sides, visible))

        def opening(unit: Unit) -> tuple[str, ...]:
            try:
                return leading_includes(decode_source(unit.abs_path.read_bytes()))
            except OSError:
                return ()

        def code_generation_reasons(tu: TranslationUnit) -> list[str]:
            """Why ``auto`` sends a unit to the full compile before any run: -Werror, or what its own files
            show (their includes followed through)."""
            cwd = tu.directory if os.path.isdir(tu.directory) else str(base)
            return flag_reasons([*tu.flag_args(), *extra_flags]) or text_scan.reasons(
                project_files((), tu.source, _visible(base, tu, cwd), [cwd, *(i.path for i in tu.includes)]))

        def front_end_runs(unit: Unit, tu: TranslationUnit, todo: tuple[str, ...]) -> bool:
            """Whether the unit's front end (all its archs in one run) will run: it is not sent to the full
            compile alone, and its result is not in the cache."""
            if codegen == "all" or (codegen == "auto" and code_generation_reasons(tu)):
                return False
            arch = todo if len(todo) > 1 else todo[0]
            obj, dep = scratch_path / "plan.o", scratch_path / "plan.d"
            cmd = compile_command(tc, unit, arch, tu, obj, extra_flags, dep, front_end=True)
            return cache.get(cache_key(tu, cmd, obj, dep, True), count=False) is None

        for unit, todo in jobs_list:
            if unit.tu is not None and unit.tu.language.device and front_end_runs(unit, unit.tu, todo):
                prefixes.plan(opening(unit), [*unit.tu.flag_args(), *extra_flags], todo,
                              _compile_dir(tc.path, base, unit.tu))

        def record(unit: Unit, tu: TranslationUnit, arch: str, out: Outcome, cached: bool,
                   together: tuple[str, ...] = (), *, checked: str, why: str) -> Evidence:
            status = "timeout" if out.timed_out else ("pass" if out.ok else "fail")
            origin = tu.origin[len("guess: "):] if tu.origin.startswith("guess: ") else tu.origin
            detail: dict = {"status": status, "flags_source": origin, "guessed": tu.origin.startswith("guess"),
                            "cached": cached, "language": tu.language.value, "confinement": out.confinement,
                            "checked": checked, "codegen_mode": codegen, "codegen_reason": why}
            if checked == FRONT_END:
                detail["unchecked"] = UNCHECKED
                # Whether the unit's opening headers came precompiled (vado.verify.pch): same result.
                detail["precompiled_prefix"] = any(w.startswith(str(scratch_path / "pch")) for w in out.command)
            if together:
                detail["compiled_with"] = list(together)
            cwd = _compile_dir(tc.path, base, tu)
            if not out.ok:
                diags = [mapper.map(d, Path(cwd)) for d in parse_diagnostics(out.stderr)]
                detail["diagnostics"] = [d.to_json() for d in diags]
                if not diags:
                    detail["reason"] = failure_reason(out, limits)
                elif out.timed_out:
                    detail["reason"] = f"timed out after {limits.timeout_s:g}s"
            return Evidence(
                kind="compile", subject=unit.path, passed=out.ok, command=out.command,
                returncode=out.returncode, stdout=out.stdout, stderr=out.stderr,
                duration_s=out.duration_s, target=target.name, arch=arch,
                toolchain="hipcc", toolchain_version=version, detail=detail,
            )

        def stage(unit: Unit, tu: TranslationUnit, todo: tuple[str, ...], front_end: bool,
                  why: str) -> tuple[list[Evidence], tuple[str, ...]]:
            """One stage for every arch of a unit: all archs in one hipcc run (they share the host side; a
            pass is a pass for each), a failure again per arch, so that each error is told with its arch."""
            checked = FRONT_END if front_end else CODE_GENERATION
            if len(todo) > 1:
                out, cached, deps = run_one(tu, unit, todo, front_end, True)
                if out.ok or out.timed_out:
                    return [record(unit, tu, a, out, cached, todo, checked=checked, why=why) for a in todo], deps
            evs = []
            deps = ()
            for a in todo:
                # One arch asked for: it may use a prefix; a failure's per-arch runs do not (vado.verify.pch).
                out, cached, deps = run_one(tu, unit, a, front_end, len(todo) == 1)
                evs.append(record(unit, tu, a, out, cached, checked=checked, why=why))
            return evs, deps

        def one(item: tuple[Unit, tuple[str, ...]]) -> list[Evidence]:
            unit, todo = item
            tu = unit.tu
            assert tu is not None
            if codegen == "all":
                return stage(unit, tu, todo, False, "--codegen all")[0]
            cwd = tu.directory if os.path.isdir(tu.directory) else str(base)
            search = [cwd, *(i.path for i in tu.includes)]
            visible = _visible(base, tu, cwd)
            if codegen == "auto":
                # What the unit's own files show decides before any run (their includes followed
                # through); a -Werror unit or one with inline asm goes to the full compile alone.
                flagged = code_generation_reasons(tu)
                if flagged:
                    return stage(unit, tu, todo, False, "; ".join(flagged))[0]
            evs, deps = stage(unit, tu, todo, True, "")
            if codegen == "none" or not all(e.passed for e in evs):
                why = "--codegen none" if codegen == "none" else "the front end failed"
                return [dataclasses.replace(e, detail={**e.detail, "codegen_reason": why}) for e in evs]
            # The headers the front end read (a path the include lines alone did not resolve).
            reasons = text_scan.reasons(project_files(deps, tu.source, visible, search))
            if reasons:
                return stage(unit, tu, todo, False, "; ".join(reasons))[0]
            why = "not needed: no inline assembly, target builtins or -Werror in the unit's own files"
            return [dataclasses.replace(e, detail={**e.detail, "codegen_reason": why}) for e in evs]

        workers = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
        # Threads suffice: each job waits on a child process.
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            for evs in pool.map(one, jobs_list):
                for ev in evs:
                    evidence.append(ev)
                    if progress:
                        progress(ev)
    order = {u.path: i for i, u in enumerate(found)}
    arch_order = {a: i for i, a in enumerate(["host", *archs])}
    evidence.sort(key=lambda e: (order.get(e.subject, 0), arch_order.get(e.arch, 99)))
    return CompileReport(tuple(evidence), tuple(found), tuple(archs), unsupported, tuple(skipped), build,
                         sum(1 for e in evidence if e.detail.get("cached")))
