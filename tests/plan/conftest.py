"""Shared fixtures for the plan tests: the fixture fleet and its plan, computed once."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from plan_helpers import FLEET, REPOS


@pytest.fixture(scope="session")
def fleet_spec():
    from vado.plan.fleet import FleetSpec, specs_from_args

    return FleetSpec(specs_from_args([str(FLEET / r) for r in REPOS]))


@pytest.fixture(scope="session")
def fleet_plan(fleet_spec):
    """The plan of the three fixture repositories for vado's default targets, without a cache."""
    from vado.plan import plan_fleet

    return plan_fleet(fleet_spec, cache_dir=None)


@pytest.fixture
def bare_repo(tmp_path):
    """A bare git repository (``file://`` URL) holding a copy of the portable fixture, and its work tree."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    work = tmp_path / "work"
    shutil.copytree(FLEET / "portable", work)
    env = ["-c", "user.name=vado", "-c", "user.email=vado@example.invalid", "-c", "init.defaultBranch=main"]
    subprocess.run(["git", *env, "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", *env, "add", "."], cwd=work, check=True)
    subprocess.run(["git", *env, "commit", "-q", "-m", "fixture"], cwd=work, check=True)
    bare = tmp_path / "portable.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare, work, env
