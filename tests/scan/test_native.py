"""The compiled hot paths (vado._native_ext) against the pure-Python reference.

Every compiled function is a translation of a Python one that stays in the code
base; these tests feed both the same inputs (generated snippets, arbitrary
bytes, every C-family fixture of the repository) and require equal results.
Where the extension was not built they skip, except under ``VADO_REQUIRE_NATIVE=1``
(set by scripts/test.sh, so CI notices a build that silently fell back to Python).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vado import native
from vado.model.text import decode_source
from vado.rules import cuda_syntax as cs
from vado.scan import facts as facts_mod
from vado.scan.lexer import Kind, code_tokens, is_native_tokens, lex, python_tokens, tokenize

ROOT = Path(__file__).resolve().parents[2]
needs_native = pytest.mark.skipif(not native.available(), reason="vado._native_ext is not built (pure Python in use)")


def test_extension_is_built_where_required():
    if os.environ.get("VADO_REQUIRE_NATIVE") == "1":
        assert native.available(), "vado._native_ext failed to build: run `pip install -e .` with a C compiler"
    else:
        pytest.skip("VADO_REQUIRE_NATIVE is not set")


# --- inputs ------------------------------------------------------------------------

_FRAGMENTS = [
    "#", "##", "#include", "#include_next", "#import", "#define", "# define", "#undef", "#pragma", "#error",
    "#if", "#endif", "include", "<", ">", ">>>", "<<<", "<<=", ">>=", "<=>", "->*", "...", ".*", "%=", "/=",
    "&&=", "<a.h>", "<a'b>", "<a//b>", "\"q.h\"", "int", "x", "__global__", "__shared__", "asm", "volatile",
    "cudaMalloc", "cub", "::", "DeviceReduce", "u8", "u", "U", "L", "R", "LR", "u8R", "\"s\"", "\"a\\\"b\"",
    "'c'", "'\\''", 'R"(raw)"', 'R"d(r)d"', 'R"0123456789abcdefg(x)0123456789abcdefg"', 'R"(', ")\"", "1",
    "1'000", "0x1p-3", "1e+5", "1.5_km", ".5", "..", "32", "0x20", "31u", "\"lib.so.1\"", "\"libcudnn.so\"",
    "\"cublas64_12.dll\"", "\"x\"_s", "/", "*", "/*", "*/", "//", "/* c */", "// c", "(", ")", "[", "]", "{",
    "}", ";", ",", ".", "->", "=", "\\", "\x00", "\xe9", "\xef\xbb\xbf", "\"", "'", "@", "$x", "k<<<1,2>>>(a)",
]  # fmt: skip
_SEPARATORS = ["", " ", "\n", "\r\n", "\r", "\t", "\\\n", "\\\r\n", " \\\n", "\\ \n", "\n\n", "\f", "\v"]
snippets = st.lists(st.tuples(st.sampled_from(_FRAGMENTS), st.sampled_from(_SEPARATORS)), max_size=50).map(
    lambda parts: "".join(a + b for a, b in parts)
)
latin1_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=255), max_size=400)


def corpus() -> list[Path]:
    """Every C-family file of the repository's fixtures and examples."""
    exts = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".hip", ".inl", ".inc"}
    out = [p for base in ("tests", "examples") for p in sorted((ROOT / base).rglob("*")) if p.suffix in exts]
    assert len(out) > 50  # the fixtures are there
    return out


# --- the lexer ---------------------------------------------------------------------


def check_lexers_agree(src: str) -> None:
    want = python_tokens(src)
    assert tokenize(src) == want
    seq = lex(src)
    assert list(seq) == want
    assert seq == want and want == seq
    assert len(seq) == len(want)


@needs_native
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snippets)
def test_compiled_lexer_equals_python_on_c_like_snippets(src):
    check_lexers_agree(src)


@needs_native
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(latin1_text)
def test_compiled_lexer_equals_python_on_arbitrary_bytes(src):
    check_lexers_agree(src)


