"""Project configuration: ``[tool.vado]`` in ``pyproject.toml`` or a ``vado.toml``.

The conventions are ruff's, so that a CI set-up reads the same way:

- discovery starts at the audited path (a file's directory) and walks up to the
  first directory that holds a ``vado.toml`` (whole file, no table header) or a
  ``pyproject.toml`` with a ``[tool.vado]`` table; it stops at the repository's
  top (a directory holding ``.git``); ``vado.toml`` wins over ``pyproject.toml``
  in one directory;
- ``select`` / ``extend-select`` / ``ignore`` take codes or code prefixes
  (``WARP``, ``WARP00``, ``WARP001``, ``ALL``); the most specific prefix wins, an
  ``ignore`` beats a ``select`` of the same length;
- ``per-file-ignores`` maps gitignore-style patterns, relative to the directory
  of the configuration file, to codes or prefixes;
- ``fail-on`` takes severities and verdict conditions (see :func:`parse_fail_on`);
- ``baseline`` names a baseline file, relative to the configuration file;
- ``target`` lists the target profiles an audit reports.

Settings given on the command line win over the file: ``--select`` replaces
``select``; ``--extend-select``, ``--ignore`` and ``--per-file-ignores`` add to it.
Everything here is pure data and picklable: audit workers receive it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from vado.errors import UsageError

#: Keys ``[tool.vado]`` accepts (kebab-case, as in ruff; snake_case is accepted too).
KEYS = ("select", "extend-select", "ignore", "per-file-ignores", "fail-on", "baseline", "target")


@dataclass(frozen=True)
class Config:
    """Settings from one configuration file (or none), with the directory they are relative to.

    ``project_root`` is the directory of the configuration file, else the
    repository top, else the audited directory: per-file-ignores patterns and
    baseline paths are relative to it.
    """

    project_root: Path
    source: Path | None = None
    select: tuple[str, ...] = ("ALL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fail_on: tuple[str, ...] = ()
    baseline: Path | None = None
    target: tuple[str, ...] = ()

    def merged(
        self,
        *,
        select: Sequence[str] | None = None,
        extend_select: Sequence[str] = (),
        ignore: Sequence[str] = (),
        per_file_ignores: Sequence[str] = (),
        fail_on: Sequence[str] = (),
        baseline: Path | None = None,
        target: Sequence[str] = (),
    ) -> "Config":
        """This configuration with command-line settings applied over it (see the module docstring)."""
        pfi = list(self.per_file_ignores)
        for item in per_file_ignores:
            pattern, sep, codes = item.rpartition(":")
            if not sep or not pattern.strip():
                raise UsageError(f"bad --per-file-ignores value {item!r}", "", "write PATTERN:CODE[,CODE...], e.g. 'tests/**:WARP,PTX001'")
            pfi.append((pattern.strip(), _codes(codes, "--per-file-ignores")))
        return replace(
            self,
            select=_codes(",".join(select), "--select") if select else self.select,
            extend_select=self.extend_select + _codes(",".join(extend_select), "--extend-select"),
            ignore=self.ignore + _codes(",".join(ignore), "--ignore"),
            per_file_ignores=tuple(pfi),
            fail_on=tuple(fail_on) or self.fail_on,
            baseline=baseline if baseline is not None else self.baseline,
            target=tuple(target) or self.target,
        )


def find_repo_root(start: str | os.PathLike) -> Path | None:
    """The nearest directory at or above ``start`` that holds ``.git`` (a directory or a worktree file)."""
    here = Path(os.path.abspath(os.fspath(start)))
    if not here.is_dir():
        here = here.parent
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return None


def find_config(start: str | os.PathLike) -> Path | None:
    """The configuration file that applies to ``start`` (see the module docstring), or None."""
    here = Path(os.path.abspath(os.fspath(start)))
    if not here.is_dir():
        here = here.parent
    for d in (here, *here.parents):
        toml = d / "vado.toml"
        if toml.is_file():
            return toml
        py = d / "pyproject.toml"
        if py.is_file() and _has_tool_vado(py):
            return py
        if (d / ".git").exists():
            return None
    return None


#: The largest configuration file read (a vado.toml or pyproject.toml is a few KiB).
MAX_CONFIG_BYTES = 4 << 20


def _read_config_bytes(path: Path) -> bytes:
    """The bytes of a configuration file: a regular file only (a FIFO or device is refused
    without blocking), up to :data:`MAX_CONFIG_BYTES` (``OSError`` otherwise)."""
    from vado.scan.discover import read_regular

    raw = read_regular(path, MAX_CONFIG_BYTES + 1)
    if len(raw) > MAX_CONFIG_BYTES:
        raise OSError(f"larger than {MAX_CONFIG_BYTES >> 20} MiB")
    return raw


def _has_tool_vado(path: Path) -> bool:
    try:
        raw = _read_config_bytes(path)
    except OSError:
        return False
    if b"tool.vado" not in raw and b"[tool]" not in raw:
        return False
    import tomllib  # only when a file may hold settings: its patterns cost a one-file audit's start

    try:
        return isinstance(tomllib.loads(raw.decode("utf-8")).get("tool", {}).get("vado"), dict)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return True  # let load_config say what is wrong with it


def load_config(start: str | os.PathLike, *, explicit: str | os.PathLike | None = None, isolated: bool = False) -> Config:
    """The configuration for auditing ``start``: ``explicit`` if given, else the discovered one.

    ``isolated`` ignores every configuration file. Raises :class:`UsageError` for
    a file that cannot be read, is not TOML, or holds unknown keys or codes.
    """
    repo = find_repo_root(start)
    start_dir = Path(os.path.abspath(os.fspath(start)))
    default_root = repo or (start_dir if start_dir.is_dir() else start_dir.parent)
    if isolated:
        return Config(project_root=default_root)
    path = Path(explicit) if explicit is not None else find_config(start)
    if path is None:
        return Config(project_root=default_root)
    import tomllib

    try:
        text = _read_config_bytes(path).decode("utf-8")
        doc = tomllib.loads(text)
    except OSError as exc:
        raise UsageError(f"cannot read configuration {path}", exc.strerror or str(exc), "check the --config path") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path} is not valid TOML", str(exc), "fix the file, or pass --isolated to ignore it") from None
    if path.name == "pyproject.toml" or "tool" in doc and isinstance(doc.get("tool"), dict) and "vado" in doc["tool"]:
        table = doc.get("tool", {}).get("vado", {})
    else:
        table = doc
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [tool.vado] is not a table", "", "write [tool.vado] followed by key = value lines")
    return config_from_table(table, path.resolve())


def config_from_table(table: Mapping[str, Any], path: Path) -> Config:
    """A :class:`Config` from the TOML table of file ``path`` (keys as in :data:`KEYS`)."""
    where = str(path)
    norm = {str(k).replace("_", "-"): v for k, v in table.items()}
    unknown = sorted(set(norm) - set(KEYS))
    if unknown:
        raise UsageError(f"{where}: unknown setting {', '.join(unknown)}", "", f"vado reads: {', '.join(KEYS)}")
    root = path.parent
    kwargs: dict[str, Any] = {"project_root": root, "source": path}
    for key in ("select", "extend-select", "ignore"):
        if key in norm:
            kwargs[key.replace("-", "_")] = _codes(_str_list(norm[key], where, key), f"{where}: {key}")
    if "per-file-ignores" in norm:
        pfi = norm["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise UsageError(f"{where}: per-file-ignores must be a table", "", '[tool.vado.per-file-ignores] then "tests/**" = ["WARP"]')
        kwargs["per_file_ignores"] = tuple(
            (str(pattern), _codes(_str_list(codes, where, f"per-file-ignores.{pattern}"), f"{where}: per-file-ignores"))
            for pattern, codes in pfi.items()
        )
    if "fail-on" in norm:
        kwargs["fail_on"] = _str_list(norm["fail-on"], where, "fail-on")
        parse_fail_on(kwargs["fail_on"])  # refuse a bad value when the file is read
    if "baseline" in norm:
        if not isinstance(norm["baseline"], str):
            raise UsageError(f"{where}: baseline must be a path string")
        kwargs["baseline"] = (root / norm["baseline"]).resolve()
    if "target" in norm:
        kwargs["target"] = _str_list(norm["target"], where, "target")
    return Config(**kwargs)


def _str_list(value: Any, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(s.strip() for s in value.split(",") if s.strip())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise UsageError(f"{where}: {key} must be a string or a list of strings", f"got {value!r}")


def _codes(text_or_items: str | Iterable[str], where: str) -> tuple[str, ...]:
    """Upper-cased codes/prefixes, each checked against the rules vado has."""
    items = text_or_items.split(",") if isinstance(text_or_items, str) else text_or_items
    out = []
    for raw in items:
        code = raw.strip().upper()
        if not code:
            continue
        if code != "ALL" and not any(c.startswith(code) for c in all_codes()):
            raise UsageError(f"{where}: unknown rule code or prefix {raw.strip()!r}", "", "`vado explain --list` lists the codes")
        out.append(code)
    return tuple(out)


def all_codes() -> tuple[str, ...]:
    """Every rule code vado has."""
    from vado.rules.registry import all_rules

    return tuple(r.code for r in all_rules())


# --- --fail-on ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FailOn:
    """When an audit exits 1: a finding at or above ``severity``, or a target at or below a verdict.

    ``verdicts`` holds ``(target or None, verdict)``: None means any target.
    Neither set means: any finding at all (``--fail-on info``).
    """

    severity: Any = None  # vado.model.Severity
    verdicts: tuple[tuple[str | None, Any], ...] = ()

    def failing(self, result) -> list[str]:
        """Why ``result`` (an AuditResult) fails, one line per reason; empty when it passes."""
        reasons: list[str] = []
        if self.severity is not None:
            n = sum(1 for f in result.findings if f.severity.rank >= self.severity.rank)
            if n:
                reasons.append(f"{n} finding(s) at or above severity {self.severity.value}")
        for target, verdict in self.verdicts:
            for tv in result.verdicts:
                if (target is None or tv.target == target) and tv.verdict.rank >= verdict.rank:
                    reasons.append(f"{tv.target}: {tv.verdict.value} (fail-on {verdict.value})")
        return reasons


#: Short names accepted for verdicts, beside their values (``moves-as-is`` …).
VERDICT_ALIASES = {
    "as-is": "moves-as-is",
    "automatic": "moves-with-automatic-edits",
    "auto": "moves-with-automatic-edits",
    "automatic-edits": "moves-with-automatic-edits",
    "manual": "needs-manual-work",
    "manual-work": "needs-manual-work",
}


def parse_fail_on(values: Sequence[str], known_targets: Sequence[str] | None = None) -> FailOn:
    """``--fail-on`` values: a severity (``high``), a verdict for every target (``blocked``), or a
    target's verdict (``rocm-7.2:blocked``, ``rocm-7.2=needs-manual-work`` or ``"rocm-7.2 blocked"``).

    A verdict condition fails when the repository's verdict for the target is
    that verdict or worse. Several values: any one failing fails the audit. Only
    the lowest severity given counts. Raises :class:`UsageError` naming the choices.
    """
    from vado.model import Severity, Verdict

    severity = None
    verdicts: list[tuple[str | None, Verdict]] = []
    for raw in values:
        for item in raw.split(","):
            text = item.strip()
            if not text:
                continue
            try:
                sev = Severity.parse(text)
            except ValueError:
                sev = None
            if sev is not None:
                severity = sev if severity is None or sev.rank < severity.rank else severity
                continue
            target, verdict_text = None, text
            for sep in (":", "=", " "):
                if sep in text:
                    target, _, verdict_text = (p.strip() for p in text.rpartition(sep))
                    break
            name = VERDICT_ALIASES.get(verdict_text.lower(), verdict_text.lower().replace(" ", "-"))
            try:
                verdict = Verdict(name)
            except ValueError:
                raise UsageError(
                    f"bad --fail-on value {text!r}",
                    "it is neither a severity nor a verdict",
                    "use a severity (info, low, medium, high, critical), a verdict (moves-with-automatic-edits, "
                    "needs-manual-work, blocked) or TARGET:VERDICT such as rocm-7.2:blocked",
                ) from None
            if target is not None:
                _check_target(target)
                if known_targets is not None and target not in known_targets:
                    raise UsageError(f"--fail-on names {target}, which this audit does not report",
                                     f"the audit reports {', '.join(known_targets)}", f"add --target {target}")
            verdicts.append((target, verdict))
    return FailOn(severity=severity, verdicts=tuple(verdicts))


def _check_target(name: str) -> None:
    from vado.errors import KnowledgeError
    from vado.knowledge.targets import get_target

    try:
        get_target(name)
    except KnowledgeError as exc:
        raise UsageError(exc.what, exc.why, exc.tip) from None

