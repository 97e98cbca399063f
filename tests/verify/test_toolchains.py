import os
from pathlib import Path

import pytest

from vado.errors import ToolchainError
from vado.knowledge.targets import get_target
from vado.verify.toolchains import (
    choose_hip_toolchain,
    chroot_of,
    doctor,
    find_gpus,
    find_hipcc,
    hip_release,
    hip_toolchain,
    nvcc_toolchain,
    probe_archs,
    require_hip_toolchain,
    rocm_chroot_wrappers,
    triton_info,
)

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
    monkeypatch.setenv("VADO_ROCM_HOME", "")
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


# --- choosing a hipcc by version ------------------------------------------------------------------


def _fake_hipcc(directory, version: str, *, chroot: str = ""):
    """A hipcc that answers ``--version`` with HIP ``version`` (first line a chroot mark when given)."""
    from _verify_helpers import write_tool

    mark = f"# vado-rocm-chroot: {chroot}\n" if chroot else ""
    body = mark + f"echo 'HIP version: {version}'; echo 'clang version 22.1.8'; echo 'InstalledDir: /nowhere'\n"
    return str(write_tool(directory, "hipcc", body))


@pytest.fixture
def no_hipcc_env(monkeypatch):
    for var in ("VADO_HIPCC", "ROCM_PATH", "HIP_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("VADO_ROCM_HOME", "")


def test_choice_by_target_version(tmp_path, no_hipcc_env):
    old = _fake_hipcc(tmp_path / "debian", "5.2.21153-0")
    new = _fake_hipcc(tmp_path / "rocm", "7.2.53211-9999")
    both = os.pathsep.join([str(tmp_path / "debian"), str(tmp_path / "rocm")])
    c72 = choose_hip_toolchain("7.2", path_env=str(tmp_path / "debian"), tool_dirs=[str(tmp_path / "rocm")], chroots=())
    assert c72.toolchain.path == new and not c72.older and len(c72.found) == 2
    # The hip-5.2 profile is checked by HIP 5.2, the oldest release at or above it.
    c52 = choose_hip_toolchain("5.2", path_env=both, tool_dirs=[str(tmp_path / "rocm")], chroots=())
    assert c52.toolchain.path == old and not c52.older
    # No target: the newest.
    assert choose_hip_toolchain(None, path_env=both, tool_dirs=[str(tmp_path / "rocm")], chroots=()).toolchain.path == new


def test_older_toolchain_is_refused_or_warned(tmp_path, no_hipcc_env, monkeypatch):
    old = _fake_hipcc(tmp_path / "debian", "5.2.21153-0")
    monkeypatch.setenv("PATH", str(tmp_path / "debian"))
    monkeypatch.setenv("VADO_TOOL_DIRS", "")
    rocm72 = get_target("rocm-7.2")
    with pytest.raises(ToolchainError) as err:
        require_hip_toolchain(rocm72)
    assert "older than rocm-7.2's HIP 7.2" in err.value.why and "rocm-toolchain.sh" in err.value.tip
    choice = require_hip_toolchain(rocm72, allow_older=True)
    assert choice.toolchain.path == old and choice.older
    assert "older than rocm-7.2" in choice.warning("rocm-7.2")
    # An explicit --hipcc is used as given, and still judged.
    with pytest.raises(ToolchainError, match="no toolchain for rocm-7.2"):
        require_hip_toolchain(rocm72, old)
    assert require_hip_toolchain(get_target("hip-5.2"), old).toolchain.path == old


def test_no_hipcc_at_all(no_hipcc_env, monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("VADO_TOOL_DIRS", "")
    with pytest.raises(ToolchainError, match="hipcc not found"):
        require_hip_toolchain(get_target("rocm-7.2"))


def test_chroot_wrapper_is_found_and_named(tmp_path, monkeypatch, no_hipcc_env):
    home = tmp_path / "rocm-7.2.4"
    wrapper = _fake_hipcc(home / "bin", "7.2.53211-9999", chroot=str(home / "root"))
    os.symlink("hipcc", home / "bin" / "clang")
    monkeypatch.setenv("VADO_ROCM_HOME", str(home))
    assert rocm_chroot_wrappers() == (wrapper,)
    assert chroot_of(wrapper) == str(home / "root") and chroot_of(str(tmp_path / "missing")) == ""
    tc = hip_toolchain(wrapper)
    # InstalledDir names a path inside the chroot: the wrapper's own clang link stands for it.
    assert tc.flavour == "chroot" and tc.chroot == str(home / "root") and tc.clang_path == str(home / "bin" / "clang")
    choice = choose_hip_toolchain("7.2", path_env="", tool_dirs=())
    assert choice.toolchain.path == wrapper


def test_hip_release_parses_versions():
    assert hip_release("7.2.53211-9999") == (7, 2)
    assert hip_release("5.2.21153-0") == (5, 2)
    assert hip_release("7") == (7, 0)
    assert hip_release("") == (0, 0) and hip_release(None) == (0, 0) and hip_release("unknown") == (0, 0)


ROCM_WRAPPER = Path("/var/cache/vado/rocm-7.2.4/bin/hipcc")


@pytest.mark.hipcc
@pytest.mark.skipif(not ROCM_WRAPPER.is_file() or os.geteuid() != 0,
                    reason="ROCm 7.2.4 chroot not built (as root: bash scripts/rocm-toolchain.sh)")
def test_rocm_chroot_wrapper_sees_the_callers_paths(tmp_path):
    """Relative includes above the working directory, and an output directory elsewhere, reach the chroot."""
    import subprocess

    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "twice.h").write_text("__device__ inline float twice(float x) { return 2 * x; }\n")
    work = tmp_path / "src"
    work.mkdir()
    (work / "k.hip").write_text('#include <hip/hip_runtime.h>\n#include "twice.h"\n'
                                "__global__ void k(float* p) { p[threadIdx.x] = twice(p[threadIdx.x]); }\n")
    out = tmp_path / "objects"
    out.mkdir()
    proc = subprocess.run([str(ROCM_WRAPPER), "--offload-arch=gfx942", "--offload-arch=gfx950", "-I../inc", "-c", "k.hip",
                           "-o", str(out / "k.o")], cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (out / "k.o").stat().st_size > 0
    tc = hip_toolchain(str(ROCM_WRAPPER))
    assert tc.release == (7, 2) and "gfx942" in tc.known_archs and "gfx950" in tc.known_archs
