"""Real ported fixtures compiled with the real hipcc (gfx90a, gfx940), and broken ports mapped to findings."""

import pytest

from vado.knowledge.targets import get_target
from vado.port.tree import port_tree
from vado.verify.compile import find_units, verify_compile
from vado.verify.toolchains import find_hipcc, hip_toolchain, probe_archs

from _verify_helpers import FIXTURES, requires_hipcc

pytestmark = requires_hipcc
HIP52 = get_target("hip-5.2")


@pytest.fixture(scope="module")
def tc():
    return hip_toolchain(find_hipcc())


@pytest.fixture(scope="module")
def probes(tc, tmp_path_factory):
    """One probe per arch for the whole module (each probe is a real compile)."""
    return probe_archs(tc, ["gfx90a", "gfx940", "gfx9999"], use_cache=False)


def _port(name, tmp_path):
    out = tmp_path / name
    port_tree(FIXTURES / name, out, HIP52)
    return out


def test_saxpy_port_compiles_for_gfx90a_and_gfx940(tc, probes, tmp_path):
    out = _port("saxpy", tmp_path)
    before = sorted(p.name for p in out.rglob("*"))
    rep = verify_compile(out, tc, ["gfx90a", "gfx940"], target=HIP52, original=FIXTURES / "saxpy", probes=probes,
                         codegen="all")
    assert [(e.subject, e.arch, e.passed) for e in rep.evidence] == [("main.cu", "gfx90a", True), ("main.cu", "gfx940", True)]
    ev = rep.evidence[0]
    # --codegen all: the build's full compile (the default runs the front end here, checked below).
    assert "--offload-arch=gfx90a" in ev.command and "-c" in ev.command and "-fsyntax-only" not in ev.command
    assert ev.detail["checked"] == "code generation"
    fe = verify_compile(out, tc, ["gfx90a", "gfx940"], target=HIP52, probes=probes).evidence[0]
    assert fe.passed and "-fsyntax-only" in fe.command and "-c" not in fe.command and fe.detail["checked"] == "front end"
    assert "-DSAXPY_N=4096" in ev.command and ev.detail["flags_source"] == "Makefile"
    assert ev.toolchain == "hipcc" and ev.toolchain_version.startswith("HIP ") and ev.duration_s > 0
    assert sorted(p.name for p in out.rglob("*")) == before  # nothing written into the tree


def test_inline_ptx_left_fails_with_ptx_findings(tc, probes, tmp_path):
    out = _port("broken_ptx", tmp_path)
    rep = verify_compile(out, tc, ["gfx90a"], target=HIP52, original=FIXTURES / "broken_ptx", probes=probes)
    (ev,) = rep.evidence
    assert not ev.passed and ev.returncode != 0 and "invalid instruction" in ev.stderr
    # The front end passes inline PTX; the default runs code generation for a unit with inline asm.
    assert ev.detail["checked"] == "code generation" and ev.detail["codegen_reason"].startswith("inline assembly")
    diags = ev.detail["diagnostics"]
    by_line = {d["line"]: d for d in diags}
    assert by_line[6]["code"] == "PTX002" and by_line[6]["original_line"] == 6
    assert by_line[12]["code"] == "PTX001"


def test_api_newer_than_target_fails_with_api003(tc, probes, tmp_path):
    out = _port("broken_api", tmp_path)
    rep = verify_compile(out, tc, ["gfx90a"], target=HIP52, original=FIXTURES / "broken_api", probes=probes)
    (d,) = rep.evidence[0].detail["diagnostics"]
    assert d["code"] == "API003" and "cudaGraphExecNodeSetParams" in d["message"]
    assert (d["original_file"], d["original_line"], d["exact"]) == ("k.cu", 10, True)


def test_unsupported_arch_is_never_a_pass(tc, probes, tmp_path):
    out = _port("saxpy", tmp_path)
    rep = verify_compile(out, tc, ["gfx90a", "gfx9999"], target=HIP52, probes=probes)
    bad = [e for e in rep.evidence if e.arch == "gfx9999"]
    assert bad and not bad[0].passed and bad[0].detail["status"] == "unsupported-arch"
    assert "gfx9999" in rep.unsupported and not rep.passed


def test_units(tmp_path):
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "host.cpp").write_text("int main() { return 0; }\n")
    (tmp_path / "dev.cpp").write_text("#include <hip/hip_runtime.h>\n")
    units, _ = find_units(tmp_path)
    assert {(u.path, u.device) for u in units} == {("a.cu", True), ("dev.cpp", True), ("host.cpp", False)}
