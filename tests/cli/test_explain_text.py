"""``vado explain`` prints rule documentation as plain text: no reStructuredText markup reaches the reader."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from vado.cli.app import app
from vado.cli.explain import explained_sections
from vado.report.rst_text import inline, to_text
from vado.rules.registry import all_rules

RULES = all_rules()


def _markup(line: str) -> list[str]:
    found = []
    if "``" in line:
        found.append("double backticks")
    if re.search(r":[a-z]+(:[a-z]+)?:`", line):
        found.append("role")
    if re.match(r"\s*\.\.\s", line):
        found.append("directive")
    if re.search(r"`[^`]+`_", line):
        found.append("link")
    return found


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_every_rule_explains_without_markup(rule):
    sections = explained_sections(rule)
    assert sections and sections[0][0] == "", rule.code  # an intro first
    for title, body in sections:
        for line in body.splitlines():
            assert not _markup(line), (rule.code, title, line)


def test_explain_command_output(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    res = CliRunner().invoke(app, ["explain", "PTX001"])
    assert res.exit_code == 0, res.output
    assert "``" not in res.stdout and ".. code-block" not in res.stdout
    # The example's code is kept, indented, under its heading.
    assert re.search(r"Example\n {4}\S", res.stdout)
    assert "__lane_id()" in res.stdout


def test_explain_list_still_lists_every_rule(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    res = CliRunner().invoke(app, ["explain", "--list"])
    assert res.exit_code == 0
    for r in RULES:
        assert r.code in res.stdout


@pytest.mark.parametrize("rst,text", [
    ("use ``hipMalloc`` here", "use hipMalloc here"),
    (":func:`vado.port.apply` and :mod:`~vado.scan.pydeps`", "vado.port.apply and pydeps"),
    (":class:`the model <vado.model.Finding>`", "the model"),
    ("`HIP docs <https://rocm.docs.amd.com>`_", "HIP docs (https://rocm.docs.amd.com)"),
    ("a *removed* and **gone** name", "a removed and gone name"),
    ("libraries hip*/roc* and nvidia-* wheels", "libraries hip*/roc* and nvidia-* wheels"),
    ("``*p`` and ``a * b``", "*p and a * b"),
    ("a \\*literal star", "a *literal star"),
])
def test_inline(rst, text):
    assert inline(rst) == text


def test_blocks():
    rst = ("Intro with ``x``\nover two lines *really*\ncontinued.\n\n.. code-block:: cuda\n\n"
           "    int *p = *q;  // ``kept``\n\nThen::\n\n    raw *here*\n\n.. note:: Mind ``y``.\n\n.. a comment\n")
    assert to_text(rst) == ("Intro with x\nover two lines really\ncontinued.\n\n"
                            "    int *p = *q;  // ``kept``\n\nThen:\n\n    raw *here*\n\nNote: Mind y.")
