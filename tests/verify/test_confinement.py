"""Compilers run confined: a source that names a file outside the tree (#include, #embed through a
macro, __has_include) learns nothing of it, whatever reads the compiler's output (CLI, MCP, agent)."""

from __future__ import annotations

import json
import os
import secrets
import shutil

import pytest

from vado.verify.sandbox import Confinement, Limits, compiler_confinement, confinement_available, run_limited
from vado.verify.toolchains import rocm_chroot_wrappers

AVAILABLE, WHY = confinement_available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=f"no confinement here: {WHY}")


@pytest.fixture
def secret(tmp_path):
    """A tree ``root`` and, beside it (outside), a file holding a random secret."""
    root = tmp_path / "root"
    root.mkdir()
    value = "VADOSECRET-" + secrets.token_hex(8)
    path = tmp_path / f"secret-{secrets.token_hex(4)}"
    path.write_text(value + "\n")
    return root, path, value


def _codes(value: str) -> str:
    """The secret's first bytes as #embed spells them in a diagnostic (``86, 65, 68``)."""
    return ", ".join(str(b) for b in value.encode()[:3])


def test_a_confined_command_sees_the_tree_not_the_host(secret):
    root, path, value = secret
    (root / "f.txt").write_text("inside\n")
    view = Confinement(read_only=(str(root),))
    got = {}
    for name, cmd in {"tree": ["cat", str(root / "f.txt")], "secret": ["cat", str(path)],
                      "shadow": ["cat", "/etc/shadow"], "proc": ["cat", f"/proc/1/root{path}"],
                      "write": ["touch", str(root / "new")]}.items():
        got[name] = run_limited(cmd, cwd=str(root), confine=view, limits=Limits(60))
    assert got["tree"].ok and got["tree"].stdout == "inside\n" and got["tree"].confinement == "namespaces"
    for name in ("secret", "shadow", "proc"):
        assert not got[name].ok and value not in got[name].stdout + got[name].stderr, name
    assert not got["write"].ok and not (root / "new").exists()  # the tree is read-only


