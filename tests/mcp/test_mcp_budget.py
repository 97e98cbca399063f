"""MCP answers fit an assistant's budget: paging, detail levels, output schemas and tool annotations."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from vado.audit import audit as run_audit  # noqa: E402
from vado.mcp import tools  # noqa: E402
from vado.mcp.paging import estimate_tokens, fit_list, shrink  # noqa: E402
from vado.mcp.root import Root  # noqa: E402
from vado.mcp.server import build_server  # noqa: E402
from vado.model import Verdict  # noqa: E402

# One kernel file with about 18 findings of several families; 40 of them make a tree larger than
# llm.c's CUDA code (about 390 findings), where whole answers used to take 51,000 tokens (audit) and more.
KERNEL = """#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cooperative_groups.h>
#include <cudnn.h>
namespace cg = cooperative_groups;
__global__ void layernorm_{i}(float* out, const float* inp, int N) {{
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x / 32;
  float v = inp[warp * 32 + lane];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  unsigned m = __ballot_sync(0xffffffff, v > 0);
  if (lane == 0) out[warp] = v + __popc(m);
  __shared__ float s[32];
  s[lane] = v;
  int id; asm("mov.u32 %0, %%laneid;" : "=r"(id));
  out[N + lane] = s[31 - lane] + id;
}}
void run_{i}(cublasHandle_t h, float* d, int n) {{
  cudaMalloc(&d, n * sizeof(float));
  cudaMemset(d, 0, n);
  layernorm_{i}<<<n / 256, 256>>>(d, d, n);
  cudaDeviceSynchronize();
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, nullptr, d, n, d, n, nullptr, d, n);
  cudaFree(d);
  cudnnHandle_t dnn; cudnnCreate(&dnn);
}}
"""


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("llmc-sized")
    for i in range(40):
        d = root / ("dev/cuda" if i % 2 else "llmc")
        d.mkdir(parents=True, exist_ok=True)
        (d / f"kernel_{i:02d}.cu").write_text(KERNEL.format(i=i))
    (root / "Makefile").write_text("NVCC ?= nvcc\nall:\n\t$(NVCC) -O3 --use_fast_math -lcublas llmc/*.cu -o train\n")
    return root


def _call(root: Path, name: str, args: dict) -> tuple[dict, str]:
    server = build_server(Root(str(root)))

    async def run():
        return await server.call_tool(name, args)

    result = anyio.run(run)
    assert not result.is_error, result.content[0].text
    return result.structured_content, result.content[0].text


def test_the_tree_is_llm_c_sized(big_tree: Path):
    full = tools.audit(Root(str(big_tree)), ".", limit=5000, max_tokens=25000)
    assert full["finding_count"] >= 700
    # Every finding in full detail, as the server answered before paging: far over any budget.
    everything = [tools._finding_json(f, ".") for f in run_audit(big_tree).findings]
    assert estimate_tokens(everything) > 60_000


def test_whole_tree_audit_fits_10k_tokens_and_pages_cover_every_finding(big_tree: Path):
    doc, text = _call(big_tree, "audit", {"path": "."})
    assert estimate_tokens(text) <= 10_000
    assert json.loads(text) == doc
    assert doc["truncated"] is True and doc["next_offset"] == len(doc["findings"])
    assert sum(doc["counts_by_code"].values()) == doc["finding_count"]
    per_file: dict[str, int] = {}
    for f in run_audit(big_tree).findings:
        per_file[f.span.path] = per_file.get(f.span.path, 0) + 1
    assert doc["files_with_most_findings"][0]["findings"] == max(per_file.values())
    seen = [(f["path"], f["line"], f["column"], f["code"]) for f in doc["findings"]]
    offset = doc["next_offset"]
    while offset is not None:
        page, text = _call(big_tree, "audit", {"path": ".", "offset": offset})
        assert estimate_tokens(text) <= 10_000 and page["offset"] == offset
        seen += [(f["path"], f["line"], f["column"], f["code"]) for f in page["findings"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) == doc["finding_count"]


def test_audit_detail_filters_and_budget(big_tree: Path):
    full, text = _call(big_tree, "audit", {"path": "llmc", "detail": "full", "codes": ["WARP00"], "limit": 10})
    assert len(full["findings"]) == 10 and all(f["code"].startswith("WARP00") for f in full["findings"])
    assert {"verdicts", "data", "name"} <= set(full["findings"][0])
    assert all(f["path"].startswith("llmc/") for f in full["findings"])
    small, text = _call(big_tree, "audit", {"path": ".", "max_tokens": 2000})
    assert estimate_tokens(text) <= 2000 and small["findings"]
    big, text = _call(big_tree, "audit", {"path": ".", "max_tokens": 25000, "limit": 5000})
    assert 10_000 < estimate_tokens(text) <= 25_000 and len(big["findings"]) > len(small["findings"])


def test_whole_tree_port_fits_10k_tokens_with_totals_and_pages(big_tree: Path):
    doc, text = _call(big_tree, "port", {"path": "."})
    assert estimate_tokens(text) <= 10_000
    assert doc["file_count"] == 41 and sum(doc["files_by_status"].values()) == 41
    assert doc["remaining_count"] == sum(doc["remaining_by_code"].values()) > 0
    listed = [f["path"] for f in doc["files"]]
    # The findings left are those of the listed files.
    assert {r["path"] for r in doc["remaining"]} <= set(listed)
    offset, pages = doc["next_offset"], 1
    while offset is not None:
        page, text = _call(big_tree, "port", {"path": ".", "offset": offset})
        assert estimate_tokens(text) <= 10_000
        listed += [f["path"] for f in page["files"]]
        offset, pages = page["next_offset"], pages + 1
    assert sorted(listed) == sorted(set(listed)) and len(listed) == 41
    wanted, text = _call(big_tree, "port", {"path": ".", "diff_paths": ["llmc/kernel_00.cu"], "include_diffs": False})
    assert [d["path"] for d in wanted["diffs"]] == ["llmc/kernel_00.cu"]
    assert "+#include <hip/hip_runtime.h>" in wanted["diffs"][0]["diff"]
    assert estimate_tokens(text) <= 10_000


def test_output_schemas_annotations_and_the_verdict_names(big_tree: Path):
    server = build_server(Root(str(big_tree)))
    listed = {t.name: t for t in anyio.run(server.list_tools)}
    for name, t in listed.items():
        assert t.output_schema and t.output_schema["type"] == "object", name
        assert t.annotations is not None and t.annotations.open_world_hint is False, name
        assert t.annotations.destructive_hint is False, name
    assert {"verdicts", "findings", "next_offset"} <= set(listed["audit"].output_schema["properties"])
    assert {"files", "remaining", "next_offset"} <= set(listed["port"].output_schema["properties"])
    for name in ("audit", "explain", "lookup", "facts", "verify"):
        assert listed[name].annotations.read_only_hint is True, name
    assert listed["port"].annotations.read_only_hint is False
    desc = listed["audit"].description
    for v in Verdict:
        assert v.value in desc
    assert "rename" not in desc and "rework" not in desc


def test_fit_list_and_shrink():
    answer = {"head": "x" * 100, "items": [{"n": i, "text": "y" * 50} for i in range(1000)], "next_offset": None}
    fit_list(answer, "items", 200, 2000)
    assert estimate_tokens(answer) <= 2000 and answer["next_offset"] == 200 + len(answer["items"])
    huge = {"a": "z" * 200_000, "rows": [list(range(50)) for _ in range(2000)], "ok": True}
    cut = shrink(huge, 5000)
    assert estimate_tokens(cut) <= 5000 and cut["ok"] is True and cut["truncated_by_budget"]
    assert huge["a"] == "z" * 200_000  # the caller's object is left alone
    small = {"a": 1}
    assert shrink(small, 5000) is small


def test_paging_a_port_ports_once(big_tree: Path, monkeypatch):
    """Later pages (and diff requests) of one port reuse it: no new port, no new temporary tree per page."""
    import vado.port.tree as tree_mod

    calls = []
    real_port_tree = tree_mod.port_tree

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real_port_tree(*args, **kwargs)

    monkeypatch.setattr(tree_mod, "port_tree", counting)
    monkeypatch.setattr(tools, "_PORTS", tools.ResultCache())
    doc, _ = _call(big_tree, "port", {"path": ".", "launch": "ggl", "limit": 10})
    offset, pages = doc["next_offset"], 1
    while offset is not None:
        page, _ = _call(big_tree, "port", {"path": ".", "launch": "ggl", "limit": 10, "offset": offset})
        offset, pages = page["next_offset"], pages + 1
    assert pages >= 4
    _call(big_tree, "port", {"path": ".", "launch": "ggl", "diff_paths": ["llmc/kernel_00.cu"]})
    assert len(calls) == 1
    # A change to the source is a new port.
    extra = big_tree / "llmc" / "extra.cu"
    extra.write_text("__global__ void k(int* o) { o[threadIdx.x & 31] = 1; }\n")
    try:
        again, _ = _call(big_tree, "port", {"path": ".", "launch": "ggl"})
        assert len(calls) == 2 and again["file_count"] == 42
    finally:
        extra.unlink()


def test_the_second_page_of_a_written_port_is_not_refused(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(tools, "_PORTS", tools.ResultCache())
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        (src / f"k{i}.cu").write_text(KERNEL.format(i=i))
    first, _ = _call(tmp_path, "port", {"path": "src", "output": "hip-port", "limit": 1})
    assert first["output"] == "hip-port" and first["next_offset"] == 1
    second, _ = _call(tmp_path, "port", {"path": "src", "output": "hip-port", "limit": 1, "offset": 1})
    assert [f["path"] for f in second["files"]] != [f["path"] for f in first["files"]]
    # Another port into the same directory is still refused: a port never writes over files.
    with pytest.raises(Exception, match="exists and is not empty"):
        tools.port(Root(str(tmp_path)), "src", output="hip-port", unsafe=True)


def test_verify_defaults_to_the_targets_architectures(tmp_path: Path, monkeypatch):
    import vado.agent.verify as agent_verify

    seen = []

    def fake_compile(src, *, arch, include_dirs, target, **_):
        seen.append((arch, target.name))
        from vado.model import Evidence

        return Evidence(kind="compile", subject=str(src), passed=True, command=("hipcc",), returncode=0, arch=arch)

    monkeypatch.setattr(agent_verify, "compile_hip", fake_compile)
    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    answer = tools.verify(Root(str(tmp_path)), "k.hip")
    assert answer["archs"] == ["gfx942", "gfx950"] and seen == [("gfx942", "rocm-7.2"), ("gfx950", "rocm-7.2")]
