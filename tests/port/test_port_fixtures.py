"""Port fixtures: ``tests/fixtures/PORT/<transform>.<kind>`` → ``<transform>.fixed.<ext>``.

Naming
------
``<transform>.cu`` (or ``.cuh``) ports to ``<transform>.fixed.hip``; a build or
packaging file keeps its kind name after the transform name, as in the rule
fixtures: ``cmake.CMakeLists.txt`` → ``cmake.fixed.CMakeLists.txt``,
``make.Makefile`` → ``make.fixed.Makefile``, ``reqs.requirements.txt`` →
``reqs.fixed.requirements.txt``, ``img.Dockerfile`` → ``img.fixed.Dockerfile``.

Options
-------
A ``vado-port:`` line in a comment (usually the first line) holds the port's
command-line options: ``// vado-port: --target hip-5.2 --launch ggl --unsafe-fixes --roc --wave native``.
Without it the port runs with the CLI's defaults (rocm-7.2, chevron launches,
safe fixes only, hip* libraries, warp32 emulation). ``--amd-define NAME[=VALUE]`` and
``--amd-undefined NAME`` give the rule options ``amd_defines``/``amd_undefined`` (what the
project's own HIP build defines and leaves off); the ``.fixed.hip`` is then compiled with
those defines (``-D``), as that build compiles it.

Checks, per fixture
-------------------
1. porting the input gives exactly the ``.fixed`` file;
2. porting the ``.fixed`` file again changes nothing (fixpoint);
3. ``<transform>.remaining.json`` is the snapshot of what the port leaves for
   humans (code, line, column, whether a fix was offered), so negative cases
   (untouched code that must be reported) are checked as well as rewrites;
4. every ``.fixed.hip`` compiles with the real hipcc of its target
   (``tests/_compile_fixtures.py``): a ``rocm-7.2`` port with ROCm 7.2.4 for
   gfx942 and gfx950, library headers included (hipBLAS, hipCUB, rocThrust,
   roctx, ...); a ``hip-5.2`` port with Debian's HIP 5.2 for gfx90a, where a
   fixture whose port needs a header those packages do not ship, or an API newer
   than HIP 5.2, is skipped with that reason, never compiled against a stub.

Regenerate ``.fixed`` files and snapshots with ``VADO_UPDATE_SNAPSHOTS=1`` and
review the diff.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
from _compile_fixtures import FixtureCompiler, compile_all, compiler_for, require_compiler

from vado.knowledge.targets import get_target
from vado.port.file import PortOptions, port_bytes
from vado.scan.classify import classify

PORT = Path(__file__).resolve().parents[1] / "fixtures" / "PORT"
INCLUDE = PORT / "include"
OPTIONS = re.compile(r"(?:#|//)[ \t]*vado-port:[ \t]*([^\n]*)")
UPDATE = os.environ.get("VADO_UPDATE_SNAPSHOTS") == "1"
C_SUFFIXES = (".cu", ".cuh")

#: Headers the port emits that Debian's HIP 5.2 packages do not ship: a hip-5.2
#: fixture including one is checked for its text but not compiled with HIP 5.2.
NOT_IN_DEBIAN = {
    "hipblas/hipblas.h": "hipBLAS",
    "hipblas.h": "hipBLAS",
    "rocblas/rocblas.h": "rocBLAS",
    "hipblaslt/hipblaslt.h": "hipBLASLt",
    "hipfft/hipfft.h": "hipFFT",
    "rocfft/rocfft.h": "rocFFT",
    "hipsolver/hipsolver.h": "hipSOLVER",
    "rocsolver/rocsolver.h": "rocSOLVER",
    "rccl/rccl.h": "RCCL",
    "hipcub/hipcub.hpp": "hipCUB",
    "thrust/device_vector.h": "rocThrust",
    "rocprofiler-sdk-roctx/roctx.h": "roctx (rocprofiler-sdk)",
    "roctracer/roctx.h": "roctx (roctracer)",
    "cudnn.h": "cuDNN (left as is: MIOpen is not 1:1)",
}
#: Headers a port keeps on purpose that no ROCm release ships, or that AMD's ROCm 7 ships but Debian's
#: 7.2.4 packages (the CI toolchain) do not.
NOT_IN_ROCM = {
    "cudnn.h": "cuDNN (left as is: MIOpen is not 1:1): no ROCm release ships it",
}

#: Names HIP 5.2 lacks that a port for a newer target keeps on purpose.
NEWER_THAN_HIP52 = re.compile(r"\b__(?:shfl(?:_up|_down|_xor)?|ballot|any|all)_sync\b")


def fixture_inputs() -> list[Path]:
    """Every input fixture: a file in PORT/ with a ``.fixed`` sibling."""
    out = []
    for p in sorted(PORT.iterdir()):
        if p.is_file() and ".fixed." not in p.name and not p.name.endswith(".remaining.json"):
            out.append(p)
    return out


def kind_name(path: Path) -> str:
    """The name the classifier sees: ``cmake.CMakeLists.txt`` → ``CMakeLists.txt``, ``x.cu`` → ``x.cu``."""
    stem, _, rest = path.name.partition(".")
    return path.name if path.suffix in C_SUFFIXES or path.suffix == ".py" and rest == "py" else rest


def fixed_path(path: Path) -> Path:
    """The expected output beside ``path``."""
    if path.suffix in C_SUFFIXES:
        return path.with_name(path.name.rsplit(".", 1)[0] + ".fixed.hip")
    stem, _, rest = path.name.partition(".")
    return path.with_name(f"{stem}.fixed.{rest}")


def port_options(text: str):
    """``(target, PortOptions)`` from the fixture's ``vado-port:`` line."""
    m = OPTIONS.search(text)
    args = shlex.split(m.group(1)) if m else []
    target, launch, unsafe, roc, wave = "rocm-7.2", "chevron", False, False, "warp32"
    defines: list[str] = []
    undefined: list[str] = []
    it = iter(args)
    for a in it:
        if a == "--target":
            target = next(it)
        elif a == "--launch":
            launch = next(it)
        elif a == "--unsafe-fixes":
            unsafe = True
        elif a == "--roc":
            roc = True
        elif a == "--wave":
            wave = next(it)
        elif a == "--amd-define":
            defines.append(next(it))
        elif a == "--amd-undefined":
            undefined.append(next(it))
        else:
            raise ValueError(f"unknown fixture option {a!r}")
    rule_options = {"amd_defines": tuple(defines), "amd_undefined": tuple(undefined)} if defines or undefined else {}
    return get_target(target), PortOptions(launch=launch, roc=roc, unsafe=unsafe, wave=wave, rule_options=rule_options)


