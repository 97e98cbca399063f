"""Reading ``compile_commands.json`` (a JSON compilation database) into translation units.

Each entry's ``arguments`` (or ``command``, split with POSIX shell quoting) is read by
:func:`vado.build.cmdline.parse_command` in the entry's ``directory``; the entry's ``file`` decides
which source the unit is (a command naming several sources yields the one the entry is for).
Malformed entries are skipped and counted in the config's notes, never raised.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from vado.build.cmdline import command_words, parse_command
from vado.build.model import BuildConfig, TranslationUnit

#: Where a compile database is looked for, relative to the project root (first found wins).
CANDIDATES = ("compile_commands.json", "build/compile_commands.json", "out/compile_commands.json",
              "cmake-build-debug/compile_commands.json", "cmake-build-release/compile_commands.json")
#: The largest database read (bytes).
MAX_BYTES = 256 * 1024 * 1024


def find_compile_db(root: str | os.PathLike) -> Path | None:
    """The project's ``compile_commands.json`` (a regular file), or None."""
    for rel in CANDIDATES:
        p = Path(root) / rel
        if p.is_file() and not p.is_symlink():
            return p
    return None


def read_compile_db(path: str | os.PathLike, root: str | os.PathLike | None = None) -> BuildConfig:
    """The build config a compile database describes.

    Raises :class:`ValueError` with the reason when the file is unreadable, too large or not a JSON
    list (the caller reports it and falls back).
    """
    path = Path(path)
    root = str(Path(root or path.parent).resolve())
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ValueError(f"{path} is larger than {MAX_BYTES >> 20} MiB")
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, list):
        raise ValueError(f"{path} is not a JSON list of compile commands")
    units: list[TranslationUnit] = []
    bad = 0
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            bad += 1
            continue
        directory = str(entry.get("directory") or root)
        words = entry.get("arguments")
        if not isinstance(words, list):
            words = command_words(str(entry.get("command", "")))
        file = os.path.normpath(os.path.join(directory, entry["file"]))
        found = [u for u in parse_command(words, directory, origin=f"{path.name}")
                 if os.path.normpath(u.source) == file]
        if not found:
            bad += 1
            continue
        units.append(found[0])
    notes = (f"{bad} entries of {path.name} name no compilable source and were skipped",) if bad else ()
    return BuildConfig(root, tuple(units), "compile-db", notes=notes, sources_read=(str(path),))
