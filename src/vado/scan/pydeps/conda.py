"""conda environment.yml: channels, conda dependencies and pip: sections."""

from __future__ import annotations

import re

from vado.scan.pydeps.lines import LogicalLine
from vado.scan.pydeps.model import CondaChannel, CondaSpec, DepSource, DependencyFile, Include, IndexOption, Problem, Requirement, normalize_name
from vado.scan.pydeps.requirements_txt import parse_pip_args


# Values keep their trailing blanks (the caller strips them): ".*?" before "[ \t]*$"
# backtracked quadratically over a long blank run inside a line.
_YAML_ITEM = re.compile(r"^(?P<indent>[ \t]*)-[ \t]+(?P<value>.*)$")
_YAML_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:[ \t]*(?P<value>.*)$")
_CONDA_SPEC = re.compile(r"^(?:(?P<chan>[^\s:]+)::)?(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*)(?P<spec>.*)$")


def _yaml_comment_strip(line: str) -> str:
    """``line`` without a trailing ``# comment`` (a ``#`` at the start or after whitespace)."""
    m = re.search(r"(?:^|[ \t])#", line)
    return line[: m.start()] if m else line


def parse_conda_env(text: str, path: str = "environment.yml") -> DependencyFile:
    """Channels, conda dependencies and ``pip:`` requirements of a conda environment file.

    Read line by line so every item keeps its span (block lists and one-line
    ``[a, b]`` flow lists); PyYAML only checks that the file is valid YAML.
    """
    import yaml

    probs: list[Problem] = []
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as exc:
        probs.append(Problem(0, 0, f"not valid YAML ({str(exc).splitlines()[0]}); read best-effort"))
    except RecursionError:  # PyYAML composes nested flow collections recursively
        probs.append(Problem(0, 0, "nests lists or mappings too deeply to parse as YAML; read best-effort"))
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    incs: list[Include] = []
    chans: list[CondaChannel] = []
    conda: list[CondaSpec] = []
    section = ""
    pip_indent: int | None = None
    offset = 0
    for raw in text.splitlines(keepends=True):
        line_start = offset
        offset += len(raw)
        line = _yaml_comment_strip(raw.rstrip("\r\n"))
        if not line.strip():
            continue
        km = _YAML_KEY.match(line)
        if km:
            section = km.group("key")
            pip_indent = None
            flow = km.group("value").rstrip(" \t")
            if flow.startswith("[") and flow.endswith("]"):
                base = line_start + km.start("value") + 1
                for m in re.finditer(r"[^,\s\[\]][^,\[\]]*", flow[1:-1]):
                    item = m.group(0).rstrip()
                    _conda_item(section, item, base + m.start(), chans, conda)
            continue
        im = _YAML_ITEM.match(line)
        if not im:
            continue
        indent = len(im.group("indent"))
        value = im.group("value").rstrip(" \t")
        vstart = line_start + im.start("value")
        if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
            value, vstart = value[1:-1], vstart + 1
        if section == "dependencies" and pip_indent is not None and indent > pip_indent:
            ll = LogicalLine(value, ((0, vstart),), vstart, vstart + len(value))
            r, i, c, p = parse_pip_args(ll, path, DepSource.CONDA_PIP, group="pip")
            reqs += r
            idx += i
            incs += c
            probs += p
            continue
        pip_indent = None
        if section == "dependencies" and re.fullmatch(r"pip[ \t]*:", value):
            pip_indent = indent
            continue
        _conda_item(section, value, vstart, chans, conda)
    return DependencyFile(path, DepSource.CONDA, tuple(reqs), tuple(idx), tuple(incs), tuple(chans),
                          tuple(conda), tuple(probs))


def _conda_item(section: str, item: str, start: int, chans: list, conda: list) -> None:
    if section == "channels":
        chans.append(CondaChannel(item, start, start + len(item)))
    elif section == "dependencies":
        m = _CONDA_SPEC.match(item)
        if not m:
            return
        chan = m.group("chan") or ""
        if chan:
            chans.append(CondaChannel(chan, start, start + len(chan)))
        name = m.group("name")
        conda.append(CondaSpec(name, normalize_name(name), start, start + len(item), start + m.start("name"),
                               start + m.end("name"), m.group("spec").strip(), chan))
