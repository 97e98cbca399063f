from vado.verify.toolchains import doctor, find_gpus, find_hipcc, hip_toolchain, nvcc_toolchain, probe_archs, triton_info

from _verify_helpers import fake_toolchain, requires_hipcc


def test_fake_hipcc(tmp_path, isolated_cache):
    d = fake_toolchain(tmp_path / "bin")
    path = find_hipcc(path_env=str(d), tool_dirs=())
    tc = hip_toolchain(path, path_env=str(d))
    assert (tc.hip_version, tc.clang_version) == ("6.2.41133-dd7f95766", "18.0.0git")
    assert tc.known_archs == ("gfx90a", "gfx942", "gfx1100")
    probes = probe_archs(tc, ["gfx90a", "gfx950"])
    assert probes["gfx90a"].ok and not probes["gfx950"].ok and "invalid target ID" in probes["gfx950"].reason
    again = probe_archs(tc, ["gfx90a", "gfx950"])
    assert again["gfx90a"].cached and again["gfx950"].ok is False  # read back from the cache


def test_fake_nvcc_gpu_triton(tmp_path):
    d = fake_toolchain(tmp_path / "bin")
    nv = nvcc_toolchain(str(d / "nvcc"))
    assert (nv.release, nv.version) == ("12.4", "V12.4.131")
    gpus, notes = find_gpus(path_env=str(d))
    assert [g.name for g in gpus] == ["NVIDIA H200"] and not notes
    t = triton_info(str(d / "python-triton"))
    assert t.found and t.amd_backend and t.version == "3.1.0"


def test_nothing_found(tmp_path, monkeypatch):
    monkeypatch.delenv("VADO_HIPCC", raising=False)
    monkeypatch.delenv("VADO_NVCC", raising=False)
    rep = doctor(path_env="", tool_dirs=(), python=str(fake_toolchain(tmp_path / "b") / "python-none"))
    assert rep.hip is None and rep.nvcc is None and not rep.gpus and not rep.triton.found
    assert any(t.startswith("hipcc:") and "apt-get install hipcc" in t for t in rep.tips)
    assert any(t.startswith("triton:") and "pip install triton" in t for t in rep.tips)


@requires_hipcc
def test_real_hipcc_version():
    tc = hip_toolchain(find_hipcc())
    assert tc.hip_version and tc.clang_version
