"""benchmarks/wave64_samples.py's preparation (no GPU, no nvcc): the list file, the copies, the work directory."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from argparse import Namespace
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    """benchmarks/NAME.py as a module (one instance: wave64_samples imports wave64_differential by name)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def _samples():
    _load("wave64_differential")
    return _load("wave64_samples")


#: The 37 HeCBench programs `wave64_differential.py prepare --seed 15 --count 38` chooses (every eligible one at
#: HeCBench f27000a5).
SEED_15_SET = frozenset(
    "addBiasResidualLayerNorm atomicAggregate attention-paged attentionMultiHeadKVCache bh bscan btree collision degrid "
    "dpid gc gemv hadamard jaccard jacobi lda logprob marchingCubes metropolis moe-align mxfp4 nbnxm quantAQLM rmsnorm "
    "rowwiseMoments scatterAdd score segsort shuffle simpleSpmv softmax-fused softmax-online vote warpexchange warpsort "
    "wedford wmma".split())


def test_the_committed_list_names_60_programs_of_every_category_asked():
    w = _samples()
    doc = w.load_list()
    progs = doc["programs"]
    assert len(progs) >= 60
    tags = [t for p in progs for t in p["tags"]]
    for category in ("cooperative-groups", "warpsize-arithmetic", "cublas", "cublaslt", "cub"):
        assert tags.count(category) >= 3, category
    assert all(p["why"] for p in progs)
    for s in doc["sources"].values():  # each source pinned to a commit, none of its code committed here
        assert len(s["commit"]) == 40 and s["repo"].count("/") == 1
    # HeCBench programs only outside the set benchmarks/wave64_differential.py measures (seed 15: all 37 eligible).
    assert not {p["name"] for p in progs if p["source"] == "HeCBench"} & SEED_15_SET


def _list(tmp_path: Path, programs: list[dict], shared: dict | None = None) -> Path:
    doc = {"sources": {"s": {"repo": "o/r", "commit": "0" * 40, "path": str(tmp_path / "repo"), "flags": ["-rdc=true"],
                             "shared": shared if shared is not None else {"Common": {"from": "Common", "glob": "*.h"}}}},
           "programs": programs}
    p = tmp_path / "list.json"
    p.write_text(json.dumps(doc))
    return p


def test_a_list_naming_an_unknown_source_shared_dir_or_a_name_twice_is_refused(tmp_path):
    w = _samples()
    base = {"name": "a", "source": "s", "dir": "a", "shared": ["Common"]}
    with pytest.raises(ValueError, match="unknown source"):
        w.load_list(_list(tmp_path, [{**base, "source": "t"}]))
    with pytest.raises(ValueError, match="unknown shared directory"):
        w.load_list(_list(tmp_path, [{**base, "shared": ["Other"]}]))
    with pytest.raises(ValueError, match="listed twice"):
        w.load_list(_list(tmp_path, [base, base]))
    with pytest.raises(ValueError, match="unknown source"):
        w.load_list(_list(tmp_path, [base]), {"nope": "/x"})
    assert w.load_list(_list(tmp_path, [base]), {"s": "/elsewhere"})["sources"]["s"]["path"] == "/elsewhere"


def test_only_sources_are_copied_no_data_no_links_no_large_files(tmp_path):
    w = _samples()
    src = tmp_path / "p"
    (src / "inc").mkdir(parents=True)
    (src / "main.cu").write_text("int main() {}\n")
    (src / "inc" / "k.cuh").write_text("// k\n")
    (src / "data.bin").write_bytes(b"\0" * 10)
    (src / "README.md").write_text("x")
    (src / "big.h").write_text("x" * (w.MAX_FILE + 1))
    (src / "link.h").symlink_to(src / "main.cu")
    w._copy_sources(src, tmp_path / "out")
    got = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert got == ["inc/k.cuh", "main.cu"]


def test_the_layer_copy_gets_rocm_guards_and_declarations_and_other_wrappers_stay(tmp_path):
    w = _samples()
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "hip_runtime.h").write_text("#pragma once\n")
    (tmp_path / "hip" / "hip_complex.h").write_text("#pragma once\n")
    assert w.complete_layer(tmp_path) == ["hip/hip_runtime.h"]
    text = (tmp_path / "hip" / "hip_runtime.h").read_text()
    for g in ("HIP_INCLUDE_HIP_HIP_RUNTIME_H", "HIP_INCLUDE_HIP_DRIVER_TYPES_H"):
        assert f"#ifndef {g}\n#define {g}\n#endif\n" in text
    assert "#include <cuda_profiler_api.h>" in text
    assert (tmp_path / "hip" / "hip_complex.h").read_text() == "#pragma once\n"


