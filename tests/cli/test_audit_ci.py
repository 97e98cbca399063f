"""`vado audit` in CI: configuration, selection, suppressions, baseline, --fail-on verdicts, exit codes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from vado.audit.filters import enabled_codes, fingerprints, suppressions
from vado.cli.app import app
from vado.config import Config, find_config, load_config, parse_fail_on
from vado.errors import UsageError
from vado.model import Severity, Verdict

ROOT = Path(__file__).resolve().parents[2]

KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* a) {
  int lane = threadIdx.x & 31;
  int w = threadIdx.x / 32;
  a[lane] += __shfl_down_sync(0xffffffff, a[lane], 16) + w;
}
"""


def _run(*args: str, cwd: Path | None = None):
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(app, ["audit", *args])
    finally:
        os.chdir(old)


def _codes(res) -> list[tuple[str, int]]:
    assert res.exit_code in (0, 1), res.output
    return [(f["code"], f["span"]["line"]) for f in json.loads(res.stdout)["findings"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git-like repository (a .git directory) with a kernel in a subdirectory."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "dev" / "cuda").mkdir(parents=True)
    (tmp_path / "dev" / "cuda" / "k.cu").write_text(KERNEL)
    return tmp_path


# --- selection ---------------------------------------------------------------------------------


def test_most_specific_prefix_wins_and_ignore_breaks_ties():
    codes = ["WARP001", "WARP002", "WARP009", "PTX001", "API005"]
    assert enabled_codes(["ALL"], [], [], codes) == set(codes)
    assert enabled_codes(["WARP"], [], ["WARP00"], codes) == set()
    assert enabled_codes(["WARP"], ["WARP002"], ["WARP00"], codes) == {"WARP002"}
    assert enabled_codes(["ALL"], [], ["WARP"], codes) == {"PTX001", "API005"}
    assert enabled_codes(["WARP001"], [], ["WARP001"], codes) == set()  # same length: ignore wins
    assert enabled_codes(["PTX"], ["API"], [], codes) == {"PTX001", "API005"}


def test_select_ignore_and_extend_select_from_the_command_line(repo: Path):
    src = repo / "dev" / "cuda"
    everything = {c for c, _ in _codes(_run(str(src), "-f", "json", "-q"))}
    assert {"API005", "WARP001", "WARP002"} <= everything
    assert {c for c, _ in _codes(_run(str(src), "-f", "json", "-q", "--select", "WARP"))} == {
        c for c in everything if c.startswith("WARP")
    }
    only = _codes(_run(str(src), "-f", "json", "-q", "--select", "WARP001", "--extend-select", "api005"))
    assert {c for c, _ in only} == {"WARP001", "API005"}
    assert "WARP002" not in {c for c, _ in _codes(_run(str(src), "-f", "json", "-q", "--ignore", "WARP002"))}


def test_unknown_code_is_a_usage_error(repo: Path):
    res = _run(str(repo), "--select", "WARP999")
    assert res.exit_code == 2
    assert "unknown rule code or prefix 'WARP999'" in res.output


# --- configuration -----------------------------------------------------------------------------


def test_pyproject_tool_vado_is_found_from_a_subdirectory(repo: Path):
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.vado]\nselect = ["WARP"]\nignore = ["WARP002"]\n'
        'fail-on = ["rocm-7.2:blocked"]\n\n[tool.vado.per-file-ignores]\n"dev/**/k.cu" = ["WARP009"]\n'
    )
    cfg = load_config(repo / "dev" / "cuda")
    assert cfg.source == (repo / "pyproject.toml").resolve()
    assert cfg.select == ("WARP",) and cfg.ignore == ("WARP002",)
    res = _run(str(repo / "dev" / "cuda"), "-f", "json", "-q")
    assert {c for c, _ in _codes(res)} == {"WARP001"}
    # The configured --fail-on is a verdict condition: WARP001 alone leaves rocm-7.2 short of blocked.
    assert res.exit_code == 0
    # The command line wins over the file.
    assert {c for c, _ in _codes(_run(str(repo / "dev" / "cuda"), "-f", "json", "-q", "--select", "API"))} == {"API005"}
    assert {c for c, _ in _codes(_run(str(repo / "dev"), "-f", "json", "-q", "--isolated"))} >= {"API005", "WARP002"}


