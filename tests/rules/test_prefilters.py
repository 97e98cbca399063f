"""The fast paths of the device-code rules give exactly what a loop over all tokens gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from vado.rules import cuda_syntax as cs
from vado.rules.ptx import PtxTextLoadedAtRunTime, _may_hold_ptx_text
from vado.scan.lexer import Kind, code_tokens, tokenize

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# Identifiers in comments, strings, members, spliced and after a byte order mark.
TRICKY = (
    "\xef\xbb\xbf__managed__ int a; // __managed__ in a comment\n"
    '#define W 32\nconst char* s = "__syncwarp() 32 <<<";\n'
    "x.__syncwarp(); y->barrier; cuda::barrier b; __sync\\\nwarp();\n"
    "int v = t % 0x20 + 32u + 5 + 1e5 + 0b100000 + 040 + .32 + 32.0; k<<<1, 32>>>(v); a <<= 2;\n"
    "__syncwarpX(); X__syncwarp(); $__syncwarp; __syncwarp();\n"
)


def _view(text: str) -> cs.DeviceView:
    return cs.DeviceView(text, code_tokens(tokenize(text)))


def _brute(view: cs.DeviceView, kind: Kind, pred) -> list[int]:
    return [i for i, t in enumerate(view.tokens) if t[0] is kind and pred(t[3])]


@pytest.mark.parametrize("names", [("__managed__",), ("__syncwarp", "barrier"), ("cuda", "b", "a", "k"), ("nothing",)])
def test_ident_indices_match_a_full_scan(names):
    view = _view(TRICKY)
    assert view.ident_indices(names) == _brute(view, Kind.IDENT, lambda t: t in names)


def test_ident_indices_find_a_name_right_after_a_byte_order_mark():
    view = _view(TRICKY)
    assert view.tokens[view.ident_indices(("__managed__",))[0]][1] == 3


def test_punct_and_number_indices_match_a_full_scan():
    view = _view(TRICKY)
    assert view.punct_indices("<<<") == _brute(view, Kind.PUNCT, lambda t: t == "<<<")
    for values in [(32,), (31, 32), (5,), (7,)]:
        assert view.number_indices(*values) == _brute(view, Kind.NUMBER, lambda t: cs.int_value(t) in values)


def test_bracket_map_matches_the_reference_on_unbalanced_input():
    def reference(tokens):
        pairs, stack = {}, []
        for i, tok in enumerate(tokens):
            if tok[0] is not Kind.PUNCT:
                continue
            if tok[3] in cs.OPEN:
                stack.append((tok[3], i))
            elif tok[3] in cs.CLOSE:
                for depth in range(len(stack) - 1, -1, -1):
                    if stack[depth][0] == cs.CLOSE[tok[3]]:
                        j = stack[depth][1]
                        del stack[depth:]
                        pairs[j], pairs[i] = i, j
                        break
        return pairs

    text = 'f(a[1), "(" ; { g(x)] } ) ] ( [ { } '
    toks = code_tokens(tokenize(text))
    assert cs.bracket_map(toks) == reference(toks)


@pytest.mark.parametrize(
    "text",
    [
        'const char* m = ".version 7.0\\n.target sm_80\\n";',
        'const char* m = ".ver" "sion 7.0\\n";',
        'const char* m = ".ver" /* split */ "sion 7.0";',
        'const char* m = ".ver" // split\n "sion 7.0";',
        'const char* m = "\\x2eversion";',
        'const char* m = "\\56version";',
        'cuModuleLoad(&m, "kernel.PTX");',
        "opts[0] = CU_JIT_INPUT_PTX;",
        "nvrtcGetPTX(prog, buf);",
        'const char* m = u8".ver" "sion";',
        'const char* m = ".ver"_s "sion";',
        'const char* m = R"(.ver)" "sion";',
        'const char* m = ".ver\\\nsion";',
    ],
)
def test_ptx_text_prefilter_lets_through_what_could_match(text):
    assert _may_hold_ptx_text(_view(text))


@pytest.mark.parametrize(
    "text",
    [
        'int main() { printf("%d\\n", 1); return 0; }  // a comment\n',
        '// .version 7.0 in a comment, cuModuleLoad too\nint x;',
        'const char* a = "ver"; const char* b = "tab\\there";',
        "int version = 3;",
    ],
)
def test_ptx_text_prefilter_drops_plain_code(text):
    assert not _may_hold_ptx_text(_view(text))


def test_ptx_text_prefilter_keeps_every_fixture_finding():
    from vado.knowledge.targets import default_audit_targets
    from vado.rules.engine import check_text

    for path in sorted(FIXTURES.glob("*/*.cu")):
        text = path.read_text(encoding="latin-1")
        found = check_text(path.name, text, default_audit_targets(), rules=[PtxTextLoadedAtRunTime])
        if found:
            assert _may_hold_ptx_text(_view(text)), path
