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
    assert units == [hb.Unit("main.cu", ("-std=c++17", "-O3")), hb.Unit("k.cu", ("-DK",), "sub")]


def test_units_from_dry_run_follows_recursive_make_and_cd() -> None:
    text = (
        "make -C src\n"
        "make[1]: Entering directory '/x/prog/src'\n"
        "nvcc -I. -O3 -c main.cu -o main.o\n"
        "make[2]: Entering directory '/x/prog/src/sub'\n"
        "g++ -c a.cpp\n"
        "make[2]: Leaving directory '/x/prog/src/sub'\n"
        "cd lib && nvcc -DX -c k.cu; nvcc -c k.cu\n"
        "make[1]: Leaving directory '/x/prog/src'\n"
        "nvcc -c top.cu\n"
    )
    assert hb.units_from_dry_run(text, "/x/prog") == [
        hb.Unit("main.cu", ("-I.", "-O3"), "src"), hb.Unit("a.cpp", (), "src/sub"), hb.Unit("k.cu", ("-DX",), "src/lib"),
        hb.Unit("top.cu", ()),
    ]


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_dry_run_reads_a_recursive_makefile(tmp_path: Path, fake_tools) -> None:
    hipcc, _, log = fake_tools
    prog = tmp_path / "rec-cuda"
    (prog / "src").mkdir(parents=True)
    (prog / "Makefile").write_text("all:\n\t$(MAKE) -C src\n")
    (prog / "src" / "Makefile").write_text("all:\n\tnvcc -I. -O2 -c main.cu -o main.o\n")
    (prog / "src" / "main.cu").write_text("\n")
    units, note = hb.dry_run(prog, prog / "Makefile")
    assert units == [hb.Unit("main.cu", ("-I.", "-O2"), "src")] and note == ""
    res = hb.build_variant(prog, prog / "Makefile", tmp_path / "objs", 30, None, [prog], hipcc=str(hipcc))
    assert res.ok and log.read_text().split() == ["main.cu"]


def test_c_units_drop_the_cxx_standard() -> None:
    argv = hb.hipcc_argv(hb.Unit("util.c", ("-std=c++17", "-std=c99", "-O3")), "o.o")
    assert "-std=c++17" not in argv and "-std=c99" in argv and "-O3" in argv
    assert hb.Unit("util.c", ("-std=c++17",)).key()["c_flags"] == []
    assert "c_flags" not in hb.Unit("main.cu", ("-std=c++17",)).key()
    assert "cwd" not in hb.Unit("main.cu", ()).key() and hb.Unit("main.cu", (), "src").key()["cwd"] == "src"


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
    assert hb.hipcc_argv(unit, "o.o") == ["hipcc", "--offload-arch=gfx942", "--cuda-device-only", "-O3", "-x", "hip",
                                          "-c", "main.cu", "-o", "o.o"]
    assert "--cuda-device-only" not in hb.hipcc_argv(unit, "o.o", full=True)
    assert "-x" not in hb.hipcc_argv(hb.Unit("u.c", ()), "o.o")
    assert hb.hipcc_argv(unit, "o.o", "gfx950", hipcc="/opt/rocm/bin/hipcc")[:2] == ["/opt/rocm/bin/hipcc",
                                                                                    "--offload-arch=gfx950"]