LEAK_INCLUDE = """\
#if __has_include("{path}")
#error SECRET_VISIBLE
#else
#error SECRET_HIDDEN
#endif
#include "{path}"
int main() {{ return 0; }}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_gcc_include_of_a_file_outside_leaks_unconfined_and_not_confined(secret):
    root, path, value = secret
    src = root / "leak.cpp"
    src.write_text(LEAK_INCLUDE.format(path=path))
    cmd = ["g++", "-fsyntax-only", str(src)]
    bare = run_limited(cmd, cwd=str(root), limits=Limits(120))
    assert value in bare.stderr and "SECRET_VISIBLE" in bare.stderr  # the attack is real without confinement
    view = compiler_confinement("g++", read_only=[root], writable=[])
    confined = run_limited(cmd, cwd=str(root), confine=view, limits=Limits(120))
    assert value not in confined.stdout + confined.stderr and "SECRET_HIDDEN" in confined.stderr


NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


@pytest.mark.skipif(NVCC is None, reason="no nvcc")
def test_nvcc_include_of_a_file_outside_finds_nothing(secret):
    root, path, value = secret
    src = root / "leak.cu"
    src.write_text(LEAK_INCLUDE.format(path=path).replace("int main", "__global__ void k() {}\nint main"))
    view = compiler_confinement(NVCC, read_only=[root], writable=[root.parent / "scratch"])
    (root.parent / "scratch").mkdir()
    out = run_limited([NVCC, "-c", str(src), "-o", str(root.parent / "scratch" / "x.o")], cwd=str(root.parent / "scratch"),
                      confine=view, limits=Limits(300))
    assert value not in out.stdout + out.stderr and "SECRET_HIDDEN" in out.stderr


WRAPPERS = rocm_chroot_wrappers()
ROCM = os.environ.get("VADO_HIPCC") or (WRAPPERS[0] if WRAPPERS else None)
requires_rocm = pytest.mark.skipif(ROCM is None, reason="no ROCm 7.2.4 hipcc (clang 22 has #embed)")

#: #embed inside a template error: clang prints the embedded bytes as template arguments, at a
#: location inside the tree, so redaction by location alone withholds nothing.
LEAK_EMBED = """\
#include <hip/hip_runtime.h>
template <int N> struct Show {{ static_assert(N < 0, "shown"); }};
#define F "{path}"
constexpr unsigned char direct[] = {{
#embed "{path}"
}};
constexpr unsigned char via_macro[] = {{
#embed F
}};
#if __has_include("{path}")
#error SECRET_VISIBLE
#endif
Show<direct[0]> a; Show<direct[1]> b; Show<via_macro[0]> c;
__global__ void k(int* p) {{ p[0] = direct[2]; }}
"""


def _assert_no_secret(text: str, value: str) -> None:
    assert value not in text and _codes(value) not in text
    assert "Show<" + str(value.encode()[0]) + ">" not in text and "SECRET_VISIBLE" not in text


@requires_rocm
def test_embed_in_a_template_error_reaches_no_mcp_answer(secret, monkeypatch):
    pytest.importorskip("mcp")
    from vado.mcp import tools
    from vado.mcp.root import Root

    root, path, value = secret
    (root / "leak.hip").write_text(LEAK_EMBED.format(path=path))
    monkeypatch.setenv("VADO_HIPCC", ROCM)
    answer = tools.verify(Root(str(root)), "leak.hip", ["gfx942"])
    text = json.dumps(answer)
    _assert_no_secret(text, value)
    ev = answer["files"][0]["evidence"][0]
    assert not answer["passed"] and "not found" in ev["stderr"]  # the compiler ran and found nothing
    assert ev["detail"]["confinement"] == "namespaces"


@requires_rocm
def test_embed_reaches_no_cli_output(secret, monkeypatch):
    from typer.testing import CliRunner

    from vado.cli.app import app

    root, path, value = secret
    (root / "leak.hip").write_text(LEAK_EMBED.format(path=path))
    monkeypatch.setenv("VADO_HIPCC", ROCM)
    for fmt in ([], ["--format", "json"]):
        res = CliRunner().invoke(app, ["verify", str(root), "--arch", "gfx942", "--hipcc", ROCM, *fmt])
        _assert_no_secret(res.output, value)
        assert "not found" in res.output


@requires_rocm
def test_has_include_answers_false_inside(secret):
    from vado.verify.toolchains import hip_env

    root, path, value = secret
    src = root / "probe.hip"
    src.write_text(LEAK_INCLUDE.format(path=path).replace('#include "' + str(path) + '"\n', ""))
    scratch = root.parent / "scratch"
    scratch.mkdir()
    view = compiler_confinement(ROCM, read_only=[root], writable=[scratch])
    out = run_limited([ROCM, "--offload-arch=gfx942", "-x", "hip", "-fsyntax-only", str(src)], cwd=str(scratch),
                      env=hip_env(), confine=view, limits=Limits(300))
    assert "SECRET_HIDDEN" in out.stderr and "SECRET_VISIBLE" not in out.stderr and value not in out.stderr
    # Nor through another process's root: /proc is the confinement's own PID namespace.
    for via in ("/proc/1/root", "/proc/self/root", "/proc/1/cwd/.."):
        src.write_text(LEAK_INCLUDE.format(path=via + str(path)).split("#include")[0] + "int x;\n")
        out = run_limited([ROCM, "--offload-arch=gfx942", "-x", "hip", "-fsyntax-only", str(src)], cwd=str(scratch),
                          env=hip_env(), confine=view, limits=Limits(300))
        assert "SECRET_HIDDEN" in out.stderr and "SECRET_VISIBLE" not in out.stderr, via


@requires_rocm
def test_without_namespaces_the_answer_says_the_compiler_was_unconfined(secret, monkeypatch):
    pytest.importorskip("mcp")
    from vado.mcp import tools
    from vado.mcp.root import Root
    from vado.verify import sandbox

    root, _, _ = secret
    (root / "ok.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n")
    monkeypatch.setenv("VADO_HIPCC", ROCM)
    monkeypatch.setattr(sandbox, "_AVAILABLE", [(False, "no user namespaces (test)")])
    answer = tools.verify(Root(str(root)), "ok.hip", ["gfx942"])
    assert answer["files"][0]["evidence"][0]["detail"]["confinement"] == "none: no user namespaces (test)"
    assert answer["confinement"].startswith("the compiler ran unconfined (no user namespaces (test))")
    assert "#embed" in answer["confinement"]


DEBIAN_HIPCC = "/usr/bin/hipcc" if os.path.exists("/usr/bin/hipcc") else None


@pytest.mark.skipif(DEBIAN_HIPCC is None, reason="no Debian hipcc 5.2 (apt-get install hipcc)")
def test_debian_hipcc_leaks_unconfined_and_not_through_mcp_verify(secret, monkeypatch):
    """Debian's HIP 5.2 (clang 15: no #embed; #include and __has_include do the same)."""
    pytest.importorskip("mcp")
    from vado.mcp import tools
    from vado.mcp.root import Root
    from vado.verify.toolchains import hip_env

    root, path, value = secret
    src = root / "leak.hip"
    src.write_text(LEAK_INCLUDE.format(path=path).replace("int main", "#include <hip/hip_runtime.h>\n"
                                                         "__global__ void k() {}\nint main"))
    scratch = root.parent / "scratch"
    scratch.mkdir()
    cmd = [DEBIAN_HIPCC, "--offload-arch=gfx90a", "-x", "hip", "-c", str(src), "-o", str(scratch / "x.o")]
    bare = run_limited(cmd, cwd=str(scratch), env=hip_env(), limits=Limits(300))
    assert value in bare.stderr and "SECRET_VISIBLE" in bare.stderr  # the attack is real without confinement
    monkeypatch.setenv("VADO_HIPCC", DEBIAN_HIPCC)
    answer = tools.verify(Root(str(root)), "leak.hip", ["gfx90a"], target="hip-5.2")
    text = json.dumps(answer)
    assert value not in text and "SECRET_VISIBLE" not in text and "SECRET_HIDDEN" in text
    assert answer["files"][0]["evidence"][0]["detail"]["confinement"] == "namespaces"


