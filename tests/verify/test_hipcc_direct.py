"""verify runs the ROCm chroot's clang++ in place of its hipcc only where that is the same compile:
the model of hipcc's arguments, the toolchain's own check (-### jobs compared), and the fall-back to
hipcc for every other toolchain (the suite's fakes) and every command the model does not cover."""

import json
import os

import pytest

from vado.build.compdb import read_compile_db
from vado.knowledge.targets import get_target
from vado.verify import hipcc_direct
from vado.verify.compile import verify_compile
from vado.verify.compile_cache import CompileCache
from vado.verify.hipcc_direct import direct_command, toolchain_check, translate
from vado.verify.toolchains import ArchProbe, HipToolchain, hip_toolchain, rocm_chroot_wrappers

from _verify_helpers import write_tool

TARGET = get_target("rocm-7.2")
TWO = ["--offload-arch=gfx942", "--offload-arch=gfx950"]


def test_translate_is_what_rocm_7_2_hipcc_runs():
    """The clang++ arguments ROCm 7.2.4's hipcc printed (HIPCC_VERBOSE=1) for verify's command shapes."""
    assert translate([*TWO, "-x", "hip", "-std=c++17", "-O3", "-MD", "-MF", "/s/a.d", "-fsyntax-only", "/t/a.cu"]) == [
        *TWO, "--driver-mode=g++", "--hip-link", "-x", "hip", "-std=c++17", "-O3", "-MD", "-MF", "/s/a.d",
        "-fsyntax-only", "/t/a.cu"]
    # No -O: hipcc adds -O3 (to the compile's flags and its link flags); -c: no link flags.
    assert translate(["--offload-arch=gfx942", "-x", "hip", "-c", "/t/a.cu", "-o", "/s/a.o"]) == [
        "--offload-arch=gfx942", "-O3", "-x", "hip", "-c", "/t/a.cu", "-o", "/s/a.o"]
    assert translate(["--offload-arch=gfx942", "-x", "hip", "-fsyntax-only", "/t/a.cu"]) == [
        "--offload-arch=gfx942", "-O3", "--driver-mode=g++", "-O3", "--hip-link", "-x", "hip", "-fsyntax-only", "/t/a.cu"]
    assert translate(["-x", "c", "-O2", "-fsyntax-only", "/t/a.c"]) == [
        "--driver-mode=g++", "--hip-link", "-x", "c", "-O2", "-fsyntax-only", "/t/a.c"]
    assert translate(["-x", "c++", "-c", "/t/a.cpp", "-o", "/s/a.o"]) == ["-O3", "-x", "c++", "-c", "/t/a.cpp", "-o", "/s/a.o"]


@pytest.mark.parametrize("args", [
    ["--offload-arch=gfx942", "-x", "hip", "-M", "-MG", "-MF", "/s/a.d", "/t/a.cu"],  # hipcc adds --cuda-host-only
    ["--offload-arch=gfx942", "-x", "hip", "-fgpu-rdc", "-c", "/t/a.cu"],  # rdc: hipcc's link flags change
    ["--offload-arch=gfx942", "-fsyntax-only", "/t/a.cu"],  # no -x: hipcc guesses from the name
    ["--offload-arch=gfx942", "-x", "hip", "-DS=a b", "-c", "/t/a.cu"],  # a word its shell line re-quotes
    ["--offload-arch=gfx942", "-x", "hip", "-DS=$(x)", "-c", "/t/a.cu"],
    ["--offload-arch=gfx942", "-x", "c", "-c", "/t/a.c"],  # hipcc drops the arch of a C unit
    ["-x", "hip", "--genco", "/t/a.cu"],
    ["-x", "hip", "-stdlib=libc++", "-c", "/t/a.cu"],
    ["-x", "hip", "-x", "c", "-c", "/t/a.cu"],
    ["-x", "cu", "-c", "/t/a.cu"],
    ["-x", "hip", "--hipcc-verbose=7", "-c", "/t/a.cu"],
    ["-x", "hip", "-c"],  # no input
])
def test_commands_hipcc_treats_itself_keep_hipcc(args):
    assert translate(args) is None


def _fake_wrapper(tmp_path, hipcc_jobs: str, clang_jobs: str) -> HipToolchain:
    """A fake ROCm chroot wrapper (its mark line, a clang++ link to it) that prints a -### job line
    depending on the name it runs under, and logs every run."""
    log = tmp_path / "runs.log"
    body = f"""# vado-rocm-chroot: {tmp_path}/root
# vado-rocm-release: 7.2.4
echo "$(basename "$0") $*" >> {log}
case "$*" in *-###*)
  case "$(basename "$0")" in clang++) echo ' "{clang_jobs}"' >&2;; *) echo ' "{hipcc_jobs}"' >&2;; esac; exit 0;;
esac
exit 0
"""
    hipcc = write_tool(tmp_path / "bin", "hipcc", body)
    os.symlink("hipcc", tmp_path / "bin" / "clang++")
    (tmp_path / "root" / "usr" / "bin").mkdir(parents=True)
    return HipToolchain(str(hipcc), "7.2.4", "22.0.0", chroot=str(tmp_path / "root"), flavour="chroot")