def test_blocking_findings_are_vados_open_work_blocked_first_for_the_target_or_its_family():
    w = _samples()
    from vado.knowledge.targets import get_target
    from vado.model.verdict import Verdict

    def finding(code, verdicts):
        return SimpleNamespace(code=code, verdicts=verdicts, message=f"{code} says why",
                               span=SimpleNamespace(path="/x/k.cu", line=7))

    result = SimpleNamespace(remaining=[finding("API009", {"rocm": Verdict.MANUAL, "zluda": Verdict.BLOCKED}),
                                        finding("ARCH1", {"rocm": Verdict.BLOCKED}),
                                        finding("LIB010", {"rocm": Verdict.AUTOMATIC}),
                                        finding("WARP1", {"rocm": Verdict.MOVES_AS_IS}),
                                        finding("ARCH3", {"rocm-7.2": Verdict.BLOCKED})])
    # Blocked first (the first is the deciding finding), then needs-manual-work; the rest does not stop a port.
    assert w.blocking_findings(result, get_target("rocm-7.2")) == ["ARCH1 k.cu:7: ARCH1 says why",
                                                                   "ARCH3 k.cu:7: ARCH3 says why",
                                                                   "API009 k.cu:7: API009 says why"]
    assert w.blocking_findings(SimpleNamespace(remaining=[finding("LIB010", {"rocm": Verdict.AUTOMATIC})]),
                               get_target("rocm-7.2")) == []


def test_nvcc_command_of_each_variant_uses_its_own_shared_copy_and_links_libraries_last(tmp_path):
    d = _load("wave64_differential")
    prog = {"units": [{"source": "src/a.cu", "flags": ["-Iinc"], "rdc": True}], "shared": ["s/Common"],
            "shared_sources": ["s/Common/helpers.cpp"], "libs": ["-lcublas"]}
    orig = d.nvcc_argv(prog, "orig", tmp_path)
    vado = d.nvcc_argv(prog, "vado", tmp_path)
    assert f"-I{(tmp_path / 'shared' / 'orig' / 's' / 'Common').resolve()}" in orig
    assert not any("inc64" in a for a in orig)
    assert f"-I{(tmp_path / 'inc64').resolve()}" in vado and "-rdc=true" in vado
    assert str((tmp_path / "shared" / "vado" / "s" / "Common" / "helpers.cpp").resolve()) in vado
    assert vado[-3:] == ["-o", "vado-main", "-lcublas"]
    assert "-lcublas" not in d.nvcc_argv(prog, "vado", tmp_path, compile_only=True)
    # The original's .cpp files go to the host compiler as its CMake build does; a port's are CUDA (hipcc: HIP).
    assert "-x" in orig and "-x" not in d.nvcc_argv({**prog, "host_cpp": True}, "orig", tmp_path)
    assert d.nvcc_argv({**prog, "host_cpp": True}, "vado", tmp_path)[3:5] == ["-x", "cu"]


