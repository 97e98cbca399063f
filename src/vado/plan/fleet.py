"""The fleet: which repositories to plan, read from the command line or a ``fleet.yaml``.

A manifest looks like this (every key but ``repos`` is optional)::

    targets: [rocm-7.2, oneapi]      # default: vado's audit targets
    primary: rocm-7.2                # the target the migration order is for
    pools:                           # overrides of vado/plan/data/pools.yaml
      amd: {node_affinity: {amd.com/gpu.family: AI}}
    repos:
    - name: saxpy
      path: services/saxpy           # relative to the manifest's directory
      images: {amd: registry.example.com/saxpy:rocm7.2}
      manifests: [deploy/job.yaml]   # or {path: deploy/job.yaml, workload: saxpy}
    - url: https://example.com/team/kernels.git
      ref: v2.1
      subdir: src/cuda

A repository given by URL is cloned (shallow) into ``<cache>/repos/``; only URLs
the machine can reach work, and ``file://`` URLs and local bare repositories do.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Sequence

from vado.errors import PlanError, UsageError
from vado.model.plan import RepoSpec
from vado.verify.sandbox import run_capped

#: Something git can clone: a scheme URL, scp-like ``user@host:path``, or a path to a bare repository.
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)
_REPO_KEYS = frozenset({"name", "path", "url", "ref", "subdir", "images", "manifests"})
_TOP_KEYS = frozenset({"targets", "primary", "pools", "repos"})
_CLONE_TIMEOUT_S = 600


@dataclass(frozen=True)
class FleetSpec:
    """What to plan: repositories, and optionally targets, the primary target and pool overrides."""

    repos: tuple[RepoSpec, ...]
    targets: tuple[str, ...] = ()
    primary: str = ""
    pools: dict[str, Any] = field(default_factory=dict)


def is_url(text: str) -> bool:
    """True when ``text`` names a git remote rather than a local directory."""
    return bool(_URL.match(text))


def _name_from(source: str) -> str:
    tail = source.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return tail[:-4] if tail.endswith(".git") else tail or "repo"


def _unique_names(specs: list[RepoSpec]) -> tuple[RepoSpec, ...]:
    """Repository names are keys in the plan: a repeated name gets ``-2``, ``-3``…"""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        n = seen.get(s.name, 0) + 1
        seen[s.name] = n
        out.append(s if n == 1 else RepoSpec(**{**vars(s), "name": f"{s.name}-{n}"}))
    return tuple(out)


def specs_from_args(sources: Sequence[str]) -> tuple[RepoSpec, ...]:
    """Repository specs for ``vado plan REPO...`` (each a path or a git URL, ``URL@ref`` allowed)."""
    specs = []
    for src in sources:
        src = src.strip()
        if not src:
            continue
        if is_url(src):
            url, ref = src, ""
            # ``https://host/x.git@v1`` names a ref; ``user@host:path`` has its @ before the colon.
            head, sep, tail = src.rpartition("@")
            if sep and "/" not in tail and ":" not in tail and ("://" in head or ":" in head):
                url, ref = head, tail
            specs.append(RepoSpec(name=_name_from(url), url=url, ref=ref))
        else:
            path = os.path.abspath(src)
            specs.append(RepoSpec(name=_name_from(path), path=path))
    return _unique_names(specs)


def _manifest_entries(raw: Any, where: str) -> tuple[tuple[str, str], ...]:
    out = []
    for item in raw or ():
        if isinstance(item, str):
            out.append((item, ""))
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            out.append((item["path"], str(item.get("workload") or "")))
        else:
            raise UsageError(f"{where}: a manifests entry must be a path or {{path, workload}}", f"got {item!r}")
    return tuple(out)


#: The largest fleet manifest read (a list of repositories is a few KiB).
_MAX_MANIFEST = 16 * 2**20


def load_manifest(path: str | os.PathLike) -> FleetSpec:
    """Read a ``fleet.yaml``; relative repository paths are taken from the manifest's directory.

    Raises :class:`~vado.errors.UsageError` for a missing, unreadable or malformed manifest.
    """
    import yaml

    from vado.scan.discover import read_regular

    p = Path(path)
    try:
        raw = read_regular(p, _MAX_MANIFEST + 1)  # never blocks on a FIFO
    except OSError as exc:
        raise UsageError(f"cannot read the fleet manifest {path}", exc.strerror or str(exc),
                         "pass an existing fleet.yaml with --manifest") from None
    if len(raw) > _MAX_MANIFEST:
        raise UsageError(f"the fleet manifest {path} is larger than {_MAX_MANIFEST // 2**20} MiB",
                         "a fleet.yaml lists repositories", "split the fleet into several manifests")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"the fleet manifest {path} is not UTF-8 text", f"bad byte at offset {exc.start}",
                         "save it as UTF-8") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UsageError(f"the fleet manifest {path} is not valid YAML", str(exc).splitlines()[0]) from None
    except RecursionError:
        raise UsageError(f"the fleet manifest {path} nests lists or mappings too deeply",
                         "a fleet.yaml needs two or three levels") from None
    if not isinstance(data, dict) or not isinstance(data.get("repos"), list) or not data["repos"]:
        raise UsageError(f"the fleet manifest {path} lists no repositories",
                         "it needs a top-level `repos:` list", "see `vado plan --help` for the format")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise UsageError(f"the fleet manifest {path} has unknown keys {sorted(unknown)}",
                         "it may have " + ", ".join(sorted(_TOP_KEYS)))
    base = p.resolve().parent
    specs = []
    for i, raw in enumerate(data["repos"]):
        where = f"{path}: repos[{i}]"
        if isinstance(raw, str):
            raw = {"url": raw} if is_url(raw) else {"path": raw}
        if not isinstance(raw, dict):
            raise UsageError(f"{where} must be a mapping or a path", f"got {raw!r}")
        bad = set(raw) - _REPO_KEYS
        if bad:
            raise UsageError(f"{where} has unknown keys {sorted(bad)}", "a repository may have " + ", ".join(sorted(_REPO_KEYS)))
        has_path, has_url = bool(raw.get("path")), bool(raw.get("url"))
        if has_path == has_url:
            raise UsageError(f"{where} needs exactly one of path and url", f"got {raw!r}")
        images = raw.get("images") or {}
        if not isinstance(images, dict) or not all(isinstance(v, str) for v in images.values()):
            raise UsageError(f"{where}: images must map a pool to an image reference", f"got {images!r}")
        subdir = str(raw.get("subdir") or "")
        if subdir and (PurePosixPath(subdir).is_absolute() or ".." in PurePosixPath(subdir).parts):
            raise UsageError(f"{where}: subdir must be a relative path inside the repository", f"got {subdir!r}")
        if has_path:
            local = Path(str(raw["path"])).expanduser()
            local = local if local.is_absolute() else base / local
            spec = RepoSpec(name=str(raw.get("name") or _name_from(str(local))), path=str(local), subdir=subdir,
                            images=dict(images), manifests=_manifest_entries(raw.get("manifests"), where))
        else:
            url = str(raw["url"])
            spec = RepoSpec(name=str(raw.get("name") or _name_from(url)), url=url, ref=str(raw.get("ref") or ""),
                            subdir=subdir, images=dict(images), manifests=_manifest_entries(raw.get("manifests"), where))
        specs.append(spec)
    targets = data.get("targets") or ()
    if isinstance(targets, str):
        targets = [t.strip() for t in targets.split(",") if t.strip()]
    pools = data.get("pools") or {}
    if not isinstance(pools, dict):
        raise UsageError(f"{path}: pools must be a mapping of pool name to overrides", f"got {pools!r}")
    return FleetSpec(repos=_unique_names(specs), targets=tuple(str(t) for t in targets),
                     primary=str(data.get("primary") or ""), pools=dict(pools))


def _git(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true")
    try:
        return run_capped(["git", *args], cwd=cwd, env=env, timeout=_CLONE_TIMEOUT_S)
    except FileNotFoundError:
        raise PlanError("git is not installed", "repositories given by URL are cloned with git",
                        "install git, or clone the repository yourself and pass its path") from None
    except subprocess.TimeoutExpired:
        raise PlanError(f"git {args[0]} timed out", f"no answer within {_CLONE_TIMEOUT_S} s",
                        "check that the machine can reach the URL, or pass a local clone") from None


def clone_dir(cache_dir: str | os.PathLike, spec: RepoSpec) -> Path:
    """Where the clone of ``spec.url`` at ``spec.ref`` lives in the cache."""
    key = hashlib.sha256(f"{spec.url}\0{spec.ref}".encode()).hexdigest()[:16]
    return Path(cache_dir) / "repos" / f"{_name_from(spec.url)}-{key}"


def _fail(spec: RepoSpec, proc: subprocess.CompletedProcess, what: str) -> PlanError:
    last = (proc.stderr or proc.stdout or "").strip().splitlines()
    return PlanError(f"cannot {what} {spec.source}", last[-1] if last else f"git exited with {proc.returncode}",
                     "check the URL and ref, and that the machine can reach it; or pass a local path")


def resolve(spec: RepoSpec, cache_dir: str | os.PathLike) -> Path:
    """The local directory to audit for ``spec``: the path, or a fresh shallow clone of the URL.

    An existing clone is updated (fetch of the ref, hard reset) so a re-plan sees
    new commits; ``subdir`` is applied last. Raises :class:`~vado.errors.PlanError`
    when the clone or fetch fails, or the path or subdir does not exist.
    """
    if spec.path:
        root = Path(spec.path)
        if not root.is_dir():
            raise PlanError(f"repository {spec.name} is not a directory", f"{spec.path} does not exist or is a file",
                            "check the path in the fleet manifest")
    else:
        root = clone_dir(cache_dir, spec)
        if (root / ".git").is_dir():
            ref = spec.ref or "HEAD"
            proc = _git(["fetch", "--depth", "1", "--quiet", "origin", ref], cwd=root)
            if proc.returncode != 0:
                raise _fail(spec, proc, "fetch")
            proc = _git(["reset", "--hard", "--quiet", "FETCH_HEAD"], cwd=root)
            if proc.returncode != 0:
                raise _fail(spec, proc, "update the clone of")
        else:
            root.parent.mkdir(parents=True, exist_ok=True)
            partial = root.with_name(root.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            args = ["clone", "--depth", "1", "--quiet"]
            if spec.ref:
                args += ["--branch", spec.ref]
            proc = _git([*args, "--", spec.url, str(partial)])
            if proc.returncode != 0:
                shutil.rmtree(partial, ignore_errors=True)
                raise _fail(spec, proc, "clone")
            # Rename last, so an interrupted clone never looks like a finished one.
            os.replace(partial, root)
    if spec.subdir:
        root = root / spec.subdir
        if not root.is_dir():
            raise PlanError(f"repository {spec.name} has no directory {spec.subdir}",
                            f"{root} does not exist", "check subdir in the fleet manifest")
    return root


def commit_of(root: Path) -> str:
    """The commit checked out at ``root`` when ``root`` is the top of a git work tree, else empty.

    A directory inside some other repository (a copy under a project's scratch
    folder) is not that repository's commit, so it gets none.
    """
    try:
        proc = run_capped(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=root, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = proc.stdout.split()
    if proc.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != Path(root).resolve():
        return ""
    return lines[1]
