"""Workloads with no CUDA are no migration wins; the effort chart draws hours at their own scale."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace

from vado.model import Effort
from vado.plan import plan_fleet
from vado.plan.aggregate import NO_CUDA_WAVE
from vado.plan.fleet import FleetSpec, specs_from_args
from vado.plan.render import render_html, render_markdown, render_text

from plan_helpers import FLEET, by_key


def _repo_with_backends(tmp_path):
    root = tmp_path / "mixed"
    shutil.copytree(FLEET / "partial" / "kernels", root / "kernels")
    # Directories the scanner does not already set aside as another backend (ggml's opencl,
    # webgpu and virtgpu backends, its CPU-only examples): plain C++ with no CUDA anywhere.
    for name in ("tools", "loader"):
        (root / name).mkdir()
        (root / name / "CMakeLists.txt").write_text(f"project({name} CXX)\nadd_library({name} {name}.cpp)\n")
        (root / name / f"{name}.cpp").write_text(f"int {name}_init() {{ return 0; }}\n")
    return root


def test_workloads_without_cuda_are_not_migration_wins(tmp_path):
    root = _repo_with_backends(tmp_path)
    plan = plan_fleet(FleetSpec(specs_from_args([str(root)])), targets=["rocm-7.2"], cache_dir=None)
    w = by_key(plan)
    assert w["mixed:tools"].wave == NO_CUDA_WAVE and w["mixed:tools"].order == 0
    assert w["mixed:loader"].wave == NO_CUDA_WAVE and w["mixed:loader"].order == 0
    assert w["mixed:kernels"].wave != NO_CUDA_WAVE and w["mixed:kernels"].order == 1
    text = render_text(plan)
    table = text.split("without CUDA")[0]
    assert "mixed:kernels" in table and "mixed:tools" not in table and "mixed:loader" not in table
    assert "2 workloads without CUDA" in text and "mixed:loader, mixed:tools" in text
    md = render_markdown(plan)
    assert "`mixed:tools`" in md.split("## Pools")[0].split("without CUDA")[1]
    html = render_html(plan)
    assert "without CUDA" in html


def test_a_python_workload_that_uses_torch_cuda_stays_in_the_order(fleet_plan):
    # partial/serve has no finding and no .cu file, but it runs CUDA through torch.cuda.
    assert by_key(fleet_plan)["partial:serve"].wave == "moves as is"


def test_effort_chart_draws_hours_not_tenths(fleet_plan):
    w = fleet_plan.workloads[-1]
    big = replace(w, effort_by_target={**w.effort_by_target, fleet_plan.primary: Effort(lines=900, constructs=50, hours=408.0)})
    plan = replace(fleet_plan, workloads=(*fleet_plan.workloads[:-1], big))
    html = render_html(plan)
    chart = html[html.index("Effort for rocm-7.2 (hours)"):]
    chart = chart[:chart.index("</svg>")]
    values = re.findall(r"<text x=\"[0-9.]+\" y=\"\d+\">([^<]*)</text>", chart)
    assert "408 h" in values and not any("4080" in v for v in values)
    # The widest value text ends inside the drawing.
    width = int(re.search(r'width="(\d+)"', chart[chart.index("<svg"):] if "<svg" in chart else html).group(1))
    for x, text in re.findall(r'<text x="([0-9.]+)" y="\d+">([^<]*)</text>', chart):
        assert float(x) + 7 * len(text) <= width
