"""The build model flows into audit and port: each file's #if branches are judged with the macros its build
decides (vado.build.judged), soundly: a branch is inactive only when the configuration provably leaves it out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vado.audit import audit
from vado.build import BuildOptions
from vado.build.judged import judged_build
from vado.knowledge.targets import get_target
from vado.model import Verdict
from vado.scan.preprocessor import amd_configuration, configuration, cuda_configuration

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "buildmodel"
ALL_TARGETS = {"rocm-7.2", "oneapi", "scale", "zluda"}


def _copy(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return root


def _compdb(root: Path, entries: dict[str, list[str]]) -> None:
    """A compile_commands.json compiling each source with nvcc and the given flags."""
    db = [{"directory": str(root), "file": src, "arguments": ["nvcc", *flags, "-c", src, "-o", src + ".o"]}
          for src, flags in entries.items()]
    (root / "compile_commands.json").write_text(json.dumps(db))


def _at(result, path: str, line: int, code: str = "PTX001"):
    found = [f for f in result.findings if f.span.path == path and f.span.line == line and f.code == code]
    assert len(found) == 1, [(f.code, f.span.path, f.span.line) for f in result.findings]
    return found[0]


# --- the fast path: a compile database with and without -DUSE_FAST_PATH ---------------------------------

def test_a_branch_the_build_switches_off_is_inactive_for_every_target(tmp_path):
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": ["-O2"]})  # USE_FAST_PATH off (CMakeLists.txt can pass it: a build switch)
    result = audit(root)
    ptx = _at(result, "kernel.cu", 6)
    assert ptx.verdicts == {} and set(ptx.inactive) == ALL_TARGETS
    assert result.build.reader == "compile-db" and result.build.source == "compile_commands.json"
    assert not result.build.guessed and result.build.units == 1


def test_the_same_branch_counts_when_the_build_defines_it(tmp_path):
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": ["-O2", "-DUSE_FAST_PATH"]})
    ptx = _at(audit(root), "kernel.cu", 6)
    assert set(ptx.verdicts) == ALL_TARGETS and ptx.inactive == {}


def test_a_later_minus_u_wins(tmp_path):
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": ["-DUSE_FAST_PATH", "-UUSE_FAST_PATH"]})
    assert _at(audit(root), "kernel.cu", 6).verdicts == {}


def test_a_name_the_build_never_mentions_stays_unknown(tmp_path):
    """Without CMakeLists.txt nothing says USE_FAST_PATH is the build's to set: a header outside the tree
    might define it, so the branch is not provably left out."""
    root = _copy("fastpath", tmp_path)
    (root / "CMakeLists.txt").unlink()
    _compdb(root, {"kernel.cu": ["-O2"]})
    ptx = _at(audit(root), "kernel.cu", 6)
    assert set(ptx.verdicts) == ALL_TARGETS


def test_a_switch_another_file_defines_stays_unknown(tmp_path):
    root = _copy("fastpath", tmp_path)
    (root / "config.h").write_text("#define USE_FAST_PATH 1\n")
    _compdb(root, {"kernel.cu": ["-O2"]})
    assert set(_at(audit(root), "kernel.cu", 6).verdicts) == ALL_TARGETS


def test_no_build_is_a_guess_and_judges_as_before(tmp_path):
    root = _copy("fastpath", tmp_path)  # CMakeLists.txt only: compile-db mode configures nothing
    result = audit(root)
    assert result.build.guessed and result.build.reader == "guess"
    assert result.build.source.startswith("guessed: no build could be read (")
    ptx = _at(result, "kernel.cu", 6)
    assert set(ptx.verdicts) == ALL_TARGETS
    before = audit(root, build=None)
    assert before.build is None
    assert [(f.code, f.span.start, f.verdicts, f.inactive) for f in result.findings] == \
           [(f.code, f.span.start, f.verdicts, f.inactive) for f in before.findings]


def test_sources_the_build_does_not_compile_are_named_and_keep_their_findings(tmp_path):
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": ["-O2"]})
    result = audit(root)
    assert result.build.not_built == ("unused.cu",)
    assert set(_at(result, "unused.cu", 4).verdicts) == ALL_TARGETS


def test_a_source_another_file_includes_is_built(tmp_path):
    root = _copy("fastpath", tmp_path)
    (root / "main.cu").write_text('#include "unused.cu"\n')
    _compdb(root, {"kernel.cu": ["-O2"], "main.cu": []})
    assert audit(root).build.not_built == ()


# --- a header two units include with different flags -----------------------------------------------------

def test_a_header_keeps_only_what_every_unit_agrees_on(tmp_path):
    root = _copy("shared_header", tmp_path)
    _compdb(root, {"a.cu": ["-DMODE_A", "-DCOMMON"], "b.cu": ["-DCOMMON"]})
    result = audit(root)
    assert set(_at(result, "common.cuh", 6).verdicts) == ALL_TARGETS  # MODE_A: defined in a.cu only
    assert set(_at(result, "common.cuh", 9).inactive) == ALL_TARGETS  # COMMON: defined in both
    assert set(_at(result, "b.cu", 4).inactive) == ALL_TARGETS  # b.cu leaves the switch MODE_A off
    judged = judged_build(root)
    assert judged.macros_for("common.cuh").defines == ("COMMON=1",)
    assert judged.macros_for("a.cu").defines == ("COMMON=1", "MODE_A=1")
    assert judged.macros_for("b.cu").undefined == ("MODE_A",)


def test_a_source_compiled_twice_keeps_what_both_units_agree_on(tmp_path):
    root = _copy("shared_header", tmp_path)
    db = [{"directory": str(root), "file": "b.cu", "arguments": ["nvcc", *flags, "-c", "b.cu"]}
          for flags in (["-DMODE_A"], [])]
    (root / "compile_commands.json").write_text(json.dumps(db))
    assert set(_at(audit(root), "b.cu", 4).verdicts) == ALL_TARGETS


# --- a Make build read by a dry run (only where asked: it executes the Makefile's logic) -----------------

@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_dry_run_judges_the_branch_the_makefile_takes(tmp_path):
    root = _copy("precision", tmp_path)
    result = audit(root, build="make")
    assert result.build.reader == "make" and result.build.source == "make -n in ."
    assert result.build.ran and not result.build.guessed
    assert set(_at(result, "main.cu", 6).inactive) == ALL_TARGETS  # ENABLE_FP16: not this configuration
    assert set(_at(result, "main.cu", 9).verdicts) == ALL_TARGETS  # ENABLE_BF16: -DENABLE_BF16
    fp16 = audit(root, build=BuildOptions(mode="make", make_vars={"PRECISION": "FP16"}))
    assert set(_at(fp16, "main.cu", 6).verdicts) == ALL_TARGETS
    assert set(_at(fp16, "main.cu", 9).inactive) == ALL_TARGETS


def test_the_default_executes_nothing_and_reads_the_makefile_statically(tmp_path):
    """A Makefile alone: the default (compile-db) runs no make; it reads the Makefile as make would
    (vado.build.make_static) and judges the branch the default configuration takes, as the dry run does."""
    root = _copy("precision", tmp_path)
    result = audit(root)
    assert result.build.ran == () and not result.build.guessed
    assert result.build.reader == "make-read" and result.build.source == "the Makefiles in . (read, not run)"
    assert set(_at(result, "main.cu", 6).inactive) == ALL_TARGETS  # ENABLE_FP16: not this configuration
    assert set(_at(result, "main.cu", 9).verdicts) == ALL_TARGETS  # ENABLE_BF16: -DENABLE_BF16


def test_a_makefile_that_needs_make_to_run_is_not_read_by_default(tmp_path):
    """Negative: a Makefile whose default goal needs $(shell …) is not read without make: a guess, nothing ran,
    and every branch counts as without a build model."""
    root = _copy("precision", tmp_path)
    mk = root / "Makefile"
    mk.write_text(mk.read_text().replace("PRECISION ?= BF16", "PRECISION ?= $(shell touch ran; echo BF16)"))
    result = audit(root)
    assert result.build.guessed and result.build.ran == () and not (root / "ran").exists()
    assert set(_at(result, "main.cu", 6).verdicts) == ALL_TARGETS


# --- the configurations ------------------------------------------------------------------------------------

def test_build_macros_are_known_but_no_hip_marker():
    cfg = configuration("amd", (), (), ("USE_FAST_PATH=1",), ("ENABLE_FP16",))
    assert cfg.defined["USE_FAST_PATH"] == "1" and "ENABLE_FP16" in cfg.undefined
    assert "USE_FAST_PATH" not in cfg.hip_markers
    # The compiler's own macros win over a build's word on them.
    assert configuration("cuda", (), (), ("__HIP_PLATFORM_AMD__",), ("__CUDACC__",)).defined["__CUDACC__"] == "1"


def test_the_amd_configuration_leaves_platform_switches_unknown():
    options = {"build_defines": ("USE_CUDA=1", "NDEBUG=1"), "build_undefined": ("USE_HIP", "ENABLE_FP16")}
    amd = amd_configuration(options)
    assert "USE_CUDA" not in amd.defined and "USE_HIP" not in amd.undefined
    assert amd.defined["NDEBUG"] == "1" and "ENABLE_FP16" in amd.undefined
    cuda = cuda_configuration(options)
    assert cuda.defined["USE_CUDA"] == "1" and "USE_HIP" in cuda.undefined


def test_a_project_hip_option_wins_over_the_cuda_build():
    amd = amd_configuration({"amd_defines": ("GGML_USE_HIP",), "build_undefined": ("GGML_USE_HIP", "X")})
    assert "GGML_USE_HIP" in amd.defined and "X" in amd.undefined


# --- the port ----------------------------------------------------------------------------------------------

def test_port_leaves_a_branch_the_build_switches_off_as_it_is(tmp_path):
    from vado.port.tree import port_tree

    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": ["-O2"]})
    result = port_tree(root, tmp_path / "out", get_target("rocm-7.2"))
    text = (tmp_path / "out" / "kernel.cu").read_text()
    assert 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));' in text
    assert result.build.source == "compile_commands.json"
    assert not [f for f in result.remaining if f.span.path == "kernel.cu" and f.code == "PTX001"]


def test_port_edits_the_branch_when_the_build_compiles_it(tmp_path):
    from vado.port.tree import port_tree

    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": ["-O2", "-DUSE_FAST_PATH"]})
    port_tree(root, tmp_path / "out", get_target("rocm-7.2"))
    text = (tmp_path / "out" / "kernel.cu").read_text()
    assert "%%laneid" not in text


def test_a_tree_is_read_once_per_command(tmp_path, monkeypatch):
    import vado.build.judged as J

    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": []})
    calls = []
    real = J._read
    monkeypatch.setattr(J, "_read", lambda *a, **k: calls.append(a) or real(*a, **k))
    first = judged_build(root)
    assert judged_build(root) is first and len(calls) == 1
    _compdb(root, {"kernel.cu": ["-DUSE_FAST_PATH"]})  # a new database is read again
    assert judged_build(root) is not first and len(calls) == 2


def test_unknown_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown build mode"):
        judged_build(tmp_path, options="ninja")


def test_no_verdict_is_lost(tmp_path):
    """Moving a verdict to inactive keeps it: the finding says what it would imply there."""
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": []})
    ptx = _at(audit(root), "kernel.cu", 6)
    assert ptx.inactive["oneapi"] is Verdict.MANUAL


def test_a_database_of_another_tree_is_not_this_trees_build(tmp_path):
    """A port's copy of compile_commands.json still names the original's files: no build of the copy."""
    root = _copy("fastpath", tmp_path)
    other = _copy("shared_header", tmp_path)
    _compdb(other, {"a.cu": ["-DMODE_A"]})
    shutil.copy(other / "compile_commands.json", root / "compile_commands.json")
    result = audit(root)
    assert result.build.guessed and "compiles no file of this tree" in result.build.source
    assert result.build.not_built == ()


# --- the CLI -----------------------------------------------------------------------------------------------

def _cli(*argv: str):
    from typer.testing import CliRunner

    from vado.cli.app import app

    return CliRunner().invoke(app, list(argv))


def test_cli_audit_reads_the_compile_database_and_says_so(tmp_path):
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": []})
    res = _cli("audit", str(root), "-f", "json", "-o", str(tmp_path / "a.json"))
    assert res.exit_code in (0, 1), res.output
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["schema_version"] == "1.1" and doc["build"]["source"] == "compile_commands.json"
    assert doc["build"]["not_built"] == ["unused.cu"]
    assert "build: compile_commands.json (1 unit, configuration default)" in res.output
    text = _cli("audit", str(root)).output
    assert "Build judged: compile_commands.json (1 unit, configuration default)" in text
    assert "inactive for rocm-7.2, oneapi, scale, zluda" in " ".join(text.split())


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_cli_runs_make_only_when_asked_and_says_what_ran(tmp_path):
    root = _copy("precision", tmp_path)
    (root / "Makefile").write_text((root / "Makefile").read_text().replace("all: prog", "$(shell touch ran)\nall: prog"))
    res = _cli("audit", str(root), "-f", "concise")
    assert "ran the project's build logic" not in res.output and not (root / "ran").exists()
    res = _cli("audit", str(root), "-f", "concise", "--build", "make")
    assert "ran the project's build logic to read its build: make -n" in res.output
    assert not (root / "ran").exists()  # the dry run ran in a scratch copy of the tree
    assert "main.cu:6:3: PTX001" in res.output and "[rocm-7.2: inactive; oneapi: inactive" in res.output


def test_cli_port_build_none_edits_every_branch(tmp_path):
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": []})
    res = _cli("port", str(root), "-o", str(tmp_path / "out"), "--build", "none")
    assert res.exit_code in (0, 1), res.output
    assert "%%laneid" not in (tmp_path / "out" / "kernel.cu").read_text()
    assert "guessed" in res.output


def test_a_vendored_header_that_defines_the_switch_keeps_it_unknown(tmp_path):
    root = _copy("fastpath", tmp_path)
    (root / "third_party" / "lib").mkdir(parents=True)
    (root / "third_party" / "lib" / "config.h").write_text("#define USE_FAST_PATH\n")
    _compdb(root, {"kernel.cu": []})
    assert set(_at(audit(root), "kernel.cu", 6).verdicts) == ALL_TARGETS


def test_a_unit_source_another_unit_includes_gets_only_the_common_macros(tmp_path):
    """kernel.cu is compiled on its own without USE_FAST_PATH, and inside main.cu with it: the branch is built."""
    root = _copy("fastpath", tmp_path)
    (root / "main.cu").write_text('#include "kernel.cu"\n')
    _compdb(root, {"kernel.cu": [], "main.cu": ["-DUSE_FAST_PATH"]})
    assert set(_at(audit(root), "kernel.cu", 6).verdicts) == ALL_TARGETS


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("nvcc") is None, reason="cmake or nvcc missing")
def test_cmake_configure_when_asked_and_a_file_api_reply_in_the_tree_by_default(tmp_path):
    root = _copy("fastpath", tmp_path)
    off = audit(root, build="cmake")
    assert off.build.reader == "cmake-file-api" and off.build.ran and "target lanes" in off.build.source
    assert set(_at(off, "kernel.cu", 6).inactive) == ALL_TARGETS and off.build.not_built == ("unused.cu",)
    on = audit(root, build=BuildOptions(mode="cmake", cmake_args=("-DUSE_FAST_PATH=ON",)))
    assert set(_at(on, "kernel.cu", 6).verdicts) == ALL_TARGETS
    # The reply the configure left, copied into the tree: read as it is, nothing runs.
    bdir = Path(on.build.ran[0].split(" -B ", 1)[1].split(" ", 1)[0])
    shutil.copytree(bdir / ".cmake", root / "build" / ".cmake")
    read = audit(root)
    assert read.build.reader == "cmake-file-api" and read.build.ran == ()
    assert read.build.source == "the CMake File API reply in the tree, configuration default, target lanes"
    assert set(_at(read, "kernel.cu", 6).verdicts) == ALL_TARGETS


@pytest.mark.parametrize("extra", [["@flags.rsp"], ["-optf", "more.opts"], ["-imacros", "/opt/sdk/config.h"],
                                   ["-include", "/opt/sdk/prelude.h"]])
def test_a_unit_whose_flags_vado_cannot_read_decides_nothing(tmp_path, extra):
    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": ["-O2", *extra]})
    assert set(_at(audit(root), "kernel.cu", 6).verdicts) == ALL_TARGETS
    assert judged_build(root).macros_for("kernel.cu") is None


def test_other_targets_move_only_what_the_build_decides(tmp_path):
    """For SCALE, ZLUDA and oneAPI a read build moves only the branches its macros switch off: a branch the
    platform's macros decide (#ifdef __HIP_PLATFORM_AMD__) counts for them as it does without a build."""
    root = _copy("fastpath", tmp_path)
    text = (root / "kernel.cu").read_text()
    (root / "kernel.cu").write_text(text + (
        "#ifdef __HIP_PLATFORM_AMD__\n"
        "__global__ void amd_only(unsigned* o) { unsigned v; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(v)); }\n"
        "#endif\n"))
    _compdb(root, {"kernel.cu": []})
    with_build = _at(audit(root), "kernel.cu", 13)
    without = _at(audit(root, build=None), "kernel.cu", 13)
    assert {"scale", "zluda", "oneapi"} <= set(with_build.verdicts)
    assert (with_build.verdicts, with_build.inactive) == (without.verdicts, without.inactive)


