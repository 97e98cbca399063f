"""``vado plan REPO... | --manifest fleet.yaml``: audit a fleet, order the migration, place the workloads."""

from __future__ import annotations

from pathlib import Path
from typing import List, Literal, Optional, get_args

import typer

Format = Literal["text", "json", "markdown", "html"]
FORMATS = get_args(Format)


def plan(
    repos: Optional[List[str]] = typer.Argument(None, help="Repositories: local paths or git URLs (URL@ref)."),
    manifest: Optional[Path] = typer.Option(None, "--manifest", "-m", help="A fleet.yaml listing the repositories."),
    target: Optional[List[str]] = typer.Option(
        None, "--target", "-t", help="Target profile(s); repeat or comma-separate. Default: the manifest's, else vado's audit targets."
    ),
    primary: Optional[str] = typer.Option(None, "--primary", help="The target the migration order is for (default: the first)."),
    format: Format = typer.Option("text", "--format", "-f", help="What goes to stdout."),
    output: Optional[Path] = typer.Option(
        None, "--output", "-o", help="Write plan.md, plan.html, plan.json, k8s/ patches and ray.json into this directory."
    ),
    executor: str = typer.Option("local", "--executor", "-e", metavar="local|ray|ray=ADDRESS", help="local (process pool), ray (= ray=auto) or ray=ADDRESS."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Local worker processes (default 0: one per CPU, as audit); CPUs for ray=local."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache directory (default ~/.cache/vado or $VADO_CACHE_DIR)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Audit everything again and store nothing."),
    no_gitignore: bool = typer.Option(False, "--no-gitignore", help="Scan files that .gitignore excludes."),
    include_vendored: bool = typer.Option(False, "--include-vendored", help="Scan third_party/, vendor/ and similar."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary on stderr."),
) -> None:
    """Plan a fleet: verdicts, blockers, effort and migration order per workload, and where each may run.

    Repositories come from the arguments or from --manifest (a fleet.yaml with
    `repos:`, optional `targets:`, `primary:`, `pools:`). Results are cached by
    content hash, so a re-plan only rescans files that changed.

    Exit codes: 0 planned, 2 usage error, 3 a repository could not be resolved or audited.
    """
    import os

    from vado.cli.terminal import get_terminal
    from vado.errors import UsageError, VadoError

    term = get_terminal(quiet=quiet)
    from vado.plan.cache import default_cache_dir
    from vado.plan.executors import parse_executor
    from vado.plan.fleet import FleetSpec, load_manifest, specs_from_args
    from vado.plan.pipeline import plan_fleet
    from vado.plan.render import render, write_outputs

    try:
        if manifest is not None and repos:
            raise UsageError("pass repositories or --manifest, not both", "", "list them all in the manifest")
        if manifest is not None:
            fleet = load_manifest(manifest)
        elif repos:
            fleet = FleetSpec(specs_from_args(repos))
        else:
            raise UsageError("no repositories to plan", "", "pass paths or git URLs, or --manifest fleet.yaml")
        if jobs == 0:
            jobs = os.cpu_count() or 1
        run_on = parse_executor(executor, jobs)
        cache = None if no_cache else str(cache_dir or default_cache_dir())
        # A bar on stderr over the repositories (a terminal only; none for JSON a program reads).
        with term.bar("auditing repositories", enabled=format != "json") as progress:
            result = plan_fleet(
                fleet,
                targets=target or None,
                primary=primary,
                executor=run_on,
                cache_dir=cache,
                respect_gitignore=not no_gitignore,
                include_vendored=include_vendored,
                progress=progress,
            )
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)

    written = write_outputs(result, output) if output else []
    text = render(result, format)
    term.data(text.rstrip("\n") if format == "text" else text)
    st = result.stats
    term.info(
        f"planned {st.repos} repositories ({st.repos_cached} from the cache, {st.repos_failed} failed), "
        f"{st.workloads} workloads, {st.files_scanned} files ({st.files_rescanned} rescanned) in {st.duration_s:.2f}s "
        f"with {st.executor}" + (f"; {len(written)} files written to {output}" if output else "")
    )
    for r in result.repos:
        if r.error:
            term.error(f"{r.name}: {r.error.get('what', '')}" + (f": {r.error['why']}" if r.error.get("why") else ""),
                       r.error.get("tip", ""))
    raise typer.Exit(3 if st.repos_failed else 0)
