"""``vado verify`` as a library function: compile, compile Triton kernels, run differentially.

:func:`verify` does what the command does and returns a :class:`VerifyResult`;
:func:`render_text` and :func:`render_json` are pure functions of it.

Outcome (the command's exit code): ``passed`` when every record passed and
at least one thing was proved. A run step that was skipped for want of a GPU is
not a failure unless ``require_gpu`` is set; archs the toolchain cannot build
are failures (status ``unsupported-arch``), never passes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from vado.build.model import BuildConfig
from vado.build.read import BuildOptions
from vado.errors import ToolchainError, UsageError
from vado.model import Evidence, Target
from vado.verify.compare import Tolerance
from vado.verify.codegen import CODE_GENERATION, FRONT_END, UNCHECKED
from vado.verify.compile import CompileReport, verify_compile
from vado.verify.differential import DEFAULT_SHAPES, DifferentialReport, differential
from vado.verify.grouping import group_errors, render_groups
from vado.verify.sandbox import COMPILE_LIMITS, RUN_LIMITS, Limits
from vado.verify.toolchains import (
    HIPCC_TIP,
    NVCC_TIP,
    find_gpus,
    find_hipcc,
    find_nvcc,
    hip_toolchain,
    nvcc_toolchain,
    require_hip_toolchain,
)
from vado.verify.triton_kernels import TritonReport, compile_kernels, discover_kernels


@dataclass(frozen=True)
class RunSpec:
    """The differential part of ``vado verify``: how to run, what to compare, where the binaries come from."""

    template: str
    mode: str = "stdout"
    tolerance: Tolerance = Tolerance()
    shapes: tuple[int | None, ...] = DEFAULT_SHAPES
    original_bin: str | None = None
    port_bin: str | None = None
    oracle_bin: str | None = None
    oracle_factor: float = 2.0
    inputs: str | None = None
    platform: str = "auto"  # amd | nvidia | auto
    nvcc_arch: str = "native"
    hip_include: str | None = None
    require_gpu: bool = False
    ignore_lines: str | None = None
    #: Wave size of the port on an NVIDIA GPU: 32 (CUDA warps) or 64 (AMD wave64 emulated); None: 32.
    wave: int | None = None
    #: Runs of the original per round (2: tokens that differ between them are masked, see differential).
    original_runs: int = 2
    #: A torch extension's run (``--run torch:CALLS.py``): the calls file and the extension's description
    #: (:mod:`vado.verify.torch_ext_device`); the template is then ``torch``.
    torch_calls: str | None = None
    torch_config: str | None = None


@dataclass(frozen=True)
class VerifyResult:
    """Everything one ``vado verify`` proved or failed to prove."""

    out: str
    target: str
    toolchain: str = ""
    compile: CompileReport | None = None
    triton: TritonReport | None = None
    builds: tuple[Evidence, ...] = ()
    differential: DifferentialReport | None = None
    run_skipped: str = ""
    run_required: bool = False
    notes: tuple[str, ...] = field(default=())
    build: BuildConfig | None = None
    #: A torch extension's run: where its description came from (``--torch-config`` or derived from the
    #: original's setup.py: :func:`torch_config_for`), with what could not be decided.
    torch_config: dict | None = None
    #: A torch extension's compile (:mod:`vado.verify.torch_verify`): its derived extensions, headers, what was
    #: not decided or not checked.
    torch_extension: dict | None = None

    @property
    def evidence(self) -> tuple[Evidence, ...]:
        """All records, in the order they were made."""
        ev: list[Evidence] = []
        if self.compile:
            ev += self.compile.evidence
        if self.triton:
            ev += self.triton.evidence
        ev += self.builds
        if self.differential:
            ev += self.differential.evidence
        return tuple(ev)

    @property
    def passed(self) -> bool:
        """Every record passed, something was proved, and no required step was skipped."""
        if self.run_skipped and self.run_required:
            return False
        if self.triton is not None and self.triton.problem:
            return False
        ev = self.evidence
        if not ev:
            # Only a skipped run step (no GPU): nothing failed, and skipping is allowed.
            return bool(self.run_skipped)
        return all(e.passed for e in ev)


def _gpu_vendor() -> tuple[str, str]:
    """('nvidia'|'amd'|'', reason when none)."""
    gpus, notes = find_gpus(tool_dirs=())
    if gpus:
        return gpus[0].vendor, ""
    why = "; ".join(notes) if notes else "no nvidia-smi, amd-smi or rocm-smi on PATH"
    return "", f"no GPU found ({why})"


def verify(
    out: str | os.PathLike,
    *,
    archs: Sequence[str],
    target: Target,
    original: str | os.PathLike | None = None,
    hipcc: str | None = None,
    nvcc: str | None = None,
    python: str | None = None,
    do_compile: bool = True,
    do_triton: bool = True,
    run: RunSpec | None = None,
    extra_flags: Sequence[str] = (),
    timeout_s: float | None = None,
    jobs: int = 0,
    use_cache: bool = True,
    allow_old_toolchain: bool = False,
    progress: Callable[[int, int], None] | None = None,
    build: BuildOptions = BuildOptions(),
    codegen: str = "auto",
    torch_headers: str | os.PathLike | None = None,
) -> VerifyResult:
    """Verify the port at ``out`` (see the module docstring).

    ``progress(done, total)`` is called as steps complete: one step per compile
    record (a unit on one arch), one for the Triton kernels, one per build and
    one per round of the differential run. ``total`` is known once the units
    are found and does not change; a step that is skipped (the run step without
    a GPU) counts as done, and the last call is ``(total, total)``.

    The hipcc is chosen by version for ``target``
    (:func:`vado.verify.toolchains.require_hip_toolchain`): ``hipcc`` names one,
    and a toolchain older than the target is refused unless
    ``allow_old_toolchain`` (then a warning leads the notes).

    The units are what the port's build compiles (:func:`vado.build.read_build` with ``build``; its
    default reads only a compile database the tree holds, and runs nothing of the project); what the
    build reader ran is in ``result.build.ran`` and a guess is marked ``result.build.guessed``.
    ``jobs`` compiles run at once (0: one per CPU); ``use_cache`` also keeps and reuses compile
    results (:mod:`vado.verify.compile_cache`). ``codegen`` (:mod:`vado.verify.codegen`): ``auto``
    runs the front end (host and each arch) for every unit and the build's full compile where only
    code generation can tell; ``all`` the full compile for every unit; ``none`` the front end only.

    A tree that builds a PyTorch extension (:func:`vado.port.torch_ext.is_torch_extension`) has its
    CUDAExtensions compiled as ``cpp_extension`` builds them on ROCm (:mod:`vado.verify.torch_verify`), against
    the ROCm headers assembled under ``torch_headers`` (default: vado's cache); without them those units are
    ``not-checked``, neither passed nor failed.

    Raises :class:`ToolchainError` when hipcc is needed (units to compile, or a
    port to build for AMD) and cannot be found or run, or is older than the
    target (see above), and :class:`UsageError`
    for a missing tree or a run spec that cannot be carried out.
    """
    out_path = Path(out)
    if not out_path.exists():
        raise UsageError(f"{out} does not exist", "verify reads a ported tree", "pass the directory `vado port -o` wrote")
    climits = COMPILE_LIMITS if timeout_s is None else Limits(timeout_s, COMPILE_LIMITS.cpu_s, COMPILE_LIMITS.memory_mb, COMPILE_LIMITS.file_mb)
    rlimits = RUN_LIMITS if timeout_s is None else Limits(timeout_s, RUN_LIMITS.cpu_s, RUN_LIMITS.memory_mb, RUN_LIMITS.file_mb)
    tc = None
    label = ""
    comp = None
    notes: list[str] = []
    units: list = []
    config: BuildConfig | None = None
    tplan, torch_info, torch_skipped = None, None, []
    if do_compile:
        config = _read_build(out_path, build, target, hipcc, allow_old_toolchain, archs)
        from vado.verify.compile import units_of

        units = units_of(config, out_path if out_path.is_dir() else out_path.parent)
        tplan, torch_info, torch_skipped = _torch_plan(out_path, units, target, archs, use_cache, torch_headers)
        if tplan is not None:
            # The setup.py reader's own note (no torch headers here) is answered by the torch path.
            config = dataclasses.replace(config, notes=tuple(n for n in config.notes if "torch is not installed" not in n))
            left = {s_ for s_, _ in torch_skipped}
            units = [u for u in units if str(u.abs_path.resolve()) not in tplan.covered and u.path not in left]
            units += tplan.units
        if units and run is not None and not find_hipcc(hipcc):
            # On a GPU machine without ROCm the differential run is the proof: the AMD compile is skipped.
            notes.append("hipcc not found: the per-arch compile was skipped (install ROCm for it)")
            units = []
    kernels = discover_kernels(out_path) if do_triton else []
    steps = _Steps(progress, _compile_steps(units, archs) + (1 if kernels else 0) + (_run_steps(run) if run else 0)
                   + (len(tplan.not_checked) if tplan else 0))
    try:
        comp, tc, label = _compile(out_path, units, tplan, torch_skipped, config, notes, steps, archs=archs,
                                   target=target, original=original, hipcc=hipcc, extra_flags=extra_flags,
                                   limits=climits, jobs=jobs, use_cache=use_cache,
                                   allow_old_toolchain=allow_old_toolchain, codegen=codegen, do_compile=do_compile)
    finally:
        if tplan is not None:
            tplan.release()
    tri = None
    if kernels:
        tri = compile_kernels(out_path, archs, kernels=kernels, python=python, limits=climits)
        steps.advance()
    builds: list[Evidence] = []
    diff = None
    skipped = ""
    torch_cfg: dict | None = None
    if run is not None and run.torch_calls:
        torch_cfg = {}
        skipped, builds = _torch_run(out_path, original, run, nvcc, python, climits, steps, torch_cfg)
    elif run is not None:
        diff, skipped, builds = _differential(out_path, original, run, hipcc, nvcc, climits, rlimits, archs, steps)
    steps.finish()
    return VerifyResult(str(out_path), target.name, label, comp, tri, tuple(builds), diff, skipped,
                        bool(run and run.require_gpu), tuple(notes), config, torch_cfg, torch_info)


def _torch_plan(out_path: Path, units, target: Target, archs, use_cache: bool, headers_root):
    """``(plan, report section, ordinary units left out)`` for a torch extension's tree (:mod:`vado.verify.torch_verify`);
    ``(None, None, [])`` for any other tree, ``(None, {"skipped": why}, [])`` where setup.py yields no CUDAExtension."""
    from vado.port.torch_ext import is_torch_extension

    if not out_path.is_dir() or not is_torch_extension(out_path):
        return None, None, []
    from vado.verify import torch_verify

    cache_root = Path(headers_root) if headers_root else None
    got = torch_verify.prepare(out_path, target=target, archs=archs, use_cache=use_cache, cache_root=cache_root)
    if isinstance(got, str):
        implied = torch_verify.prepare_implied(out_path, units, got.removesuffix(
            " (setup.py read, not run): its sources take verify's ordinary path") + " (setup.py read, not run)",
            target=target, archs=archs, use_cache=use_cache, cache_root=cache_root)
        if implied is None:
            return None, {"skipped": got}, []
        got = implied
    return got, got.info, torch_verify.split_ordinary(got, units)[1]


def _compile(out_path: Path, units, tplan, torch_skipped, config, notes: list[str], steps, *, archs, target: Target,
             original, hipcc, extra_flags, limits, jobs, use_cache, allow_old_toolchain, codegen, do_compile):
    """verify's compile step: ``(report, toolchain, its label)``; a torch extension's units mapped back
    (:func:`vado.verify.torch_verify.finish`)."""
    comp = tc = None
    label = ""
    if do_compile:
        if units:
            choice = require_hip_toolchain(target, hipcc, allow_older=allow_old_toolchain)
            tc = choice.toolchain
            label = tc.label + (f" [{tc.flavour}: {tc.chroot}]" if tc.chroot else "")
            if choice.older:
                notes.append("WARNING: " + choice.warning(target.name))
            def run_units(group, flags):
                return verify_compile(out_path, tc, archs, target=target, original=original, extra_flags=flags,
                                      limits=limits, jobs=jobs, use_cache=use_cache, build=config, units=group,
                                      progress=lambda _ev: steps.advance(), codegen=codegen)

            if tplan is None:
                comp = run_units(None, extra_flags)
            else:
                from vado.verify.torch_verify import merge_reports

                # Only the extension's units get PyTorch's and Python's headers: an ordinary unit compiled with
                # them would pass or fail on headers its own build does not give it.
                mine = {id(u) for u in tplan.units}
                ordinary = [u for u in units if id(u) not in mine]
                parts = [run_units(ordinary, extra_flags)] if ordinary else []
                if tplan.units:
                    parts.append(run_units(tplan.units, (*extra_flags, *tplan.flags)))
                comp = merge_reports(parts)
            loose = sorted({str(e.detail.get("confinement", "")) for e in comp.evidence} - {"", "namespaces"})
            if any("file not found" in str(d.get("message", "")) for e in comp.evidence
                   if e.detail.get("confinement") == "namespaces" for d in e.detail.get("diagnostics", [])):
                notes.append(f"the compiler sees only {out_path} (read-only), the toolchain and a scratch directory: "
                             "a header elsewhere is not found; --flag -IDIR makes DIR visible")
            if loose:
                notes.append("the compiler ran unconfined (" + loose[0].removeprefix("none: ") + "): it could read "
                             "any file this user can; compiles are confined where Linux namespaces can be made")
        elif not (tplan and tplan.not_checked):
            notes.append("no C/C++/CUDA/HIP translation units in the port")
    if tplan is not None:
        from vado.verify import torch_verify
        from vado.verify.compile import not_built

        comp = torch_verify.finish(comp, tplan, archs=archs, original=original, target=target)
        steps.advance(len(tplan.not_checked))
        if comp is not None:
            base = out_path.resolve()
            ordinary = [x for x in (not_built(config, base) if config is not None else [])
                        if str((base / x[0]).resolve()) not in tplan.covered]
            comp = dataclasses.replace(comp, skipped=(*comp.skipped, *ordinary, *torch_skipped))
    return comp, tc, label


def _read_build(out_path: Path, options: BuildOptions, target: Target, hipcc, allow_old: bool,
                archs: Sequence[str] = ()) -> BuildConfig:
    """The port's build config. A Make or CMake read finds the target's hipcc (and its chroot's cmake);
    a CMake configure is for the offload archs verified."""
    from dataclasses import replace

    from vado.build.cmake import hip_args
    from vado.build.read import read_build

    if options.mode in ("auto", "cmake") and archs:
        options = replace(options, cmake_args=(*hip_args([a.strip() for a in archs if a.strip()]), *options.cmake_args))
    own = _own_rocm_switch(out_path, options)
    if own:
        # The project builds for ROCm itself behind a switch (heFFTe 4d8d459: Heffte_ENABLE_ROCM, default OFF): its
        # default configuration compiles none of its GPU code, so verify turns that switch on, as its ROCm build does.
        if options.mode in ("auto", "cmake") and own.startswith("-D"):
            options = replace(options, cmake_args=(*options.cmake_args, own))
        elif options.mode == "make" and "=" in own and not own.startswith("-"):
            k, _, v = own.partition("=")
            options = replace(options, make_vars={k: v, **options.make_vars})
    if options.mode in ("auto", "make", "cmake") and not options.tools:
        try:
            tc_path = require_hip_toolchain(target, hipcc, allow_older=allow_old).toolchain.path
        except ToolchainError:
            tc_path = ""
        if tc_path:
            tools = {"hipcc": tc_path}
            sibling = os.path.join(os.path.dirname(tc_path), "cmake")
            cmake = sibling if options.cmake == "cmake" and os.path.isfile(sibling) else options.cmake
            options = replace(options, tools=tools, cmake=cmake)
    config = read_build(out_path, options)
    if own and config.reader in ("cmake-file-api", "make") and config.ran:
        config = replace(config, notes=(*config.notes, f"the project's own ROCm build switch was turned on ({own})"))
    return config


def _own_rocm_switch(out_path: Path, options: BuildOptions) -> str:
    """The argument that turns on the project's own ROCm build (``-DHeffte_ENABLE_ROCM=ON``, ``USE_HIP=1``) where
    its build files have a complete one and the user did not set that switch; ``""`` otherwise."""
    if options.mode not in ("auto", "cmake", "make") or not out_path.is_dir():
        return ""
    from vado.scan.scope import project_scope

    try:
        hip = project_scope(out_path).hip
    except (OSError, ValueError, RecursionError):
        return ""
    if hip is None or not hip.complete or not hip.switch:
        return ""
    word = next((w for w in hip.how.split()[1:] if w.startswith((f"-D{hip.switch}=", f"{hip.switch}="))), "")
    given = [*options.cmake_args, *(f"{k}={v}" for k, v in options.make_vars.items())]
    if not word or any(g.startswith((f"-D{hip.switch}=", f"-D{hip.switch}:", f"{hip.switch}=")) for g in given):
        return ""
    return word


class _Steps:
    """The steps of one :func:`verify` run, reported to its ``progress`` callback."""

    def __init__(self, progress: Callable[[int, int], None] | None, total: int) -> None:
        self.progress = progress
        self.total = total
        self.done = 0
        if progress is not None:
            progress(0, total)

    def advance(self, n: int = 1) -> None:
        self.done = min(self.total, self.done + n)
        if self.progress is not None:
            self.progress(self.done, self.total)

    def finish(self) -> None:
        """Everything left counts as done (skipped steps): the last report is (total, total)."""
        if self.done < self.total or self.total == 0:
            self.done = self.total
            if self.progress is not None:
                self.progress(self.total, self.total)


def _compile_steps(units, archs: Sequence[str]) -> int:
    """Compile records :func:`verify_compile` makes: one per unit and arch, one per host-only unit."""
    n_archs = len(dict.fromkeys(a.strip() for a in archs if a.strip()))
    return sum(n_archs if u.device else 1 for u in units)


def _run_steps(run: RunSpec) -> int:
    """Builds (those vado makes) and rounds of the differential run."""
    if run.torch_calls:
        return 3  # the two builds and the calls
    builds = 0 if (run.original_bin and run.port_bin) else (0 if run.original_bin else 1) + (0 if run.port_bin else 1)
    return builds + max(1, len(run.shapes))


def torch_config_for(path: str | None, original) -> tuple[dict, dict]:
    """The extension description of a torch run: ``path`` (``--torch-config``) when given, else derived from the
    original's ``setup.py`` (:mod:`vado.build.torch_setup`, read without running it). Returns ``(config,
    provenance)``; provenance says which, and for a derived one its undecidable items and assumptions.
    Raises :class:`UsageError` when neither gives one."""
    from vado.verify import torch_ext_device as ted

    if path:
        try:
            return ted.load_config(path), {"source": "file", "path": str(path)}
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read --torch-config {path}", str(exc), "see vado.verify.torch_ext_device")
    from vado.build.torch_setup import derive_config

    cfg, d = derive_config(original)
    if cfg is None:
        raise UsageError("--run torch:CALLS.py: no extension description could be derived from "
                         f"{Path(original) / 'setup.py'}", d.skipped or "its setup.py makes no CUDAExtension",
                         "pass --torch-config EXT.json (one entry of benchmarks/torch_ext/packages.json's schema)")
    try:
        ted.check_config(cfg, "derived")
    except ValueError as exc:
        raise UsageError("the extension description derived from setup.py is incomplete", str(exc),
                         "pass --torch-config EXT.json")
    return cfg, {"source": "derived", "path": str(Path(original) / "setup.py"),
                 "extensions": [e["full_name"] for e in cfg["extensions"]],
                 "undecidable": cfg["derived"]["undecidable"], "assumptions": cfg["derived"]["assumptions"]}


def _torch_run(out_path: Path, original, run: RunSpec, nvcc, python, climits, steps: _Steps,
               provenance: dict) -> tuple[str, list[Evidence]]:
    """A torch extension's original and port built and called on an NVIDIA GPU (:mod:`vado.verify.torch_ext_device`):
    ``(why the run was skipped or "", evidence)``: a build record per variant and a compare record per call.
    ``provenance`` receives where the extension's description came from (:func:`torch_config_for`)."""
    from vado.verify import torch_ext_device as ted

    if original is None:
        raise UsageError("--run torch:CALLS.py needs the original tree to build it", "", "pass --original SRC")
    pkg, where = torch_config_for(run.torch_config, original)
    provenance.update(where)
    calls = Path(run.torch_calls)
    if not calls.is_file():
        raise UsageError(f"no calls file {calls}", "", "pass --run torch:CALLS.py with a file that defines cases()")
    vendor, why = _gpu_vendor()
    if vendor != "nvidia":
        return ("run step skipped: a torch extension's run needs an NVIDIA GPU, nvcc and a CUDA build of torch "
                f"({why or 'the GPU here is ' + vendor + ', not NVIDIA'})"), []
    missing = ted.prerequisites(python, nvcc) or (ted.prerequisites(None, nvcc) if python else "")
    if missing:
        return f"run step skipped: a torch extension's run needs {missing.split(' (')[0]}: {missing}", []
    arch = run.nvcc_arch if run.nvcc_arch.startswith("sm_") else "sm_90"
    with tempfile.TemporaryDirectory(prefix="vado-torch-run-") as scratch:
        res = ted.run_extension(Path(original), out_path, pkg, calls, Path(scratch), arch=arch,
                                tu_timeout=climits.timeout_s if climits and climits.timeout_s else 480.0, wave=run.wave or 64, python=python)
    evidence: list[Evidence] = []
    for variant, subject in (("orig", "original"), ("port", "port")):
        b = res[variant]
        failed = b.get("failed_tus", [])
        errors = [res["tus"][k]["error"] for k in failed if k in res["tus"]]
        evidence.append(Evidence("build", subject, bool(b.get("built") and b.get("ran")), toolchain="nvcc", arch=arch,
                                 stderr=(b.get("log") or b.get("link") or "\n".join(errors))[-4000:],
                                 detail={"failed_tus": failed, "errors": len(failed)}))
        steps.advance()
    for call, c in sorted(res.get("calls", {}).items()):
        # "close": within the tolerance of the tensor's scale only (an order of float additions); the detail says so
        evidence.append(Evidence("compare", call, c["status"] in ("match", "close"), detail=c))
    steps.advance()
    return "", evidence


def _differential(out_path: Path, original, run: RunSpec, hipcc, nvcc, climits, rlimits, archs, steps: _Steps):
    builds: list[Evidence] = []
    user_bins = run.original_bin and run.port_bin
    vendor, why = ("", "")
    if not user_bins:
        vendor, why = _gpu_vendor()
        if not vendor:
            return None, f"run step skipped: {why}", builds
        if original is None:
            raise UsageError("--run needs the original tree to build it", "", "pass --original SRC, or --original-bin and --port-bin")
    with tempfile.TemporaryDirectory(prefix="vado-build-") as scratch:
        sp = Path(scratch)
        obin, pbin = run.original_bin, run.port_bin
        if not user_bins:
            platform = run.platform if run.platform != "auto" else vendor
            if not obin:
                npath = find_nvcc(nvcc)
                if not npath:
                    raise ToolchainError("nvcc not found", "building the original needs it", NVCC_TIP)
                nvcc_toolchain(npath)
                ev = _build("nvcc", original, sp / "original" / "prog", npath, run.nvcc_arch, run, climits, "original")
                builds.append(ev)
                steps.advance()
                obin = str(sp / "original" / "prog") if ev.passed else None
            if not pbin:
                if platform == "amd":
                    path = find_hipcc(hipcc)
                    if not path:
                        raise ToolchainError("hipcc not found", "building the port for AMD needs it", HIPCC_TIP)
                    ev = _build("amd", out_path, sp / "port" / "prog", path, archs[0], run, climits, "port")
                else:
                    # HIP on CUDA: the same nvcc as the original, with the headers vado generates from its
                    # mapping data (vado.verify.hip_on_cuda); --wave 64 emulates AMD's 64-lane waves.
                    from vado.verify.hip_on_cuda import build_port

                    npath = find_nvcc(nvcc)
                    if not npath:
                        raise ToolchainError("nvcc not found", "building the port with HIP on CUDA needs it", NVCC_TIP)
                    ev = build_port(out_path, sp / "port" / "prog", nvcc=npath, arch=run.nvcc_arch,
                                    wave=run.wave or 32, limits=climits)
                builds.append(ev)
                steps.advance()
                pbin = str(sp / "port" / "prog") if ev.passed else None
            if vendor == "nvidia" and platform == "amd":
                return None, "run step skipped: the port was built for AMD and this machine's GPU is NVIDIA", builds
        if not obin or not pbin:
            failed = [b.subject for b in builds if not b.passed]
            return None, f"run step skipped: the {' and the '.join(failed)} build failed", builds
        report = differential(run.template, str(Path(obin).resolve()), str(Path(pbin).resolve()), mode=run.mode,
                              tolerance=run.tolerance, shapes=run.shapes,
                              oracle_bin=str(Path(run.oracle_bin).resolve()) if run.oracle_bin else None,
                              oracle_factor=run.oracle_factor, inputs=run.inputs, limits=rlimits,
                              subject=out_path.name, ignore_lines=run.ignore_lines,
                              original_runs=run.original_runs, timeout_inconclusive=run.wave == 64,
                              progress=lambda _done, _total: steps.advance())
        if not report.passed:
            from vado.verify.hip_on_cuda import cross_lane_kernels

            report = dataclasses.replace(report, kernels=tuple(cross_lane_kernels(out_path)))
    return report, "", builds


def _build(how, root, dst, compiler, arch, run: RunSpec, limits, role) -> Evidence:
    from vado.verify.build import build_program

    return build_program(how, root, dst, compiler=compiler, arch=arch, hip_include=run.hip_include, limits=limits, role=role)


# ---------------------------------------------------------------------------
# rendering


def _status(e: Evidence) -> str:
    return str(e.detail.get("status", "pass" if e.passed else "fail"))


_CELL = {"pass": "pass", "fail": "FAIL", "timeout": "TIMEOUT", "unsupported-arch": "unsupported",
         "inconclusive": "INCONCLUSIVE", "not-checked": "not checked"}


def checked_by_unit(evidence: Sequence[Evidence]) -> dict[str, str]:
    """What was checked of each unit: ``codegen`` (the build's full compile, on some arch) or ``front end``."""
    out: dict[str, str] = {}
    for e in evidence:
        what = e.detail.get("checked")
        if what == CODE_GENERATION:
            out[e.subject] = "codegen"
        elif what == FRONT_END:
            out.setdefault(e.subject, "front end")
    return out


def describe_checks(evidence: Sequence[Evidence]) -> list[str]:
    """Lines that say exactly what the compile records checked: the front end (host and which archs)
    or code generation, on how many units, and why code generation ran where it did."""
    fe: dict[str, set[str]] = {}
    cg: dict[str, str] = {}
    for e in evidence:
        what = e.detail.get("checked")
        if what == FRONT_END:
            fe.setdefault(e.subject, set()).add(e.arch)
        elif what == CODE_GENERATION:
            cg.setdefault(e.subject, str(e.detail.get("codegen_reason", "")))
    why: dict[str, int] = {}
    for reason in cg.values():
        # "inline assembly (read by …): file.cu; -Werror in …" -> "inline assembly", "-Werror in the build's flags"
        for part in filter(None, (p.split(" (")[0].split(":")[0].strip() for p in reason.split("; "))):
            why[part] = why.get(part, 0) + 1
    fe_only = {u: a for u, a in fe.items() if u not in cg}
    lines: list[str] = []
    if fe_only:
        arch_sets = sorted({", ".join(sorted(a - {"host"})) for a in fe_only.values()} - {""})
        sides = "host" + (f" and {' / '.join(arch_sets)}" if arch_sets else "")
        lines.append(f"checked: front end only ({sides}: syntax, semantics, templates, host/device rules; "
                     f"no code generation) on {len(fe_only)} units; not checked there: {UNCHECKED}")
    if cg:
        because = ", ".join(f"{k}: {v}" for k, v in sorted(why.items(), key=lambda kv: -kv[1]))
        lines.append(f"checked: code generation (the build's full compile, per arch) on {len(cg)} units"
                     + (f" ({because})" if because else ""))
    if fe_only:
        lines.append("  (--codegen all runs the build's full compile on every unit)")
    return lines


def render_text(result: VerifyResult) -> str:
    """The terminal report: a unit × arch grid, errors with their original line and code, runs."""
    lines = [f"vado verify {result.out} (target {result.target}" + (f"; {result.toolchain}" if result.toolchain else "") + ")"]
    lines += render_build(result.build)
    if result.torch_extension:
        from vado.verify.torch_verify import render as render_torch

        lines += render_torch(result.torch_extension)
    comp = result.compile
    if comp and comp.evidence:
        archs = [a for a in ["host", *comp.archs] if any(e.arch == a for e in comp.evidence)]
        width = max([4] + [len(u.path) for u in comp.units])
        checked = checked_by_unit(comp.evidence)
        lines.append("")
        lines.append("  " + "unit".ljust(width) + "  checked   " + "".join(f"  {a:<11}" for a in archs))
        for u in comp.units:
            cells = [f"  {checked.get(u.path, '-'):<10}"]
            for a in archs:
                ev = next((e for e in comp.evidence if e.subject == u.path and e.arch == a), None)
                cells.append(f"  {(_CELL.get(_status(ev), _status(ev)) if ev else '-'):<11}")
            lines.append(("  " + u.path.ljust(width) + "".join(cells)).rstrip())
        ran = sum(1 for e in comp.evidence if e.detail.get("status") not in ("unsupported-arch", "not-checked"))
        lines.append("")
        lines += describe_checks(comp.evidence)
        lines.append(f"records: {ran - comp.cache_hits} from compiler runs, {comp.cache_hits} from the result cache")
        not_built = [s_ for s_, why in comp.skipped if why.startswith("not compiled by the build")]
        if not_built:
            shown = ", ".join(not_built[:8]) + (f", … {len(not_built) - 8} more" if len(not_built) > 8 else "")
            lines.append(f"not compiled ({len(not_built)} sources the build does not compile): {shown}")
        for s_, why in comp.skipped:
            if "PyTorch/Python headers" in why:
                lines.append(f"  {s_}: {why}")
        groups = group_errors(comp.evidence)
        if groups:
            total = sum(g.count for g in groups)
            lines.append("")
            lines.append(f"errors ({len(groups)} distinct, {total} in all; each once, with the first unit that hit it):")
            lines += render_groups(groups)
        if comp.unsupported:
            lines.append("")
            lines.append("offload targets this toolchain cannot build (not passes):")
            for a, why in comp.unsupported.items():
                lines.append(f"  {a}: {why}")
    tri = result.triton
    if tri is not None:
        lines.append("")
        lines.append("triton kernels" + (f" (triton {tri.version})" if tri.version else "") + ":")
        if tri.problem:
            lines.append(f"  not compiled: {tri.problem}")
        for e in tri.evidence:
            extra = f"{e.detail.get('hsaco_bytes', 0)} bytes of code object" if e.passed else (e.stderr.strip().splitlines() or [""])[-1]
            lines.append(f"  {e.subject} [{e.arch}] {_CELL.get(_status(e), _status(e))}: {extra}")
        for subject, why in tri.skipped:
            lines.append(f"  {subject}: skipped: {why}")
    if result.builds:
        lines.append("")
        lines.append("builds:")
        for b in result.builds:
            info = f"{b.detail.get('errors', 0)} errors" if not b.passed and "errors" in b.detail else b.detail.get("reason", "")
            lines.append(f"  {b.subject} ({b.toolchain}, {b.arch or '-'}) {_CELL.get(_status(b), _status(b))}" + (f": {info}" if info else "") + f" in {b.duration_s:.2f}s")
    if result.run_skipped:
        lines.append("")
        lines.append(result.run_skipped + (" (--require-gpu: this fails the verification)" if result.run_required else ""))
    if result.differential is not None:
        d = result.differential
        lines.append("")
        lines.append(f"differential run ({d.mode}, {d.tolerance.describe()}): {d.command}")
        for r in d.rounds:
            times = ", ".join(f"{e.subject} {e.duration_s:.2f}s" for e in r.runs)
            status = {"pass": "pass", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}[r.status]
            unstable = f"; {r.unstable} tokens differ between the original's runs (masked)" if r.unstable else ""
            lines.append(f"  n={r.n if r.n is not None else '-'}: {status} ({times}){unstable}")
            if r.inconclusive:
                lines.append(f"    {r.inconclusive}")
            for c in r.comparisons:
                if not c.passed or len(r.comparisons) > 1:
                    lines.append(f"    {c.subject}: {'pass' if c.passed else 'FAIL'}: {c.summary()}")
        first = d.first_difference
        if first:
            where = f"line {first['line']}" + (f", token {first['token']}" if "token" in first else "") if "line" in first else ""
            what = (f"original {first['original']!r}, port {first['port']!r}" if "original" in first
                    else first.get("problem", ""))
            lines.append(f"  first difference (n={first['n'] if first['n'] is not None else '-'}, {first['subject']}"
                         + (f", {where}" if where else "") + f"): {what}")
        if d.kernels and not d.passed:
            lines.append("  kernels with cross-lane calls (their results depend on the wave size): " + ", ".join(d.kernels))
    lines += render_torch_config(result.torch_config)
    for n in result.notes:
        lines.append(f"note: {n}")
    ev = result.evidence
    counts: dict[str, int] = {}
    for e in ev:
        counts[_status(e)] = counts.get(_status(e), 0) + 1
    lines.append("")
    verdict = "PASS" if result.passed else ("INCONCLUSIVE" if result.differential is not None and
                                            result.differential.inconclusive and
                                            all(e.passed for e in ev if e.kind != "compare") else "FAIL")
    if verdict == "FAIL" and all(e.passed or _status(e) == "not-checked" for e in ev) and ev and \
            not (result.run_skipped and result.run_required) and not (result.triton and result.triton.problem):
        # Units that could not be compiled here (a torch extension without its headers): neither pass nor fail.
        verdict = "NOT CHECKED"
    lines.append("result: " + verdict + " (" + (
        ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing verified") + ")")
    return "\n".join(lines) + "\n"


def render_torch_config(tc: dict | None) -> list[str]:
    """Where a torch run's extension description came from; a derived one with what it could not decide."""
    if not tc:
        return []
    if tc.get("source") == "file":
        return [f"torch config: {tc['path']} (--torch-config)"]
    out = [f"torch config: DERIVED from {tc['path']} (read, not run): {', '.join(tc.get('extensions', []))}"]
    und = tc.get("undecidable", [])
    for u in und[:12]:
        plats = f" [{', '.join(u['platforms'])}]" if u.get("platforms") else ""
        out.append(f"torch config: undecidable {u['at']}{plats}: {u['what']}")
    if len(und) > 12:
        out.append(f"torch config: … {len(und) - 12} more undecidable items (--format json lists them)")
    if not und:
        out.append("torch config: nothing undecidable")
    return out


def render_build(cfg: BuildConfig | None) -> list[str]:
    """Where the units came from: the build read (and what vado ran to read it), or a loud guess."""
    if cfg is None:
        return []
    out = []
    shown = [f"`{r}`" for r in cfg.ran]
    heads = {r.rsplit(" in ", 1)[0] for r in cfg.ran}
    if len(cfg.ran) > 5 and len(heads) == 1:
        # One program per directory: the command once, the directories named.
        dirs = [r.rsplit(" in ", 1)[-1] for r in cfg.ran]
        shown = [f"`{heads.pop()}` in {len(dirs)} directories ({', '.join(dirs[:5])}, … {len(dirs) - 5} more)"]
    for ran in shown:
        what = "the project's CMake code" if ran.startswith("`cmake") or "cmake -S" in ran else "the project's Makefile logic"
        out.append(f"build: ran {ran}: executes {what}")
    n = len(cfg.units)
    if cfg.guessed:
        out.append(f"build: GUESSED: {n} units, flags read from build files as text (every branch at once)")
    else:
        out.append(f"build: {n} units from {cfg.reader}" + (f" ({', '.join(cfg.sources_read)})" if cfg.sources_read else ""))
    out += [f"build note: {n_}" for n_ in cfg.notes[:20]]
    if len(cfg.notes) > 20:
        out.append(f"build note: … {len(cfg.notes) - 20} more")
    return out


def _build_json(cfg: BuildConfig | None) -> dict | None:
    if cfg is None:
        return None
    return {"reader": cfg.reader, "guessed": cfg.guessed, "ran": list(cfg.ran), "notes": list(cfg.notes),
            "units": [{"source": u.source, "directory": u.directory, "language": u.language.value,
                       "flags": u.flag_args(), "dropped": list(u.dropped), "origin": u.origin} for u in cfg.units]}


def _differential_json(d: DifferentialReport | None) -> dict | None:
    if d is None:
        return None
    return {"passed": d.passed, "inconclusive": d.inconclusive, "first_difference": d.first_difference,
            "kernels": list(d.kernels), "rounds": [{"n": r.n, "status": r.status, "unstable_tokens": r.unstable,
                                                     "reason": r.inconclusive} for r in d.rounds]}


def render_json(result: VerifyResult) -> str:
    """A JSON document: every evidence record (model schema) plus the summary."""
    from vado.model.serde import to_json

    doc = {
        "out": result.out,
        "target": result.target,
        "toolchain": result.toolchain,
        "passed": result.passed,
        "unsupported_archs": dict(result.compile.unsupported) if result.compile else {},
        "triton_problem": result.triton.problem if result.triton else "",
        "skipped": [{"subject": s, "reason": w} for s, w in (result.triton.skipped if result.triton else ())],
        "run_skipped": result.run_skipped,
        "differential": _differential_json(result.differential),
        "notes": list(result.notes),
        "build": _build_json(result.build),
        "torch_config": result.torch_config,
        "torch_extension": result.torch_extension,
        "error_groups": [g.to_json() for g in group_errors(result.compile.evidence)] if result.compile else [],
        "cache_hits": result.compile.cache_hits if result.compile else 0,
        "checked": describe_checks(result.compile.evidence) if result.compile else [],
        "evidence": [to_json(e) for e in result.evidence],
    }
    return json.dumps(doc, indent=2, sort_keys=False) + "\n"