def test_plan_judges_the_build_and_says_which(tmp_path):
    from vado.plan import plan_fleet
    from vado.plan.fleet import FleetSpec, specs_from_args

    root = _copy("fastpath", tmp_path)
    _compdb(root, {"kernel.cu": []})
    plan = plan_fleet(FleetSpec(specs_from_args([str(root)])), targets=["rocm-7.2", "scale"],
                      cache_dir=str(tmp_path / "cache"))
    (repo,) = plan.repos
    assert "build judged: compile_commands.json (1 unit, configuration default)" in repo.notes
    again = plan_fleet(FleetSpec(specs_from_args([str(root)])), targets=["rocm-7.2", "scale"],
                       cache_dir=str(tmp_path / "cache"))
    assert again.repos[0].notes == repo.notes and again.repos[0].cached
    _compdb(root, {"kernel.cu": ["-DUSE_FAST_PATH"]})  # a new configuration is not served from the cache
    third = plan_fleet(FleetSpec(specs_from_args([str(root)])), targets=["rocm-7.2", "scale"],
                       cache_dir=str(tmp_path / "cache"))
    assert third.repos[0].findings == repo.findings and not third.repos[0].cached


# --- a library switch the program documents as -DNAME (llm.c's ENABLE_CUDNN) ---------------------------------

