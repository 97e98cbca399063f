"""The HeCBench port benchmark's selection, Makefile reading and failure classes, on a tiny synthetic tree."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


hb = _load("hecbench_build")
ph = _load("port_hecbench")

CUDA_MAKEFILE = """\
CC = nvcc
ARCH = sm_60
OPTIMIZE = yes
source = main.cu kernels.cu util.c
obj = $(source:.cu=.o)
CFLAGS := -std=c++17 -Xcompiler -Wall -Xcompiler -fopenmp -arch=$(ARCH) -I../include -I/usr/local/cuda/include -DUSE_X
ifeq ($(OPTIMIZE),yes)
  CFLAGS += -O3 --use_fast_math
endif
main: main.o kernels.o util.o
\t$(CC) $(CFLAGS) main.o kernels.o util.o -o $@ -lcublas
%.o: %.cu
\t$(CC) $(CFLAGS) -c $< \\
\t\t-o $@
util.o: util.c
\t$(CC) -c util.c -o util.o
"""


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A HeCBench-like src/: two programs with both twins, one with a -cuda dir only, one with a -hip dir only."""
    for d in ["alpha-cuda", "alpha-hip", "beta-cuda", "beta-hip", "gamma-cuda", "delta-hip", "include"]:
        (tmp_path / d).mkdir()
    for name in ["main.cu", "kernels.cu", "util.c"]:
        (tmp_path / "alpha-cuda" / name).write_text('#include "../include/common.h"\n')
    (tmp_path / "alpha-cuda" / "Makefile").write_text(CUDA_MAKEFILE)
    (tmp_path / "alpha-hip" / "main.cu").write_text('#include "../alpha-cuda/reference.h"\n')
    (tmp_path / "beta-cuda" / "main.cu").write_text("int main() {}\n")
    (tmp_path / "beta-cuda" / "sub").mkdir()
    (tmp_path / "beta-cuda" / "sub" / "k.cu").write_text("\n")
    return tmp_path


def test_programs_with_twins_needs_both_dirs(tree: Path) -> None:
    assert ph.programs_with_twins(tree) == ["alpha", "beta"]


def test_sample_is_seeded_and_sorted() -> None:
    names = [f"p{i:03d}" for i in range(100)]
    first = ph.choose_sample(names, 10, 5)
    assert first == ph.choose_sample(list(reversed(names)), 10, 5)
    assert first == sorted(first) and len(set(first)) == 10
    assert ph.choose_sample(names, 10, 6) != first
    assert ph.choose_sample(names, 0, 5) == names
    assert ph.choose_sample(names, 500, 5) == names


def test_referenced_siblings(tree: Path) -> None:
    found = ph.referenced_siblings([tree / "alpha-cuda", tree / "alpha-hip"], {"alpha-cuda", "alpha-hip"})
    assert found == {"include"}


def test_keep_flags_keeps_portable_flags_only() -> None:
    argv = ["-std=c++17", "-Xcompiler", "-Wall", "-Xcompiler", "-fopenmp,-DHOST", "-arch=sm_60", "-I../include",
            "-I/usr/local/cuda/include", "-I", "/opt/nvidia/include", "-isystem", "sub", "-DUSE_X", "-O3",
            "--use_fast_math", "-rdc=true", "-c", "main.cu", "-o", "main.o", "-lcublas", "-L/usr/lib"]
    units, flags = hb.keep_flags(argv)
    assert units == ["main.cu"]
    assert flags == ["-std=c++17", "-fopenmp", "-DHOST", "-I../include", "-isystem", "sub", "-DUSE_X", "-O3", "-fgpu-rdc"]


def test_units_from_dry_run_joins_lines_and_dedups() -> None:
    text = (
        "nvcc -std=c++17 -arch=sm_60 -O3 ./main.cu \\\n\t-c \\\n\t-o ./main.o\n"
        "cd sub && hipcc -DK -c k.cu -o k.o; echo done\n"
        "nvcc -std=c++17 -c main.cu -o main.o\n"
        "nvcc main.o k.o -o main -lm\n"
        "rm -f main.o\n"
    )
    units = hb.units_from_dry_run(text)
    assert units == [hb.Unit("main.cu", ("-std=c++17", "-O3")), hb.Unit("k.cu", ("-DK",))]


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_dry_run_reads_the_makefile(tree: Path) -> None:
    prog = tree / "alpha-cuda"
    units, note = hb.dry_run(prog, prog / "Makefile")
    assert note == ""
    flags = ("-std=c++17", "-fopenmp", "-I../include", "-DUSE_X", "-O3")
    assert units == [hb.Unit("main.cu", flags), hb.Unit("kernels.cu", flags), hb.Unit("util.c", ())]


