"""Root confinement: relative, absolute, dot-dot and symlinked paths."""

from __future__ import annotations

import os

import pytest

from vado.errors import McpError
from vado.mcp.root import Root


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "k.cu").write_text("__global__ void k() {}\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("not yours\n")
    os.symlink(outside, root / "link-out")
    os.symlink(tmp_path, root / "dir-out")
    os.symlink(root / "src" / "k.cu", root / "link-in")
    return root, outside


def test_relative_and_absolute_paths_inside_resolve(tree):
    root, _ = tree
    r = Root(root)
    assert r.resolve("src/k.cu") == (root / "src" / "k.cu").resolve()
    assert r.resolve(str(root / "src")) == (root / "src").resolve()
    assert r.resolve(".") == root.resolve()
    assert r.relative(r.resolve("src/k.cu")) == "src/k.cu"
    assert r.relative(r.resolve(".")) == "."


def test_symlink_to_a_file_inside_is_allowed(tree):
    root, _ = tree
    assert Root(root).resolve("link-in") == (root / "src" / "k.cu").resolve()


@pytest.mark.parametrize("escape", ["..", "../secret.txt", "src/../../secret.txt", "link-out", "dir-out/secret.txt", "/etc/passwd"])
def test_paths_outside_are_refused(tree, escape):
    root, _ = tree
    with pytest.raises(McpError) as exc:
        Root(root).resolve(escape)
    assert "outside the server's root" in exc.value.what


def test_new_paths_are_checked_through_their_parent(tree):
    root, _ = tree
    r = Root(root)
    assert r.resolve("out/new", must_exist=False) == root.resolve() / "out" / "new"
    with pytest.raises(McpError):
        r.resolve("dir-out/new", must_exist=False)
    with pytest.raises(McpError) as exc:
        r.resolve("missing.cu")
    assert "does not exist" in exc.value.what


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b"])
def test_empty_and_nul_paths_are_refused(tree, bad):
    with pytest.raises(McpError):
        Root(tree[0]).resolve(bad)


def test_root_must_be_a_directory(tree):
    with pytest.raises(McpError) as exc:
        Root(tree[0] / "src" / "k.cu")
    assert "not a directory" in exc.value.what


def test_bench_kernel_tool_refuses_escapes_and_non_sources(tmp_path):
    from vado.errors import McpError, UsageError
    from vado.mcp import tools
    from vado.mcp.root import Root

    (tmp_path / "notes.txt").write_text("x")
    root = Root(tmp_path)
    with pytest.raises(McpError):
        tools.bench_kernel(root, "../outside.cu")
    with pytest.raises(UsageError):
        tools.bench_kernel(root, "notes.txt")


def test_bench_kernel_tool_needs_a_gpu(tmp_path, monkeypatch):
    from vado.bench import kernel as kernel_mod
    from vado.errors import ToolchainError
    from vado.mcp import tools
    from vado.mcp.root import Root
    from vado.model.bench import Environment

    (tmp_path / "k.cu").write_text("__global__ void k(int n, float* y) { y[0] = n; }\n")
    monkeypatch.setattr(kernel_mod, "detect_environment", lambda: Environment(host="h", cpu="c", cpus=1))
    with pytest.raises(ToolchainError):
        tools.bench_kernel(Root(tmp_path), "k.cu")