def _without_flash(root: Path) -> None:
    p = root / "attention.cu"
    p.write_text(p.read_text().split("#ifdef USE_FLASH")[0])


def test_a_documented_library_switch_the_build_leaves_off_is_inactive_and_says_which(tmp_path):
    root = _copy("optional_cudnn", tmp_path)
    _without_flash(root)
    _compdb(root, {"attention.cu": ["-O3"]})  # the comment gives `-DENABLE_CUDNN`; this build does not pass it
    (lib,) = [f for f in audit(root).findings if f.code == "LIB001"]
    assert lib.span.line == 11 and "rocm-7.2" not in lib.verdicts
    assert lib.inactive["rocm-7.2"] is Verdict.MANUAL and lib.data["inactive_branch"] == "#ifdef ENABLE_CUDNN"
    from vado.report._location import verdict_note

    assert "a branch that build does not compile: `#ifdef ENABLE_CUDNN`" in verdict_note(lib)


def test_a_documented_library_switch_counts_where_the_build_defines_it_or_no_build_is_read(tmp_path):
    root = _copy("optional_cudnn", tmp_path)
    _without_flash(root)
    (lib,) = [f for f in audit(root).findings if f.code == "LIB001"]  # no build: vado cannot tell
    assert lib.verdicts["rocm-7.2"] is Verdict.MANUAL and lib.inactive == {}
    _compdb(root, {"attention.cu": ["-O3", "-DENABLE_CUDNN"]})
    (lib,) = [f for f in audit(root).findings if f.code == "LIB001"]
    assert lib.verdicts["rocm-7.2"] is Verdict.MANUAL and lib.inactive == {}


