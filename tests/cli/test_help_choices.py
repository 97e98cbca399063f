"""Help lists the choices of options that have fixed ones, and shows no value placeholder for flags."""

from __future__ import annotations

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from vado.cli.app import app


def _commands():
    """(argv of the command, click command) for the root, every command and every subcommand."""
    import typer._click as click

    root = get_command(app)
    out = [((), root)]
    for name, cmd in root.commands.items():
        out.append(((name,), cmd))
        for sub, subcmd in getattr(cmd, "commands", {}).items():
            out.append(((name, sub), subcmd))
    return out, click


COMMANDS, _click = _commands()


@pytest.mark.parametrize("argv,cmd", COMMANDS, ids=[" ".join(a) or "vado" for a, _ in COMMANDS])
def test_help_shows_choices_and_no_flag_types(argv, cmd, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")
    monkeypatch.setenv("NO_COLOR", "1")
    res = CliRunner().invoke(app, [*argv, "--help"])
    assert res.exit_code == 0, res.output
    assert "<bool>" not in res.stdout
    ctx = _click.Context(cmd, info_name="vado")
    for param in cmd.get_params(ctx):
        if param.param_type_name != "option":
            continue
        shown = param.display_type_rich(ctx)
        if param.is_flag:
            assert not shown, (argv, param.opts, shown)
        desc = param.type_descriptor
        if desc.is_choice:
            choices = "|".join(str(c) for c in desc.choices)
            assert shown == f"<{choices}>" and shown in res.stdout, (argv, param.opts, shown)


@pytest.mark.parametrize("argv,expected", [
    (("port",), ["<chevron|ggl>", "<warp32|native>", "<text|json|concise|sarif|markdown|html|github|gitlab|junit>"]),
    (("verify",), ["<stdout|files|numpy>", "<auto|amd|nvidia>", "<32|64>", "<text|json>"]),
    (("plan",), ["<text|json|markdown|html>", "local|ray|ray=ADDRESS"]),
    (("audit",), ["<text|concise|json|sarif|markdown|html|github|gitlab|junit>"]),
    (("tune",), ["<grid|random>"]),
    (("bench", "kernel"), ["<nvcc|hipcc|hip-nvidia>", "<fp32|bf16>"]),
    (("bench", "serve"), ["<completions|chat>"]),
    (("agent",), ["<openai|anthropic>"]),
    (("lookup",), ["<text|json>"]),
])
def test_fixed_choices_are_listed(argv, expected, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")
    monkeypatch.setenv("NO_COLOR", "1")
    out = CliRunner().invoke(app, [*argv, "--help"]).stdout
    for text in expected:
        assert text in out, (argv, text)


def test_a_value_outside_the_choices_is_a_usage_error():
    res = CliRunner().invoke(app, ["port", "x", "-o", "y", "--launch", "triple"])
    assert res.exit_code == 2
    assert "'triple' is not one of 'chevron', 'ggl'" in " ".join(w for w in res.stderr.split() if w != "│")


def test_bench_keeps_its_default_command():
    # bench's own group class (a first word that is no subcommand runs `bench run`) survives the help change.
    res = CliRunner().invoke(app, ["bench", "-n", "1", "-w", "0", "true"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("vado bench true\n") and "1 timed after 0 warm-up, 0 failed" in res.stdout


def test_format_choices_are_what_the_renderers_write():
    from typing import get_args

    from vado.bench import render as bench_render
    from vado.cli import bench, plan, port, report
    from vado.plan import render as plan_render
    from vado.report import FORMATS as AUDIT_FORMATS

    assert set(get_args(plan.Format)) == set(plan_render.FORMATS)
    assert set(get_args(bench.Format)) == {*bench_render.FORMATS, "json"}
    assert set(get_args(port.Format)) == set(AUDIT_FORMATS)  # text and json of the port; the others of its audit
    assert {"text", "json", "markdown", "html"} <= set(get_args(report.Format))


@pytest.mark.parametrize("argv", [("audit",), ("report",), ("plan",), ("port",), ("verify",), ("agent",), ("bench", "run")])
def test_several_values_are_shown_as_names_not_python_types(argv, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")
    out = CliRunner().invoke(app, [*argv, "--help"]).stdout
    assert "<list[" not in out and "list[" not in out, argv


def test_explain_prints_plain_text_not_restructuredtext():
    out = CliRunner().invoke(app, ["explain", "WARP009"]).stdout
    assert "``" not in out and ".. code-block" not in out and ":func:" not in out
    assert "`vado_any_sync32`" in out or "vado_any_sync32" in out
    assert "\n    bool dup = __any_sync(0xffffffff, p);\n" in out  # code blocks indented, as text