@needs_native
@settings(max_examples=100, deadline=None)
@given(st.text(max_size=100))
def test_text_beyond_latin1_falls_back_to_python(src):
    # Only decoded sources are latin-1 views; other strs take the Python lexer, same tokens.
    check_lexers_agree(src)


@needs_native
@pytest.mark.parametrize(
    "src",
    [
        "",
        "\xef\xbb\xbf#include <a.h>\n",
        "x = 1;\\",
        '"abc\\',
        "u8\"x\" L'y' U\"z\" u'w' LR\"(r)\" u8R\"d(q)d\"",
        'R"' + "a" * 17 + '(x)' + "a" * 17 + '"',
        "#include <a'b> c\n#include <a//b>\nint x;",
        "# /* c */ define X 1\n",
        "#define A(x) #x ## y\n#\n# 1 \"file\"\n",
        "a /* \n */ # b\n",
        "#define X /* one\n two */ y\nz",
        "cuda\\\nMalloc(p);\n#def\\\nine Q 1\n",
        "\r\n#if 1\r\n#endif\r\n",
        "int\x00x;\x80\xff",
    ],
)
def test_compiled_lexer_equals_python_on_edge_cases(src):
    check_lexers_agree(src)


@needs_native
def test_compiled_lexer_equals_python_on_the_fixture_corpus():
    for path in corpus():
        check_lexers_agree(decode_source(path.read_bytes()))


@needs_native
@settings(max_examples=300, deadline=None)
@given(latin1_text)
def test_compiled_line_starts_equal_python(src):
    from vado.model.text import line_starts, python_line_starts

    assert line_starts(src) == python_line_starts(src)
    assert line_starts(src + "\u0100\n") == python_line_starts(src + "\u0100\n")  # not a latin-1 view: Python


# --- the token sequence --------------------------------------------------------------


@needs_native
def test_token_sequence_behaves_like_a_read_only_list():
    src = "int main() { return 0; } // done\n"
    seq, want = lex(src), python_tokens(src)
    assert is_native_tokens(seq)
    assert seq[0] == want[0] and seq[-1] == want[-1] and seq[len(want) - 1] == want[-1]
    assert seq[2:5] == want[2:5] and seq[::-2] == want[::-2] and seq[5:2] == []
    assert list(reversed(seq)) == want[::-1]
    assert want[3] in seq
    assert seq[1] is seq[1]  # a tuple is built once
    assert seq.code() == code_tokens(want)
    with pytest.raises(IndexError):
        seq[len(want)]
    with pytest.raises(IndexError):
        seq[-len(want) - 1]
    with pytest.raises(TypeError):
        seq["x"]
    with pytest.raises(TypeError):
        hash(seq)
    assert seq != want[:-1] and not (seq == "text")


@needs_native
def test_texts_with_joining_splices_lex_to_a_list():
    # Splices inside tokens are lexed on the spliced text and mapped back: a real list.
    assert type(lex("cuda\\\nMalloc(p);")) is list


# --- facts, bracket pairs, spelling index ---------------------------------------------


def check_passes_agree(src: str) -> None:
    ref_tokens = python_tokens(src)
    want_facts, want_code = facts_mod._python_facts(src, ref_tokens)
    for tokens in (lex(src), tokenize(src)):
        got_facts, got_code = facts_mod.extract_facts_and_code(src, tokens)
        assert got_facts == want_facts
        assert list(got_code) == want_code
        assert cs.bracket_map(got_code) == cs.python_bracket_map(want_code)
        check_pairs_behave(cs.bracket_map(got_code), cs.python_bracket_map(want_code), len(want_code))
        assert cs.find_functions(got_code) == cs.python_find_functions(want_code)
        index, ref = cs.spelling_index(got_code), cs.SpellingIndex(want_code)
        for kind in (Kind.IDENT, Kind.PUNCT, Kind.NUMBER):
            spellings = ref.spellings(kind)
            assert index.spellings(kind) == spellings
            for text in spellings:
                assert index.where(text) == ref.where(text)
        assert index.where("no such spelling") == [] and index.where("\u0100") == []
        assert index.directive_marks() == ref.directive_marks()
        assert index.string_indices() == ref.string_indices()
        check_index_queries(index, ref)
    # The index of all tokens (the translator's), built by hashing; the code tokens' one above
    # is derived from it.
    full = lex(src)
    if is_native_tokens(full):
        check_index_queries(full, cs.SpellingIndex(ref_tokens))