NOBODY_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else None


@pytest.mark.skipif(os.geteuid() != 0 or NOBODY_PYTHON is None or shutil.which("setpriv") is None,
                    reason="needs root (to become nobody), setpriv and a system python3")
def test_a_user_without_privileges_is_confined_through_a_user_namespace(secret, tmp_path):
    """Not root: unshare --user --map-root-user builds the same view (where user namespaces are allowed)."""
    import subprocess
    from pathlib import Path

    root, path, value = secret
    (root / "f.txt").write_text("inside\n")
    for p in (tmp_path, root, root / "f.txt", path):
        p.chmod(0o755 if p.is_dir() else 0o644)
    for p in tmp_path.parents:
        if str(p).startswith("/tmp/"):
            p.chmod(p.stat().st_mode | 0o055)
    src = str(Path(__file__).resolve().parents[2] / "src")
    code = ("from vado.verify.sandbox import *\n"
            "ok, why = confinement_available()\n"
            f"a = run_limited(['cat', {str(path)!r}], confine=Confinement(read_only=({str(root)!r},)), cwd={str(root)!r})\n"
            f"b = run_limited(['cat', {str(root / 'f.txt')!r}], confine=Confinement(read_only=({str(root)!r},)), cwd={str(root)!r})\n"
            "print(ok, why, a.confinement, a.returncode, repr(a.stdout), b.stdout.strip())\n")
    out = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", NOBODY_PYTHON, "-c", code],
                         capture_output=True, text=True, timeout=120, env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin",
                                                                           "HOME": str(tmp_path)}, cwd=str(tmp_path))
    if "No module named" in out.stderr:
        pytest.skip("the system python3 lacks vado's dependencies: " + out.stderr.strip().splitlines()[-1])
    assert out.returncode == 0, out.stderr
    ok, *rest = out.stdout.split()
    if ok == "False":
        pytest.skip("user namespaces are not allowed here: " + out.stdout)
    assert value not in out.stdout and "namespaces" in out.stdout and out.stdout.strip().endswith("inside")


def _alive_with(word: str) -> list[int]:
    """Processes whose command line holds ``word``."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if word.encode() in fh.read():
                        out.append(int(pid))
            except OSError:
                pass
    return out


def test_what_a_confined_command_leaves_running_is_killed_when_it_ends(tmp_path):
    """A confined command runs without the reaper: it is its PID namespace's first process, so a
    descendant that escaped its process group (setsid, a background job) dies with it, and a timeout
    kills the namespace at once."""
    import time

    mark = f"{secrets.randbelow(10**6) + 10**6}.5"
    out = run_limited(["sh", "-c", f"setsid sleep {mark} & sleep {mark} & echo started"], confine=Confinement(),
                      limits=Limits(60))
    assert out.ok and out.stdout == "started\n" and out.confinement == "namespaces"
    time.sleep(0.2)
    assert _alive_with(f"sleep\0{mark}") == []
    started = time.perf_counter()
    out = run_limited(["sh", "-c", f"setsid sleep {mark}; sleep {mark}"], confine=Confinement(), limits=Limits(1.0))
    assert out.timed_out and time.perf_counter() - started < 8
    time.sleep(0.2)
    assert _alive_with(f"sleep\0{mark}") == []


def test_confine_script_refuses_a_malformed_command_line():
    import subprocess
    import sys

    from vado.verify import sandbox

    res = subprocess.run([sys.executable, "-I", "-S", sandbox._CONFINE, "--stage"], capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 125 and "usage: _confine.py" in res.stderr