def test_vado_toml_wins_over_pyproject_and_discovery_stops_at_the_repository(repo: Path, tmp_path: Path):
    (repo / "pyproject.toml").write_text('[tool.vado]\nselect = ["WARP"]\n')
    (repo / "dev" / "vado.toml").write_text('select = ["API"]\n')
    assert find_config(repo / "dev" / "cuda") == repo / "dev" / "vado.toml"
    assert {c for c, _ in _codes(_run(str(repo / "dev" / "cuda"), "-f", "json", "-q"))} == {"API005"}
    # A pyproject.toml without [tool.vado] is not a configuration.
    (repo / "dev" / "vado.toml").unlink()
    (repo / "dev" / "pyproject.toml").write_text('[project]\nname = "y"\n')
    assert find_config(repo / "dev" / "cuda") == repo / "pyproject.toml"
    # Above the repository's top nothing is read.
    outer = tmp_path / "outer"
    (outer / "inner" / ".git").mkdir(parents=True)
    (outer / "vado.toml").write_text('select = ["PTX"]\n')
    assert find_config(outer / "inner") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tool.vado]\nselct = ["WARP"]\n', "unknown setting selct"),
        ('[tool.vado]\nselect = 3\n', "select must be a string or a list of strings"),
        ('[tool.vado]\nfail-on = ["sometimes"]\n', "bad --fail-on value 'sometimes'"),
        ("[tool.vado\n", "is not valid TOML"),
    ],
)
def test_a_bad_configuration_is_a_usage_error(repo: Path, text: str, message: str):
    (repo / "pyproject.toml").write_text(text)
    res = _run(str(repo / "dev"))
    assert res.exit_code == 2
    assert message in " ".join(res.output.split())


def test_explicit_config_file(repo: Path, tmp_path: Path):
    cfg = tmp_path / "elsewhere.toml"
    cfg.write_text('select = ["API005"]\n')
    assert {c for c, _ in _codes(_run(str(repo / "dev"), "-f", "json", "-q", "--config", str(cfg)))} == {"API005"}
    assert _run(str(repo / "dev"), "--config", str(tmp_path / "missing.toml")).exit_code == 2


def test_per_file_ignores_on_the_command_line(repo: Path):
    (repo / "dev" / "cuda" / "other.cu").write_text(KERNEL)
    found = _run(str(repo), "-f", "json", "-q", "--per-file-ignores", "dev/cuda/k.cu:WARP,API")
    paths = {(f["span"]["path"], f["code"][:3]) for f in json.loads(found.stdout)["findings"]}
    assert ("dev/cuda/k.cu", "WAR") not in paths and ("dev/cuda/k.cu", "API") not in paths
    assert ("dev/cuda/other.cu", "WAR") in paths
    assert _run(str(repo), "--per-file-ignores", "nocolon").exit_code == 2


# --- inline suppressions -------------------------------------------------------------------------


def test_inline_suppressions(tmp_path: Path):
    src = tmp_path / "k.cu"
    src.write_text(
        "#include <cuda_runtime.h>  // vado: ignore\n"
        "__global__ void k(float* a) {\n"
        "  int lane = threadIdx.x & 31;  // vado: ignore[WARP001]\n"
        "  // vado: ignore-next-line[warp]\n"
        "  int w = threadIdx.x / 32;\n"
        "  int l2 = threadIdx.x & 31;  /* vado: ignore[PTX001] names another code */\n"
        "  a[lane] += __shfl_down_sync(0xffffffff, a[lane], 16) + w + l2;\n"
        "}\n"
    )
    kept = _codes(_run(str(src), "-f", "json", "-q", "--isolated"))
    assert ("WARP001", 6) in kept
    assert not [c for c in kept if c[1] in (1, 3, 5)]
    everything = _codes(_run(str(src), "-f", "json", "-q", "--isolated", "--no-suppressions"))
    assert {("API005", 1), ("WARP001", 3), ("WARP001", 5)} <= set(everything)


def test_file_suppression_in_a_build_file(tmp_path: Path):
    (tmp_path / "CMakeLists.txt").write_text(
        "# vado: ignore-file[BLD]\ncmake_minimum_required(VERSION 3.18)\nproject(x LANGUAGES CXX CUDA)\n"
        "find_package(CUDAToolkit REQUIRED)\nadd_executable(x main.cu)\n"
    )
    (tmp_path / "main.cu").write_text(KERNEL)
    kept = {c for c, _ in _codes(_run(str(tmp_path), "-f", "json", "-q", "--isolated"))}
    assert not any(c.startswith("BLD") for c in kept)
    loud = {c for c, _ in _codes(_run(str(tmp_path), "-f", "json", "-q", "--isolated", "--no-suppressions"))}
    assert any(c.startswith("BLD") for c in loud)


