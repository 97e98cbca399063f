"""Issue 27 (item 4): small inputs cause bounded work.

The parsers are linear in their input: a long asm operand, a long setup.cfg/requirements/conda
line and a long CMake argument each take time (best of three, wall clock) that grows less than
8-fold when the input grows 4-fold (a quadratic parser grows 16-fold), and a long CMake argument
costs no memory per byte. Configuration files named by a tree are read as regular files with
limits: a typed error (exit 2), never a traceback or a hang.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from vado.rules.cuda_syntax import _ptx_statements, parse_ptx
from vado.scan import buildfiles, pydeps

GROWTH = 8  # allowed time(4n) / time(n): linear is ~4, quadratic ~16


def _best(fn, arg, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        t = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - t)
    return best


def _assert_linear(fn, make, n: int) -> None:
    small, large = make(n), make(4 * n)
    fn(small)  # warm-up: imports, caches
    t1, t4 = _best(fn, small), _best(fn, large)
    # Below a few milliseconds the clock and the machine's load dominate: then the bound is absolute.
    assert t4 < max(GROWTH * t1, 0.1), f"time grew {t4 / max(t1, 1e-9):.1f}-fold ({t1:.4f}s -> {t4:.4f}s) for 4x the input"


def _asm_file(n: int) -> str:
    return '__global__ void k(int *p){ int a; asm volatile("' + "x" * n + '" : "=r"(a) : "r"(p[0])); p[0]=a; }\n'


@pytest.mark.parametrize("shape", ["x", "a:", "x{}", "{", "@p ", "mov.u32 %0, %1, "])
def test_ptx_statement_split_is_linear(shape: str):
    _assert_linear(parse_ptx, lambda n: (shape * (n // len(shape) + 1))[:n], 100_000)


def test_long_asm_operand_audit_is_linear(tmp_path: Path):
    from vado.audit import audit
    from vado.knowledge.targets import get_target

    rocm = get_target("rocm-7.2")

    def run(n: int) -> float:
        d = tmp_path / f"a{n}"
        d.mkdir(exist_ok=True)
        (d / "k.cu").write_text(_asm_file(n))
        return d

    small, large = run(12_500), run(50_000)
    audit(str(small), [rocm])
    t1 = _best(lambda d: audit(str(d), [rocm]), small)
    t4 = _best(lambda d: audit(str(d), [rocm]), large)
    assert t4 < max(GROWTH * t1, 0.5), (t1, t4)


def test_ptx_statements_keep_their_meaning():
    assert _ptx_statements("L1: { mov.u32 %0, %1; } L2 : bra L1;") == ["L1: ", " mov.u32 %0, %1", " ", " L2 : bra L1", ""]
    assert _ptx_statements("st.v2.f32 [%0], {%1, %2};") == ["st.v2.f32 [%0], {%1, %2}", ""]


_DEP_SHAPES = {
    "setup.cfg key without =": (pydeps.parse_setup_cfg, lambda n: "[options]\na" + " \t" * (n // 2) + "\n"),
    "setup.cfg long value": (pydeps.parse_setup_cfg, lambda n: "[options]\ninstall_requires =\n    a" + " " * n + "b\n"),
    "requirements blank run": (pydeps.parse_requirements_txt, lambda n: "a" + " " * n + "x#\n"),
    "requirements URL": (pydeps.parse_requirements_txt, lambda n: "https://x/a-1" + "a" * n + "\n"),
    "requirements archive": (pydeps.parse_requirements_txt, lambda n: "./a-1" + ".a" * (n // 2) + ".whl\n"),
    "conda item": (pydeps.parse_conda_env, lambda n: "dependencies:\n  - a" + " " * n + "b\n"),
    "conda key": (pydeps.parse_conda_env, lambda n: "name:" + " " * n + "x\n"),
}


@pytest.mark.parametrize("shape", sorted(_DEP_SHAPES))
def test_dependency_parsers_are_linear(shape: str):
    fn, make = _DEP_SHAPES[shape]
    _assert_linear(fn, make, 25_000)


_CMAKE_SHAPES = {
    "unquoted": lambda n: "set(X " + "a" * n + ")\n",
    "quoted": lambda n: 'set(X "' + "a" * n + '")\n',
    "escapes": lambda n: "set(X " + "\\;" * (n // 2) + ")\n",
    "unclosed brackets": lambda n: "set(X " + "[[ " * (n // 3) + ")\n",
    "unclosed bracket comments": lambda n: "#[[ " * (n // 4) + "\n",
    "unclosed quote": lambda n: 'set(X "' + "a" * n,
}


@pytest.mark.parametrize("shape", sorted(_CMAKE_SHAPES))
def test_cmake_tokenizer_is_linear(shape: str):
    _assert_linear(buildfiles.parse_cmake, _CMAKE_SHAPES[shape], 50_000)


@pytest.mark.parametrize("shape", ["unquoted", "quoted", "escapes"])
def test_long_cmake_argument_costs_no_memory_per_byte(shape: str):
    text = _CMAKE_SHAPES[shape](2_000_000)
    buildfiles.cmake_syntax._cmake_commands.cache_clear()
    tracemalloc.start()
    try:
        buildfiles.cmake_commands(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        buildfiles.cmake_syntax._cmake_commands.cache_clear()
    # The argument's own copy (a str of the same length) and a little more; the regular
    # expression took ~300 bytes per byte of stack here.
    assert peak < 4 * len(text), f"{peak / len(text):.0f} bytes per input byte"


# --- configuration-named files ---------------------------------------------------------------


def _vado(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from vado.cli.app import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    d = tmp_path / "p"
    d.mkdir()
    (d / ".git").mkdir()
    (d / "k.cu").write_text("__global__ void k(){}\n")
    return d


@pytest.mark.parametrize("what", ["device", "fifo", "directory"])
def test_baseline_named_by_a_tree_is_read_only_as_a_regular_file(project: Path, what: str):
    if what == "device":
        name = "/dev/zero"
    elif what == "fifo":
        os.mkfifo(project / "base.json")
        name = "base.json"
    else:
        (project / "base.json").mkdir()
        name = "base.json"
    (project / "vado.toml").write_text(f'baseline = "{name}"\n')
    r = _vado("audit", ".", cwd=project, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "baseline" in r.stderr


def test_huge_baseline_is_refused(project: Path, monkeypatch):
    from vado.audit import filters
    from vado.errors import UsageError

    monkeypatch.setattr(filters, "MAX_BASELINE_BYTES", 1000)
    (project / "base.json").write_text('{"vado_baseline": 1, "findings": []}' + " " * 2000)
    with pytest.raises(UsageError, match="too large"):
        filters.read_baseline(project / "base.json")


@pytest.mark.parametrize("what", ["fifo", "huge"])
def test_configuration_file_that_is_not_a_small_regular_file(project: Path, what: str):
    cfg = project / "cfg.toml"
    if what == "fifo":
        os.mkfifo(cfg)
    else:
        cfg.write_text("# " + "x" * (5 << 20) + "\n")
    r = _vado("audit", ".", "--config", str(cfg), cwd=project, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "configuration" in r.stderr


def test_discovered_pyproject_fifo_does_not_hang(project: Path):
    os.mkfifo(project / "pyproject.toml")
    r = _vado("audit", ".", cwd=project, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr
