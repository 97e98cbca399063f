"""`vado mcp` as a subprocess, driven by the MCP SDK's real client over stdio (and once over HTTP)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402  (installed with mcp)
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from vado.agent.verify import hipcc_path  # noqa: E402
from vado.mcp.server import TOOL_NAMES  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "agent" / "fixtures"


def _payload(result) -> dict:
    """A tool's structured result (the SDK also sends it as JSON text)."""
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """One server process; every call the tests check, made in one session (a start costs seconds)."""
    base = tmp_path_factory.mktemp("mcp")
    root = base / "root"
    (root / "src").mkdir(parents=True)
    shutil.copy(FIXTURES / "ptx_funnel.cu", root / "src" / "ptx_funnel.cu")
    (base / "outside.cu").write_text("__global__ void k() {}\n")
    os.symlink(base / "outside.cu", root / "src" / "escape.cu")
    (root / "good").mkdir()
    (root / "good" / "lane.hip").write_text(
        "#include <hip/hip_runtime.h>\n__global__ void lane(unsigned* o) { o[threadIdx.x] = threadIdx.x % warpSize; }\n"
    )
    calls = [
        ("audit", {"path": "."}),
        ("audit", {"path": "src/ptx_funnel.cu", "min_severity": "critical"}),
        ("port", {"path": "src"}),
        ("port", {"path": "src", "output": "ported"}),
        ("port", {"path": "src", "output": "../ported-outside"}),
        ("audit", {"path": "../outside.cu"}),
        ("audit", {"path": str(base / "outside.cu")}),
        ("audit", {"path": "src/escape.cu"}),
        ("explain", {"code": "PTX002"}),
        ("explain", {"code": "NOPE999"}),
        ("lookup", {"name": "cudaMallocAsync", "target": "rocm-7.2"}),
        ("lookup", {"name": "cudaMalocAsync"}),
        ("facts", {"name": "cudnn"}),
        ("audit", {"path": ".", "min_severity": "loud"}),
    ]
    if hipcc_path():
        calls += [("verify", {"path": "src/ptx_funnel.cu"}), ("verify", {"path": "ported/ptx_funnel.cu"}),
                  ("verify", {"path": "good"})]

    async def run():
        # The whole environment: the SDK passes only a few variables by default, and PYTHONPATH decides
        # which vado the server process runs.
        params = StdioServerParameters(command=sys.executable, args=["-m", "vado.cli.app", "mcp", "--root", str(root)],
                                       env=dict(os.environ))
        async with Client(params) as client:
            tools = await client.list_tools()
            results = [await client.call_tool(name, args) for name, args in calls]
            return tools, results

    tools, results = anyio.run(run)
    return {"root": root, "base": base, "tools": tools.tools, "results": list(zip(calls, results))}


def _result(session, index):
    (name, args), result = session["results"][index]
    return result


def test_lists_every_tool_with_a_schema_and_description(session):
    tools = {t.name: t for t in session["tools"]}
    assert set(tools) == set(TOOL_NAMES)
    for t in tools.values():
        assert t.description and len(t.description) > 40
        assert t.input_schema["type"] == "object"
    audit = tools["audit"].input_schema["properties"]
    assert audit["min_severity"]["enum"] == ["info", "low", "medium", "high", "critical"]
    assert "root" in audit["path"]["description"]
    assert tools["port"].input_schema["required"] == ["path"]
    assert tools["explain"].input_schema["required"] == ["code"]
    assert "bench" not in tools


def test_audit_reports_the_fixture_finding(session):
    r = _result(session, 0)
    assert not r.is_error
    doc = _payload(r)
    codes = [f["code"] for f in doc["findings"]]
    # <cuda_runtime.h> (API005, renamed automatically) and the %warpid asm (PTX002, manual).
    assert codes == ["API005", "PTX002"]
    assert doc["counts_by_code"] == {"API005": 1, "PTX002": 1}
    f = doc["findings"][1]
    assert f["fix"] is None
    assert (f["path"], f["line"]) == ("src/ptx_funnel.cu", 6)
    rocm = next(v for v in doc["verdicts"] if v["target"] == "rocm-7.2")
    assert rocm["verdict"] == "needs-manual-work"
    # The symlink out of the root is skipped by the walk, not followed.
    assert doc["files_scanned"] == 2
    assert {"path": "src/escape.cu", "reason": "symlink-outside-root"} in [
        {k: s[k] for k in ("path", "reason")} for s in doc["skips"]
    ]


def test_audit_severity_floor(session):
    doc = _payload(_result(session, 1))
    assert doc["finding_count"] == 0 and doc["findings"] == []