def test_suppression_parser():
    data = b"a // vado: ignore[WARP001, PTX]\n// vado: ignore-next-line\nb\n# vado: ignore-file[DEP002]\nvado:ignore[]\n"
    whole, lines = suppressions(data)
    assert whole == {"DEP002"}
    assert lines == {1: {"WARP001", "PTX"}, 3: {"ALL"}, 5: {"ALL"}}
    assert suppressions(b"no comments here\n") == (frozenset(), {})


# --- baseline ------------------------------------------------------------------------------------


def test_baseline_hides_known_findings_and_survives_moved_lines(repo: Path):
    base = repo / "vado-baseline.json"
    src = repo / "dev" / "cuda" / "k.cu"
    res = _run(str(repo / "dev"), "--write-baseline", str(base), "--isolated")
    assert res.exit_code == 0, res.output
    doc = json.loads(base.read_text())
    assert doc["vado_baseline"] == 1 and doc["findings"]
    assert {f["path"] for f in doc["findings"]} == {"dev/cuda/k.cu"}  # repository-relative
    assert _codes(_run(str(repo / "dev"), "-f", "json", "-q", "--isolated", "--baseline", str(base))) == []
    # Lines moved down and one new finding: only the new one is reported.
    src.write_text("// a new comment\n\n" + KERNEL.replace("int w =", "int x = threadIdx.x % 32;\n  int w ="))
    res = _run(str(repo / "dev" / "cuda"), "-f", "json", "-q", "--isolated", "--baseline", str(base))
    assert _codes(res) == [("WARP001", 6)]
    assert res.exit_code == 1
    # Through the configuration, relative to the configuration file.
    (repo / "vado.toml").write_text('baseline = "vado-baseline.json"\n')
    assert _codes(_run(str(repo / "dev" / "cuda"), "-f", "json", "-q")) == [("WARP001", 6)]


def test_bad_baseline_is_a_usage_error(repo: Path):
    (repo / "b.json").write_text('{"findings": []}')
    assert _run(str(repo), "--baseline", str(repo / "b.json")).exit_code == 2
    assert _run(str(repo), "--baseline", str(repo / "missing.json")).exit_code == 2


def test_fingerprints_ignore_blanks_and_count_repeats():
    class F:
        def __init__(self, line):
            self.code, self.span = "WARP001", type("S", (), {"line": line})()

    data = b"x  =  t & 31;\nx = t & 31;\ny = 1;\n"
    a, b, c = fingerprints([F(1), F(2), F(3)], data)
    assert a != b  # the same text twice: the second is the second occurrence
    assert fingerprints([F(1)], b"\n\nx = t & 31;\n".replace(b"\n\nx", b"x"))[0] == a
    assert len({a, b, c}) == 3


# --- --fail-on ------------------------------------------------------------------------------------


def test_parse_fail_on():
    f = parse_fail_on(["high", "rocm-7.2:blocked", "needs-manual-work", "zluda=manual", "oneapi blocked", "low"])
    assert f.severity is Severity.LOW
    assert f.verdicts == (
        ("rocm-7.2", Verdict.BLOCKED), (None, Verdict.MANUAL), ("zluda", Verdict.MANUAL), ("oneapi", Verdict.BLOCKED)
    )
    with pytest.raises(UsageError, match="unknown target"):
        parse_fail_on(["rocm-99:blocked"])
    with pytest.raises(UsageError, match="does not report"):
        parse_fail_on(["zluda:blocked"], ["rocm-7.2"])
    with pytest.raises(UsageError, match="neither a severity nor a verdict"):
        parse_fail_on(["rocm-7.2:maybe"])