def _perl_hipify(tmp_path: Path) -> Path:
    """A stand-in for hipify-perl (a real perl run): cudaMalloc -> hipMalloc, cuda_runtime.h -> hip runtime."""
    script = tmp_path / "fake-hipify.pl"
    script.write_text("use strict; my @files = grep { !/^-/ } @ARGV;\n"
                      "for my $f (@files) { local $/; open(my $i, '<', $f) or die; my $t = <$i>; close $i;\n"
                      "  $t =~ s/cudaMalloc/hipMalloc/g; $t =~ s/cuda_runtime\\.h/hip\\/hip_runtime.h/g;\n"
                      "  open(my $o, '>', $f) or die; print $o $t; close $o; }\n")
    return script


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is absent")
def test_prepare_writes_three_variants_shared_copies_and_stops_a_blocked_port(tmp_path):
    w = _samples()
    repo = tmp_path / "repo"
    (repo / "Common").mkdir(parents=True)
    (repo / "Common" / "helper.h").write_text("#include <cuda_runtime.h>\ninline int helper() { return 1; }\n")
    (repo / "Common" / "notes.txt").write_text("not a header")
    (repo / "plain").mkdir()
    (repo / "plain" / "main.cu").write_text(
        '#include "helper.h"\n#include <cstdio>\n__global__ void k(int *x) { x[threadIdx.x] = threadIdx.x; }\n'
        "int main() { int *d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); printf(\"%d\\n\", helper()); }\n")
    (repo / "plain" / "input.dat").write_bytes(b"\1\2")
    (repo / "cluster").mkdir()
    (repo / "cluster" / "main.cu").write_text(
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void __cluster_dims__(2, 1, 1) k(int *x) { cg::cluster_group c = cg::this_cluster(); "
        "x[c.block_rank()] = 1; }\nint main() { return 0; }\n")
    programs = [{"name": n, "source": "s", "dir": n, "shared": ["Common"], "libs": ["-lm"], "args": "3",
                 "tags": [], "why": "test"} for n in ("plain", "cluster")]
    args = Namespace(list=str(_list(tmp_path, programs)), root=[], hipify=str(_perl_hipify(tmp_path)),
                     work=str(tmp_path / "work"), programs="", check=False, jobs=1)
    manifest = w.prepare(args)
    work = tmp_path / "work"
    assert json.loads((work / "manifest.json").read_text()) == manifest
    by = {p["name"]: p for p in manifest["programs"]}
    assert set(by) == {"plain", "cluster"}
    plain = by["plain"]
    assert plain["units"] == [{"source": "main.cu", "flags": [], "rdc": True}]
    assert plain["shared"] == ["s/Common"] and plain["libs"] == ["-lm"] and plain["args"] == "3"
    assert "stopped" not in plain and plain["host_cpp"] is True
    for v in ("orig", "vado", "hipify"):
        prog = work / "src" / "plain" / v / "prog"
        # the data file stays behind; compile_commands.json is the build vado's port judges (nvcc's commands)
        assert sorted(p.name for p in prog.iterdir()) == ["compile_commands.json", "main.cu"]
        assert sorted(p.name for p in (work / "shared" / v / "s" / "Common").iterdir()) == ["helper.h"]
    assert "cudaMalloc" in (work / "src" / "plain" / "orig" / "prog" / "main.cu").read_text()
    assert "hipMalloc" in (work / "src" / "plain" / "vado" / "prog" / "main.cu").read_text()
    assert "hipMalloc" in (work / "src" / "plain" / "hipify" / "prog" / "main.cu").read_text()
    assert "hip/hip_runtime.h" in (work / "shared" / "vado" / "s" / "Common" / "helper.h").read_text()
    # The layer's copy defines ROCm's include guards, which the port's helper tests.
    assert "HIP_INCLUDE_HIP_HIP_RUNTIME_H" in (work / "inc64" / "hip" / "hip_runtime.h").read_text()
    # Thread-block clusters have no ROCm counterpart: vado's port is stopped, with the finding that says why.
    stop = by["cluster"]["stopped"]
    assert set(stop) == {"vado"} and "cluster" in stop["vado"].lower()


def test_the_report_shows_the_original_and_a_stopped_port():
    d = _load("wave64_differential")
    doc = {"seed": None, "set": "wave64_programs.json", "rtol": 1e-3, "atol": 1e-5, "results": [
        {"name": "blocked", "builds": {"orig": {"ok": True}}, "original": {"rc": 0, "timed_out": False},
         "status": {"vado": {"status": "stopped", "why": "ARCH010 k.cu:3: thread-block clusters"},
                    "hipify": {"status": "pass"}}},
        {"name": "nobuild", "builds": {"orig": {"ok": False}},
         "status": {"vado": {"status": "original-build-failed", "why": "e"}, "hipify": {"status": "original-build-failed", "why": "e"}}}]}
    text = d.summary(doc)
    assert text.startswith("set wave64_programs.json;")
    assert "orig=ran  vado=stopped  hipify=pass" in text
    assert "vado: ARCH010 k.cu:3: thread-block clusters" in text
    assert "orig=build-failed" in text
    assert text.splitlines()[-2] == "vado: original-build-failed 1, stopped 1 (of 2)"


def test_check_records_each_variants_compile_in_the_manifest(tmp_path, monkeypatch):
    w = _samples()
    work = tmp_path / "work"
    progs = []
    for name, broken in (("good", ()), ("bad", ("vado",))):
        for v in ("orig", "vado", "hipify"):
            d = work / "src" / name / v / "prog"
            d.mkdir(parents=True)
            (d / "main.cu").write_text("BROKEN\n" if v in broken else "int main() {}\n")
        progs.append({"name": name, "units": [{"source": "main.cu", "flags": [], "rdc": False}]})
    (work / "src" / "stopped" / "hipify" / "prog").mkdir(parents=True)
    (work / "src" / "stopped" / "hipify" / "prog" / "main.cu").write_text("int main() {}\n")
    progs.append({"name": "stopped", "units": [{"source": "main.cu", "flags": [], "rdc": False}],
                  "stopped": {"vado": "ARCH004 k.cu:1: device launch"}})
    (work / "manifest.json").write_text(json.dumps({"programs": progs}))
    # A stand-in for nvcc -c (no CUDA needed): fails on a source that says BROKEN, as nvcc reports an error.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvcc").write_text("#!/bin/sh\nfor a in \"$@\"; do case $a in *.cu) if grep -q BROKEN \"$a\"; then "
                                  "echo \"$a(1): error: broken\" >&2; exit 1; fi;; esac; done\nexit 0\n")
    (bin_dir / "nvcc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    ok = w.check_here(work, 1, ("vado", "hipify"), ["bad", "good", "stopped"])
    assert ok == {"vado": 1, "hipify": 3}
    manifest = json.loads((work / "manifest.json").read_text())
    by = {p["name"]: p for p in manifest["programs"]}
    assert by["good"]["cpu_compile"] == {"vado": "ok", "hipify": "ok"}
    assert by["bad"]["cpu_compile"] == {"vado": "main.cu(1): error: broken", "hipify": "ok"}
    assert by["stopped"]["cpu_compile"] == {"hipify": "ok"}  # a stopped port is not compiled
    assert manifest["cpu_compile"] == ok


def _run_of(stdout: str) -> dict:
    return {"rc": 0, "timed_out": False, "stdout": stdout, "stderr": "", "bin": "/x/vado-main", "dir": "/x"}


def test_a_programs_uncomparable_lines_are_left_out_of_the_comparison_and_said_in_the_report():
    d = _load("wave64_differential")
    w = _samples()
    by = {p["name"]: p for p in w.load_list()["programs"]}
    streams = by["simpleStreams"]
    orig = "Starting Test\nmemcopy:\t2.56\nkernel:\t\t2.60\nnon-streamed:\t2.70\n4 streams:\t1.97\nTest passed\n"
    port = "Starting Test\nmemcopy:\t2.48\nkernel:\t\t8.48\nnon-streamed:\t8.70\n4 streams:\t7.97\nTest passed\n"
    # Timings without a unit word: the general recogniser misses them, the program's entry names them.
    assert d.compare(_run_of(orig), _run_of(orig), _run_of(port), 1e-3, 1e-5)["status"] == "fail"
    assert d.compare(_run_of(orig), _run_of(orig), _run_of(port), 1e-3, 1e-5, d.ignored_lines(streams))["status"] == "pass"
    # ... and only them: a result line that differs still fails, as does a timing-free program's line.
    bad = port.replace("Test passed", "Test failed")
    assert d.compare(_run_of(orig), _run_of(orig), _run_of(bad), 1e-3, 1e-5, d.ignored_lines(streams))["status"] == "fail"
    assert d.ignored_lines({"name": "plain"}) == d.TIMING
    foot = d.ignored_lines(by["graphMemoryFootprint"])
    o = "Initial footprint:\n    FOOTPRINT: 0 bytes\n05:     FOOTPRINT: 335544320 bytes\n"
    p = "Initial footprint:\n    FOOTPRINT: 0 bytes\n05:     FOOTPRINT: 402653184 bytes\n"
    assert d.compare(_run_of(o), _run_of(o), _run_of(p), 1e-3, 1e-5, foot)["status"] == "pass"
    assert d.compare(_run_of(o), _run_of(o), _run_of(p.replace(": 0 bytes", ": 64 bytes")), 1e-3, 1e-5, foot)["status"] == "fail"
    doc = {"seed": None, "set": "wave64_programs.json", "rtol": 1e-3, "atol": 1e-5, "results": [
        {"name": "graphMemoryFootprint", "builds": {"orig": {"ok": True}}, "original": {"rc": 0, "timed_out": False},
         "ignore_lines": by["graphMemoryFootprint"]["ignore_lines"],
         "status": {"vado": {"status": "pass"}, "hipify": {"status": "pass"}}}]}
    assert "      not compared: lines matching '^\\\\d\\\\d: +FOOTPRINT" in d.summary(doc)


def test_an_ignore_lines_entry_needs_a_valid_pattern_and_a_reason(tmp_path):
    w = _samples()
    doc = json.loads((ROOT / "benchmarks" / "wave64_programs.json").read_text())
    doc["programs"] = doc["programs"][:1]
    for bad, says in (({"pattern": "x"}, "needs a pattern and a why"), ({"pattern": "(", "why": "w"}, "pattern")):
        doc["programs"][0]["ignore_lines"] = bad
        (tmp_path / "l.json").write_text(json.dumps(doc))
        with pytest.raises(ValueError, match=says):
            w.load_list(tmp_path / "l.json")


def test_rocm_compiles_vados_ports_unit_by_unit_and_records_each_result(tmp_path):
    w = _samples()
    work = tmp_path / "work"
    progs = []
    for name, text in (("good", "int main() {}\n"), ("bad", "BROKEN\n")):
        d = work / "src" / name / "vado" / "prog"
        d.mkdir(parents=True)
        (d / "main.cu").write_text(text)
        progs.append({"name": name, "shared": ["s/Common"],
                      "units": [{"source": "main.cu", "flags": ["-std=c++17", "-fopenmp"], "rdc": False}]})
    progs.append({"name": "stopped", "units": [{"source": "main.cu", "flags": [], "rdc": False}],
                  "stopped": {"vado": "API009 k.cu:1: a tile shuffle of a uint4"}})
    (work / "manifest.json").write_text(json.dumps({"programs": progs}))
    # A stand-in for ROCm's hipcc: records its arguments, fails on a source that says BROKEN.
    hipcc = tmp_path / "hipcc"
    hipcc.write_text("#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/args.txt\"\nfor a in \"$@\"; do case $a in *.cu) "
                     "if grep -q BROKEN \"$a\"; then echo \"$a:1:1: error: broken\" >&2; exit 1; fi;; esac; done\nexit 0\n")
    hipcc.chmod(0o755)
    assert w.rocm_here(work, str(hipcc), "gfx950") == {"ok": 1, "failed": 1}
    by = {p["name"]: p for p in json.loads((work / "manifest.json").read_text())["programs"]}
    assert by["good"]["rocm_compile"] == {"arch": "gfx950", "result": "ok"}
    assert by["bad"]["rocm_compile"]["result"] == "main.cu: main.cu:1:1: error: broken"
    assert "rocm_compile" not in by["stopped"]
    args = (tmp_path / "args.txt").read_text().splitlines()
    assert len(args) == 2 and all(a.startswith("-x hip --offload-arch=gfx950 -O1 -std=c++17 -fopenmp "
                                               "-DVADO_W64_EXIT_GUARD= -I") for a in args)
    assert all(f"{work.resolve()}/shared/vado/s/Common" in a for a in args)


def test_a_program_of_named_files_copies_only_those_and_builds_only_its_own_sources(tmp_path):
    """llm.c's dev/cuda: one directory of many programs (each .cu has its own main) and the header they share; a
    program naming ``files`` gets those alone, and a file it names that is absent, or a path leaving its directory,
    is refused."""
    w = _samples()
    repo = tmp_path / "repo" / "dev"
    repo.mkdir(parents=True)
    (repo / "common.h").write_text("#include <cuda_runtime.h>\n")
    for n in ("a", "b"):
        (repo / f"{n}.cu").write_text('#include "common.h"\nint main() { return 0; }\n')
    prog = {"name": "a", "source": "s", "dir": "dev", "files": ["a.cu", "common.h"], "tags": [], "why": "test"}
    lst = _list(tmp_path, [prog], shared={})
    args = Namespace(list=str(lst), root=[], hipify=str(_perl_hipify(tmp_path)), work=str(tmp_path / "work"),
                     programs="", check=False, jobs=1)
    manifest = w.prepare(args)
    (a,) = manifest["programs"]
    assert [u["source"] for u in a["units"]] == ["a.cu"]
    for v in ("orig", "vado", "hipify"):
        assert sorted(p.name for p in (tmp_path / "work" / "src" / "a" / v / "prog").iterdir()) == [
            "a.cu", "common.h", "compile_commands.json"]
    for bad in (["../x.cu"], ["/abs/a.cu"], "a.cu", [], [3]):
        with pytest.raises(ValueError, match="files"):
            w.load_list(_list(tmp_path, [{**prog, "files": bad}], shared={}))
    # A named file the extracted source lacks (another commit): the program is left out, said, not half-copied.
    args.list = str(_list(tmp_path, [{**prog, "files": ["a.cu", "c.cu"]}], shared={}))
    assert w.prepare(args)["programs"] == []


def test_a_shared_headers_open_work_stops_the_programs_that_include_it_only(tmp_path):
    """CUDALibrarySamples' cuBLAS/utils/cublas_utils.h defines a function over cudaEmulationMantissaControl (API001,
    needs manual work): every program including it fails hipcc, so its finding stops them; a program of the same
    source that does not include it (directly or through another shared header) is not stopped."""
    w = _samples()
    repo = tmp_path / "repo"
    (repo / "utils").mkdir(parents=True)
    (repo / "utils" / "utils.h").write_text(
        "#include <cublas_api.h>\nsize_t ws(cudaEmulationMantissaControl c) { return (size_t)c; }\n")
    (repo / "utils" / "outer.h").write_text('#include "utils.h"\n')
    (repo / "utils" / "clean.h").write_text("#include <cuda_runtime.h>\ninline int one() { return 1; }\n")
    for n, inc in (("direct", "utils.h"), ("through", "outer.h"), ("clean", "clean.h")):
        (repo / n).mkdir()
        (repo / n / "main.cu").write_text(f'#include "{inc}"\nint main() {{ return 0; }}\n')
    programs = [{"name": n, "source": "s", "dir": n, "shared": ["utils"], "tags": [], "why": "test"}
                for n in ("direct", "through", "clean")]
    lst = _list(tmp_path, programs, shared={"utils": {"from": "utils", "glob": "*.h"}})
    args = Namespace(list=str(lst), root=[], hipify=str(_perl_hipify(tmp_path)), work=str(tmp_path / "work"),
                     programs="", check=False, jobs=1)
    by = {p["name"]: p for p in w.prepare(args)["programs"]}
    for n in ("direct", "through"):
        assert by[n]["stopped"]["vado"].startswith("API001 utils.h:2:") and "cudaEmulationMantissaControl" in by[n]["stopped"]["vado"]
    assert "stopped" not in by["clean"]


def test_a_shared_headers_include_guard_test_stops_only_the_programs_using_that_library(tmp_path):
    """cuda-samples' helper_cuda.h tests CUBLAS_API_H_ (ARCH009: false in the port, the code under it dropped):
    that matters to a program including cuBLAS (its checkCudaErrors(cublas...) needs the dropped overload), not to
    the others including helper_cuda.h."""
    w = _samples()
    repo = tmp_path / "repo"
    (repo / "Common").mkdir(parents=True)
    (repo / "Common" / "helper.h").write_text(
        "#include <cuda_runtime.h>\n#ifdef CUBLAS_API_H_\nstatic const char* err(cublasStatus_t e) { return \"\"; }\n"
        # two CUDA names that become one HIP name (HIPBLAS_OP_C): the guard's fix stays unsafe, the finding manual
        "static int op(cublasOperation_t o) { switch (o) { case CUBLAS_OP_C: return 1; case CUBLAS_OP_HERMITAN: return 2; "
        "default: return 0; } }\n#endif\ninline int helper() { return 1; }\n")
    (repo / "blas").mkdir()
    (repo / "blas" / "main.cu").write_text('#include <cublas_v2.h>\n#include "helper.h"\nint main() { return helper(); }\n')
    (repo / "plain").mkdir()
    (repo / "plain" / "main.cu").write_text('#include "helper.h"\nint main() { return helper(); }\n')
    programs = [{"name": n, "source": "s", "dir": n, "shared": ["Common"], "tags": [], "why": "test"}
                for n in ("blas", "plain")]
    args = Namespace(list=str(_list(tmp_path, programs)), root=[], hipify=str(_perl_hipify(tmp_path)),
                     work=str(tmp_path / "work"), programs="", check=False, jobs=1)
    by = {p["name"]: p for p in w.prepare(args)["programs"]}
    assert by["blas"]["stopped"]["vado"].startswith("ARCH009 helper.h:2:")
    assert "stopped" not in by["plain"]


def test_conditional_depths_leave_out_the_include_guard():
    w = _samples()
    text = b"#ifndef G_H\n#define G_H\nint a;\n#ifdef X\nint b;\n#if Y\nint c;\n#endif\n#endif\nint d;\n#endif\n"
    assert w.conditional_depths(text) == [0, 0, 0, 0, 1, 1, 2, 1, 0, 0, 0, 0]
    # no guard: the first #ifndef counts
    assert w.conditional_depths(b"#ifndef X\nint a;\n#endif\n") == [0, 1, 0, 0]
