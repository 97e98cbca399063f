"""The judge (compile + findings) and the context builder."""

from __future__ import annotations

import pytest

from vado.agent.context import OpenItem, build_context, window_for
from vado.agent.verify import check_candidate, hipcc_path, parse_errors
from vado.knowledge.targets import get_target
from vado.rules.engine import check_text

from agent_helpers import FIXTURES

TARGET = get_target("rocm-7.2")

STDERR = """k.cu:6:7: error: invalid instruction
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
      ^
k.cu:2:10: fatal error: 'cudnn.h' file not found
2 errors generated when compiling for gfx90a.
"""


def test_parse_errors_reads_clang_diagnostics():
    errs = parse_errors(STDERR)
    assert [(e.file, e.line, e.column, e.fatal) for e in errs] == [("k.cu", 6, 7, False), ("k.cu", 2, 10, True)]
    assert errs[0].message == "invalid instruction" and errs[1].message == "'cudnn.h' file not found"


def test_window_is_clipped_to_the_file():
    text = "a\nb\nc\nd\n"
    assert window_for(text, 2, 2, 1) == ((0, 6), (1, 3))
    assert window_for(text, 3, 3, 0) == ((4, 6), (3, 3))
    assert window_for(text, 1, 1, 10) == ((0, len(text)), (1, 4))
    assert window_for("x\ny", 2, 2, 0) == ((2, 3), (2, 2))


def test_context_for_a_library_finding_is_wide_and_carries_library_facts():
    from vado.port.file import port_bytes
    from vado.scan.classify import FileKind

    ported = port_bytes("cudnn_relu.cu", FileKind.CUDA_SOURCE, (FIXTURES / "cudnn_relu.cu").read_bytes(), TARGET)
    text = ported.after.decode("latin-1")
    (f,) = [x for x in check_text("cudnn_relu.cu", text, [TARGET]) if x.code == "LIB001"]
    item = OpenItem("cudnn_relu.cu", f.span.line, f.span.end_line, f.message, f.code, f)
    ctx = build_context(item, text, TARGET, ["gfx90a", "gfx1100"], compile_errors="cudnn_relu.cu:2:10: fatal error: 'cudnn.h' file not found")
    user = ctx.messages[1].content
    assert ctx.window == (0, len(text))  # the whole (short) file: every cuDNN call is in view
    assert "cudnnActivationForward" in user and "MIOpen" in ctx.sections["library facts"]
    assert "gfx1100: wavefront 32 lanes" in user and "gfx90a: wavefront 64 lanes" in user
    assert "'cudnn.h' file not found" in user
    assert ctx.messages[0].role == "system" and "SEARCH" in ctx.messages[0].content


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed")
def test_check_candidate_requires_the_finding_gone_and_a_clean_compile(tmp_path):
    before = (FIXTURES / "ptx_bfind.cu").read_text().replace("<cuda_runtime.h>", "<hip/hip_runtime.h>")
    cand = tmp_path / "ptx_bfind.cu"

    cand.write_text(before)
    same = check_candidate(cand, "ptx_bfind.cu", before, TARGET, resolve_code="PTX001")
    assert not same.passed and "still report PTX001" in same.reason and same.evidence == ()

    cand.write_text(before.replace('asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));', "r = 31 - __clz(x) +;"))
    broken = check_candidate(cand, "ptx_bfind.cu", before, TARGET, resolve_code="PTX001")
    assert not broken.passed and "hipcc rejects" in broken.reason
    assert broken.evidence[0].returncode != 0 and "expected expression" in broken.feedback()

    cand.write_text(before.replace('asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));', "r = x ? 31 - __clz(x) : 0xffffffffu;"))
    good = check_candidate(cand, "ptx_bfind.cu", before, TARGET, resolve_code="PTX001")
    assert good.passed, good.reason
    assert good.evidence[0].passed and good.evidence[0].arch == "gfx90a"
    assert good.findings_before == {"PTX001": 1} and good.findings_after == {}
