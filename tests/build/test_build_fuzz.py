"""The build readers on arbitrary input: no exception but the documented ValueError."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vado.build.cmdline import parse_command
from vado.build.compdb import read_compile_db
from vado.build.make import parse_dry_run

WORDS = st.lists(st.one_of(st.sampled_from(["nvcc", "hipcc", "g++", "cc", "-x", "-I", "-D", "-isystem", "-o", "-c",
                                            "-Xcompiler", "-include", "a.cu", "b.c", "-std", "--threads", "-arch",
                                            "-iquote", "-U", "=", "-x=cu", "-rdc", ""]), st.text(max_size=12)),
                 max_size=12)


@settings(max_examples=300, deadline=None)
@given(WORDS)
def test_parse_command_never_raises(words):
    for u in parse_command(words, "/d"):
        assert u.source.startswith("/") and isinstance(u.flag_args(), list)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_parse_dry_run_never_raises(text):
    parse_dry_run(text, "/d")


JSONS = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                     lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from(
                         ["file", "directory", "command", "arguments", "x"]), c, max_size=4), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(JSONS)
def test_compile_db_reads_any_json(tmp_path_factory, value):
    p = tmp_path_factory.mktemp("db") / "compile_commands.json"
    p.write_text(json.dumps(value))
    try:
        read_compile_db(p)
    except ValueError as exc:
        assert "not a JSON list" in str(exc)