def test_dry_run_without_makefile_takes_every_cu(tree: Path) -> None:
    prog = tree / "beta-cuda"
    units, note = hb.dry_run(prog, prog / "Makefile")
    assert [u.source for u in units] == ["main.cu", "sub/k.cu"]
    assert note.startswith("no Makefile")
    with pytest.raises(RuntimeError, match="no units"):
        hb.dry_run(tree / "include", tree / "include" / "Makefile")


def test_hipcc_argv() -> None:
    unit = hb.Unit("main.cu", ("-O3",))
    assert hb.hipcc_argv(unit, "o.o") == ["hipcc", "--offload-arch=gfx90a", "--cuda-device-only", "-O3", "-x", "hip",
                                          "-c", "main.cu", "-o", "o.o"]
    assert "--cuda-device-only" not in hb.hipcc_argv(unit, "o.o", full=True)
    assert "-x" not in hb.hipcc_argv(hb.Unit("u.c", ()), "o.o")


@pytest.mark.parametrize(
    "output, expected",
    [
        ("main.cu:3:10: fatal error: 'hipblas.h' file not found", "missing ROCm library (not packaged by Debian)"),
        ("main.cu:3:10: fatal error: 'thrust/sort.h' file not found", "missing ROCm library (not packaged by Debian)"),
        ("main.cu:3:10: fatal error: 'cub/cub.cuh' file not found", "CUDA header left"),
        ("main.cu:3:10: fatal error: 'cuda_fp16.h' file not found", "CUDA header left"),
        ("main.cu:3:10: fatal error: 'mine.h' file not found", "missing header (other)"),
        ("k.cu:9:5: error: use of undeclared identifier 'cudaMemcpyToSymbolAsync'", "CUDA name left"),
        ("k.cu:9:5: error: use of undeclared identifier '__shfl_xor_sync'", "HIP API missing on HIP 5.2"),
        ("k.cu:9:5: error: use of undeclared identifier 'hipMemcpy2DAsyncX'", "HIP API missing on HIP 5.2"),
        ("k.cu:9:5: error: static_assert failed due to requirement 'warpSize == 32'", "wave32 assumption"),
        ("<inline asm>:1:2: error: invalid instruction, any one of the following would fix this:", "inline PTX left"),
        ("k.cu:1:1: error: expected ';' after expression", "syntax"),
        ("k.cu:1:1: error: no matching function for call to 'hipLaunchKernel'", "no matching HIP overload"),
        ("vado-bench: timed out after 120s compiling k.cu", "timeout"),
        ("vado-bench: make -n named no unit: no compile command", "makefile"),
        ("k.cu:1:1: error: something new", "other"),
    ],
)
def test_classify_failure(output: str, expected: str) -> None:
    assert hb.classify_failure(output) == expected


def test_inline_asm_found_after_the_first_line() -> None:
    output = "k.cu:5:3: error: couldn't select\n<inline asm>:1:2: error: invalid instruction\n"
    assert hb.classify_failure(output) == "inline PTX left"
    assert hb.first_error(output) == "k.cu:5:3: error: couldn't select"


def test_main_rejects_a_missing_tree(tmp_path: Path, capsys) -> None:
    assert ph.main(["--hecbench", str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_throughput_only_ports_the_sample_on_warmed_workers(tree: Path, tmp_path: Path, capsys) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    report = tmp_path / "tp.json"
    assert ph.main(["--hecbench", str(tree), "--sample", "0", "--jobs", "2", "--throughput-only",
                    "--throughput-repeat", "2", "--scratch", str(scratch), "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "vado port throughput:" in out and "best of 2 runs" in out and "build:" not in out
    import json

    data = json.loads(report.read_text())["throughput"]
    ported = sum(p.stat().st_size for d in ("alpha-cuda", "beta-cuda") for p in (tree / d).rglob("*")
                 if p.suffix in (".cu", ".c") or p.name == "Makefile")
    assert data["bytes"] == ported and len(data["runs_s"]) == 2 and data["best_s"] == min(data["runs_s"])
    assert data["fresh_start_s"] > 0 and data["speed_check_s"] > 0
    assert list(scratch.iterdir()) == []  # the runs' ports are removed