def run_port(path: Path, data: bytes):
    text = data.decode("latin-1")
    target, options = port_options(text)
    kind = classify(kind_name(path))
    return port_bytes(kind_name(path), kind, data, target, options)


def remaining_doc(result) -> list[dict]:
    return [
        {"code": f.code, "line": f.span.line, "column": f.span.column, "fix": f.fix.applicability.value if f.fix else None}
        for f in sorted(result.remaining, key=lambda f: (f.span.line, f.span.column, f.code))
    ]


INPUTS = fixture_inputs()


def test_fixture_set_is_complete():
    """Every input has its expected output and snapshot, and every output has an input."""
    assert len(INPUTS) >= 20
    for p in INPUTS:
        assert UPDATE or fixed_path(p).is_file(), f"{p.name}: missing {fixed_path(p).name}"
    expected = {fixed_path(p).name for p in INPUTS}
    for p in PORT.iterdir():
        if ".fixed." in p.name:
            assert p.name in expected, f"{p.name} has no input fixture"


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_port_matches_fixed(path: Path):
    result = run_port(path, path.read_bytes())
    want = fixed_path(path)
    snap = path.with_name(path.name.partition(".")[0] + ".remaining.json")
    doc = remaining_doc(result)
    if UPDATE:
        want.write_bytes(result.after)
        snap.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    assert result.after.decode("latin-1") == want.read_bytes().decode("latin-1")
    assert doc == json.loads(snap.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_port_of_fixed_changes_nothing(path: Path):
    fixed = fixed_path(path).read_bytes()
    # The output is ported as the input's kind: a .hip file from a .cu keeps its rules.
    again = run_port(path, fixed)
    assert again.after == fixed, f"porting {fixed_path(path).name} again changed it"
    assert again.applied == {}


def _compile_skip_reason(text: str, compiler: FixtureCompiler) -> str | None:
    for m in re.finditer(r"#\s*include\s*[<\"]([^>\"]+)[>\"]", text):
        name = m.group(1)
        if name in NOT_IN_ROCM:
            return f"includes {name}: {NOT_IN_ROCM[name]}"
        if compiler.is_hip52 and name in NOT_IN_DEBIAN:
            return f"syntax of the library call not compile-checked with HIP 5.2: {name} ({NOT_IN_DEBIAN[name]}) is not packaged by Debian 12"
    if compiler.is_hip52:
        # Names in comments do not reach the compiler.
        m = NEWER_THAN_HIP52.search(re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S))
        if m:
            return f"keeps {m.group(0)} for rocm-6.2+; Debian's hipcc is HIP 5.2, which lacks it"
    return None


HIP_OUTPUTS = [p for p in INPUTS if p.suffix in C_SUFFIXES]


def _target_name(path: Path) -> str:
    return port_options(path.read_text(encoding="latin-1"))[0].name


@pytest.fixture(scope="module")
def compile_results(tmp_path_factory) -> dict[str, str | None]:
    """Every ``.fixed.hip`` that is to be compiled, compiled once, all cores at a time."""
    jobs = []
    for path in HIP_OUTPUTS:
        compiler = compiler_for(_target_name(path))
        text = fixed_path(path).read_text(encoding="latin-1")
        if compiler and not _known_to_fail(path) and not _compile_skip_reason(text, compiler):
            defines = port_options(path.read_text(encoding="latin-1"))[1].rule_options.get("amd_defines", ())
            jobs.append((path.name, compiler, fixed_path(path), (INCLUDE,), defines))
    return compile_all(jobs, tmp_path_factory.mktemp("fixed-hip"))


@pytest.mark.hipcc
@pytest.mark.parametrize("path", HIP_OUTPUTS, ids=lambda p: fixed_path(p).name)
def test_fixed_hip_compiles(path: Path, compile_results):
    compiler = require_compiler(_target_name(path))
    fixed = fixed_path(path)
    reason = _known_to_fail(path) or _compile_skip_reason(fixed.read_text(encoding="latin-1"), compiler)
    if reason:
        pytest.skip(reason)
    err = compile_results[path.name]
    assert err is None, f"{compiler.label} failed on {fixed.name} for {', '.join(compiler.archs)}:\n{err}"


def _known_to_fail(path: Path) -> str | None:
    """Fixtures that keep, on purpose, something the compiler rejects (the finding says why)."""
    text = path.read_text(encoding="latin-1")
    m = re.search(r"vado-compile-skip:[ \t]*([^\n]*)", text)
    return m.group(1).strip() if m else None