@pytest.mark.parametrize(
    "output, expected",
    [
        ("main.cu:3:10: fatal error: 'hipblas.h' file not found", "missing ROCm library header"),
        ("main.cu:3:10: fatal error: 'thrust/sort.h' file not found", "missing ROCm library header"),
        ("main.cu:3:10: fatal error: 'cub/cub.cuh' file not found", "CUDA header left"),
        ("main.cu:3:10: fatal error: 'cuda_fp16.h' file not found", "CUDA header left"),
        ("main.cu:3:10: fatal error: 'mine.h' file not found", "missing header (other)"),
        ("main.cu:3:10: fatal error: 'mpi.h' file not found", "third-party library missing (environment)"),
        ("u.h:3:10: fatal error: 'boost/sort/sort.hpp' file not found", "third-party library missing (environment)"),
        ("/usr/include/hip/amd_detail/amd_warp_sync_functions.h:277:62: error: static assertion failed due to "
         "requirement 'sizeof(unsigned int) == 8': The mask must be a 64-bit integer.", "wave64 mask"),
        ("k.cu:9:5: error: use of undeclared identifier 'cudaMemcpyToSymbolAsync'", "CUDA name left"),
        ("k.cu:9:5: error: use of undeclared identifier '__shfl_xor_sync'", "HIP API missing"),
        ("k.cu:9:5: error: use of undeclared identifier 'hipMemcpy2DAsyncX'", "HIP API missing"),
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


# ---------------------------------------------------------------- the compiler, the cache and the report

FAKE_HIPCC = """\
#!/bin/sh
# A stand-in for hipcc: prints a version, logs each compile, fails on a source that says BROKEN.
if [ "$1" = "--version" ]; then
  echo "HIP version: 9.9.1-test"; echo "fake clang version 99.0 (test)"; echo "Target: x86_64"; exit 0
fi
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift ;; -c) src="$2"; shift ;; esac
  shift
done
echo "$src" >> "$FAKE_HIPCC_LOG"
if grep -q BROKEN "$src"; then echo "$src:1:1: error: broken here" >&2; exit 1; fi
: > "$out"
"""

#: A hipify-perl stand-in: drops the option, prints the file unchanged.
FAKE_HIPIFY = "shift @ARGV; print while <>;\n"


@pytest.fixture()
def fake_tools(tmp_path: Path, monkeypatch) -> tuple[Path, Path, Path]:
    """A fake hipcc (logging into the returned log file) and a fake hipify-perl."""
    tools = tmp_path / "tools"
    tools.mkdir()
    hipcc = tools / "hipcc"
    hipcc.write_text(FAKE_HIPCC)
    hipcc.chmod(0o755)
    hipify = tools / "hipify-perl"
    hipify.write_text(FAKE_HIPIFY)
    log = tmp_path / "compiles.log"
    log.write_text("")
    monkeypatch.setenv("FAKE_HIPCC_LOG", str(log))
    return hipcc, hipify, log


@pytest.fixture()
def small_tree(tmp_path: Path) -> Path:
    """Two programs: ``good`` (reads ../include) and ``bad`` (its CUDA source does not compile, its twin does)."""
    src = tmp_path / "src"
    for d in ["good-cuda", "good-hip", "bad-cuda", "bad-hip", "include"]:
        (src / d).mkdir(parents=True)
    (src / "include" / "common.h").write_text("#define COMMON 1\n")
    (src / "good-cuda" / "main.cu").write_text('#include "../include/common.h"\n__global__ void k() {}\n')
    (src / "good-hip" / "main.cu").write_text('#include "../include/common.h"\n#include <hip/hip_runtime.h>\n')
    (src / "bad-cuda" / "main.cu").write_text("// BROKEN\n__global__ void k() {}\n")
    (src / "bad-hip" / "main.cu").write_text("#include <hip/hip_runtime.h>\n")
    return src


def _compiles(log: Path) -> int:
    return len([line for line in log.read_text().splitlines() if line])


def _append_marker(src: str, out: str, target_name: str = "") -> dict:
    """``port_with_vado`` followed by a change to every port: a stand-in for a new vado version."""
    result = _ORIGINAL_PORT(src, out, target_name)
    for p in Path(out).rglob("*.cu"):
        p.write_text(p.read_text() + "// ported by a newer vado\n")
    return result


_ORIGINAL_PORT = ph.port_with_vado


def test_version_summary_keeps_hip_and_clang_lines() -> None:
    text = "HIP version: 7.2.53211-9999\nDebian clang version 22.1.8 (3)\nTarget: x86_64-pc-linux-gnu\n"
    assert hb.version_summary(text) == "HIP version: 7.2.53211-9999; Debian clang version 22.1.8 (3)"
    assert hb.version_summary("some compiler 1.0\nmore\n") == "some compiler 1.0"


def test_compiler_version_reports_a_compiler_that_cannot_run(tmp_path: Path, fake_tools) -> None:
    hipcc, _, _ = fake_tools
    assert "HIP version: 9.9.1-test" in hb.compiler_version(str(hipcc))
    broken = tmp_path / "broken-hipcc"
    broken.write_text("#!/bin/sh\necho nope >&2\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(RuntimeError, match="exit 3"):
        hb.compiler_version(str(broken))
    with pytest.raises(RuntimeError, match="--version failed"):
        hb.compiler_version(str(tmp_path / "missing"))


def test_cache_key_depends_on_compiler_arch_flags_and_files(tmp_path: Path) -> None:
    d = tmp_path / "p"
    d.mkdir()
    (d / "main.cu").write_text("int x;\n")
    units = [hb.Unit("main.cu", ("-O3",))]
    key = hb.cache_key([d], units, "HIP version: 7.2", "gfx942", False)
    assert key == hb.cache_key([d], units, "HIP version: 7.2", "gfx942", False)
    assert key != hb.cache_key([d], units, "HIP version: 7.1", "gfx942", False)
    assert key != hb.cache_key([d], units, "HIP version: 7.2", "gfx950", False)
    assert key != hb.cache_key([d], units, "HIP version: 7.2", "gfx942", True)
    assert key != hb.cache_key([d], [hb.Unit("main.cu", ("-O2",))], "HIP version: 7.2", "gfx942", False)
    (d / "main.cu").write_text("int y;\n")
    assert key != hb.cache_key([d], units, "HIP version: 7.2", "gfx942", False)


def test_build_variant_caches_by_content(tmp_path: Path, fake_tools) -> None:
    hipcc, _, log = fake_tools
    prog = tmp_path / "p"
    prog.mkdir()
    (prog / "main.cu").write_text("__global__ void k() {}\n")
    cache = tmp_path / "cache"

    def build(arch: str = "gfx942") -> hb.BuildResult:
        return hb.build_variant(prog, prog / "Makefile", tmp_path / "objs", 30, cache, [prog], arch=arch,
                                hipcc=str(hipcc), compiler="HIP version: 9.9.1-test")

    first = build()
    assert first.ok and "cached" not in first.note and _compiles(log) == 1
    again = build()
    assert again.ok and "cached" in again.note and _compiles(log) == 1
    assert build("gfx950").ok and _compiles(log) == 2
    (prog / "main.cu").write_text("// BROKEN\n")
    failed = build()
    assert not failed.ok and failed.first_error == "main.cu:1:1: error: broken here" and _compiles(log) == 3
    assert build().first_error == failed.first_error and _compiles(log) == 3
    # A damaged cache entry is rebuilt, not a crash.
    for entry in cache.glob("*.json"):
        entry.write_text("{not json")
    assert not build().ok and _compiles(log) == 4


def test_cached_failures_are_compiled_again_with_other_libraries(tmp_path: Path, fake_tools) -> None:
    hipcc, _, log = fake_tools
    prog = tmp_path / "p"
    prog.mkdir()
    (prog / "main.cu").write_text("// BROKEN\n")
    (prog / "ok.cu").write_text("__global__ void k() {}\n")
    cache = tmp_path / "cache"
    none, boost = {"libboost-dev": ""}, {"libboost-dev": "1.92"}

    def build(libraries, source="main.cu") -> hb.BuildResult:
        (prog / "Makefile").write_text(f"all:\n\tnvcc -c {source}\n")
        return hb.build_variant(prog, prog / "Makefile", tmp_path / "objs", 30, cache, [prog],
                                hipcc=str(hipcc), compiler="HIP version: 9.9.1-test", libraries=libraries)

    assert not build(none).ok and _compiles(log) == 1
    assert "cached" in build(none).note and _compiles(log) == 1
    # Boost installed since: the failure may have been its missing header, so it is compiled again.
    assert "cached" not in build(boost).note and _compiles(log) == 2
    assert "cached" in build(boost).note and _compiles(log) == 2
    # A success stands whatever was installed since.
    assert build(none, "ok.cu").ok and _compiles(log) == 3
    assert "cached" in build(boost, "ok.cu").note and _compiles(log) == 3


def test_link_copy_makes_a_real_directory(tmp_path: Path) -> None:
    src = tmp_path / "a"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "f.h").write_text("x\n")
    dst = tmp_path / "copy"
    ph.link_copy(src, dst)
    assert dst.is_dir() and not dst.is_symlink()
    assert (dst / "sub" / "f.h").read_text() == "x\n"
    assert (dst / "sub" / "f.h").stat().st_ino == (src / "sub" / "f.h").stat().st_ino  # same file system: a link


def test_default_hipcc(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VADO_HIPCC", "/opt/x/hipcc")
    assert ph.default_hipcc() == "/opt/x/hipcc"
    monkeypatch.delenv("VADO_HIPCC")
    rocm = tmp_path / "hipcc"
    rocm.write_text("")
    monkeypatch.setattr(ph, "ROCM_HIPCC", rocm)
    assert ph.default_hipcc() == str(rocm)
    monkeypatch.setattr(ph, "ROCM_HIPCC", tmp_path / "absent")
    assert ph.default_hipcc() == "hipcc"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--variants", "vado,cuda"], "--variants takes"),
        (["--variants", "vado,vado"], "--variants takes"),
        (["--arch", "sm_80"], "is not an AMD GPU architecture"),
        (["--target", "rocm-0.1"], "--target rocm-0.1"),
        (["--target", "oneapi"], "vado port writes HIP code"),
        (["--hipcc", "/nonexistent/hipcc"], "hipcc not found: /nonexistent/hipcc"),
        (["--programs", "good,nope"], "names no program with both -cuda and -hip twins: nope"),
    ],
)
def test_main_rejects_bad_arguments(small_tree: Path, fake_tools, extra: list[str], message: str, capsys) -> None:
    hipcc, hipify, _ = fake_tools
    args = ["--hecbench", str(small_tree), "--hipcc", str(hipcc), "--hipify-perl", str(hipify), *extra]
    assert ph.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_main_compiles_three_variants_and_reuses_the_cache(small_tree: Path, fake_tools, tmp_path: Path,
                                                           monkeypatch, capsys) -> None:
    hipcc, hipify, log = fake_tools
    cache = tmp_path / "cache"
    report = tmp_path / "out.json"

    def run(work: str) -> dict:
        argv = ["--hecbench", str(small_tree), "--sample", "0", "--jobs", "1", "--hipcc", str(hipcc),
                "--hipify-perl", str(hipify), "--cache", str(cache), "--json", str(report), "--throughput-repeat", "0",
                "--work", str(tmp_path / work)]
        assert ph.main(argv) == 0
        import json

        return json.loads(report.read_text())

    data = run("w1")
    out = capsys.readouterr()
    assert "HIP version: 9.9.1-test; fake clang version 99.0 (test)" in out.out
    assert "--offload-arch=gfx942" in out.out and "get_target('rocm-7.2')" in out.out
    assert data["counts"] == {"vado": 1, "hand": 2, "hipify": 1}
    assert data["arch"] == "gfx942" and data["target"] == "rocm-7.2" and data["sample_size"] == 2
    assert data["compiler"]["summary"] == "HIP version: 9.9.1-test; fake clang version 99.0 (test)"
    assert data["failures"] == [{
        "program": "bad",
        "vado": {"ok": False, "class": "other", "first_error": "main.cu:1:1: error: broken here"},
        "hand": {"ok": True},
        "hipify": {"ok": False, "class": "other", "first_error": "main.cu:1:1: error: broken here"},
    }]
    assert "    vado    [other] main.cu:1:1: error: broken here" in out.out
    # vado's builds come first (its failures are awaited), each variant in sample order.
    progress = [line.split("] ", 1)[1].split(":")[0] for line in out.err.splitlines() if line.startswith("[")]
    assert progress == ["bad vado", "good vado", "bad hand", "good hand", "bad hipify", "good hipify"]
    # Siblings are real directories in each variant, so a chrooted compiler sees them.
    for variant in ("vado", "hand", "hipify"):
        sib = tmp_path / "w1" / "good" / variant / "include"
        assert sib.is_dir() and not sib.is_symlink() and (sib / "common.h").is_file()
    assert _compiles(log) == 6

    # Unchanged inputs: everything from the cache.
    data = run("w2")
    assert data["from_cache"] == {"vado": 2, "hand": 2, "hipify": 2} and _compiles(log) == 6
    # A different vado (its ports change): only vado's builds run again.
    monkeypatch.setattr(ph, "port_with_vado", _append_marker)
    data = run("w3")
    assert data["from_cache"] == {"vado": 0, "hand": 2, "hipify": 2} and _compiles(log) == 8
    assert data["counts"] == {"vado": 1, "hand": 2, "hipify": 1}


def test_main_builds_only_the_named_variants(small_tree: Path, fake_tools, tmp_path: Path, capsys) -> None:
    hipcc, hipify, log = fake_tools
    argv = ["--hecbench", str(small_tree), "--programs", "good", "--variants", "hand", "--hipcc", str(hipcc),
            "--hipify-perl", str(hipify), "--throughput-repeat", "0", "--arch", "gfx950"]
    assert ph.main(argv) == 0
    out = capsys.readouterr().out
    assert "hand-written -hip" in out and "1/1" in out and "vado (" not in out.split("compiled with")[1]
    assert "--offload-arch=gfx950" in out
    assert _compiles(log) == 1


CMAKE_LISTS = """\
# bench-cuda/CMakeLists.txt
add_hecbench_benchmark(
    NAME bench
    MODEL cuda
    SOURCES
        src/main.cpp
        ${CMAKE_CURRENT_SOURCE_DIR}/src/kernel.cu
        src/kernel.cu
        src/kernels.h
        ${GLOBBED}
    INCLUDE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}/src/include include
    COMPILE_OPTIONS --extended-lambda -DVERIFY $<$<COMPILE_LANGUAGE:CUDA>:-G>
    LINK_LIBRARIES CUDA::cublas
    CATEGORIES imaging
)
"""


def test_units_from_cmake_reads_add_hecbench_benchmark() -> None:
    flags = ("-Isrc/include", "-Iinclude", "-I.", "-DVERIFY", "-fgpu-rdc")
    assert hb.units_from_cmake(CMAKE_LISTS) == [hb.Unit("src/main.cpp", flags), hb.Unit("src/kernel.cu", flags)]
    hip = CMAKE_LISTS.replace("MODEL cuda", "MODEL hip")
    assert hb.units_from_cmake(hip)[0].flags == ("-Isrc/include", "-Iinclude", "-I.", "-I../bench-cuda", "-DVERIFY")
    assert hb.units_from_cmake("add_library(x STATIC a.c)\n") == []
    assert hb.units_from_cmake("# add_hecbench_benchmark(NAME x SOURCES a.cu)\n") == []


def test_dry_run_reads_cmake_without_a_makefile(tmp_path: Path) -> None:
    prog = tmp_path / "bench-cuda"
    (prog / "src").mkdir(parents=True)
    (prog / "src" / "kernel.cu").write_text("\n")
    (prog / "other.cu").write_text("\n")
    (prog / "CMakeLists.txt").write_text(CMAKE_LISTS)
    # src/main.cpp is named but not in the tree (as tgvnn's src/tgv.cu): left out, and said so.
    units, note = hb.dry_run(prog, prog / "Makefile")
    assert [u.source for u in units] == ["src/kernel.cu"] and "CMakeLists.txt" in note
    assert note.endswith("left out, named but not in the tree: src/main.cpp")
    (prog / "src" / "main.cpp").write_text("\n")
    units, note = hb.dry_run(prog, prog / "Makefile")
    assert [u.source for u in units] == ["src/main.cpp", "src/kernel.cu"] and "left out" not in note
    # A CMakeLists.txt without HeCBench's call falls back to every .cu file.
    (prog / "CMakeLists.txt").write_text("project(x)\n")
    units, note = hb.dry_run(prog, prog / "Makefile")
    assert [u.source for u in units] == ["other.cu", "src/kernel.cu"] and note.startswith("no Makefile: every")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in {"Z", "X"}


def test_run_compiler_timeout_kills_the_compilers_children(tmp_path: Path) -> None:
    import os
    import time

    pids = tmp_path / "pids"
    script = tmp_path / "slow-hipcc"
    script.write_text(f"#!/bin/sh\necho starting\nsleep 60 &\necho $! > {pids}\nwait\n")
    script.chmod(0o755)
    out, rc = hb.run_compiler([str(script)], tmp_path, dict(os.environ), 1.0)
    assert rc is None and "starting" in out
    child = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
    assert hb.run_compiler(["sh", "-c", "echo out; echo err >&2; exit 3"], tmp_path, dict(os.environ), 10) == (
        "out\nerr\n", 3)


def test_cuda_siblings_are_translated_by_the_variants_tool(tmp_path: Path, fake_tools) -> None:
    _, hipify, _ = fake_tools
    src = tmp_path / "src"
    for d in ["user-cuda", "user-hip", "lib-cuda", "lib-hip", "include"]:
        (src / d).mkdir(parents=True)
    (src / "lib-cuda" / "common.h").write_text("#include <cuda_runtime.h>\n")
    (src / "lib-hip" / "common.h").write_text("#include <hip/hip_runtime.h>\n")
    (src / "include" / "x.h").write_text("#include <cuda_runtime.h>\n")
    (src / "user-cuda" / "main.cu").write_text('#include "../lib-cuda/common.h"\n#include "../include/x.h"\n')
    (src / "user-hip" / "main.cu").write_text('#include "../lib-hip/common.h"\n')
    layout = ph.Layout(src, tmp_path / "work", None, "", hipify)
    plans = ph.prepare(layout, "user")
    base = tmp_path / "work" / "user"
    assert "hip/hip_runtime.h" in (base / "vado" / "lib-cuda" / "common.h").read_text()
    assert (base / "hipify" / "lib-cuda" / "common.h").is_file()  # the fake hipify-perl keeps the text
    assert (base / "hand" / "lib-hip" / "common.h").read_text() == "#include <hip/hip_runtime.h>\n"
    # A sibling that is not a CUDA program is copied as it is, for every variant.
    assert (base / "vado" / "include" / "x.h").read_text() == "#include <cuda_runtime.h>\n"
    assert base / "vado" / "lib-cuda" in plans["vado"][2] and base / "hand" / "lib-hip" in plans["hand"][2]


@pytest.mark.parametrize("lang", [["--x", "cu"], ["-x", "cu"], ["-x", "hip"], ["-xhip"], ["--x=cu"], ["-x=cuda"]])
def test_a_device_language_makes_c_units_device_code(lang: list[str]) -> None:
    units, flags = hb.keep_flags(["-std=c++17", *lang, "-O3", "k.c"])
    assert units == ["k.c"] and flags == ["-std=c++17", "-xhip", "-O3"]
    argv = hb.hipcc_argv(hb.Unit("k.c", tuple(flags)), "o.o")
    assert argv[-6:] == ["-x", "hip", "-c", "k.c", "-o", "o.o"] and "-std=c++17" in argv and "-xhip" not in argv
    assert "c_flags" not in hb.Unit("k.c", tuple(flags)).key()


@pytest.mark.parametrize("lang", [["-x", "c++"], ["-xc++"], ["-x", "c"]])
def test_a_host_language_is_dropped(lang: list[str]) -> None:
    units, flags = hb.keep_flags([*lang, "-O2", "k.c"])
    assert units == ["k.c"] and flags == ["-O2"]
    assert hb.Unit("k.c", tuple(flags)).compiles_as_c()


def test_units_from_dry_run_expands_shell_patterns(tmp_path: Path) -> None:
    (tmp_path / "sim" / "src").mkdir(parents=True)
    for name in ["b.cpp", "a.cpp", "k.cu"]:
        (tmp_path / "sim" / "src" / name).write_text("\n")
    text = (f"make[1]: Entering directory '{tmp_path / 'sim'}'\n"
            "hipcc -std=c++17 -Isrc src/*.cpp src/*.cu src/none*.cpp -o main\n")
    units = hb.units_from_dry_run(text, tmp_path)
    assert [(u.source, u.cwd) for u in units] == [("src/a.cpp", "sim"), ("src/b.cpp", "sim"), ("src/k.cu", "sim"),
                                                  ("src/none*.cpp", "sim")]


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_dry_run_falls_back_to_cmake_when_make_names_no_unit(tmp_path: Path) -> None:
    prog = tmp_path / "bench-cuda"
    (prog / "src").mkdir(parents=True)
    (prog / "Makefile").write_text("all: main.o\n\tnvcc main.o -o main\n")  # no rule makes main.o
    with pytest.raises(RuntimeError, match="named no unit"):
        hb.dry_run(prog, prog / "Makefile")
    (prog / "CMakeLists.txt").write_text(CMAKE_LISTS)
    for name in ("main.cpp", "kernel.cu"):
        (prog / "src" / name).write_text("\n")
    units, note = hb.dry_run(prog, prog / "Makefile")
    assert [u.source for u in units] == ["src/main.cpp", "src/kernel.cu"] and note.startswith("make -n named no unit")


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_siblings_missing_from_the_checkout_come_from_the_mirror(tmp_path: Path) -> None:
    import subprocess

    repo = tmp_path / "mirror"
    (repo / "src" / "prog-omp").mkdir(parents=True)
    (repo / "src" / "prog-omp" / "ref.h").write_text("#define REF 1\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    checkout = tmp_path / "src"
    checkout.mkdir()
    layout = ph.Layout(checkout, tmp_path / "work", repo / ".git")
    root = tmp_path / "work" / "p" / "vado"
    root.mkdir(parents=True)
    found = layout.link_siblings(root, {"prog-omp", "nowhere"}, "vado")
    assert found == [root / "prog-omp"] and (root / "prog-omp" / "ref.h").read_text() == "#define REF 1\n"


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_dry_run_gives_make_variables_on_the_command_line(tmp_path: Path) -> None:
    prog = tmp_path / "mpi-cuda"
    prog.mkdir()
    # As HeCBench's allreduce-cuda: MPI_ROOT assigned (not ?=) to NVIDIA's HPC SDK.
    (prog / "Makefile").write_text("MPI_ROOT = /opt/hpc_sdk/openmpi\nall: main.o\n"
                                   "main.o: main.cu\n\tnvcc -I$(MPI_ROOT)/include -c main.cu -o main.o\n")
    (prog / "main.cu").write_text("\n")
    (unit,), _ = hb.dry_run(prog, prog / "Makefile")
    assert "-I/opt/hpc_sdk/openmpi/include" in unit.flags
    (unit,), _ = hb.dry_run(prog, prog / "Makefile", make_vars=hb.DEFAULT_MAKE_VARS)
    assert "-I/usr/lib/x86_64-linux-gnu/openmpi/include" in unit.flags


def test_library_environment_asks_inside_the_chroot(tmp_path: Path) -> None:
    (tmp_path / "hipcc").write_text("#!/bin/sh\n")
    runner = tmp_path / "rocm-run"
    # The wrapper runs its arguments in the chroot; this one answers for two packages only.
    runner.write_text("#!/bin/sh\ncase \"$1\" in dpkg-query) printf 'libboost-dev 1.92.0.1\\nlibgsl-dev 2.8\\n' ;; esac\n"
                      "echo 'dpkg-query: no packages found matching libbz2-dev' >&2\nexit 1\n")
    runner.chmod(0o755)
    libs = hb.library_environment(str(tmp_path / "hipcc"))
    assert libs == {"libboost-dev": "1.92.0.1", "libomp-22-dev": "", "libopenmpi-dev": "", "libgsl-dev": "2.8",
                    "libbz2-dev": ""}
    assert set(libs) == set(hb.BENCH_LIBRARIES)
