"""Vendored headers the project's own code includes (vado.audit.vendored_includes): judged, marked, never edited."""

from __future__ import annotations

from pathlib import Path

from vado.audit.pipeline import audit
from vado.knowledge.targets import get_target
from vado.model import Verdict

_WARP = ("#pragma once\n__device__ inline float red_sum(float v) {\n"
         "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n  return v;\n}\n")


def _tree(root: Path) -> Path:
    """marian-dev c9f287d's pattern (src/tensors/gpu/add_all.cu includes 3rd_party/reduce_all.h through -Isrc),
    a vendored header no one includes, and a CUTLASS-style vendored library with its own build reached by -I."""
    (root / "src" / "gpu").mkdir(parents=True)
    (root / "src" / "3rd_party").mkdir()
    (root / "third_party" / "cutlass" / "include" / "cutlass").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(
        "project(m CXX CUDA)\ninclude_directories(${CMAKE_CURRENT_SOURCE_DIR}/src third_party/cutlass/include)\n"
        "add_library(m src/gpu/add_all.cu)\n")
    (root / "src" / "gpu" / "add_all.cu").write_text(
        '#include "3rd_party/reduce_all.h"\n#include <cutlass/warp.h>\n'
        "__global__ void k(float* p) { p[threadIdx.x] = red_sum(p[threadIdx.x]); }\n")
    (root / "src" / "3rd_party" / "reduce_all.h").write_text('#pragma once\n#include "reduce_detail.h"\n')
    (root / "src" / "3rd_party" / "reduce_detail.h").write_text(_WARP)
    (root / "src" / "3rd_party" / "unused.h").write_text(_WARP.replace("red_sum", "unused_sum"))
    (root / "third_party" / "cutlass" / "CMakeLists.txt").write_text("project(cutlass CXX)\n")
    (root / "third_party" / "cutlass" / "include" / "cutlass" / "warp.h").write_text(
        _WARP.replace("red_sum", "cutlass_sum"))
    return root


def test_a_vendored_header_the_project_includes_is_judged_and_marked(tmp_path):
    root = _tree(tmp_path / "m")
    res = audit(root, [get_target("rocm-7.2")])
    paths = {f.span.path for f in res.findings}
    # Reached transitively through reduce_all.h, which add_all.cu finds through -Isrc.
    marked = [f for f in res.findings if f.span.path == "src/3rd_party/reduce_detail.h"]
    assert marked, sorted(paths)
    for f in marked:
        assert "in vendored code included by src/gpu/add_all.cu: not edited by vado; fix upstream or patch" in f.message
        assert f.fix is None and f.verdicts["rocm-7.2"] is not Verdict.AUTOMATIC
    report = next(r for r in res.files if r.path == "src/3rd_party/reduce_detail.h")
    assert next(v for v in report.verdicts if v.target == "rocm-7.2").verdict is not Verdict.AUTOMATIC
    # Negative: a vendored file no one includes, and a vendored library with its own build, stay silent.
    assert "src/3rd_party/unused.h" not in paths
    assert not any(p.startswith("third_party/") for p in paths)
    assert not any(r.path.startswith("third_party/") or r.path == "src/3rd_party/unused.h" for r in res.files)


def test_without_the_include_nothing_vendored_is_judged(tmp_path):
    root = _tree(tmp_path / "m")
    (root / "src" / "gpu" / "add_all.cu").write_text("__global__ void k(float* p) { p[threadIdx.x] = 1.f; }\n")
    res = audit(root, [get_target("rocm-7.2")])
    assert not any("3rd_party" in f.span.path or f.span.path.startswith("third_party") for f in res.findings)


def test_the_port_never_edits_the_vendored_header(tmp_path):
    from vado.port.tree import port_tree

    root = _tree(tmp_path / "m")
    before = (root / "src" / "3rd_party" / "reduce_detail.h").read_bytes()
    port_tree(root, tmp_path / "out", get_target("rocm-7.2"))
    assert (root / "src" / "3rd_party" / "reduce_detail.h").read_bytes() == before
    copied = tmp_path / "out" / "src" / "3rd_party" / "reduce_detail.h"
    assert not copied.exists() or copied.read_bytes() == before
