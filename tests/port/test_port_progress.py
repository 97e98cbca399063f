"""``port_tree`` reports its progress through a callback: one call per ported file, in one process or several."""

from __future__ import annotations

from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.port.tree import port_tree

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vecops"


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_counts_every_ported_file(tmp_path: Path, jobs: int):
    calls: list[tuple[int, int]] = []
    result = port_tree(EXAMPLE, tmp_path / "out", get_target("rocm-7.2"), jobs=jobs,
                       progress=lambda done, total: calls.append((done, total)))
    n = len(result.files)
    assert n >= 3
    assert calls and calls[-1] == (n, n)
    assert {t for _, t in calls} == {n}
    done = [d for d, _ in calls]
    assert done == sorted(done) and all(1 <= d <= n for d in done)
    if jobs == 1:
        assert done == list(range(1, n + 1))  # one call per file


def test_no_files_no_calls(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "notes.txt").write_text("nothing to port\n")
    calls: list[tuple[int, int]] = []
    result = port_tree(src, tmp_path / "out", get_target("rocm-7.2"), progress=lambda d, t: calls.append((d, t)))
    assert result.files == () and calls == []
