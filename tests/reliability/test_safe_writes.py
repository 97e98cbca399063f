"""Issue 27 (item 2): vado never writes, truncates or reads through a link a cloned tree controls."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado import safefs
from vado.assistant import install, skill_text, write_plugin
from vado.agent.transcript import Transcript
from vado.cli.app import app
from vado.errors import UsageError


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    (d / "config.json").write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    (d / "bashrc").write_text("export SAFE=1\n")
    return d


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    d = tmp_path / "repo"
    d.mkdir()
    return d


def _snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and not p.is_symlink()}


def test_claude_dir_link_out_of_the_repository_is_refused(repo: Path, outside: Path):
    (repo / ".claude").symlink_to(outside)
    before = _snapshot(outside)
    with pytest.raises(UsageError, match="symlink"):
        install(repo)
    assert _snapshot(outside) == before and not (outside / "skills").exists()


def test_mcp_json_link_is_neither_read_nor_merged_into(repo: Path, outside: Path):
    (repo / ".mcp.json").symlink_to(outside / "config.json")
    before = _snapshot(outside)
    r = CliRunner().invoke(app, ["skill", "install", str(repo)])
    assert r.exit_code == 2 and "symlink" in r.output
    assert _snapshot(outside) == before
    assert not (repo / ".claude").exists()  # every check comes before any write


@pytest.mark.parametrize("force", [False, True])
def test_linked_skill_md_target_is_never_overwritten(repo: Path, outside: Path, force: bool):
    d = repo / ".claude" / "skills" / "vado-port"
    d.mkdir(parents=True)
    (d / "SKILL.md").symlink_to(outside / "bashrc")
    args = ["skill", "install", str(repo), "--no-mcp"] + (["--force"] if force else [])
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2, r.output
    assert (outside / "bashrc").read_text() == "export SAFE=1\n"
    assert (d / "SKILL.md").is_symlink()


def test_plugin_dir_with_planted_links_is_refused(tmp_path: Path, outside: Path):
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "skills").symlink_to(outside)
    before = _snapshot(outside)
    with pytest.raises(UsageError, match="symlink"):
        write_plugin(plugin, force=True)
    assert _snapshot(outside) == before and not (outside / "vado-port").exists()
    assert not (plugin / ".claude-plugin").exists()  # refused before the first write


def test_install_still_merges_a_real_mcp_json(repo: Path):
    (repo / ".mcp.json").write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    done = dict((p.name, w) for p, w in install(repo))
    assert done == {"SKILL.md": "written", ".mcp.json": "updated"}
    doc = json.loads((repo / ".mcp.json").read_text())
    assert set(doc["mcpServers"]) == {"other", "vado"}
    assert (repo / ".claude/skills/vado-port/SKILL.md").read_text() == skill_text()
    assert not [p for p in repo.rglob("*.vado-tmp")]


def test_transcript_link_is_refused_not_truncated(repo: Path, outside: Path, monkeypatch):
    monkeypatch.chdir(repo)
    (repo / "vado-agent-transcript.jsonl").symlink_to(outside / "bashrc")
    with pytest.raises(UsageError, match="symlink"):
        Transcript(Path("vado-agent-transcript.jsonl"))
    assert (outside / "bashrc").read_text() == "export SAFE=1\n"


def test_transcript_in_a_linked_directory_is_refused(repo: Path, outside: Path, monkeypatch):
    monkeypatch.chdir(repo)
    (repo / "logs").symlink_to(outside)
    with pytest.raises(UsageError, match="symlink"):
        Transcript(Path("logs/bashrc"))
    assert (outside / "bashrc").read_text() == "export SAFE=1\n"


def test_transcript_fifo_is_refused_without_hanging(repo: Path, monkeypatch):
    monkeypatch.chdir(repo)
    os.mkfifo(repo / "vado-agent-transcript.jsonl")
    with pytest.raises(UsageError, match="not a regular file"):
        Transcript(Path("vado-agent-transcript.jsonl"))


def test_agent_dry_run_does_not_truncate_a_linked_transcript(repo: Path, outside: Path, monkeypatch):
    (repo / "k.cu").write_text("__global__ void k(){}\n")
    monkeypatch.chdir(repo)
    (repo / "vado-agent-transcript.jsonl").symlink_to(outside / "bashrc")
    r = CliRunner().invoke(app, ["agent", str(repo), "--dry-run", "--provider", "openai", "--model", "m",
                                 "--base-url", "http://127.0.0.1:9"])
    assert r.exit_code != 0
    assert (outside / "bashrc").read_text() == "export SAFE=1\n"


def test_transcript_still_written_and_truncated_when_it_is_a_plain_file(repo: Path, monkeypatch):
    monkeypatch.chdir(repo)
    (repo / "t.jsonl").write_text("old old old old\n")
    with Transcript(Path("t.jsonl")) as t:
        t.write("run", x=1)
    assert json.loads((repo / "t.jsonl").read_text())["x"] == 1


def test_write_under_replaces_atomically_and_keeps_the_mode(tmp_path: Path):
    (tmp_path / "f").write_text("a")
    os.chmod(tmp_path / "f", 0o640)
    assert safefs.write_under(tmp_path, "f", b"b") == "replaced"
    assert (tmp_path / "f").read_text() == "b" and (tmp_path / "f").stat().st_mode & 0o777 == 0o640
    assert safefs.write_under(tmp_path, "d/e/g", b"c") == "written" and (tmp_path / "d/e/g").read_text() == "c"
    with pytest.raises(UsageError):
        safefs.write_under(tmp_path, "../x", b"c")


def test_stale_temp_cleanup_removes_only_unlocked_own_temps(tmp_path: Path):
    import fcntl

    stale = tmp_path / safefs.temp_name()
    stale.write_text("x")
    old_form = tmp_path / ".kernel.cu.0123abcd.vado-tmp"
    old_form.write_text("x")
    live = tmp_path / safefs.temp_name()
    live.write_text("x")
    user = [tmp_path / "notes.vado-tmp", tmp_path / ".vado.xyz.vado-tmp", tmp_path / "k.cu"]
    for p in user:
        p.write_text("mine")
    (tmp_path / (".link" + ".0123abcd.vado-tmp")).symlink_to(tmp_path / "k.cu")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        removed = safefs.remove_stale_temps(tmp_path)
    finally:
        os.close(fd)
    assert sorted(removed) == sorted([stale.name, old_form.name])
    assert live.exists() and all(p.read_text() == "mine" for p in user)
    assert (tmp_path / ".link.0123abcd.vado-tmp").is_symlink()
