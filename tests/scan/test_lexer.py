"""The C/C++/CUDA lexer: exact spans, directives, splices, literals, and never failing."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vado.model.text import decode_source
from vado.scan.lexer import END, KIND, START, TEXT, Kind, code_tokens, joined_directive_text, spelling, tokenize

D, H, E, I, N, S, C, P, M = (
    Kind.DIRECTIVE, Kind.HEADER, Kind.EOD, Kind.IDENT, Kind.NUMBER, Kind.STRING, Kind.CHAR, Kind.PUNCT, Kind.COMMENT,
)  # fmt: skip


def kt(src: str) -> list[tuple[Kind, str]]:
    """(kind, text) of every token."""
    return [(k, t) for k, _, _, t in tokenize(src)]


def texts(src: str) -> list[str]:
    return [t for _, _, _, t in tokenize(src)]


# --- basics -------------------------------------------------------------------------


def test_empty_and_blank_texts_have_no_tokens():
    assert tokenize("") == []
    assert tokenize(" \t\f\v\r\n  \\\n") == []


def test_token_tuple_layout_and_offset():
    toks = tokenize("int x;", offset=100)
    assert toks == [(I, 100, 103, "int"), (I, 104, 105, "x"), (P, 105, 106, ";")]
    tok = toks[0]
    assert (tok[KIND], tok[START], tok[END], tok[TEXT]) == (I, 100, 103, "int")


def test_kinds_are_enum_members_so_identity_checks_work():
    for tok in tokenize('#include <a>\nint x = 1; // c\nchar c = \'a\'; auto s = "s";'):
        assert tok[0] is Kind(tok[0])


def test_code_tokens_drop_comments_only():
    toks = tokenize("a /* b */ c // d\ne")
    assert [t[3] for t in code_tokens(toks)] == ["a", "c", "e"]


# --- literals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "src, expected",
    [
        ('"a\\"b"', [(S, '"a\\"b"')]),
        ('u8"x" u"x" U"x" L"x"', [(S, 'u8"x"'), (S, 'u"x"'), (S, 'U"x"'), (S, 'L"x"')]),
        ("u8'a' u'a' U'a' L'a' '\\''", [(C, "u8'a'"), (C, "u'a'"), (C, "U'a'"), (C, "L'a'"), (C, "'\\''")]),
        ('R"(a)" LR"(b)" u8R"(c)" uR"(d)" UR"(e)"', [(S, 'R"(a)"'), (S, 'LR"(b)"'), (S, 'u8R"(c)"'), (S, 'uR"(d)"'), (S, 'UR"(e)"')]),
        ('R"xy(a)" )"b)xy" z', [(S, 'R"xy(a)" )"b)xy"'), (I, "z")]),
        ('R"(line1\nline2)"', [(S, 'R"(line1\nline2)"')]),
        # A name that merely ends like a prefix is a name; R before ' is a name.
        ("R'x' LRU\"s\"", [(I, "R"), (C, "'x'"), (I, "LRU"), (S, '"s"')]),
        ('foo"x"', [(I, "foo"), (S, '"x"')]),
        # User-defined literals: a suffix with '_' is part of the token (as in GCC) ...
        ('"abc"_s \'c\'_ch R"(r)"_raw 12_km 1.5_deg', [(S, '"abc"_s'), (C, "'c'_ch"), (S, 'R"(r)"_raw'), (N, "12_km"), (N, "1.5_deg")]),
        # ... one without '_' is a macro after the literal (inttypes.h formats).
        ('"%"PRId64', [(S, '"%"'), (I, "PRId64")]),
        ('operator""_w', [(I, "operator"), (S, '""_w')]),
    ],
)
def test_strings_and_chars(src, expected):
    assert kt(src) == expected


@pytest.mark.parametrize(
    "src, expected",
    [
        ("1'000'000", ["1'000'000"]),
        ("0x1p-3 0x1.8P+4f 1e+10 1.e5 .5f 2.f", ["0x1p-3", "0x1.8P+4f", "1e+10", "1.e5", ".5f", "2.f"]),
        ("0b1010'1010u 0xFFull 10ULL", ["0b1010'1010u", "0xFFull", "10ULL"]),
        ("1'a'", ["1'a", "'"]),  # a separator needs a digit or letter after it; the rest is an unterminated char
        ("1+2", ["1", "+", "2"]),
        ("a.b .5 x...", ["a", ".", "b", ".5", "x", "..."]),
    ],
)
def test_numbers(src, expected):
    assert texts(src) == expected


def test_unterminated_literals_stop_at_the_line_end():
    assert kt('x = "abc\ny') == [(I, "x"), (P, "="), (S, '"abc'), (I, "y")]
    assert kt("c = 'a\r\nd") == [(I, "c"), (P, "="), (C, "'a"), (I, "d")]
    assert kt('"abc') == [(S, '"abc')]


def test_unterminated_raw_string_and_block_comment_run_to_the_end():
    assert kt('a R"x(never closed )" \n b') == [(I, "a"), (S, 'R"x(never closed )" \n b')]
    assert kt("a /* never closed\n b") == [(I, "a"), (M, "/* never closed\n b")]


def test_a_raw_string_delimiter_longer_than_16_is_not_a_raw_string():
    src = 'R"12345678901234567(x)12345678901234567"'
    assert kt(src)[0] == (I, "R")


# --- punctuation and launches -------------------------------------------------------


def test_triple_chevrons_are_single_tokens():
    assert texts("k<<<grid, block, 0, s>>>(a);") == ["k", "<<<", "grid", ",", "block", ",", "0", ",", "s", ">>>", "(", "a", ")", ";"]


def test_template_closing_triple_is_one_token_too():
    # Maximal munch: consumers count '>>>' as three '>' outside a launch (see lexer docs).
    assert texts("a<b<c>>>d") == ["a", "<", "b", "<", "c", ">>>", "d"]
    assert texts("x >>= 1; y <<= 2; a<=>b; p->*q; s.*t; ::f") == [
        "x", ">>=", "1", ";", "y", "<<=", "2", ";", "a", "<=>", "b", ";", "p", "->*", "q", ";", "s", ".*", "t", ";", "::", "f",
    ]  # fmt: skip


def test_division_and_comments():
    assert kt("a/b /= c // d") == [(I, "a"), (P, "/"), (I, "b"), (P, "/="), (I, "c"), (M, "// d")]


def test_unknown_bytes_are_one_char_punct():
    assert kt("a @ ` \\ \x00 \x7f") == [(I, "a"), (P, "@"), (P, "`"), (P, "\\"), (P, "\x00"), (P, "\x7f")]


def test_hash_and_hashhash_outside_directives_are_punct():
    assert kt("a##b # c") == [(I, "a"), (P, "##"), (I, "b"), (P, "#"), (I, "c")]


# --- directives ---------------------------------------------------------------------


def test_include_forms():
    assert kt("#include <cuda_runtime.h>\n") == [(D, "#include"), (H, "<cuda_runtime.h>"), (E, "")]
    assert kt("#include<stdio.h>") == [(D, "#include"), (H, "<stdio.h>"), (E, "")]
    assert kt("  #  include <a/b.h> // why\n") == [(D, "#  include"), (H, "<a/b.h>"), (M, "// why"), (E, "")]
    assert kt("#include_next <x>\n#import <y>") == [(D, "#include_next"), (H, "<x>"), (E, ""), (D, "#import"), (H, "<y>"), (E, "")]
    assert kt('#include "local.h"') == [(D, "#include"), (S, '"local.h"'), (E, "")]
    assert kt("#include MACRO_HEADER") == [(D, "#include"), (I, "MACRO_HEADER"), (E, "")]


def test_angle_brackets_are_headers_only_right_after_include():
    assert kt("#define X <a>\nmyinclude <b>") == [
        (D, "#define"), (I, "X"), (P, "<"), (I, "a"), (P, ">"), (E, ""), (I, "myinclude"), (P, "<"), (I, "b"), (P, ">"),
    ]  # fmt: skip


def test_header_name_with_quote_or_slashes_inside():
    assert kt("#include <a'b> x\ny") == [(D, "#include"), (H, "<a'b>"), (I, "x"), (E, ""), (I, "y")]
    assert kt("#include <a//b>\ny") == [(D, "#include"), (H, "<a//b>"), (E, ""), (I, "y")]


def test_eod_positions():
    src = "#define A 1\nint x;"
    toks = tokenize(src)
    assert toks[3] == (E, 11, 11, "")
    assert src[11] == "\n"
    crlf = "#define A 1\r\nint x;"
    assert tokenize(crlf)[3] == (E, 11, 11, "")  # before the CR, not between CR and LF
    assert tokenize("#pragma once")[-1] == (E, 12, 12, "")


def test_define_with_continuations_and_stringize():
    src = "# define STR(x) #x \\\n  a ## b \\\r\n  c\nnext"
    assert kt(src) == [
        (D, "# define"), (I, "STR"), (P, "("), (I, "x"), (P, ")"), (P, "#"), (I, "x"), (I, "a"), (P, "##"), (I, "b"),
        (I, "c"), (E, ""), (I, "next"),
    ]  # fmt: skip


def test_continuation_line_starting_with_hash_is_not_a_new_directive():
    assert kt("#define S(x) \\\n#x\ny") == [(D, "#define"), (I, "S"), (P, "("), (I, "x"), (P, ")"), (P, "#"), (I, "x"), (E, ""), (I, "y")]


def test_block_comment_spanning_lines_carries_the_directive_on():
    src = "#define M /* a\nb */ c\nd"
    assert kt(src) == [(D, "#define"), (I, "M"), (M, "/* a\nb */"), (I, "c"), (E, ""), (I, "d")]


def test_comment_openers_inside_strings_or_line_comments_do_not_extend_a_directive():
    assert kt('#define P "/*"\nint q; /* */') == [(D, "#define"), (I, "P"), (S, '"/*"'), (E, ""), (I, "int"), (I, "q"), (P, ";"), (M, "/* */")]
    assert kt("#define X 1 // see /* here\nint z;")[:5] == [(D, "#define"), (I, "X"), (N, "1"), (M, "// see /* here"), (E, "")]


def test_line_comment_continued_by_backslash_continues_the_directive():
    assert kt("#define A 1 // c \\\n still comment\nB") == [(D, "#define"), (I, "A"), (N, "1"), (M, "// c \\\n still comment"), (E, ""), (I, "B")]
    assert kt("// c\\\nstill\nx") == [(M, "// c\\\nstill"), (I, "x")]


def test_directive_after_a_comment_at_line_start():
    assert kt("/* lic */ #include <a>\n") == [(M, "/* lic */"), (D, "#include"), (H, "<a>"), (E, "")]


def test_hash_after_code_on_the_same_line_is_not_a_directive():
    assert kt("x /* c */ #define y") == [(I, "x"), (M, "/* c */"), (P, "#"), (I, "define"), (I, "y")]
    assert kt("x \\\n#define y") == [(I, "x"), (P, "#"), (I, "define"), (I, "y")]  # a splice joins the lines


def test_null_directive_and_line_markers():
    assert kt("#\n# 1 \"f.c\"\n") == [(D, "#"), (E, ""), (D, "#"), (N, "1"), (S, '"f.c"'), (E, "")]


def test_directive_name_split_by_a_splice():
    assert kt("#\\\ndefine X\n") == [(D, "#\\\ndefine"), (I, "X"), (E, "")]
    assert joined_directive_text("#\\\ndefine") == "#define"
    assert kt("#inc\\\nlude <a>\n") == [(D, "#inc\\\nlude"), (H, "<a>"), (E, "")]


# --- splices inside tokens ----------------------------------------------------------


def test_splice_inside_an_identifier_keeps_one_token():
    src = "cuda\\\nMalloc(p);"
    toks = tokenize(src)
    assert toks[0] == (I, 0, 12, "cuda\\\nMalloc")
    assert spelling(toks[0][3]) == "cudaMalloc"
    assert [t[3] for t in toks[1:]] == ["(", "p", ")", ";"]


def test_splices_inside_numbers_operators_and_comment_openers():
    assert kt("1\\\n23 +\\\n+ x /\\\n* c */ y") == [(N, "1\\\n23"), (P, "+\\\n+"), (I, "x"), (M, "/\\\n* c */"), (I, "y")]
    assert kt('"ab\\\ncd"') == [(S, '"ab\\\ncd"')]
    assert spelling('"ab\\\r\ncd"') == '"abcd"'


def test_splice_with_trailing_blanks_counts_like_gcc():
    assert kt("#define A 1 \\  \nB\nC") == [(D, "#define"), (I, "A"), (N, "1"), (I, "B"), (E, ""), (I, "C")]


def test_backslash_not_before_a_newline_is_punct():
    assert kt("a \\ b") == [(I, "a"), (P, "\\"), (I, "b")]


# --- line endings and bytes ---------------------------------------------------------


def test_crlf_file():
    src = "#include <a.h>\r\nint x;\r\n// c\r\n"
    assert kt(src) == [(D, "#include"), (H, "<a.h>"), (E, ""), (I, "int"), (I, "x"), (P, ";"), (M, "// c")]


def test_lone_cr_ends_lines():
    assert kt("#a\r#include <b>\rint") == [(D, "#a"), (E, ""), (D, "#include"), (H, "<b>"), (E, ""), (I, "int")]
    assert kt("// c\rx") == [(M, "// c"), (I, "x")]


def test_non_utf8_bytes_in_the_latin1_view():
    data = b"// caf\xe9 \xc3\xa9\nint \xe9t\xe9 = 1; char *s = \"\xff\";\n"
    src = decode_source(data)
    toks = tokenize(src)
    assert toks[0] == (M, 0, 10, "// caf\xe9 \xc3\xa9")
    assert toks[2][3] == "\xe9t\xe9"  # high bytes are identifier characters, as GCC takes UTF-8 names
    for _, s, e, t in toks:
        assert data[s:e] == t.encode("latin-1")


def test_nul_bytes():
    assert kt("a\x00b") == [(I, "a"), (P, "\x00"), (I, "b")]
    assert kt('"a\x00b"') == [(S, '"a\x00b"')]


def test_utf8_bom_is_not_a_token():
    assert tokenize("\xef\xbb\xbf#include <a>\nx")[:2] == [(D, 3, 11, "#include"), (H, 12, 15, "<a>")]


def test_long_trailing_whitespace_is_linear():
    src = "x" + " \n" * 200_000
    assert tokenize(src) == [(I, 0, 1, "x")]


# --- properties ---------------------------------------------------------------------

_GAP = re.compile(r"(?:[ \t\f\v\r\n]|\\[ \t\f\v]*(?:\r\n|\n|\r))*")


def check_invariants(src: str) -> list:
    toks = tokenize(src)
    # A byte order mark at offset 0 (latin-1 view or decoded) is skipped like a blank.
    pos = 3 if src.startswith("\xef\xbb\xbf") else 1 if src.startswith("\ufeff") else 0
    for i, (kind, start, end, text) in enumerate(toks):
        assert isinstance(kind, Kind)
        assert pos <= start <= end, (i, toks[i - 1 : i + 1])
        assert src[start:end] == text
        assert (start == end) == (kind is Kind.EOD)
        gap = src[pos:start]
        assert _GAP.fullmatch(gap), (pos, start, gap)
        pos = end
    assert _GAP.fullmatch(src[pos:])
    # Directives nest properly: every DIRECTIVE has exactly one EOD after it.
    depth = 0
    for kind, *_ in toks:
        if kind is Kind.DIRECTIVE:
            assert depth == 0
            depth = 1
        elif kind is Kind.EOD:
            assert depth == 1
            depth = 0
        elif kind is Kind.HEADER:
            assert depth == 1
    assert depth == 0
    return toks


_FRAGMENTS = [
    "#", "##", "#include", "#define", "# define", "#if", "#endif", "include", "<", ">", ">>>", "<<<", "<a.h>",
    "int", "x", "__global__", "cudaMalloc", "u8", "u", "L", "R", "LR", "\"s\"", "\"a\\\"b\"", "'c'", "'\\''",
    'R"(raw)"', 'R"d(r)d"', 'R"(', ")\"", "1", "1'000", "0x1p-3", "1.5_km", ".5", "/", "*", "/*", "*/", "//",
    "/* c */", "// c", "(", ")", "{", "}", ";", ",", "::", "->", "\\", "\x00", "\xe9", "\xef\xbb\xbf", "\"", "'",
]  # fmt: skip
_SEPARATORS = ["", " ", "\n", "\r\n", "\r", "\t", "\\\n", "\\\r\n", " \\\n", "\\ \n", "\n\n"]
snippets = st.lists(st.tuples(st.sampled_from(_FRAGMENTS), st.sampled_from(_SEPARATORS)), max_size=40).map(
    lambda parts: "".join(a + b for a, b in parts)
)
latin1_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=255), max_size=300)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(latin1_text)
def test_invariants_on_arbitrary_latin1_text(src):
    check_invariants(src)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_invariants_on_arbitrary_unicode_text(src):
    check_invariants(src)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snippets)
def test_invariants_on_c_like_snippets(src):
    check_invariants(src)


_SPLICE = re.compile(r"\\[ \t\f\v]*(?:\r\n|\n|\r)")
no_raw_fragments = [f for f in _FRAGMENTS if "R" not in f and f not in ("\\", "\xef\xbb\xbf")]
splice_free_snippets = st.lists(st.tuples(st.sampled_from(no_raw_fragments), st.sampled_from(_SEPARATORS)), max_size=30).map(
    lambda parts: "".join(a + b for a, b in parts)
)


@settings(max_examples=400, deadline=None)
@given(splice_free_snippets)
def test_lexing_with_splices_equals_lexing_the_spliced_text(src):
    # Phase 2 first, then tokens: the token kinds and spellings must not depend on
    # where the splices were (raw strings revert splices, so they are left out).
    spliced = _SPLICE.sub("", src)
    if _SPLICE.search(spliced):  # a splice formed by deleting another one: phase 2 runs once
        return
    got = [(k, spelling(t)) for k, _, _, t in tokenize(src)]
    want = [(k, t) for k, _, _, t in tokenize(spliced)]
    assert got == want
