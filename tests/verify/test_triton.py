from vado.verify.triton_kernels import compile_kernels, discover_kernels, extract_module, kernels_in

from _verify_helpers import FIXTURES, requires_triton


def test_discovery_and_signatures():
    ks = {k.name: k for k in discover_kernels(FIXTURES / "triton")}
    assert set(ks) == {"add_kernel", "scale_kernel", "needs_hint"}
    add = ks["add_kernel"]
    assert add.source == "annotation" and add.constexprs == {"BLOCK_SIZE": 1024} and not add.missing
    assert add.signature["x_ptr"] == "*fp32" and add.signature["BLOCK_SIZE"] == "constexpr"
    sc = ks["scale_kernel"]
    assert sc.source == "derived" and sc.signature == {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    assert sc.constexprs == {"BLOCK": 256}
    assert ks["needs_hint"].missing == ("alpha", "BLOCK")


def test_sidecar_and_from_import(tmp_path):
    (tmp_path / "k.py").write_text("from triton import jit\n\n@jit\ndef k(a, alpha, B):\n    pass\n")
    (tmp_path / "k.triton.json").write_text('{"k": {"signature": {"a": "*fp16", "alpha": "fp32"}, "constexprs": {"B": 64}}}')
    (k,) = discover_kernels(tmp_path)
    assert k.source == "sidecar" and k.signature == {"a": "*fp16", "alpha": "fp32", "B": "constexpr"} and not k.missing


def test_extract_module_keeps_only_kernels():
    text = (FIXTURES / "triton" / "vadd.py").read_text()
    mod = extract_module(text)
    assert "def add_kernel" in mod and "SOME_CONSTANT = 3" in mod and "launcher" not in mod
    assert kernels_in("x.py", "def broken(:\n") == []


@requires_triton
def test_compile_vector_add_for_gfx942_and_gfx1100():
    rep = compile_kernels(FIXTURES / "triton", ["gfx942", "gfx1100"])
    got = {(e.subject, e.arch): e for e in rep.evidence}
    for arch in ("gfx942", "gfx1100"):
        e = got[("vadd.py::add_kernel", arch)]
        assert e.passed and e.toolchain == "triton" and e.detail["hsaco_bytes"] > 0
        assert f"GPUTarget('hip', '{arch}', {64 if arch == 'gfx942' else 32})" in e.command
    assert [s for s, _ in rep.skipped] == ["vadd.py::needs_hint"] and rep.passed


@requires_triton
def test_a_broken_triton_kernel_fails(tmp_path):
    (tmp_path / "bad.py").write_text(
        "import triton\nimport triton.language as tl\n\n@triton.jit\ndef bad(x_ptr, n):\n    tl.store(x_ptr, tl.undefined_fn(n))\n"
    )
    rep = compile_kernels(tmp_path, ["gfx942"])
    (e,) = rep.evidence
    assert not e.passed and "undefined_fn" in e.stderr and not rep.passed