def test_port_without_output_writes_nothing_and_returns_diffs(session):
    doc = _payload(_result(session, 2))
    assert doc["dry_run"] is True and doc["output"] is None
    (f,) = [f for f in doc["files"] if f["path"] == "ptx_funnel.cu"]
    assert "+#include <hip/hip_runtime.h>" in f["diff"]
    assert f["remaining"] == {"PTX002": 1}
    assert [r["code"] for r in doc["remaining"]] == ["PTX002"]


def test_port_into_the_root_writes_the_tree(session):
    doc = _payload(_result(session, 3))
    assert doc["output"] == "ported"
    ported = (session["root"] / "ported" / "ptx_funnel.cu").read_text()
    assert "#include <hip/hip_runtime.h>" in ported


@pytest.mark.parametrize("index", [4, 5, 6, 7])
def test_path_escapes_are_refused(session, index):
    r = _result(session, index)
    assert r.is_error
    assert "outside the server's root" in r.content[0].text
    assert not (session["base"] / "ported-outside").exists()


def test_explain_and_its_unknown_code(session):
    doc = _payload(_result(session, 8))
    assert doc["code"] == "PTX002" and "What it does" in doc["sections"]
    bad = _result(session, 9)
    assert bad.is_error and "unknown rule code" in bad.content[0].text


def test_lookup_and_facts(session):
    doc = _payload(_result(session, 10))
    assert doc["found"] and doc["rocm_name"] == "hipMallocAsync"
    assert [t["target"] for t in doc["targets"]] == ["rocm-7.2"]
    miss = _payload(_result(session, 11))
    assert miss["found"] is False and "cudaMallocAsync" in miss["did_you_mean"]
    facts = _payload(_result(session, 12))
    assert facts["matches"][0]["kind"] == "library" and facts["matches"][0]["id"] == "cudnn"


def test_bad_argument_is_a_tool_error(session):
    r = _result(session, 13)
    assert r.is_error


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed")
def test_verify_compiles_with_hipcc(session):
    cuda = _payload(_result(session, 14))
    assert cuda["passed"] is False
    assert "cuda_runtime.h' file not found" in cuda["files"][0]["evidence"][0]["stderr"]
    ported = _payload(_result(session, 15))
    assert ported["passed"] is False
    (f,) = ported["files"]
    ev = f["evidence"][0]
    # The target's architectures by default, as `vado verify` (rocm-7.2: gfx942 and gfx950).
    assert [e["arch"] for e in f["evidence"]] == ["gfx942", "gfx950"]
    assert ev["returncode"] != 0 and "invalid instruction" in ev["stderr"]
    assert ev["command"][0] == "HIP_PLATFORM=amd" and "--offload-arch=gfx942" in ev["command"]
    assert [x["code"] for x in f["open_findings"]] == ["PTX002"]
    good = _payload(_result(session, 16))
    assert good["passed"] is True
    assert [x["path"] for x in good["files"]] == ["good/lane.hip"]
    assert good["files"][0]["evidence"][0]["returncode"] == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_loopback(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    port = _free_port()
    log_path = tmp_path.parent / f"{tmp_path.name}-server.log"
    log = open(log_path, "wb")  # a file, not a pipe: an unread pipe can stall the server
    proc = subprocess.Popen(
        [sys.executable, "-m", "vado.cli.app", "mcp", "--root", str(tmp_path), "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=log,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(log_path.read_text(errors="replace"))
                time.sleep(0.2)

        # The server prints a new bearer token at each start; requests without it are refused.
        token = ""
        while not token and time.monotonic() < deadline:
            token = next((line.split("Bearer ", 1)[1].strip() for line in log_path.read_text(errors="replace").splitlines()
                          if "Bearer " in line), "")
            time.sleep(0.1)
        assert token
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        url = f"http://127.0.0.1:{port}/mcp"

        async def run():
            http = create_mcp_http_client(headers={"authorization": f"Bearer {token}"})
            async with Client(streamable_http_client(url, http_client=http)) as client:
                tools = await client.list_tools()
                refused = await client.call_tool("audit", {"path": "/"})
                return tools, refused

        tools, refused = anyio.run(run)
        assert {t.name for t in tools.tools} == set(TOOL_NAMES)
        assert refused.is_error

        async def without_token():
            async with Client(url) as client:
                await client.list_tools()

        with pytest.raises(BaseException):
            anyio.run(without_token)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


def test_http_refuses_non_loopback_hosts(tmp_path):
    from typer.testing import CliRunner

    from vado.cli.app import app

    result = CliRunner().invoke(app, ["mcp", "--root", str(tmp_path), "--http", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "refusing to serve on 0.0.0.0" in result.output
