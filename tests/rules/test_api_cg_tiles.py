"""API009's tile sizes spelt with a name (:mod:`vado.rules.api_cg_tiles`) beyond the single-file fixtures:
a macro from a project header the file includes, and a template whose head has ``__launch_bounds__``."""

from __future__ import annotations

from pathlib import Path

from vado.knowledge.targets import get_target
from vado.port.tree import port_tree

KERNEL = """#include <cooperative_groups.h>
#include "tiles.h"
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  auto warp = cg::tiled_partition<WARP_TILE>(cg::this_thread_block());
  auto big = cg::tiled_partition<BIG_TILE>(cg::this_thread_block());
  auto other = cg::tiled_partition<ELSEWHERE>(cg::this_thread_block());
  out[threadIdx.x] = warp.thread_rank() + big.thread_rank() + other.thread_rank();
}
template <int Tile>
__global__ void __launch_bounds__(256) bounded(int* out) {
  auto t = cg::tiled_partition<Tile>(cg::this_thread_block());
  out[threadIdx.x] = t.thread_rank();
}
template <int Tile>
__global__ void __launch_bounds__(256) bounded_wide(int* out) {
  auto t = cg::tiled_partition<Tile>(cg::this_thread_block());
  out[threadIdx.x] = t.thread_rank();
}
void launch(int* out) {
  bounded<WARP_TILE><<<1, 256>>>(out);
  bounded_wide<BIG_TILE><<<1, 256>>>(out);
}
"""
HEADER = "#pragma once\n#define WARP_TILE 32\n#define BIG_TILE (128) // a block's worth\n"


def _left(tmp_path: Path) -> dict[str, str]:
    """The port's API009 findings: the reported line's text → the message."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    (src / "tiles.h").write_text(HEADER)
    result = port_tree(src, tmp_path / "port", get_target("rocm-7.2"))
    lines = (tmp_path / "port" / "k.cu").read_text().splitlines()  # the findings' lines are the port's
    found = [f for f in result.remaining if f.code == "API009"]
    assert len(found) == 3, [f.message for f in found]  # bounded<WARP_TILE>'s identical line is not among them
    return {lines[f.span.line - 1].strip(): f.message for f in found}


def test_header_macros_and_launch_bounds_templates_are_read(tmp_path: Path):
    left = _left(tmp_path)
    # WARP_TILE (32, from tiles.h) stays quiet, as does bounded<WARP_TILE>; BIG_TILE is 128 there
    big, other = "auto big = cg::tiled_partition<BIG_TILE>(cg::this_thread_block());", \
        "auto other = cg::tiled_partition<ELSEWHERE>(cg::this_thread_block());"
    wide = "auto t = cg::tiled_partition<Tile>(cg::this_thread_block());"
    assert sorted(left) == sorted([big, other, wide])  # one of the two identical lines: bounded_wide's
    assert "of 128 threads" in left[big] and "of 128 threads" in left[wide]
    assert "bounded_wide's instantiations" in left[wide]
    # a name no file here defines: reported as unread, with what to do
    assert "could not read the size (ELSEWHERE is not defined in this file or a header it includes)" in left[other]
    assert "at most 64" in left[other] and "shared memory" in left[other]
