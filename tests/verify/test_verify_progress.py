"""``verify`` reports its steps through a callback: compile records, builds and differential rounds."""

from __future__ import annotations

import os
import subprocess

from vado.knowledge.targets import get_target
from vado.verify.differential import differential
from vado.verify.run import RunSpec, verify

from _verify_helpers import FIXTURES, fake_toolchain, requires_cc


def _recorder():
    calls: list[tuple[int, int]] = []
    return calls, lambda done, total: calls.append((done, total))


def test_compile_steps_are_units_times_archs(tmp_path, monkeypatch, isolated_cache):
    d = fake_toolchain(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{d}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("VADO_TOOL_DIRS", "")
    calls, progress = _recorder()
    # gfx1100 is an arch the fake hipcc cannot build: its records (unsupported-arch) are steps too.
    result = verify(FIXTURES / "saxpy", archs=["gfx90a", "gfx942", "gfx1100"], target=get_target("hip-5.2"),
                    hipcc=str(d / "hipcc"), do_triton=False, use_cache=False, progress=progress)
    records = len(result.compile.evidence)
    assert records == 3 * sum(1 for u in result.compile.units if u.device) + sum(1 for u in result.compile.units if not u.device)
    assert calls[0] == (0, records) and calls[-1] == (records, records)
    assert [d for d, _ in calls] == list(range(records + 1))
    assert {t for _, t in calls} == {records}


@requires_cc
def test_run_steps_are_rounds(tmp_path):
    src = tmp_path / "p.c"
    src.write_text('#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char** v) { printf("%d\\n", atoi(v[1])); return 0; }\n')
    prog = tmp_path / "p"
    subprocess.run(["cc", str(src), "-o", str(prog)], check=True, timeout=120)
    calls, progress = _recorder()
    spec = RunSpec(template="{bin} {n}", shapes=(63, 64, 65), original_bin=str(prog), port_bin=str(prog))
    result = verify(tmp_path, archs=["gfx942"], target=get_target("hip-5.2"), do_compile=False, do_triton=False,
                    run=spec, progress=progress)
    assert result.passed
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]
    rounds: list[tuple[int, int]] = []
    differential("{bin} {n}", str(prog), str(prog), shapes=(1, 2), progress=lambda d, t: rounds.append((d, t)))
    assert rounds == [(1, 2), (2, 2)]


def test_skipped_steps_count_as_done(tmp_path, monkeypatch):
    # No GPU here: the run step (two builds, two rounds) is skipped, and the last report says all is done.
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("VADO_TOOL_DIRS", "")
    calls, progress = _recorder()
    spec = RunSpec(template="{bin} {n}", shapes=(63, 64))
    result = verify(FIXTURES / "saxpy", archs=["gfx942"], target=get_target("hip-5.2"), do_compile=False,
                    do_triton=False, run=spec, original=FIXTURES / "saxpy", progress=progress)
    assert result.run_skipped.startswith("run step skipped")
    assert calls == [(0, 4), (4, 4)]