def test_fail_on_a_verdict_decides_the_exit_code(tmp_path: Path):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    # Header renames alone: rocm-7.2 moves with automatic edits.
    assert _run(str(src), "-q", "--isolated", "--select", "API", "--fail-on", "rocm-7.2:needs-manual-work").exit_code == 0
    assert _run(str(src), "-q", "--isolated", "--select", "API", "--fail-on", "rocm-7.2:moves-with-automatic-edits").exit_code == 1
    assert _run(str(src), "-q", "--isolated", "--select", "API").exit_code == 1  # default: any finding
    res = _run(str(src), "--isolated", "--select", "API", "--fail-on", "critical,rocm-7.2=automatic")
    assert res.exit_code == 1
    assert "fail-on: rocm-7.2: moves-with-automatic-edits" in res.stderr
    assert _run(str(src), "--fail-on", "rocm-7.2:sideways").exit_code == 2


# --- exit codes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{src}", "-o", "{tmp}/missing/report.json"], "does not exist"),
        (["{src}", "-o", "{tmp}"], "is a directory"),
        (["{tmp}/nope"], "does not exist"),
        (["{src}", "--target", "rocm-99"], "unknown target"),
        (["{src}", "--write-baseline", "{tmp}/missing/b.json"], "does not exist"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(tmp_path: Path, args: list[str], message: str):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    res = _run(*[a.format(src=src, tmp=tmp_path) for a in args])
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.stderr.split())
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


# --- several paths (pre-commit) --------------------------------------------------------------------


def test_several_paths_are_audited_relative_to_the_working_directory(repo: Path):
    (repo / "README.md").write_text("# not code\n")
    (repo / "dev" / "cuda" / "skip.cu").write_text(KERNEL)
    res = _run("dev/cuda/k.cu", "README.md", "-f", "json", "-q", "--select", "WARP001", cwd=repo)
    assert res.exit_code == 1, res.output
    doc = json.loads(res.stdout)
    assert {f["span"]["path"] for f in doc["findings"]} == {"dev/cuda/k.cu"}
    assert doc["stats"]["files_scanned"] == 1
    assert _run("README.md", "README.md", "-q", cwd=repo).exit_code == 0  # nothing vado reads


def test_pre_commit_hook_definition_runs_on_named_files():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "vado")
    assert hook["entry"].split()[:2] == ["vado", "audit"] and "--format concise" in hook["entry"]
    assert hook.get("pass_filenames", True) is True and hook["require_serial"] is True
    files = re.compile(hook["files"])
    for name in ("src/k.cu", "a/b.cuh", "x.cpp", "inc/y.hpp", "CMakeLists.txt", "cmake/cuda.cmake", "Makefile",
                 "docker/Dockerfile", "requirements.txt", "requirements-dev.txt", "setup.py", "pyproject.toml"):
        assert files.search(name), name
    for name in ("README.md", "docs/index.rst", "image.png"):
        assert not files.search(name), name


def test_github_action_uploads_sarif():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert {"path", "fail-on", "args", "sarif-file", "upload-sarif", "version", "summary"} <= set(action["inputs"])
    steps = action["runs"]["steps"]
    run_text = "\n".join(s.get("run", "") for s in steps)
    assert "vado audit" in run_text and "--format sarif" in run_text
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert upload["uses"].endswith("@v4")  # v3 is deprecated in December 2026
    assert upload["continue-on-error"] is True  # a failed upload falls back to annotations
    assert "GITHUB_STEP_SUMMARY" in run_text and "--format github" in run_text


# A kernel with a finding that vado's port fixes by itself, and one that needs a person (inline PTX with no equivalent).
AUTOMATIC = "__global__ void k(int* o, int v) {\n  o[threadIdx.x] = __any_sync(0xffffffff, v);\n}\n"
MANUAL = ('__global__ void k(unsigned* a) {\n  unsigned r;\n'
          '  asm volatile("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(1u), "r"(2u), "r"(3u));\n  a[0] = r;\n}\n')


def _hook_argv() -> list[str]:
    hook = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "vado")
    return hook["entry"].split()[2:] + hook.get("args", [])


def test_the_hook_by_default_fails_only_on_work_a_person_must_do(tmp_path: Path):
    (tmp_path / "auto.cu").write_text(AUTOMATIC)
    (tmp_path / "manual.cu").write_text(MANUAL)
    passing = _run(*_hook_argv(), "auto.cu", cwd=tmp_path)
    assert passing.exit_code == 0, passing.output
    assert "auto.cu:2:" in passing.stdout and "rocm-7.2: moves with automatic edits" in passing.stdout
    failing = _run(*_hook_argv(), "auto.cu", "manual.cu", cwd=tmp_path)
    assert failing.exit_code == 1, failing.output
    assert "manual.cu:3:3: PTX002" in failing.stdout


