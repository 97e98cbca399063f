"""--codegen with ROCm 7.2.4's real hipcc (the chroot wrapper): a bad inline asm string passes the front
end and is caught by code generation, which the default runs for a unit with inline asm; units that share
their opening headers run their front ends with a precompiled prefix and get the plain run's result."""

import os

import pytest

from vado.build.compdb import read_compile_db
from vado.knowledge.targets import get_target
from vado.verify.compile import verify_compile
from vado.verify.compile_cache import CompileCache
from vado.verify.toolchains import hip_toolchain, rocm_chroot_wrappers

WRAPPERS = [w for w in rocm_chroot_wrappers() if "7.2" in w]
pytestmark = pytest.mark.skipif(not WRAPPERS or os.geteuid() != 0,
                                reason="needs the ROCm 7.2.4 chroot (scripts/rocm-toolchain.sh) and root")
if os.environ.get("VADO_REQUIRE_ROCM") == "1":
    pytestmark = []

TARGET = get_target("rocm-7.2")
BAD_ASM = ('#include <hip/hip_runtime.h>\n'
           '__global__ void k(int* p) { asm volatile("v_not_an_instruction v0, v1"); p[threadIdx.x] = 1; }\n'
           'int main() { return 0; }\n')
GOOD = ('#include <stdio.h>\n#include <hip/hip_runtime.h>\n'
        '__global__ void k{n}(float* p) {{ p[threadIdx.x] = {n}.0f; }}\n'
        'int main() {{ printf("%d\\n", {n}); return 0; }}\n')
TYPE_ERROR = ('#include <stdio.h>\n#include <hip/hip_runtime.h>\n'
              '__global__ void k(float* p) { p[threadIdx.x] = undeclared_name; }\n')


def _cfg(root, names):
    import json

    entries = [{"directory": str(root), "file": n, "command": f"hipcc -std=c++17 -O3 -c {n} -o x.o"} for n in names]
    (root / "compile_commands.json").write_text(json.dumps(entries))
    return read_compile_db(root / "compile_commands.json", root)


@pytest.fixture(scope="module")
def tc():
    return hip_toolchain(WRAPPERS[0]) if WRAPPERS else pytest.fail("no ROCm 7.2.4 chroot wrapper")


def test_bad_inline_asm_passes_the_front_end_and_fails_code_generation(tc, tmp_path):
    (tmp_path / "asm.cu").write_text(BAD_ASM)
    cfg = _cfg(tmp_path, ["asm.cu"])
    cache = CompileCache(tmp_path / "cache", chroot=tc.chroot)
    fe = verify_compile(tmp_path, tc, ["gfx942"], target=TARGET, build=cfg, cache=cache, codegen="none")
    (ev,) = fe.evidence
    assert ev.passed and ev.detail["checked"] == "front end" and "-fsyntax-only" in ev.command
    auto = verify_compile(tmp_path, tc, ["gfx942"], target=TARGET, build=cfg, cache=cache)
    (ev,) = auto.evidence
    assert not ev.passed and ev.detail["checked"] == "code generation" and "-c" in ev.command
    assert ev.detail["codegen_reason"].startswith("inline assembly") and "invalid instruction" in ev.stderr


def test_units_sharing_their_opening_headers_use_a_precompiled_prefix(tc, tmp_path):
    names = ["a.cu", "b.cu", "c.cu", "d.cu", "bad.cu"]
    for i, n in enumerate(names[:4]):
        (tmp_path / n).write_text(GOOD.format(n=i + 1))
    (tmp_path / "bad.cu").write_text(TYPE_ERROR)
    cfg = _cfg(tmp_path, names)
    rep = verify_compile(tmp_path, tc, ["gfx942", "gfx950"], target=TARGET, build=cfg,
                         cache=CompileCache(tmp_path / "cache", chroot=tc.chroot), jobs=1)
    by = {}
    for e in rep.evidence:
        by.setdefault(e.subject, []).append(e)
    assert all(e.passed and e.detail["checked"] == "front end" for n in names[:4] for e in by[n])
    # Five units open with <stdio.h> <hip/hip_runtime.h>: the first to run does so plain, later ones with
    # the prefix (jobs=1: one after another).
    assert sum(by[n][0].detail["precompiled_prefix"] for n in names[:4]) >= 2
    # A failure is the plain run's: its record has no prefix and the real diagnostic, per arch.
    assert [e.arch for e in by["bad.cu"]] == ["gfx942", "gfx950"]
    for e in by["bad.cu"]:
        assert not e.passed and not e.detail["precompiled_prefix"] and "-include" not in e.command
        assert "undeclared_name" in e.stderr