def check_pairs_behave(pairs, ref: dict, n: int) -> None:
    """The bracket map answers every question the rules ask as the dict does."""
    from collections.abc import Mapping

    assert isinstance(pairs, Mapping) and len(pairs) == len(ref)
    assert dict(pairs) == ref and sorted(pairs) == sorted(ref) and sorted(pairs.items()) == sorted(ref.items())
    assert sorted(pairs.keys()) == sorted(ref.keys()) and sorted(pairs.values()) == sorted(ref.values())
    for key in (*range(-2, n + 2), "0", None, 2**70):  # int keys only (no float equal to one)
        assert (key in pairs) == (isinstance(key, int) and key in ref)
        assert pairs.get(key) == (ref.get(key) if isinstance(key, int) else None)
        assert pairs.get(key, "none") == (ref.get(key, "none") if isinstance(key, int) else "none")
        if isinstance(key, int) and key in ref:
            assert pairs[key] == ref[key]
        else:
            with pytest.raises(KeyError):
                pairs[key]
    assert not (pairs != ref) and (pairs == {**ref, -5: 0}) is False


def check_index_queries(index, ref: cs.SpellingIndex) -> None:
    """The lookups built on the index: directives, integer literals, indices of a set of spellings,
    texts and kinds without tuples, words inside spellings."""
    assert index.directives() == ref.directives()
    for kind in Kind:
        assert index.kind_indices(kind) == ref.kind_indices(kind)
        for words in [("warp", "wave"), ("malloc", "devicer"), ("cub",), ("x", "nothing"), ("nothing",), ()]:
            assert index.spelling_mentions(kind, words) == ref.spelling_mentions(kind, words), (kind, words)
    every = list(range(len(ref._tokens)))
    assert index.texts(every[::2]) == ref.texts(every[::2]) and index.texts([]) == []
    if every:
        assert index.texts([-1]) == ref.texts([-1])
        with pytest.raises(IndexError):
            index.texts([len(every)])
    for limit in (-1, 0, 5, 32, 64, 1 << 40):
        assert index.integer_spellings(limit) == ref.integer_spellings(limit)
    assert index.integer_spellings() == ref.integer_spellings()
    names = ref.spellings(Kind.IDENT)
    many = set(names) | {f"absent{k}" for k in range(len(names) + 3)}  # more names than spellings: probed per spelling
    for kind in (Kind.IDENT, Kind.PUNCT, Kind.NUMBER):
        for texts in (names[:3], tuple(names[::2]) + ("absent", "\u0100"), set(names[1:4]), dict.fromkeys(names), many,
                      ref.spellings(kind), [*ref.spellings(kind)[:2], *ref.spellings(kind)[:2]], ()):
            assert index.indices_of(texts, kind) == ref.indices_of(texts, kind), (texts, kind)


@needs_native
@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snippets)
def test_compiled_passes_equal_python_on_snippets(src):
    check_passes_agree(src)


_FUNCTION_PARTS = [
    "f", "g", "(", ")", "{", "}", ";", ",", "<", ">", ">>", "template", "typename T", "__global__", "__device__",
    "__host__", "static", "inline", "__forceinline__", "extern", "constexpr", "virtual", "const", "volatile",
    "noexcept", "noexcept(true)", "throw()", "override", "&", "&&", "->", "int", "auto", "__launch_bounds__(256)",
    "__attribute__((x))", "__declspec(y)", "alignas(16)", "__align__(8)", "public", "private", ":", "::", ".",
    "return", "new", "=", "if", "for", "while", "sizeof", "#define F", "\n", "struct S", "class C", "x",
]


@needs_native
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_FUNCTION_PARTS), max_size=60).map(" ".join))
def test_compiled_functions_equal_python(src):
    code = facts_mod.extract_facts_and_code(src, lex(src))[1]
    assert cs.find_functions(code) == cs.python_find_functions(list(code))


