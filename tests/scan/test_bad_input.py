"""Bad input: every case ends in a typed skip or a normal result, never an exception."""

from __future__ import annotations

import errno
import os
import random
import stat

import pytest

from vado.errors import ScanError
from vado.model import SkipReason
from vado.model.text import decode_source
from vado.scan import discover
from vado.scan.classify import FileKind
from vado.scan.discover import SourceText, read_source, walk
from vado.scan.lexer import Kind, tokenize

is_root = hasattr(os, "geteuid") and os.geteuid() == 0


def skips(plan) -> dict[str, tuple[SkipReason, str]]:
    return {s.path: (s.reason, s.detail) for s in plan.skips}


def lex_planned(plan) -> dict[str, list]:
    """Read and lex every planned C-family file, as audit does."""
    out = {}
    for sf in plan:
        got = read_source(sf)
        assert isinstance(got, SourceText), got
        if sf.kind.is_c_family:
            out[sf.path] = tokenize(got.text)
    return out


def test_random_bytes_file(tmp_path):
    rng = random.Random(1234)
    (tmp_path / "noise.cu").write_bytes(bytes(rng.randrange(256) for _ in range(20_000)))
    data = bytes(rng.randrange(1, 256) for _ in range(20_000))  # no NUL: read and lexed
    (tmp_path / "noise_text.cu").write_bytes(data)
    plan = walk(tmp_path)
    assert skips(plan)["noise.cu"][0] is SkipReason.BINARY
    toks = lex_planned(plan)["noise_text.cu"]
    text = decode_source(data)
    assert all(text[s:e] == t for _, s, e, t in toks)


def test_huge_sparse_file_is_too_large_and_never_opened(tmp_path, monkeypatch):
    big = tmp_path / "huge.cu"
    with open(big, "wb") as fh:
        os.truncate(fh.fileno(), 200 * 2**20)  # sparse: no disk, no time
    (tmp_path / "ok.cu").write_text("int x;\n")
    real_open = os.open

    def guarded_open(path, *args, **kwargs):
        assert os.fspath(path) != str(big), "the too-large file was opened"
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(discover.os, "open", guarded_open)
    plan = walk(tmp_path)
    assert [f.path for f in plan] == ["ok.cu"]
    assert skips(plan)["huge.cu"] == (SkipReason.TOO_LARGE, f"{200 * 2**20} bytes, more than the limit of {64 * 2**20}")


