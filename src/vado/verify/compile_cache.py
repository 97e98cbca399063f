"""A result cache for verify's compiles: a re-verify after a one-file edit costs one compile.

A result is kept under a key made of the compiler's identity (its path, size and mtime, HIP and clang
versions, the chroot it runs in), the compile command without its output paths, and the digest of
the source. Stored with it: the digest of every header the compile read, from the compiler's own
dependency output (``-MD -MF``; for a failed compile, which writes none, a preprocessor run with
``-M -MG``). A look-up hits only when every one of those files still has its digest; a header that
changed, moved or vanished is a miss. A header the compile did not find is kept as the paths where
it would have been found (the unit's directory and include directories): one appearing there is a
miss too. Dependencies are the host compile's (what clang's ``-MD`` reports for HIP). Timeouts and kills are never kept
(they say nothing about the code).

Headers of a ROCm chroot are read inside it: a dependency path under a system directory
(``/usr``, ``/opt``, ``/lib``, ``/etc``) is looked up under the chroot's root.

Entries are JSON files under ``$VADO_CACHE_DIR/verify`` (default ``~/.cache/vado/verify``), written
atomically (a temporary file renamed); a cache that cannot be read or written only costs time.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

_SYSTEM_PREFIXES = ("/usr/", "/opt/", "/lib/", "/lib64/", "/etc/", "/bin/")
VERSION = 1


class Digests:
    """File digests, memoised by (path, size, mtime, inode) for one process."""

    def __init__(self, chroot: str = "") -> None:
        self.chroot = chroot
        self._memo: dict[tuple, str] = {}
        self._lock = threading.Lock()

    def real(self, path: str) -> str:
        """Where ``path`` (as the compiler saw it) is on this machine."""
        if self.chroot and path.startswith(_SYSTEM_PREFIXES):
            return self.chroot.rstrip("/") + path
        return path

    def of(self, path: str) -> str:
        """sha256 of the file the compiler read as ``path``; ``""`` when it cannot be read."""
        real = self.real(path)
        try:
            st = os.stat(real)
        except OSError:
            return ""
        key = (real, st.st_size, st.st_mtime_ns, st.st_ino)
        with self._lock:
            got = self._memo.get(key)
        if got is not None:
            return got
        h = hashlib.sha256()
        try:
            with open(real, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except OSError:
            return ""
        digest = h.hexdigest()
        with self._lock:
            self._memo[key] = digest
        return digest


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a Make-syntax dependency file (``obj: a.cu b.h \\``), in order, unique."""
    body = text.replace("\\\r\n", " ").replace("\\\n", " ")
    out: list[str] = []
    for rule in body.splitlines():
        if ":" not in rule:
            continue
        # The target ends at the first ": " (a Windows drive letter has no space after its colon).
        idx = rule.find(": ")
        rest = rule[idx + 2:] if idx >= 0 else rule.split(":", 1)[1]
        word = ""
        i = 0
        while i < len(rest):
            c = rest[i]
            if c == "\\" and i + 1 < len(rest) and rest[i + 1] in " #":
                word += rest[i + 1]
                i += 2
                continue
            if c == "$" and i + 1 < len(rest) and rest[i + 1] == "$":
                word += "$"
                i += 2
                continue
            if c.isspace():
                if word:
                    out.append(word)
                word = ""
            else:
                word += c
            i += 1
        if word:
            out.append(word)
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class CachedResult:
    """A compile's outcome as kept: exit status, output, time it took when it ran."""

    returncode: int
    stdout: str
    stderr: str
    duration_s: float
    confinement: str = ""
    #: The files the compile read (as the compiler saw them), when known.
    deps: tuple[str, ...] = ()


def cache_dir() -> Path:
    """``$VADO_CACHE_DIR/verify`` (default ``~/.cache/vado/verify``)."""
    from vado.verify.toolchains import _cache_dir

    return _cache_dir() / "verify"


def compiler_identity(path: str, *versions: str) -> str:
    """The compiler's identity for cache keys: its real path, size, mtime and the versions given."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
        stamp = f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        stamp = "?"
    return "|".join([real, stamp, *versions])


class CompileCache:
    """Look-ups and stores of compile results (see the module docstring)."""

    def __init__(self, directory: str | os.PathLike | None = None, *, chroot: str = "", enabled: bool = True) -> None:
        self.directory = Path(directory) if directory else cache_dir()
        self.enabled = enabled
        self.digests = Digests(chroot)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def key(self, identity: str, command: Sequence[str], source: str) -> str:
        """The key of one compile: compiler, command (output paths replaced by the caller), source digest."""
        h = hashlib.sha256()
        for part in (f"v{VERSION}", identity, "\0".join(command), self.digests.of(source)):
            h.update(part.encode("utf-8", "surrogateescape"))
            h.update(b"\1")
        return h.hexdigest()

    def _file(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, *, count: bool = True) -> CachedResult | None:
        """The kept result for ``key`` when every file it read is unchanged; None otherwise. ``count``:
        the look-up counts as a hit or miss (not for a look-ahead that plans the runs)."""
        if not self.enabled:
            return None
        got = self._lookup(key)
        if count:
            self._count(hit=got is not None)
        return got

    def _lookup(self, key: str) -> CachedResult | None:
        try:
            entry = json.loads(self._file(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        deps = entry.get("deps") if isinstance(entry, dict) else None
        if not isinstance(deps, list) or any(
                not isinstance(d, list) or len(d) != 2 or self.digests.of(str(d[0])) != d[1] for d in deps):
            return None
        return CachedResult(int(entry.get("returncode", 1)), str(entry.get("stdout", "")),
                            str(entry.get("stderr", "")), float(entry.get("duration_s", 0.0)),
                            str(entry.get("confinement", "")), tuple(str(d[0]) for d in deps if d[1]))

    def put(self, key: str, result: CachedResult, deps: Sequence[str], absent: Sequence[str] = ()) -> None:
        """Keep ``result`` with the digests of ``deps`` (the files the compile read) and the paths in
        ``absent`` that must stay absent (where a header it did not find would have been found)."""
        if not self.enabled:
            return
        pairs = [[d, self.digests.of(d)] for d in deps]
        if any(not digest for _, digest in pairs):
            return  # a file it read is gone already: nothing safe to keep
        if any(self.digests.of(a) for a in absent):
            return
        pairs += [[a, ""] for a in absent]
        entry = {"version": VERSION, "returncode": result.returncode, "stdout": result.stdout,
                 "stderr": result.stderr, "duration_s": result.duration_s, "confinement": result.confinement,
                 "deps": pairs}
        path = self._file(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(entry), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            pass

    def _count(self, *, hit: bool) -> None:
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1
