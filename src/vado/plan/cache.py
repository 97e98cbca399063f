"""A content-hash cache of audits, so a re-plan only rescans what changed.

Two levels, both under one directory (``--cache-dir``, else ``$VADO_CACHE_DIR``,
else ``$XDG_CACHE_HOME/vado``, else ``~/.cache/vado``):

- ``findings/``: the findings of one file, keyed by the file's bytes, its path,
  its kind, the targets (their whole profiles), the rule set and vado's version.
  Rules see one file at a time (:func:`vado.rules.engine.check_bytes`), so a file
  whose key is unchanged has unchanged findings.
- ``audits/``: the whole :class:`~vado.model.audit.AuditResult` of a tree, keyed
  by the *digest*: the hash of every file key and every skip. An unchanged tree is
  not re-aggregated at all.

Entries are written to a temporary file and renamed, so concurrent workers (a
process pool, Ray tasks on one node) never read half an entry; a corrupt entry
is treated as a miss.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from vado import __version__
from vado.model import Finding, Skip, SkipReason, Target, from_json, to_json
from vado.model.audit import AuditResult, AuditStats

#: Bumped when the layout or the key recipe changes.
CACHE_FORMAT = "1"


def default_cache_dir() -> Path:
    """``$VADO_CACHE_DIR``, else ``$XDG_CACHE_HOME/vado``, else ``~/.cache/vado``."""
    if os.environ.get("VADO_CACHE_DIR"):
        return Path(os.environ["VADO_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "vado"


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


#: The files of vado's own package whose content decides findings: its code and the data it reads.
_CODE_SUFFIXES = (".py", ".json", ".yaml", ".yml", ".toml", ".txt", ".h", ".cuh", ".hpp", ".c")


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The hash of vado's own source and data files (paths and bytes), once per process.

    The version number alone does not change when the code does (an editable install, a checkout
    between releases): a rule fixed since an entry was written must not be answered from that entry.
    """
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.suffix in _CODE_SUFFIXES and "__pycache__" not in p.parts):
        try:
            data = f.read_bytes()
        except OSError:
            continue
        h.update(str(f.relative_to(root)).encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def environment_key(targets: Sequence[Target], options: dict | None = None) -> str:
    """What every key depends on besides the file: vado's version and code, the rules, the targets, the options.

    Targets enter with their whole profile (``repr`` of the frozen dataclass), so a
    knowledge-base change to a target invalidates its entries even without a new
    version number; vado's own files enter by content (:func:`code_fingerprint`).
    """
    from vado.rules.registry import all_rules

    rules = ",".join(sorted(r.code for r in all_rules()))
    parts = [CACHE_FORMAT, __version__, code_fingerprint(), rules, repr(tuple(targets)),
             json.dumps(options or {}, sort_keys=True)]
    return _sha("\0".join(parts))


def file_key(env: str, path: str, kind: str, content_sha: str) -> str:
    """The key of one file's findings."""
    return _sha(f"{env}\0{path}\0{kind}\0{content_sha}")


class AuditCache:
    """Reads and writes cache entries under ``root``; ``AuditCache(None)`` caches nothing."""

    def __init__(self, root: str | os.PathLike | None) -> None:
        self.root = Path(root) if root is not None else None

    @property
    def enabled(self) -> bool:
        """False for the no-op cache (``--no-cache``)."""
        return self.root is not None

    def _path(self, section: str, key: str) -> Path:
        assert self.root is not None
        return self.root / section / key[:2] / f"{key}.json"

    def _read(self, section: str, key: str) -> str | None:
        if self.root is None:
            return None
        try:
            return self._path(section, key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _write(self, section: str, key: str, text: str) -> None:
        if self.root is None:
            return
        path = self._path(section, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except OSError:
            # A cache that cannot be written costs speed, never correctness.
            return

    def get_findings(self, key: str) -> list[Finding] | None:
        """The cached findings for ``key``, or None."""
        text = self._read("findings", key)
        if text is None:
            return None
        try:
            return from_json(list[Finding], json.loads(text))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None

    def put_findings(self, key: str, findings: Sequence[Finding]) -> None:
        """Store one file's findings."""
        self._write("findings", key, json.dumps(to_json(list(findings)), ensure_ascii=False))

    def get_audit(self, digest: str) -> AuditResult | None:
        """The cached audit of a tree with ``digest``, or None."""
        from vado.errors import ReportError
        from vado.report.json_report import load_audit_json

        text = self._read("audits", digest)
        if text is None:
            return None
        try:
            return load_audit_json(text)
        except ReportError:
            return None

    def put_audit(self, digest: str, result: AuditResult) -> None:
        """Store a whole audit."""
        from vado.report.json_report import render_json

        self._write("audits", digest, render_json(result))


@dataclass(frozen=True)
class CachedAudit:
    """An audit and how much of it the cache answered."""

    result: AuditResult
    digest: str
    cached: bool
    files_rescanned: int


def cached_audit(
    root: str | os.PathLike,
    targets: Sequence[Target],
    cache: AuditCache,
    *,
    respect_gitignore: bool = True,
    include_vendored: bool = False,
    options: dict | None = None,
    build="compile-db",
) -> CachedAudit:
    """Audit ``root`` like :func:`vado.audit.audit`, reusing cached findings of unchanged files.

    The result equals ``audit(root, targets)`` except for ``stats.duration_s``
    (and, for a whole-tree hit, it is the stored result with today's ``root``).
    Raises :class:`~vado.errors.ScanError` when ``root`` cannot be scanned.
    """
    from vado.audit.aggregate import combine, file_report, workloads
    from vado.audit.pipeline import rule_info
    from vado.rules.engine import check_bytes
    from vado.scan.discover import walk

    started = time.perf_counter()
    targets = tuple(targets)
    names = tuple(t.name for t in targets)
    options = dict(options or {})
    plan = walk(root, respect_gitignore=respect_gitignore, include_vendored=include_vendored)
    from vado.audit.scope import audit_scope, judge_own_hip_path, with_own_rocm_build

    # Other backends are not judged; the project's own HIP path moves as is for ROCm (vado.audit.scope).
    scope = audit_scope(root, plan, targets)
    judged = None
    if build is not None and Path(root).is_dir():
        from vado.build.judged import judged_build

        # The configuration judged (vado.build.judged): its macros decide each file's branches, so they key the cache.
        judged = judged_build(root, plan, build)
    env = environment_key(targets, {**options, "gitignore": respect_gitignore, "vendored": include_vendored,
                                    **({"build": judged.digest()} if judged is not None else {})})

    keys: dict[str, str] = {}
    read_skips: list[Skip] = []
    for f in plan.files:
        try:
            data = Path(f.abs_path).read_bytes()
        except OSError as exc:
            read_skips.append(Skip(f.path, SkipReason.UNREADABLE, exc.strerror or str(exc)))
            continue
        keys[f.path] = file_key(env, f.path, f.kind.value, _sha(data))
    skips = sorted([*plan.skips, *scope.skips, *read_skips])
    digest = _sha("\0".join([env, *(f"{p}={k}" for p, k in sorted(keys.items())),
                             *(f"skip:{s.path}:{s.reason.value}:{s.detail}" for s in skips)]))

    hit = cache.get_audit(digest)
    if hit is not None and hit.targets == names:
        return CachedAudit(replace(hit, root=str(root)), digest, True, 0)

    file_reports = []
    findings: list[Finding] = []
    scanned = 0
    rescanned = 0
    for f in plan.files:
        key = keys.get(f.path)
        if key is None or f.path in scope.left:
            continue
        found = cache.get_findings(key)
        if found is None:
            try:
                data = Path(f.abs_path).read_bytes()
            except OSError as exc:
                skips.append(Skip(f.path, SkipReason.UNREADABLE, exc.strerror or str(exc)))
                continue
            extra = judged.rule_options(f.path) if judged is not None else {}
            found = check_bytes(f.path, data, targets, kind=f.kind, options={**options, **extra} if extra else options)
            cache.put_findings(key, found)
            rescanned += 1
        scanned += f.size
        report = file_report(f.path, f.kind, f.size, found, names)
        why = scope.hip_path.get(f.path)
        if why is not None:
            found, report = judge_own_hip_path(list(found), report, why, scope.rocm_targets,
                                                  runs_on_amd=f.path not in scope.not_for_amd)
        findings.extend(found)
        file_reports.append(report)
    markers = [f.path for f in plan.files if f.kind.is_build]
    wl = workloads(file_reports, names, markers)
    repo = tuple(combine(t, [v for w in wl for v in w.verdicts]) for t in names)
    if scope.own_build:
        wl = [replace(w, verdicts=with_own_rocm_build(w.verdicts, scope, sum(p in scope.hip_path for p in w.files)))
              for w in wl]
        repo = with_own_rocm_build(repo, scope, sum(fr.path in scope.hip_path for fr in file_reports))
    result = AuditResult(
        root=str(root),
        targets=names,
        verdicts=repo,
        files=tuple(file_reports),
        workloads=tuple(wl),
        findings=tuple(findings),
        skips=tuple(sorted(skips)),
        rules=tuple(rule_info(code) for code in sorted({x.code for x in findings})),
        stats=AuditStats(
            files_scanned=len(file_reports),
            files_skipped=len(skips),
            bytes_scanned=scanned,
            duration_s=round(time.perf_counter() - started, 3),
            jobs=1,
        ),
        build=judged.summary if judged is not None else None,
        tool_version=__version__,
    )
    cache.put_audit(digest, result)
    return CachedAudit(result, digest, False, rescanned)