def test_exit_zero_and_statistics(tmp_path: Path):
    (tmp_path / "manual.cu").write_text(MANUAL)
    (tmp_path / "auto.cu").write_text(AUTOMATIC)
    res = _run(str(tmp_path), "--exit-zero")
    assert res.exit_code == 0 and "fail-on:" in res.stderr and "--exit-zero" in res.stderr
    assert _run(str(tmp_path), "--exit-zero", "--select", "NOPE").exit_code == 2  # usage errors still count
    res = _run(str(tmp_path), "--statistics", "-q")
    assert res.exit_code == 1
    rows = res.stdout.splitlines()
    assert any(r.split()[1:3] == ["PTX002", "high"] or "PTX002" in r.split() for r in rows)
    assert all(r.split()[0].isdigit() for r in rows)
    doc = json.loads(_run(str(tmp_path), "--statistics", "-f", "json", "-q").stdout)
    assert {r["code"] for r in doc} >= {"PTX002", "WARP009"} and all(r["count"] >= 1 for r in doc)


@pytest.mark.parametrize("fmt", ["github", "gitlab", "junit"])
def test_ci_formats_from_the_command_line(repo: Path, fmt: str):
    res = _run(".", "-f", fmt, "-q", cwd=repo)
    assert res.exit_code == 1, res.output
    assert "dev/cuda/k.cu" in res.stdout  # repository-relative paths
    again = CliRunner().invoke(app, ["report", "-f", fmt, str(_audit_json(repo))])
    assert again.exit_code == 0, again.output


def _audit_json(repo: Path) -> Path:
    out = repo / "audit.json"
    res = _run(".", "-f", "json", "-o", str(out), "-q", cwd=repo)
    assert res.exit_code == 1, res.output
    return out


def test_the_action_steps_run_as_github_runs_them(repo: Path, tmp_path: Path):
    """The composite action's shell steps, in order, with GitHub's files and the inputs' defaults
    (the install step aside: vado is already installed here; the upload is GitHub's own action)."""
    import re as _re
    import shutil
    import subprocess

    if shutil.which("vado") is None:
        pytest.skip("no vado script on PATH")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs["upload-sarif"] = "false"
    (repo / "dev" / "cuda" / "manual.cu").write_text(MANUAL)
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    gh_output, summary = tmp_path / "output", tmp_path / "summary.md"
    outputs: dict[str, str] = {}

    def expand(text: str) -> str:
        text = _re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], text)
        return _re.sub(r"\$\{\{\s*steps\.audit\.outputs\.([\w-]+)\s*\}\}", lambda m: outputs.get(m.group(1), ""), text)

    logs = {}
    for step in action["runs"]["steps"]:
        if "run" not in step or step.get("name") == "Install vado":
            continue
        env = {**os.environ, "GITHUB_OUTPUT": str(gh_output), "GITHUB_STEP_SUMMARY": str(summary),
               "RUNNER_TEMP": str(runner_temp), **{k: expand(str(v)) for k, v in step.get("env", {}).items()}}
        if step["name"] == "Fail on findings" and outputs.get("exit-code") != "1":
            continue
        gh_output.write_text("")
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
        logs[step["name"]] = proc
        for line in gh_output.read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[key] = value
    assert outputs["exit-code"] == "1"  # manual.cu needs a person: the default fail-on fails
    assert (repo / "vado.sarif").exists() and json.loads((repo / "vado.sarif").read_text())["version"] == "2.1.0"
    assert "## Verdicts" in summary.read_text() and "## Findings" not in summary.read_text()
    notes = logs["Annotations"].stdout
    assert "::error file=dev/cuda/manual.cu,line=3,col=3,title=PTX002" in notes, logs["Annotations"].stderr
    assert logs["Fail on findings"].returncode == 1


def test_config_merging_keeps_the_file_and_adds_the_command_line(tmp_path: Path):
    base = Config(project_root=tmp_path, select=("WARP",), ignore=("WARP002",), fail_on=("high",))
    merged = base.merged(extend_select=["PTX"], ignore=["WARP009"], fail_on=[])
    assert merged.select == ("WARP",) and merged.extend_select == ("PTX",)
    assert merged.ignore == ("WARP002", "WARP009") and merged.fail_on == ("high",)
    assert base.merged(select=["API"]).select == ("API",)


