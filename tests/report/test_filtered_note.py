"""A verdict over an audit whose filters left findings out says so (suppressions, baseline, selection)."""

from __future__ import annotations

import json
from pathlib import Path

from vado.audit.filters import FindingFilter
from vado.audit.pipeline import audit
from vado.knowledge.targets import get_target
from vado.report.html import render_html
from vado.report.json_report import render_json
from vado.report.markdown import render_markdown
from vado.report.terminal import render_terminal

PTX = ('__global__ void k(unsigned* o) {\n    unsigned r;\n'
       '    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));  // vado: ignore[PTX001]\n'
       '    o[threadIdx.x] = r;\n}\n')


def _audit(tmp_path: Path, text: str, inline: bool = True):
    (tmp_path / "k.cu").write_text(text)
    return audit(tmp_path, [get_target("rocm-7.2")], filters=FindingFilter(inline=inline))


def test_suppressed_findings_are_counted_and_named(tmp_path: Path):
    result = _audit(tmp_path, PTX)
    assert result.findings == () and result.stats.filtered == {"PTX001": 1}
    note = ("1 finding left out by suppressions, the baseline or the rule selection (PTX001×1) count in no "
            "verdict above; the code still holds them")
    assert note in " ".join(render_terminal(result, width=400).split())
    assert note in render_markdown(result)
    assert note in render_html(result)
    assert json.loads(render_json(result))["stats"]["filtered"] == {"PTX001": 1}


def test_no_note_without_filtered_findings(tmp_path: Path):
    result = _audit(tmp_path, PTX, inline=False)
    assert result.stats.filtered == {} and len(result.findings) == 1
    assert "left out by suppressions" not in render_terminal(result, width=400)
    assert "left out by suppressions" not in render_markdown(result)
