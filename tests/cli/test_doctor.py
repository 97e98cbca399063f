"""`vado doctor` output, snapshot-tested with fake toolchains on PATH and with an empty PATH."""

import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
from _verify_helpers import fake_toolchain  # noqa: E402

SNAPSHOTS = Path(__file__).parent / "snapshots"


def _check(name: str, text: str) -> None:
    from vado.verify.toolchains import ROCM_TOOLCHAIN_SCRIPT

    # The tip names the script where vado is installed: a checkout's path differs from CI's.
    text = text.replace(str(ROCM_TOOLCHAIN_SCRIPT), "<SCRIPT>")
    path = SNAPSHOTS / name
    if os.environ.get("VADO_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture
def env(tmp_path, monkeypatch):
    for var in ("VADO_HIPCC", "VADO_NVCC", "ROCM_PATH", "CUDA_HOME", "HIP_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("VADO_TOOL_DIRS", "")
    # No ROCm chroot of this machine's (scripts/rocm-toolchain.sh) in the snapshots.
    monkeypatch.setenv("VADO_ROCM_HOME", "")
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_doctor_with_fake_toolchains(env, monkeypatch):
    d = fake_toolchain(env / "bin")
    monkeypatch.setenv("PATH", str(d))
    monkeypatch.setenv("VADO_PYTHON", str(d / "python-triton"))
    res = CliRunner().invoke(app, ["doctor", "--arch", "gfx90a,gfx942,gfx950"])
    assert res.exit_code == 0, res.output
    _check("doctor_fake.txt", res.stdout.replace(str(d), "<BIN>"))


def test_doctor_without_toolchains(env, monkeypatch):
    d = fake_toolchain(env / "bin")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("VADO_PYTHON", str(d / "python-none"))
    res = CliRunner().invoke(app, ["doctor"])
    assert res.exit_code == 0, res.output
    _check("doctor_empty.txt", res.stdout)


def test_doctor_json_and_usage(env, monkeypatch):
    d = fake_toolchain(env / "bin")
    monkeypatch.setenv("PATH", str(d))
    monkeypatch.setenv("VADO_PYTHON", str(d / "python-triton"))
    res = CliRunner().invoke(app, ["doctor", "--no-probe", "--format", "json"])
    assert res.exit_code == 0
    import json

    doc = json.loads(res.stdout)
    assert doc["hip"]["hip_version"] == "6.2.41133-dd7f95766" and doc["archs"] == []
    assert doc["nvcc"]["release"] == "12.4" and doc["gpus"][0]["name"] == "NVIDIA H200"
    assert CliRunner().invoke(app, ["doctor", "--format", "xml"]).exit_code == 2