def _verify_one(tmp_path, tc):
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.cu").write_text("int a;\n")
    (root / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(root), "file": "a.cu", "command": "hipcc -O3 -c a.cu -o a.o"}]))
    cfg = read_compile_db(root / "compile_commands.json", root)
    probes = {a: ArchProbe(a, True) for a in ("gfx942", "gfx950")}
    return verify_compile(root, tc, ["gfx942", "gfx950"], target=TARGET, probes=probes, build=cfg,
                          cache=CompileCache(tmp_path / "c"), codegen="none")


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "vado-cache"))
    monkeypatch.delenv(hipcc_direct.SWITCH, raising=False)
    monkeypatch.delenv("HIPCC_VERBOSE", raising=False)
    hipcc_direct._CHECKED.clear()
    yield
    hipcc_direct._CHECKED.clear()


def test_a_toolchain_whose_clang_agrees_runs_clang_and_one_that_differs_keeps_hipcc(tmp_path, fresh):
    same = _fake_wrapper(tmp_path / "same", "job", "job")
    assert toolchain_check(same.path, same.chroot) == (True, "")
    rep = _verify_one(tmp_path / "same", same)
    assert rep.evidence and all(e.passed and e.command[0].endswith("/clang++") for e in rep.evidence)
    assert "--driver-mode=g++" in rep.evidence[0].command
    # The answer is kept with the arch probes: a second process asks nothing.
    kept = json.loads((tmp_path / "vado-cache" / "hipcc-direct.json").read_text())
    assert list(kept.values()) == [{"ok": True, "why": ""}]

    other = _fake_wrapper(tmp_path / "other", "job-a", "job-b")
    ok, why = toolchain_check(other.path, other.chroot)
    assert not ok and "differ" in why
    rep = _verify_one(tmp_path / "other", other)
    assert rep.evidence and all(e.command[0] == other.path for e in rep.evidence)


def test_the_suites_fake_hipcc_and_the_switch_keep_hipcc(tmp_path, fresh, monkeypatch):
    fake = HipToolchain(str(write_tool(tmp_path / "bin", "hipcc", "exit 0\n")), "7.2.0", "22.0.0")
    cmd = [fake.path, "--offload-arch=gfx942", "-x", "hip", "-fsyntax-only", "/t/a.cu"]
    assert direct_command(fake.path, fake.chroot, cmd) is None
    assert toolchain_check(fake.path, fake.chroot)[0] is False
    rep = _verify_one(tmp_path, fake)
    assert rep.evidence and all(e.command[0] == fake.path for e in rep.evidence)
    same = _fake_wrapper(tmp_path / "w", "job", "job")
    cmd[0] = same.path
    assert direct_command(same.path, same.chroot, cmd)[0].endswith("/clang++")
    monkeypatch.setenv(hipcc_direct.SWITCH, "0")
    assert direct_command(same.path, same.chroot, cmd) is None
    monkeypatch.delenv(hipcc_direct.SWITCH)
    monkeypatch.setenv("HIPCC_VERBOSE", "7")
    assert direct_command(same.path, same.chroot, cmd) is None


WRAPPERS = [w for w in rocm_chroot_wrappers() if "7.2" in w]
needs_rocm = pytest.mark.skipif((not WRAPPERS or os.geteuid() != 0) and os.environ.get("VADO_REQUIRE_ROCM") != "1",
                                reason="needs the ROCm 7.2.4 chroot (scripts/rocm-toolchain.sh) and root")


@needs_rocm
def test_rocm_7_2_wrapper_runs_clang_with_the_result_hipcc_gives(tmp_path, fresh, monkeypatch):
    tc = hip_toolchain(WRAPPERS[0])
    assert toolchain_check(tc.path, tc.chroot) == (True, "")
    root = tmp_path / "p"
    root.mkdir()
    (root / "ok.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"
                                "int main() { int x; return 0; }\n")
    (root / "bad.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = nope; }\n")
    (root / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(root), "file": n, "command": f"hipcc -std=c++17 -Wall -O3 -c {n} -o x.o"}
         for n in ("ok.cu", "bad.cu")]))
    cfg = read_compile_db(root / "compile_commands.json", root)

    def run(cache):
        rep = verify_compile(root, tc, ["gfx942", "gfx950"], target=TARGET, build=cfg,
                             cache=CompileCache(tmp_path / cache, chroot=tc.chroot), codegen="none", jobs=1)
        return {(e.subject, e.arch): e for e in rep.evidence}

    fast = run("c1")
    monkeypatch.setenv(hipcc_direct.SWITCH, "0")
    slow = run("c2")
    assert all(e.command[0].endswith("/clang++") for e in fast.values())
    assert all(e.command[0] == tc.path for e in slow.values())
    assert fast.keys() == slow.keys() and len(fast) == 4
    for k in fast:
        assert fast[k].passed == slow[k].passed
        assert fast[k].detail["confinement"] == slow[k].detail["confinement"] == "namespaces"
        # The same diagnostics (hipcc adds only its own "failed to execute" line on a failure).
        assert [d["message"] for d in fast[k].detail.get("diagnostics", [])] == \
            [d["message"] for d in slow[k].detail.get("diagnostics", [])]
    assert fast[("ok.cu", "gfx942")].passed and not fast[("bad.cu", "gfx942")].passed