def test_directory_symlink_loop(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a/k.cu").write_text("x")
    (tmp_path / "a/up").symlink_to("..", target_is_directory=True)
    (tmp_path / "a/self").symlink_to(".", target_is_directory=True)
    plan = walk(tmp_path)
    assert [f.path for f in plan] == ["a/k.cu"]
    got = skips(plan)
    assert got["a/up"] == (SkipReason.SYMLINK_LOOP, "symlink to '..', a directory above it")
    assert got["a/self"][0] is SkipReason.SYMLINK_LOOP


def test_file_symlink_cycle_never_resolves(tmp_path):
    (tmp_path / "a.cu").symlink_to("b.cu")
    (tmp_path / "b.cu").symlink_to("a.cu")
    got = skips(walk(tmp_path))
    assert got["a.cu"] == (SkipReason.SYMLINK_LOOP, "symlink to 'b.cu' never resolves")
    assert got["b.cu"][0] is SkipReason.SYMLINK_LOOP


def test_symlink_pointing_outside_the_root(tmp_path):
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    (outside / "inc").mkdir(parents=True)
    (outside / "inc/x.h").write_text("#pragma once\n")
    root.mkdir()
    (root / "inc").symlink_to(outside / "inc", target_is_directory=True)
    (root / "x.h").symlink_to(outside / "inc/x.h")
    (root / "broken.cu").symlink_to(root / "missing.cu")
    plan = walk(root)
    assert plan.files == ()
    got = skips(plan)
    assert got["inc"][0] is SkipReason.SYMLINK_OUTSIDE and "leads outside the root" in got["inc"][1]
    assert got["x.h"][0] is SkipReason.SYMLINK_OUTSIDE
    assert got["broken.cu"][0] is SkipReason.UNREADABLE and got["broken.cu"][1].startswith("broken symlink")


def test_unreadable_directory_and_file_simulated(tmp_path, monkeypatch):
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked/k.cu").write_text("x")
    (tmp_path / "secret.cu").write_text("x")
    (tmp_path / "ok.cu").write_text("x")
    real_scandir, real_open = os.scandir, os.open

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def open_(path, *args, **kwargs):
        if os.fspath(path).endswith("secret.cu"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(discover.os, "scandir", scandir)
    monkeypatch.setattr(discover.os, "open", open_)
    plan = walk(tmp_path)
    assert [f.path for f in plan] == ["ok.cu"]
    got = skips(plan)
    assert got["locked"] == (SkipReason.UNREADABLE, f"[Errno {errno.EACCES}] Permission denied")
    assert got["secret.cu"] == (SkipReason.UNREADABLE, f"[Errno {errno.EACCES}] Permission denied")


def test_unreadable_root_is_a_scan_error(tmp_path, monkeypatch):
    real_scandir = os.scandir
    monkeypatch.setattr(
        discover.os, "scandir",
        lambda p=".": (_ for _ in ()).throw(PermissionError(errno.EACCES, "Permission denied")) if os.fspath(p) == str(tmp_path) else real_scandir(p),
    )  # fmt: skip
    with pytest.raises(ScanError) as err:
        walk(tmp_path)
    assert "Permission denied" in err.value.why and err.value.tip


@pytest.mark.skipif(is_root, reason="root reads files whatever their mode; the simulated test covers this")
def test_unreadable_directory_and_file_by_chmod(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "k.cu").write_text("x")
    secret = tmp_path / "secret.cu"
    secret.write_text("x")
    secret.chmod(0)
    locked.chmod(0)
    try:
        got = skips(walk(tmp_path))
    finally:
        locked.chmod(stat.S_IRWXU)
        secret.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert got["locked"][0] is SkipReason.UNREADABLE and "Permission denied" in got["locked"][1]
    assert got["secret.cu"][0] is SkipReason.UNREADABLE


def test_nul_byte(tmp_path):
    (tmp_path / "nul.h").write_bytes(b"#pragma once\n\0int x;\n")
    (tmp_path / "late_nul.cu").write_bytes(b"int x;\n" * 2000 + b"\0")  # past the first 8 KiB: text
    plan = walk(tmp_path)
    assert skips(plan)["nul.h"] == (SkipReason.BINARY, "NUL byte at offset 13")
    toks = lex_planned(plan)["late_nul.cu"]
    assert toks[-1] == (Kind.PUNCT, 14000, 14001, "\0")


def test_crlf_file(tmp_path):
    data = b"#include <cuda.h>\r\n#define N \\\r\n  4\r\n__global__ void k() { }\r\n"
    (tmp_path / "crlf.cu").write_bytes(data)
    toks = lex_planned(walk(tmp_path))["crlf.cu"]
    kinds = [k for k, *_ in toks]
    assert kinds[:3] == [Kind.DIRECTIVE, Kind.HEADER, Kind.EOD]
    assert toks[3:7] == [(Kind.DIRECTIVE, 19, 26, "#define"), (Kind.IDENT, 27, 28, "N"), (Kind.NUMBER, 34, 35, "4"), (Kind.EOD, 35, 35, "")]
    assert all(data[s:e] == t.encode("latin-1") for _, s, e, t in toks)


def test_lone_cr_file(tmp_path):
    (tmp_path / "mac.cu").write_bytes(b"#include <a.h>\r#include <b.h>\rint x;\r")
    toks = lex_planned(walk(tmp_path))["mac.cu"]
    assert [t for k, _, _, t in toks if k is Kind.HEADER] == ["<a.h>", "<b.h>"]


def test_mixed_encodings_in_one_cu_file(tmp_path):
    data = (
        b"// Autor: J\xfcrgen (latin-1)\n"
        b"// \xc3\xa9t\xc3\xa9 (UTF-8)\n"
        b'const char *s = "\xe9\xc3\xa9";\n'
        b"__global__ void k() { int \xe9 = 1; }\n"
    )
    (tmp_path / "mixed.cu").write_bytes(data)
    plan = walk(tmp_path)
    got = read_source(plan.files[0])
    assert got.note.startswith("not valid UTF-8 (first bad byte at offset 11)")
    toks = tokenize(got.text)
    for _, s, e, t in toks:
        assert data[s:e] == t.encode("latin-1")
    string = next(t for t in toks if t[0] is Kind.STRING)
    assert data[string[1]:string[2]] == b'"\xe9\xc3\xa9"'
    assert any(t[3] == "__global__" for t in toks)


def test_malformed_gitignore(tmp_path):
    (tmp_path / ".gitignore").write_bytes(b"trailing\\\n\xff\xfe*.o\n[z-a]\n*.skip.cu\n")
    (tmp_path / "a.skip.cu").write_text("x")
    (tmp_path / "b.cu").write_text("x")
    plan = walk(tmp_path)
    assert [f.path for f in plan] == ["b.cu"]
    got = skips(plan)
    assert got[".gitignore"][0] is SkipReason.MALFORMED
    assert got["a.skip.cu"][0] is SkipReason.IGNORED


def test_fifo_socket_and_device_names(tmp_path):
    os.mkfifo(tmp_path / "pipe.cu")
    os.mkfifo(tmp_path / "unrelated_fifo")
    plan = walk(tmp_path)  # must not block on the FIFO
    assert plan.files == ()
    assert skips(plan) == {"pipe.cu": (SkipReason.NOT_A_FILE, "a FIFO")}


def test_fifo_swapped_in_after_the_stat_is_not_read(tmp_path, monkeypatch):
    (tmp_path / "k.cu").write_text("x")
    real_stat = os.stat

    def stat_then_swap(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        if os.fspath(path).endswith("k.cu") and stat.S_ISREG(st.st_mode):
            os.unlink(path)
            os.mkfifo(path)
        return st

    monkeypatch.setattr(discover.os, "stat", stat_then_swap)
    plan = walk(tmp_path)
    assert skips(plan)["k.cu"] == (SkipReason.NOT_A_FILE, "a FIFO")


def test_undecodable_file_name(tmp_path):
    name = os.fsdecode(b"k\xff.cu")
    (tmp_path / name).write_text("x")
    (tmp_path / "ok.cu").write_text("x")
    plan = walk(tmp_path)
    assert [f.path for f in plan] == ["ok.cu"]
    assert skips(plan) == {"k\\xff.cu": (SkipReason.UNDECODABLE, "file name is not valid UTF-8")}
    for s in plan.skips:
        s.path.encode("utf-8")  # reports can always write it


def test_utf16_requirements_without_bom_is_binary(tmp_path):
    (tmp_path / "requirements.txt").write_bytes("numpy\n".encode("utf-16-le"))
    assert skips(walk(tmp_path))["requirements.txt"][0] is SkipReason.BINARY


def test_empty_files(tmp_path):
    (tmp_path / "empty.cu").write_bytes(b"")
    (tmp_path / "requirements.txt").write_bytes(b"")
    plan = walk(tmp_path)
    assert [(f.path, f.kind, f.size) for f in plan] == [("empty.cu", FileKind.CUDA_SOURCE, 0), ("requirements.txt", FileKind.REQUIREMENTS, 0)]
    assert lex_planned(plan) == {"empty.cu": []}


@pytest.mark.skipif(not is_root or not hasattr(os, "fork"), reason="needs root to drop to another user")
def test_unreadable_by_chmod_as_an_unprivileged_child(tmp_path):
    # Under root, run the same walk in a child that dropped to "nobody", so the real
    # EACCES path is exercised in CI too. tmp_path's parents are private to root.
    import json
    import shutil
    import tempfile

    base = tempfile.mkdtemp(prefix="vado-perm-")
    try:
        os.chmod(base, 0o755)
        os.mkdir(f"{base}/locked", 0o000)
        for name, mode in (("secret.cu", 0o000), ("ok.cu", 0o644)):
            with open(f"{base}/{name}", "w") as fh:
                fh.write("x")
            os.chmod(f"{base}/{name}", mode)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never return into pytest
            try:
                os.close(read_end)
                os.setgid(65534)
                os.setuid(65534)
                plan = walk(base)
                result = {"files": [f.path for f in plan], "skips": {s.path: s.reason.value for s in plan.skips}}
                os.write(write_end, json.dumps(result).encode())
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end) as fh:
            result = json.loads(fh.read() or "{}")
        os.waitpid(pid, 0)
    finally:
        os.chmod(f"{base}/locked", 0o755)
        shutil.rmtree(base)
    assert result == {"files": ["ok.cu"], "skips": {"locked": "unreadable", "secret.cu": "unreadable"}}