# --- suppression checks and --add-noqa ------------------------------------------------------------------

SUPPRESSED = ("__global__ void k(int* o, int v) {\n"
              "  o[threadIdx.x] = __any_sync(0xffffffff, v);  // vado: ignore[WARP999]\n"
              "  int x = 1; // vado: ignore[PTX]\n"
              "}\n")


def test_an_unknown_code_in_a_suppression_is_a_warning_with_its_place(tmp_path: Path):
    (tmp_path / "s.cu").write_text(SUPPRESSED)
    res = _run("s.cu", "-f", "concise", cwd=tmp_path)
    err = " ".join(res.stderr.split())
    assert "warning: s.cu:2:51: vado: ignore[WARP999] names WARP999, which is no vado code or prefix" in err
    assert "PTX," not in err and "names PTX" not in err  # a prefix of real codes is fine


def test_unused_suppressions_are_listed_like_ruffs_rule(tmp_path: Path):
    (tmp_path / "s.cu").write_text(SUPPRESSED)
    res = _run("s.cu", "--unused-suppressions", cwd=tmp_path)
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        "s.cu:2:51: unused suppression vado: ignore[WARP999]: no WARP999 finding on line 2",
        "s.cu:3:17: unused suppression vado: ignore[PTX]: no PTX finding on line 3",
    ]
    used = tmp_path / "u.cu"
    used.write_text("__global__ void k(int* o, int v) {\n  // vado: ignore-next-line[WARP]\n"
                    "  o[threadIdx.x] = __any_sync(0xffffffff, v);\n}\n")
    assert _run("u.cu", "--unused-suppressions", cwd=tmp_path).exit_code == 0
    # A code the audit did not select is not called unused: its findings were not looked for.
    assert _run("u.cu", "--unused-suppressions", "--select", "API", cwd=tmp_path).exit_code == 0


def test_add_noqa_suppresses_todays_findings_safely_and_once(tmp_path: Path):
    src = tmp_path / "k.cu"
    src.write_text("#define SPREAD(v) __shfl_xor_sync(0xffffffff, v, 1) \\\n  + 0\n"
                   "__global__ void k(int* o, int v) {\n"
                   "  o[threadIdx.x] = __any_sync(0xffffffff, v);\r\n"
                   "  o[0] = __ballot_sync(0xffffffff, v); /* a comment\n"
                   "  that goes on */ o[1] = SPREAD(v);\n}\n")
    before = _run("k.cu", "-f", "json", "-q", cwd=tmp_path)
    lines_with_findings = {f["span"]["line"] for f in json.loads(before.stdout)["findings"]}
    res = _run("k.cu", "--add-noqa", cwd=tmp_path)
    assert res.exit_code == 0, res.output
    text = src.read_bytes().decode()
    assert "__any_sync(0xffffffff, v);  // vado: ignore[WARP002, WARP009]\r\n" in text  # CRLF kept
    assert "SPREAD(v) __shfl_xor_sync(0xffffffff, v, 1) \\\n" in text  # a continued line takes no comment
    assert "/* a comment\n" in text  # nor a line that ends inside a block comment
    err = " ".join(res.stderr.split())
    assert "not suppressed: the line continues on the next" in err
    after = json.loads(_run("k.cu", "-f", "json", "-q", cwd=tmp_path).stdout)["findings"]
    assert {f["span"]["line"] for f in after} < lines_with_findings and 4 not in {f["span"]["line"] for f in after}
    again = _run("k.cu", "--add-noqa", cwd=tmp_path)
    assert src.read_bytes().decode() == text and "added 0 suppression comments" in " ".join(again.stderr.split())


def test_add_noqa_never_writes_through_a_link_nor_edits_a_makefile(tmp_path: Path):
    real = tmp_path / "real.cu"
    real.write_text(AUTOMATIC)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "link.cu").symlink_to(real)
    (tmp_path / "proj" / "Makefile").write_text("NVCC ?= nvcc\n")
    res = _run("proj", "--add-noqa", "--no-gitignore", cwd=tmp_path)
    assert real.read_text() == AUTOMATIC
    assert (tmp_path / "proj" / "Makefile").read_text() == "NVCC ?= nvcc\n"
    assert "Makefile:1: BLD003 not suppressed" in " ".join(res.stderr.split())