def test_a_library_finding_stands_where_the_amd_build_may_still_use_the_library(tmp_path):
    # The first use is off (ENABLE_CUDNN), another is under an undocumented switch (USE_FLASH): unknown, so the
    # finding moves to that use and keeps its ROCm verdict.
    root = _copy("optional_cudnn", tmp_path)
    _compdb(root, {"attention.cu": ["-O3"]})
    (lib,) = [f for f in audit(root).findings if f.code == "LIB001"]
    assert lib.span.line == 23 and lib.verdicts["rocm-7.2"] is Verdict.MANUAL and lib.inactive == {}


def test_a_gathered_rename_finding_stands_at_a_use_the_amd_build_compiles(tmp_path):
    # cudaDeviceSynchronize first appears inside #ifdef ENABLE_CUDNN (off), then in run(): API004 stands there.
    root = _copy("optional_cudnn", tmp_path)
    _compdb(root, {"attention.cu": ["-O3"]})
    (api,) = [f for f in audit(root).findings if f.code == "API004"]
    assert api.span.line == 20 and "rocm-7.2" in api.verdicts and api.inactive == {}


def test_the_amd_configuration_keeps_an_nvidia_library_switch_the_build_leaves_off():
    options = {"build_undefined": ("ENABLE_CUDNN", "WITH_NVTX", "USE_CUDA_CUDNN", "GGML_USE_HIPBLAS", "USE_CUDA")}
    amd = amd_configuration(options)
    assert {"ENABLE_CUDNN", "WITH_NVTX"} <= amd.undefined
    assert not {"USE_CUDA_CUDNN", "GGML_USE_HIPBLAS", "USE_CUDA"} & amd.undefined
    # defined library switches stay unknown for AMD, as before
    assert "ENABLE_CUDNN" not in amd_configuration({"build_defines": ("ENABLE_CUDNN=1",)}).defined


