"""`vado audit` in worker processes gives what one process gives, whatever the chunking."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from vado.audit.pipeline import _chunks, _Job
from vado.cli.app import app
from vado.scan.classify import FileKind

KERNEL = """#include <cuda_runtime.h>
__global__ void k{i}(float* a, unsigned m) {{
  int lane = threadIdx.x & 31;
  a[lane] += __shfl_down_sync(0xffffffff, a[lane], 16);
  if (__ballot_sync(m, a[lane] > 0) == 0xffffffff) a[0] = {i};
}}
void run{i}(float* d) {{ cudaMemset(d, 0, 4); k{i}<<<1, 32>>>(d, 0xffffffffu); }}
"""


def _tree(root: Path, files: int) -> Path:
    for i in range(files):
        d = root / f"prog{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        # Sizes differ so that the largest-first scheduling reorders the chunks.
        (d / f"k{i}.cu").write_text(KERNEL.format(i=i) + "// pad\n" * (i * 37 % 900))
    return root


def _audit_json(src: Path, out: Path, *jobs: str) -> dict:
    res = CliRunner().invoke(app, ["audit", str(src), "-f", "json", "-o", str(out), *jobs])
    assert res.exit_code in (0, 1), res.output
    data = json.loads(out.read_text())
    data["stats"].pop("duration_s")
    data["stats"].pop("jobs")
    return data


def test_parallel_audit_equals_the_single_process_one(tmp_path: Path):
    src = _tree(tmp_path / "src", 300)
    one = _audit_json(src, tmp_path / "one.json", "--jobs", "1")
    two = _audit_json(src, tmp_path / "two.json", "--jobs", "2")
    default = _audit_json(src, tmp_path / "default.json")
    assert one == two == default
    assert one["stats"]["files_scanned"] == 300
    assert {f["code"] for f in one["findings"]} >= {"WARP001", "WARP002"}


def test_chunks_are_smaller_for_more_workers_and_keep_every_file_once():
    jobs = [_Job(f"f{i}.cu", f"/x/f{i}.cu", FileKind.CUDA_SOURCE, 10_000 + i) for i in range(500)]
    for workers in (1, 2, 8):
        chunks = _chunks(jobs, workers)
        assert [j for c in chunks for j in c] == jobs
        if workers > 1:
            assert len(chunks) >= workers * 4  # enough tasks to balance the workers
