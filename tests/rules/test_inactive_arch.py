"""The audit's ROCm verdict assumes the conditions the port's safe ARCH007/ARCH008 fixes rewrite
(``#if __CUDA_ARCH__ >= 900`` → ``#if 0``) as the port will have them, so a finding in a branch the
port's hipcc never compiles does not count, and audit and port agree on what blocks (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vado.model import Verdict
from vado.model.text import decode_source
from vado.port.file import port_bytes
from vado.rules.engine import check_text
from vado.scan.classify import classify
from vado.knowledge.targets import get_target

ROCM = get_target("rocm-7.2")
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PTX = 'asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(p[1]) : "l"(p) : "memory");'


def kernel(condition: str, portable: bool = True) -> str:
    other = "#else\n  p[0] = 1;\n" if portable else ""
    return f"__global__ void k(float* p) {{\n#if {condition}\n  {PTX}\n{other}#endif\n}}\n"


def codes(findings, code):
    return [f for f in findings if f.code == code]


def blocked(findings) -> bool:
    return any(f.verdicts.get(ROCM.name) is Verdict.BLOCKED for f in findings)


def test_hopper_only_ptx_under_a_safely_rewritten_arch_test_is_inactive():
    fs = check_text("k.cu", kernel("__CUDA_ARCH__ >= 900"), [ROCM])
    (ptx,) = codes(fs, "PTX003")
    assert ROCM.name not in ptx.verdicts and ptx.inactive == {ROCM.name: Verdict.BLOCKED}
    assert not blocked(fs)
    (arch,) = codes(fs, "ARCH007")  # the directive itself stays: the port rewrites it
    assert arch.verdicts[ROCM.name] is Verdict.AUTOMATIC


def test_the_branch_the_port_takes_keeps_its_findings():
    # `#if __CUDA_ARCH__ < 900` → `#if 1`: the PTX is in the branch hipcc compiles.
    fs = check_text("k.cu", kernel("__CUDA_ARCH__ < 900"), [ROCM])
    (ptx,) = codes(fs, "PTX003")
    assert ptx.verdicts[ROCM.name] is Verdict.BLOCKED and not ptx.inactive


def test_an_unsafe_arch_rewrite_is_not_assumed():
    # sm_80 without a portable branch: ARCH007 cannot safely choose, so the PTX may be compiled.
    fs = check_text("k.cu", kernel("__CUDA_ARCH__ >= 800", portable=False), [ROCM])
    (arch,) = codes(fs, "ARCH007")
    assert arch.fix is not None and arch.fix.applicability.value != "safe"
    (ptx,) = codes(fs, "PTX003")
    assert ptx.verdicts[ROCM.name] is Verdict.BLOCKED and not ptx.inactive
    assert blocked(fs)


def test_a_cuda_runtime_version_test_is_evaluated_as_the_port_writes_it():
    fs = check_text("k.cu", kernel("CUDART_VERSION < 11000"), [ROCM])
    (ver,) = codes(fs, "ARCH008")
    assert ver.fix is not None and ver.fix.applicability.value == "safe"
    (ptx,) = codes(fs, "PTX003")
    assert ptx.inactive == {ROCM.name: Verdict.BLOCKED} and not blocked(fs)


def test_offsets_map_back_past_edits_that_change_length():
    # Two rewritten conditions before the PTX (each shorter after the fix): the second body's
    # range must still land on the original text's PTX, and the code after it stays active.
    src = ("#if __CUDA_ARCH__ >= 900\nint a;\n#endif\n" + kernel("__CUDA_ARCH__ >= 900")
           + "__global__ void j(float* p) {\n  " + PTX + "\n}\n")
    fs = check_text("k.cu", src, [ROCM])
    ptx = codes(fs, "PTX003")
    assert [bool(f.inactive) for f in ptx] == [True, False]
    assert blocked(fs)


def _fixture_files():
    own = [("own-hopper.cu", kernel("__CUDA_ARCH__ >= 900")), ("own-sm80.cu", kernel("__CUDA_ARCH__ >= 800", False)),
           ("own-cudart.cu", kernel("CUDART_VERSION < 11000")), ("own-below.cu", kernel("__CUDA_ARCH__ < 900"))]
    files = [pytest.param(name, src, id=name) for name, src in own]
    for family in ("ARCH", "PTX"):
        for p in sorted((FIXTURES / family).iterdir()):
            if p.suffix in (".cu", ".cuh", ".h", ".cpp") and not p.name.endswith(".expected.json"):
                files.append(pytest.param(p.name, decode_source(p.read_bytes()), id=f"{family}/{p.name}"))
    return files


@pytest.mark.parametrize(("name", "src"), _fixture_files())
def test_audit_and_port_agree_on_what_blocks(name, src):
    audit = check_text(name, src, [ROCM])
    port = port_bytes(name, classify(name), src.encode("latin-1"), ROCM)
    assert not port.unsafe_applied  # the default port applies safe fixes only
    assert blocked(audit) == blocked(port.remaining), (
        [f.code for f in audit if f.verdicts.get(ROCM.name) is Verdict.BLOCKED],
        [f.code for f in port.remaining if f.verdicts.get(ROCM.name) is Verdict.BLOCKED])


def test_a_compiler_version_test_and_a_nested_arch_test_are_evaluated_as_ported():
    # `__CUDACC_VER_MAJOR__ < 11` → `0` (ARCH008): its body, and the arch test nested in it, are
    # never compiled; the nested test's own rewrite lies in that body and changes nothing.
    src = ("__global__ void k(float* p) {\n#if __CUDACC_VER_MAJOR__ < 11\n#if __CUDA_ARCH__ >= 900\n  " + PTX
           + "\n#endif\n  " + PTX + "\n#else\n  p[0] = 1;\n#endif\n}\n")
    fs = check_text("k.cu", src, [ROCM])
    assert [f.fix.applicability.value for f in codes(fs, "ARCH008")] == ["safe"]
    assert [bool(f.inactive) for f in codes(fs, "PTX003")] == [True, True]
    assert not blocked(fs)
