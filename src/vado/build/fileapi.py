"""Reading CMake's File API replies (``codemodel-v2``) into translation units.

A configured CMake build directory that was asked for the code model (a query file
``.cmake/api/v1/query/codemodel-v2``) holds ``.cmake/api/v1/reply/index-*.json``; that index names
the code model, which names one JSON file per target. Each target lists its sources and compile
groups: language, compile command fragments, include directories (``isSystem``), defines and the
language standard. Every source of a compile group is one unit. Only the first configuration is
read (a multi-config generator's others are listed in the notes).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from vado.build.cmdline import command_words, gcc_private_include, parse_flags
from vado.build.model import BuildConfig, IncludeKind, IncludePath, Language, TranslationUnit

_LANGS = {"CUDA": (Language.CUDA, "nvcc"), "HIP": (Language.HIP, "hipcc"), "C": (Language.C, "cc"),
          "CXX": (Language.CXX, "cxx")}


def reply_dir(build_dir: str | os.PathLike) -> Path:
    """Where CMake writes its File API replies in ``build_dir``."""
    return Path(build_dir) / ".cmake" / "api" / "v1" / "reply"


def write_query(build_dir: str | os.PathLike) -> None:
    """Ask CMake for the code model at the next configure of ``build_dir``."""
    q = Path(build_dir) / ".cmake" / "api" / "v1" / "query"
    q.mkdir(parents=True, exist_ok=True)
    (q / "codemodel-v2").touch()


def find_reply(root: str | os.PathLike) -> Path | None:
    """A reply directory holding an index, under ``root`` or ``root/build``; None when there is none."""
    for d in (Path(root), Path(root) / "build"):
        r = reply_dir(d)
        if r.is_dir() and any(r.glob("index-*.json")):
            return r
    return None


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read CMake reply {path.name}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"CMake reply {path.name} is not a JSON object")
    return data


def read_file_api(reply: str | os.PathLike, root: str | os.PathLike | None = None) -> BuildConfig:
    """The build config of a File API reply directory. Raises :class:`ValueError` when unreadable."""
    reply = Path(reply)
    indexes = sorted(reply.glob("index-*.json"))
    if not indexes:
        raise ValueError(f"no index-*.json in {reply}")
    index = _load(indexes[-1])
    cm = None
    for obj in index.get("objects", []):
        if isinstance(obj, dict) and obj.get("kind") == "codemodel" and obj.get("jsonFile"):
            cm = _load(reply / obj["jsonFile"])
            break
    if cm is None:
        raise ValueError("the CMake reply has no codemodel-v2 (was the query written before configuring?)")
    src_dir = str(cm.get("paths", {}).get("source") or root or reply.parents[4])
    build_dir = str(cm.get("paths", {}).get("build") or reply.parents[4])
    configs = cm.get("configurations") or []
    if not configs:
        raise ValueError("the CMake code model lists no configuration")
    config = configs[0]
    units: list[TranslationUnit] = []
    unmade: list[str] = []
    for t in config.get("targets", []):
        if not isinstance(t, dict) or not t.get("jsonFile"):
            continue
        target = _load(reply / t["jsonFile"])
        units += _target_units(target, src_dir, build_dir, unmade)
    notes = tuple(f"CMake configuration {c.get('name')!r} not read (the first, {config.get('name')!r}, was)"
                  for c in configs[1:])
    if unmade:
        # add_custom_command outputs (tiny-cuda-nn's CMakeRC resource files): the build makes them before it
        # compiles them; a configure alone does not, so there is nothing to compile (not a failure of the port).
        notes += (f"{len(unmade)} source(s) the build generates were not compiled (they do not exist until the "
                  f"build runs), e.g. {unmade[0]}",)
    return BuildConfig(str(Path(root or src_dir).resolve()), tuple(units), "cmake-file-api", notes=notes,
                       name=str(config.get("name") or "default"), sources_read=(str(indexes[-1]),))


def _target_units(target: dict, src_dir: str, build_dir: str, unmade: list[str] | None = None) -> list[TranslationUnit]:
    """The units of one target of the code model; a generated source that does not exist yet is left out and
    its path appended to ``unmade``."""
    name = str(target.get("name", ""))
    sources = target.get("sources", [])
    out: list[TranslationUnit] = []
    for group in target.get("compileGroups", []):
        lang, family = _LANGS.get(str(group.get("language")), (None, ""))
        if lang is None:
            continue
        words: list[str] = []
        for frag in group.get("compileCommandFragments", []):
            words += command_words(str(frag.get("fragment", "")))
        acc, _ = parse_flags(words, family, build_dir)
        for inc in group.get("includes", []):
            path = os.path.normpath(os.path.join(src_dir, inc.get("path", "")))
            if gcc_private_include(path):
                acc.dropped.append(f"-isystem{path}")  # see gcc_private_include
                continue
            acc.includes.append(IncludePath(path, IncludeKind.SYSTEM if inc.get("isSystem") else IncludeKind.DIR))
        for d in group.get("defines", []):
            acc.macros.append(("D", str(d.get("define", ""))))
        std = (group.get("languageStandard") or {}).get("standard")
        if std and not acc.std:
            acc.std = ("c" if lang is Language.C else "c++") + str(std)
        for f in group.get("precompileHeaders", []) or []:
            acc.forced.append(os.path.normpath(os.path.join(src_dir, f.get("header", ""))))
        for i in group.get("sourceIndexes", []):
            if not (isinstance(i, int) and 0 <= i < len(sources)):
                continue
            path = os.path.normpath(os.path.join(src_dir, sources[i].get("path", "")))
            if sources[i].get("isGenerated") and not os.path.exists(path):
                if unmade is not None:
                    unmade.append(path)
                continue
            out.append(acc.unit(path, lang, family, f"CMake File API target {name}", name))
    return out
