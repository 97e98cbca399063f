"""A per-user cache of parsed knowledge files, so that a short command does not parse them again.

Parsing the knowledge base (YAML through PyYAML, the API tables' CSV) took most
of a one-file audit's time: every ``vado audit FILE`` from an editor or a
pre-commit hook paid for it. What the parsers return is plain data (dicts,
lists, tuples, strings, numbers), which :mod:`marshal` writes and reads back
in a few milliseconds without importing PyYAML at all.

An entry is keyed by vado's version, the Python version (marshal's format
follows it) and the name, size and modification time of every source file, so
an edited data file or another vado is never served stale data. The cache lives
in ``$VADO_CACHE_DIR``, else ``$XDG_CACHE_HOME/vado``, else ``~/.cache/vado``;
``VADO_CACHE_DIR=off`` turns it off. It is an optimisation only: any problem
(no home directory, a read-only disk, a value marshal cannot write, a corrupt
file) falls back to parsing, silently.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

try:  # CPython's own SHA-1: hashlib would load OpenSSL first, 4 ms of a one-file audit's start
    from _sha1 import sha1
except ImportError:  # an interpreter built without it
    from hashlib import sha1

def cache_dir() -> Path | None:
    """Where entries are kept, or None when caching is off or there is no place for it."""
    env = os.environ.get("VADO_CACHE_DIR")
    if env:
        return None if env.lower() in ("off", "0", "no", "false") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "vado"
    home = os.environ.get("HOME")
    return Path(home) / ".cache" / "vado" if home else None


def _key(name: str, sources: Sequence[Path]) -> str | None:
    from vado import __version__

    parts = [name, __version__, sys.version]
    for src in sources:
        try:
            st = os.stat(src)
        except OSError:
            return None
        parts.append(f"{src}\0{st.st_size}\0{st.st_mtime_ns}")
    return sha1("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def cached(name: str, sources: Sequence[Any], build: Callable[[], Any]) -> Any:
    """``build()``, or what it returned last time for the same ``sources`` (see the module docstring).

    ``sources`` are the files ``build`` reads; an entry that is not a real file
    (a package inside a zip) disables the cache for this call.
    """
    where = cache_dir()
    paths = [s for s in sources if isinstance(s, Path)]
    if where is None or len(paths) != len(sources):
        return build()
    key = _key(name, paths)
    if key is None:
        return build()
    path = where / f"{name}-{key}.bin"
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        # Reading back makes a tuple per row and nothing that forms cycles: with the cyclic
        # collector running, its passes over the new objects took 40 times the read itself.
        with _gc_paused():
            if data[:1] == b"M":
                return marshal.loads(data[1:])
            if data[:1] == b"P":
                import pickle

                return pickle.loads(data[1:])
    except Exception:  # noqa: BLE001 - a cache entry that cannot be read is parsed again
        pass
    value = build()
    try:
        data = b"M" + marshal.dumps(value)
    except ValueError:  # a type marshal does not write (a date parsed from YAML)
        import pickle

        try:
            data = b"P" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - not cached, still returned
            return value
    try:
        where.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        _prune(where, name, path)
    except OSError:
        pass
    return value


@contextlib.contextmanager
def _gc_paused():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _prune(where: Path, name: str, keep: Path) -> None:
    """Drop older entries of ``name`` (another version or older data files)."""
    for old in where.glob(f"{name}-*.bin"):
        if old != keep:
            try:
                old.unlink()
            except OSError:
                pass
