"""Fleet manifests and repository resolution (paths, file:// clones, refs, errors)."""

from __future__ import annotations

import subprocess

import pytest

from vado.errors import PlanError, UsageError
from vado.plan.fleet import clone_dir, is_url, load_manifest, resolve, specs_from_args

from plan_helpers import FLEET


def test_is_url():
    assert is_url("https://github.com/NVIDIA/cuda-samples")
    assert is_url("file:///srv/git/x.git")
    assert is_url("git@github.com:org/repo.git")
    assert not is_url("services/saxpy")
    assert not is_url("/abs/path")


def test_specs_from_args_names_refs_and_duplicates(tmp_path):
    a = tmp_path / "one" / "svc"
    b = tmp_path / "two" / "svc"
    specs = specs_from_args([str(a), str(b), "https://example.com/t/kernels.git@v2", "git@host.example:t/lib.git"])
    assert [s.name for s in specs] == ["svc", "svc-2", "kernels", "lib"]
    assert specs[0].path == str(a)
    assert (specs[2].url, specs[2].ref) == ("https://example.com/t/kernels.git", "v2")
    assert (specs[3].url, specs[3].ref) == ("git@host.example:t/lib.git", "")


def test_load_manifest(tmp_path):
    m = tmp_path / "fleet.yaml"
    m.write_text(
        "targets: rocm-7.2, oneapi\n"
        "primary: rocm-7.2\n"
        "pools: {amd: {node_affinity: {amd.com/gpu.family: AI}}}\n"
        "repos:\n"
        "- {name: saxpy, path: svc, images: {amd: reg.example/saxpy:rocm}, manifests: [deploy/job.yaml]}\n"
        "- {url: 'file:///srv/k.git', ref: v1, subdir: src, manifests: [{path: k8s/a.yaml, workload: a}]}\n"
        "- plain/dir\n",
        encoding="utf-8",
    )
    spec = load_manifest(m)
    assert spec.targets == ("rocm-7.2", "oneapi") and spec.primary == "rocm-7.2"
    assert spec.pools == {"amd": {"node_affinity": {"amd.com/gpu.family": "AI"}}}
    saxpy, k, plain = spec.repos
    assert saxpy.path == str(tmp_path / "svc") and saxpy.images == {"amd": "reg.example/saxpy:rocm"}
    assert saxpy.manifests == (("deploy/job.yaml", ""),)
    assert (k.name, k.url, k.ref, k.subdir, k.manifests) == ("k", "file:///srv/k.git", "v1", "src", (("k8s/a.yaml", "a"),))
    assert plain.name == "dir" and plain.path == str(tmp_path / "plain" / "dir")


@pytest.mark.parametrize(
    "text, words",
    [
        ("repos: []\n", "lists no repositories"),
        ("repos: [{path: a, url: 'file:///x'}]\n", "exactly one of path and url"),
        ("repos: [{path: a, colour: red}]\n", "unknown keys"),
        ("repos: [{path: a, subdir: ../up}]\n", "subdir must be a relative path"),
        ("repos: [{path: a, images: [x]}]\n", "images must map"),
        ("wat: 1\nrepos: [a]\n", "unknown keys"),
        ("repos: [a\n", "not valid YAML"),
    ],
)
def test_bad_manifests_are_usage_errors(tmp_path, text, words):
    m = tmp_path / "fleet.yaml"
    m.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_manifest(m)
    assert words in err.value.what
    assert err.value.exit_code == 2


def test_missing_manifest(tmp_path):
    with pytest.raises(UsageError, match="cannot read the fleet manifest"):
        load_manifest(tmp_path / "nope.yaml")


def test_resolve_local_path_and_subdir():
    spec = specs_from_args([str(FLEET / "partial")])[0]
    assert resolve(spec, "/nonexistent-cache") == FLEET / "partial"
    from dataclasses import replace

    assert resolve(replace(spec, subdir="kernels"), "/x") == FLEET / "partial" / "kernels"
    with pytest.raises(PlanError, match="has no directory"):
        resolve(replace(spec, subdir="nope"), "/x")
    with pytest.raises(PlanError, match="is not a directory"):
        resolve(replace(spec, path=str(FLEET / "missing")), "/x")


def test_resolve_clones_a_file_url_and_updates_it(bare_repo, tmp_path):
    bare, work, env = bare_repo
    spec = specs_from_args([bare.as_uri()])[0]
    cache = tmp_path / "cache"
    root = resolve(spec, cache)
    assert root == clone_dir(cache, spec)
    assert (root / "src" / "saxpy.cu").is_file()
    # A new upstream commit reaches the existing clone on the next resolve.
    (work / "NEW.md").write_text("new\n", encoding="utf-8")
    subprocess.run(["git", *env, "add", "."], cwd=work, check=True)
    subprocess.run(["git", *env, "commit", "-q", "-m", "more"], cwd=work, check=True)
    subprocess.run(["git", "push", "-q", str(bare), "HEAD:main"], cwd=work, check=True)
    assert (resolve(spec, cache) / "NEW.md").is_file()


def test_resolve_a_url_that_does_not_exist(tmp_path):
    spec = specs_from_args([(tmp_path / "absent.git").as_uri()])[0]
    with pytest.raises(PlanError) as err:
        resolve(spec, tmp_path / "cache")
    assert err.value.what.startswith("cannot clone file://")
    assert not clone_dir(tmp_path / "cache", spec).exists()