@needs_native
def test_compiled_passes_equal_python_on_the_fixture_corpus():
    for path in corpus():
        check_passes_agree(decode_source(path.read_bytes()))


@needs_native
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"\n", b"x"]), max_size=60),
       st.lists(st.sampled_from([b"a\n", b"b\n", b"d\n", b"\n", b"x"]), max_size=60))
def test_compiled_matching_blocks_equal_difflib(a, b):
    import difflib

    assert native.ext.matching_blocks(a, b) == [tuple(m) for m in difflib.SequenceMatcher(None, a, b).get_matching_blocks()]


@needs_native
def test_compiled_matching_blocks_equal_difflib_past_the_autojunk_size():
    import difflib
    import random

    rng = random.Random(7)
    for _ in range(40):  # 200 lines or more: difflib leaves out "popular" lines, and so must the C code
        a = [rng.choice([b"{\n", b"}\n", b"x;\n", b"\n"]) + (b"%d\n" % rng.randint(0, 30) if rng.random() < 0.3 else b"")
             for _ in range(rng.randint(150, 450))]
        b = list(a)
        for _ in range(rng.randint(0, 30)):
            b.insert(rng.randint(0, len(b)), b"new%d\n" % rng.randint(0, 5))
        assert native.ext.matching_blocks(a, b) == [tuple(m) for m in difflib.SequenceMatcher(None, a, b).get_matching_blocks()]


@needs_native
def test_compiled_uses_are_read_on_demand_and_behave_like_the_dict():
    src = "#define N 4\nvoid f(float* p) { cudaMalloc(&p, N); s.cudaFree(); cudaMalloc(&p, 8); }\n"
    facts, _ = facts_mod.extract_facts_and_code(src, lex(src))
    want = facts_mod.python_facts(src, python_tokens(src)).idents
    uses = facts.idents
    assert isinstance(uses, facts_mod.LazyUses)
    assert list(uses) == list(want) and len(uses) == len(want)  # first-use order, as the dict
    assert uses["cudaMalloc"] == want["cudaMalloc"] == [src.index("cudaMalloc"), src.rindex("cudaMalloc")]
    assert uses == want and want == uses and dict(uses) == want
    assert uses.keys() & {"cudaMalloc", "absent"} == {"cudaMalloc"}
    assert "cudaFree" not in uses and uses["N"] == [src.rindex("N")]  # a member, a macro being defined: no uses
    assert uses.get("cudaFree") is None and uses.get("p") == want["p"]
    with pytest.raises(KeyError):
        uses["cudaFree"]
    assert repr(uses) == repr(want)


def test_facts_of_a_pragma_library_and_a_quoted_include():
    src = '#pragma comment(lib, "cublas.lib")\n#include "cudnn.h"\nvoid f() { dlopen("libcufft.so.11", 0); }\n'
    facts = facts_mod.extract_facts(src, lex(src))
    assert [(l.name, l.how) for l in facts.links] == [("cublas", "pragma"), ("cufft", "load")]
    assert [(i.path, i.system) for i in facts.includes] == [("cudnn.h", False)]
    assert facts == facts_mod.python_facts(src, python_tokens(src))


# --- the whole audit -------------------------------------------------------------------


def _audit_json(env_native: str, root: Path) -> dict:
    code = (
        "import json, sys\n"
        "from vado.audit import audit\n"
        "from vado.report.json_report import audit_document\n"
        "d = audit_document(audit(sys.argv[1], jobs=1))\n"
        "d['stats'].pop('duration_s', None)\n"
        "print(json.dumps(d, sort_keys=True))\n"
    )
    env = dict(os.environ, VADO_NATIVE=env_native)
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


@needs_native
@pytest.mark.parametrize("tree", ["examples/vecops", "tests/fixtures"])
def test_audit_is_the_same_with_and_without_the_extension(tree):
    assert _audit_json("0", ROOT / tree) == _audit_json("1", ROOT / tree)