def test_documented_switches_are_read_from_comments_only(tmp_path):
    from vado.build.judged import documented_switches

    src = tmp_path / "k.cu"
    src.write_text("// nvcc -DWITH_A k.cu\n/* or -DWITH_B=2 */\nint f(int n) { return n -DIM; }\nconst char* s = \"-DFROM_STRING\";\n")
    assert documented_switches(tmp_path, [str(src)]) == {"WITH_A", "WITH_B"}
    assert documented_switches(tmp_path, [str(tmp_path.parent / "elsewhere.cu")]) == set()


def test_makefiles_beside_a_root_cmake_build_are_not_the_configuration(tmp_path):
    """Negative: kokkos 28848df keeps Makefiles in example directories beside its root CMakeLists.txt; read as the
    build, their few units would decide every header's switches. With a CMake build at the root and no compile
    database, the default stays a guess (nothing executed, nothing read as the configuration)."""
    root = _copy("precision", tmp_path)
    (root / "CMakeLists.txt").write_text("project(p CUDA)\nadd_executable(prog main.cu)\n")
    result = audit(root)
    assert result.build.guessed and result.build.ran == ()
    assert set(_at(result, "main.cu", 6).verdicts) == ALL_TARGETS


def test_a_port_does_not_take_the_makefiles_default_configuration(tmp_path):
    """The audit judges the Makefile's default configuration (read statically); a port by default still edits the
    code the Makefile's variables can switch on (HeCBench's DEBUG=yes adds -DDEBUG; PRECISION=FP16 here): leaving
    it as CUDA would break that build on ROCm. Nothing is executed either way."""
    from vado.port.tree import port_tree

    root = _copy("precision", tmp_path)
    port_tree(root, tmp_path / "out", get_target("rocm-7.2"))
    text = (tmp_path / "out" / "main.cu").read_text()
    assert "%%laneid" not in text  # both the FP16 and the BF16 branch are ported
    assert judged_build(root, options="compile-db", static_make=False).summary.guessed
