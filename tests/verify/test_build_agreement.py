"""verify compiles what the build compiles, with the target's real hipcc (ROCm 7.2.4 chroot).

The project's own ``unistd.h`` beside its sources must not shadow the system header, and a ``.c``
unit is C (``int new`` is valid C, an error in C++). Both are what ``make`` does; verify agrees.
"""

import os
import shutil
import subprocess

import pytest

from vado.build.read import BuildOptions, read_build
from vado.knowledge.targets import get_target
from vado.verify.compile import verify_compile
from vado.verify.toolchains import hip_toolchain, rocm_chroot_wrappers

WRAPPERS = [w for w in rocm_chroot_wrappers() if "7.2" in w]
pytestmark = pytest.mark.skipif(
    not WRAPPERS or os.geteuid() != 0 or shutil.which("make") is None or shutil.which("cc") is None,
    reason="needs the ROCm 7.2.4 chroot (scripts/rocm-toolchain.sh), root, make and cc")
if os.environ.get("VADO_REQUIRE_ROCM") == "1" and not WRAPPERS:
    pytestmark = []


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "p"
    (root / "dev").mkdir(parents=True)
    (root / "dev" / "unistd.h").write_text("#error the project's dev/unistd.h shadowed <unistd.h>\n")
    (root / "dev" / "tool.c").write_text('#include <unistd.h>\nint main(void) { int new = 1; return new - 1 + (int)getpid() * 0; }\n')
    (root / "k.cu").write_text('#include <hip/hip_runtime.h>\n__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n'
                               "int main() { return 0; }\n")
    (root / "Makefile").write_text("all: tool k\ntool: dev/tool.c\n\t$(CC) -O2 -Idev/.. dev/tool.c -o tool\n"
                                   "k: k.cu\n\t$(HIPCC) -O2 k.cu -o k\n")
    return root


def test_verify_agrees_with_make(project, monkeypatch, tmp_path):
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    hipcc = WRAPPERS[0]
    tc = hip_toolchain(hipcc)
    cfg = read_build(project, BuildOptions(mode="make", make_vars={"HIPCC": hipcc}))
    assert {os.path.basename(u.source) for u in cfg.units} == {"tool.c", "k.cu"}
    rep = verify_compile(project, tc, ["gfx942"], target=get_target("rocm-7.2"), build=cfg)
    assert [(e.subject, e.arch, e.passed) for e in rep.evidence] == [("dev/tool.c", "host", True), ("k.cu", "gfx942", True)]
    # make itself: the same units pass.
    build = subprocess.run(["make", "-k", f"HIPCC={hipcc}"], cwd=project, capture_output=True, text=True, timeout=300)
    assert (project / "tool").exists() and (project / "k").exists(), build.stderr[-2000:]


def test_the_guess_no_longer_shadows_unistd(project, monkeypatch, tmp_path):
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    tc = hip_toolchain(WRAPPERS[0])
    cfg = read_build(project, BuildOptions(mode="none"))
    rep = verify_compile(project, tc, ["gfx942"], target=get_target("rocm-7.2"), build=cfg)
    tool = [e for e in rep.evidence if e.subject == "dev/tool.c"]
    assert tool and tool[0].passed and tool[0].detail["guessed"]


def test_a_sub_make_unit_finds_a_sibling_directory_through_the_chroot_wrapper(tmp_path, monkeypatch):
    """nccl-tests' pattern: src/Makefile compiles src/common.cu, which includes "../verifiable/verifiable.h".
    The build finds it; so does verify, although the chroot wrapper shows only its working directory and
    the directories its arguments name (verify compiles such a unit from the tree's root)."""
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "verifiable").mkdir()
    (root / "verifiable" / "verifiable.h").write_text("#pragma once\ninline int verifiable() { return 3; }\n")
    (root / "src" / "common.cu").write_text('#include <hip/hip_runtime.h>\n#include "../verifiable/verifiable.h"\n'
                                            "__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"
                                            "int main() { return verifiable() - 3; }\n")
    (root / "src" / "Makefile").write_text("all: common.o\ncommon.o: common.cu\n\t$(HIPCC) -O1 -c common.cu -o common.o\n")
    (root / "Makefile").write_text("all:\n\t$(MAKE) -C src\n")
    hipcc = WRAPPERS[0]
    cfg = read_build(root, BuildOptions(mode="make", make_vars={"HIPCC": hipcc}))
    assert [os.path.relpath(u.source, root) for u in cfg.units] == ["src/common.cu"]
    assert cfg.units[0].directory == str(root / "src")
    rep = verify_compile(root, hip_toolchain(hipcc), ["gfx942"], target=get_target("rocm-7.2"), build=cfg)
    assert [(e.subject, e.passed) for e in rep.evidence] == [("src/common.cu", True)], rep.evidence[0].stderr[-2000:]
