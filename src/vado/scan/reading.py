"""Reading the files a walk planned, and the records of a planned file and its text.

:class:`SourceFile` is one file of a :class:`~vado.scan.discover.ScanPlan`;
:func:`read_source` and :func:`read_text` read it. C/C++/CUDA and PTX files are
always read as the latin-1 view of their bytes (:mod:`vado.model.text`: character
offsets are byte offsets), with a note when the bytes are not valid UTF-8. The other
kinds are decoded as text: UTF-8 (a byte order mark is dropped), UTF-16/32 with a
byte order mark, Python files by their PEP 263 coding line; anything else is
``UNDECODABLE``. :func:`read_regular` reads the bytes of any regular file without
blocking on a FIFO that took its place.

Split out of :mod:`vado.scan.discover`, which re-exports the public names.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
import tokenize as py_tokenize
from dataclasses import dataclass, field
from pathlib import Path

from vado.model import Skip, SkipReason
from vado.model.text import decode_source
from vado.scan.classify import FileKind

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "SourceFile",
    "SourceText",
    "read_regular",
    "read_source",
    "read_text",
]

DEFAULT_MAX_FILE_SIZE = 64 * 2**20

_BYTE_VIEW = frozenset(
    {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER,
     FileKind.HIP_SOURCE, FileKind.PTX}
)  # fmt: skip
_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True, order=True)
class SourceFile:
    """A file to scan: ``path`` is relative to the root, in POSIX form."""

    path: str
    abs_path: Path = field(compare=False)
    kind: FileKind = field(compare=False)
    size: int = field(compare=False)


@dataclass(frozen=True)
class SourceText:
    """A file's text as vado reads it.

    For C/C++/CUDA and PTX ``text`` is the latin-1 view of the bytes and
    ``encoding`` is ``"latin-1"``; otherwise it is the decoded text (offsets are
    character offsets) and ``encoding`` names the codec used. ``note`` says what
    a reader may want to know (bytes that are not UTF-8), or is empty.
    """

    file: SourceFile
    text: str
    encoding: str
    note: str = ""


# Helpers the walk (vado.scan.discover) and the ignore files (vado.scan.gitignore) share.


def _bom_encoding(head: bytes) -> str | None:
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding
    return None


def _os_error(exc: OSError) -> str:
    if exc.errno is not None:
        return f"[Errno {exc.errno}] {os.strerror(exc.errno)}"
    return str(exc) or type(exc).__name__


def _display(text: str) -> str:
    """``text`` with undecodable file-name bytes shown as ``\\xNN`` (always encodable)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


# --- reading ----------------------------------------------------------------------


def read_regular(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit`` of them when given).

    Opened without blocking, so a FIFO (or a device) that took a file's place after
    the walk raises ``OSError`` at once instead of waiting for a writer forever.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{_special_kind(st.st_mode)}, not a regular file")
        want = st.st_size + 1 if limit is None else min(st.st_size + 1, limit)
        chunks = [os.read(fd, want)]
        got = len(chunks[0])
        while chunks[-1] and (limit is None or got < limit):
            chunks.append(os.read(fd, 1 << 20 if limit is None else min(1 << 20, limit - got)))
            got += len(chunks[-1])
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_source(sf: SourceFile, *, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> SourceText | Skip:
    """The text of a planned file, or a :class:`~vado.model.Skip` if it cannot be read as text.

    Never raises for a bad file: a file that vanished or became unreadable since
    the walk is ``UNREADABLE``, one that grew past ``max_file_size`` ``TOO_LARGE``.
    """
    try:
        data = read_regular(sf.abs_path, max_file_size + 1)
    except OSError as exc:
        return Skip(sf.path, SkipReason.UNREADABLE, _os_error(exc))
    if len(data) > max_file_size:
        return Skip(sf.path, SkipReason.TOO_LARGE, f"more than the limit of {max_file_size} bytes")
    bom = _bom_encoding(data[:4])
    if sf.kind in _BYTE_VIEW:
        if bom is not None and bom != "utf-8-sig":
            return Skip(sf.path, SkipReason.UNDECODABLE, f"{bom.upper()} text: convert the file to UTF-8")
        note = ""
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            note = f"not valid UTF-8 (first bad byte at offset {exc.start}); read byte for byte"
        return SourceText(sf, decode_source(data), "latin-1", note)
    if bom is not None:
        encoding = bom
    elif sf.kind in (FileKind.PYTHON, FileKind.SETUP_PY):
        try:
            encoding, _ = py_tokenize.detect_encoding(io.BytesIO(data).readline)
        except (SyntaxError, LookupError) as exc:
            return Skip(sf.path, SkipReason.UNDECODABLE, f"bad coding declaration: {exc}")
    else:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return Skip(sf.path, SkipReason.UNDECODABLE, f"not valid {encoding} (first bad byte at offset {exc.start})")
    except LookupError as exc:
        return Skip(sf.path, SkipReason.UNDECODABLE, str(exc))
    if text.startswith("\ufeff"):  # "utf-8-sig" drops it; the utf-16/32 codecs keep a second one
        text = text[1:]
    return SourceText(sf, text, encoding)


def read_text(sf: SourceFile, *, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> str | Skip:
    """:func:`read_source`'s text, or its skip."""
    got = read_source(sf, max_file_size=max_file_size)
    return got if isinstance(got, Skip) else got.text
