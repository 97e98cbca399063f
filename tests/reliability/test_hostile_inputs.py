"""Issue 18: inputs that used to raise tracebacks, hang or blow up (each test names its defect)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app
from vado.knowledge.targets import get_target
from vado.scan.classify import FileKind

ROCM = get_target("rocm-7.2")


def run(*args: str):
    return CliRunner().invoke(app, list(args))


# --- tracebacks ------------------------------------------------------------------------------


def test_hex_escape_without_digits_decodes(tmp_path: Path):
    from vado.rules.cuda_syntax import decode_string

    assert decode_string(r'".version \xg"') == ".version xg"
    assert decode_string(r'"\x41\x"') == "Ax"
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.cu").write_text('const char* s = ".version \\xg";\n__global__ void k(){}\n')
    assert run("audit", str(tmp_path / "t"), "-q").exit_code in (0, 1)
    r = run("port", str(tmp_path / "t"), "-o", str(tmp_path / "o"), "-q")
    assert r.exit_code in (0, 1), r.output
    assert (tmp_path / "o" / "a.cu").is_file()


@pytest.mark.parametrize("native", ["0", "1"])
def test_4301_digit_literal_same_in_both_modes(native: str, monkeypatch):
    from vado.rules import cuda_syntax

    big = "1" * 4301
    assert cuda_syntax._plain_above(big, 32) is True
    assert cuda_syntax._plain_above("0x" + "f" * 5000, 32) is True
    assert cuda_syntax._plain_above("32", 32) is False
    assert cuda_syntax.int_value(big) == int(big[:4000]) * 10**301 + int(big[4000:])
    monkeypatch.setenv("VADO_NATIVE", native)
    from vado.rules.engine import check_text

    text = ("__global__ void k(int*a){ a[0] = " + big + "; __shfl_down_sync(0xffffffff, a[0], " + big + "); }\n"
            "#define W " + big + "\n")
    check_text("a.cu", text, [ROCM], kind=FileKind.CUDA_SOURCE)


def test_native_integer_spellings_equal_python_on_huge_literals():
    from vado.native import ext
    from vado.rules.cuda_syntax import _plain_above
    from vado.scan.lexer import lex

    if ext is None:
        pytest.skip("the C extension is not built")
    text = "int a = " + "9" * 5000 + "; int b = 0x" + "f" * 5000 + "; int c = 12; int d = 100;"
    toks = lex(text)
    spellings = toks.integer_spellings(32)
    numbers = [t[3] for t in toks if t[0].name == "NUMBER"]
    assert spellings == [n for n in dict.fromkeys(numbers) if not _plain_above(n, 32)]


def test_ptx_register_range_and_huge_immediate_are_refused(tmp_path: Path):
    from vado.port.file import PortOptions, port_bytes

    src = ('__device__ int f(int x){ int y; asm("{ .reg .b32 r<99999999>; mov.u32 %0, ' + "9" * 5000 +
           '; }" : "=r"(y)); asm("mov.u32 %0, 017;" : "=r"(y)); return y; }\n')
    result = port_bytes("a.cu", FileKind.CUDA_SOURCE, src.encode(), ROCM, PortOptions())
    assert result.after  # refused as a lowering, never an exception or a 10^8-element list


def test_deep_pyproject_and_environment_yml(tmp_path: Path):
    from vado.scan.pydeps import parse_conda_env, parse_pyproject

    deep = "[project]\ndependencies = [" + "{a=" * 1000 + "}" * 1000 + ", 'torch==2.1']\n"
    dep = parse_pyproject(deep)
    assert any("too deeply" in p.reason or "not valid" in p.reason for p in dep.problems)
    env = parse_conda_env("dependencies:\n- " + "[" * 1000 + "]" * 1000 + "\n- numpy\n")
    assert any("too deeply" in p.reason for p in env.problems)
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "pyproject.toml").write_text(deep)
    (tmp_path / "t" / "environment.yml").write_text("dependencies:\n- " + "{a: " * 1000 + "}" * 1000 + "\n")
    r = run("audit", str(tmp_path / "t"), "-q", "-f", "json")
    assert r.exit_code in (0, 1), r.output
    assert run("port", str(tmp_path / "t"), "-o", str(tmp_path / "o"), "-q").exit_code in (0, 1)


@pytest.mark.parametrize("content", [
    b"repos: " + b"[" * 2000 + b"]" * 2000 + b"\n",
    b"repos:\n- \xff\xfe\n",
])
def test_plan_manifest_deep_or_not_utf8(tmp_path: Path, content: bytes):
    m = tmp_path / "fleet.yaml"
    m.write_bytes(content)
    r = run("plan", "-m", str(m))
    assert r.exit_code == 2
    assert "fleet manifest" in r.output and "Traceback" not in r.output


def test_plan_manifest_fifo_is_refused(tmp_path: Path):
    m = tmp_path / "fleet.yaml"
    os.mkfifo(m)
    r = _with_deadline(lambda: run("plan", "-m", str(m)), 20)
    assert r.exit_code == 2 and "FIFO" in r.output


def test_port_output_and_report_paths(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("t").mkdir()
    Path("t/a.cu").write_text("__global__ void k(){}\n")
    r = run("port", "t", "-o", "/proc/vado-no/x")
    assert r.exit_code == 2 and "cannot create the output" in r.output
    r = run("port", "t", "-o", "o1", "--report", "missing/dir/x")
    assert r.exit_code == 2 and "missing/dir" in r.output
    assert not Path("o1").exists()
    r = run("port", "t", "-o", "o2", "--report", "t")
    assert r.exit_code == 2 and "is a directory" in r.output


# --- hangs --------------------------------------------------------------------------------------


def _with_deadline(fn, seconds: float):
    box: dict = {}

    def target():
        box["value"] = fn()

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"did not finish within {seconds} s (a FIFO was opened for reading?)"
    return box["value"]


def test_fifo_in_tree_does_not_hang_port_or_audit(tmp_path: Path):
    src = tmp_path / "t"
    src.mkdir()
    (src / "a.cu").write_text("__global__ void k(){}\n")
    os.mkfifo(src / "pipe")
    os.mkfifo(src / "p.cu")
    os.mkfifo(src / ".gitignore")
    r = _with_deadline(lambda: run("port", str(src), "-o", str(tmp_path / "o"), "-q"), 30)
    assert r.exit_code in (0, 1), r.output
    assert (tmp_path / "o" / "a.cu").is_file() and not (tmp_path / "o" / "pipe").exists()
    r = _with_deadline(lambda: run("audit", str(src), "-q"), 30)
    assert r.exit_code in (0, 1)


def test_file_replaced_by_fifo_after_walk(tmp_path: Path, monkeypatch):
    """The walk saw a regular file; by the time it is read, a FIFO took its place."""
    from vado.audit import pipeline
    from vado.port import tree
    from vado.scan import discover

    src = tmp_path / "t"
    src.mkdir()
    (src / "a.cu").write_text("__global__ void k(){}\n")
    real_walk = discover.walk

    def walk_then_swap(*a, **k):
        plan = real_walk(*a, **k)
        (src / "a.cu").unlink()
        os.mkfifo(src / "a.cu")
        return plan

    monkeypatch.setattr(discover, "walk", walk_then_swap)
    result = _with_deadline(lambda: pipeline.audit(src, [ROCM]), 20)
    assert [s.path for s in result.skips] == ["a.cu"]
    os.unlink(src / "a.cu")
    (src / "a.cu").write_text("__global__ void k(){}\n")
    result = _with_deadline(lambda: tree.port_tree(src, tmp_path / "o", ROCM), 20)
    assert [f.status for f in result.files] == ["failed"]
    assert "regular file" in result.files[0].error


def test_jobs_are_capped(monkeypatch):
    from vado.procs import cap_jobs

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert cap_jobs(100000) == 4
    assert cap_jobs(100000, tasks=3) == 3
    assert cap_jobs(0) == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert cap_jobs(8) == 2  # the parallel path stays testable on one CPU


def test_gitignore_star_pattern_is_linear(tmp_path: Path):
    import time

    from vado.scan.discover import walk

    (tmp_path / ".gitignore").write_text("a*" * 40 + "b.cu\n" + "x*y*[ab]*c.cu\n")
    (tmp_path / ("a" * 200 + ".cu")).write_text("int x;\n")
    (tmp_path / ("a" * 100 + "b.cu")).write_text("int x;\n")
    (tmp_path / "xqyqbqc.cu").write_text("int x;\n")
    started = time.perf_counter()
    plan = walk(tmp_path)
    assert time.perf_counter() - started < 5
    ignored = {s.path for s in plan.skips if s.reason.value == "ignored"}
    assert ignored == {"a" * 100 + "b.cu", "xqyqbqc.cu"}


def test_gitignore_too_many_double_stars_is_reported(tmp_path: Path):
    from vado.scan.discover import walk

    (tmp_path / ".gitignore").write_text("a/**/b/**/c/**/d/**/e/**/f\n")
    (tmp_path / "k.cu").write_text("int x;\n")
    plan = walk(tmp_path)
    assert any(s.reason.value == "malformed" and "'**'" in s.detail for s in plan.skips)


# --- resource blow-up -----------------------------------------------------------------------------


def test_findings_per_file_are_capped(tmp_path: Path):
    from vado.audit.pipeline import MAX_FINDINGS_PER_FILE, audit

    body = "".join(f"  a[{i}] = __shfl_down_sync(0xffffffff, a[{i}], 16) + warpSize;\n" for i in range(1200))
    (tmp_path / "big.cu").write_text("__global__ void k(float*a){\n" + body + "}\n")
    result = audit(tmp_path, [ROCM])
    assert len(result.findings) == MAX_FINDINGS_PER_FILE
    assert result.files[0].finding_count > MAX_FINDINGS_PER_FILE
    (err,) = result.errors
    assert err["type"] == "FindingLimit" and "big.cu" in err["what"]
    full = audit(tmp_path, [ROCM], max_findings_per_file=0)
    assert len(full.findings) == full.files[0].finding_count and not full.errors


@pytest.mark.parametrize("text", ["/*", "/* x", "/*/", "// a\\", "/**/", "// x"])
def test_port_of_comment_only_file_converges(text: str):
    from vado.port.file import PortOptions, port_bytes

    once = port_bytes("a.cu", FileKind.CUDA_SOURCE, text.encode(), ROCM, PortOptions())
    assert b"#include <hip/hip_runtime.h>\n" in once.after
    twice = port_bytes("a.cu", FileKind.CUDA_SOURCE, once.after, ROCM, PortOptions())
    assert twice.after == once.after


def test_unified_hunks_rejects_overflowing_blocks():
    import sys

    from vado.native import ext
    from vado.port.apply import unified_diff

    if ext is None:
        pytest.skip("the C extension is not built")
    a, b = [b"x\n"] * 3, [b"y\n"] * 3
    for blocks in ([(0, 0, sys.maxsize), (3, 3, 0)], [(1, 1, 2**62), (3, 3, 0)], [(-1, 0, 1)],
                   [(2, 2, sys.maxsize - 1), (3, 3, 0)]):
        with pytest.raises(ValueError):
            ext.unified_hunks(a, b, blocks, 3)
    with pytest.raises(ValueError):
        ext.unified_hunks(a, b, [(3, 3, 0)], -1)
    assert ext.unified_hunks(a, b, [(3, 3, 0)], sys.maxsize) == ext.unified_hunks(a, b, [(3, 3, 0)], 3)
    with pytest.raises(ValueError):
        unified_diff(b"a\n", b"b\n", "f", context=-1)


def test_audit_json_of_capped_file_is_small(tmp_path: Path):
    body = "".join(f"  a[{i}] = __shfl_down_sync(0xffffffff, a[{i}], 16);\n" for i in range(3000))
    (tmp_path / "big.cu").write_text("__global__ void k(float*a){\n" + body + "}\n")
    r = run("audit", str(tmp_path), "-q", "-f", "json")
    doc = json.loads(r.stdout)
    assert len(doc["findings"]) == 1000
    assert any(e["type"] == "FindingLimit" for e in doc["errors"])


@pytest.mark.parametrize("text", [
    "#\rext_modules=[CUDAExtension('x', ['k.cu'])]\n",
    "a = 1\r\nsetup(ext_modules=[CUDAExtension('x', ['k.cu'])], install_requires=['torch==2.1'])\r\n",
    "s = '''a\rb'''\nsetup(ext_modules=[CUDAExtension('x', ['k.cu'])])\n",
])
def test_setup_py_spans_with_carriage_returns(text: str):
    """Found by the build-file fuzz target: Python ends a line at a lone CR, so ast line numbers count it."""
    from vado.rules.engine import check_text

    found = check_text("setup.py", text, [ROCM], kind=FileKind.SETUP_PY)
    assert found
    for f in found:
        assert 0 <= f.span.start <= f.span.end <= len(text)
        if f.code == "BLD005":
            assert text[f.span.start:f.span.end] == "CUDAExtension"
