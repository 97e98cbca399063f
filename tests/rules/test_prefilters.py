"""The fast paths of the device-code rules give exactly what a loop over all tokens gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vado.rules import cuda_syntax as cs
from vado.rules.ptx import PtxTextLoadedAtRunTime, _may_hold_ptx_text
from vado.scan.classify import FileKind
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
        # "version" spelt only through escapes: the text never shows the word
        'const char* m = ".\\166ersion";',
        'const char* m = ".ver\\163ion";',
        'const char* m = ".ver\\u0073ion";',
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


@pytest.mark.parametrize(
    "module",
    [
        '".\\166ersion 7.0\\n.target sm_80\\n"',  # octal escape for the v
        '".ver" "sion 7.0\\n" ".target sm_80\\n"',  # split over literals
        'R"(.version 7.0\n.target sm_80\n)"',  # raw literal
    ],
)
def test_ptx_text_finding_survives_the_run_prefilter(module):
    """Runs that cannot spell ".version" are skipped; the one that does is still found, where it is."""
    from vado.knowledge.targets import default_audit_targets
    from vado.rules.engine import check_text

    text = ('const char* a = "\\x41\\x42" "plain"; const char* b = "\\t";\n'
            f"const char* ptx = {module};\nconst char* c = \"\\x43\";\n")
    found = check_text("m.cu", text, default_audit_targets(), rules=[PtxTextLoadedAtRunTime])
    assert [f.code for f in found] == ["PTX004"]
    start = text.index("const char* ptx = ") + len("const char* ptx = ")
    assert (found[0].span.start, found[0].span.end) == (start, start + len(module))


def test_literal_warp_width_candidates_are_the_literals_beside_their_operator():
    """WARP001 reads the literals its set work picks, exactly those a look at every 5, 31 and 32 keeps."""
    from vado.rules.warp import LiteralWarpWidthArithmetic as Rule

    text = TRICKY + (
        "int a = t & 31, b = 31 & t, c = t % 32, d = t / 32, e = t >> 5, f = 32 * w, g = w * 32;\n"
        "int h = t & 32, i = 5 >> t, j = t % 31, k = 32 / t, l = (t) & 0x1f, m = t / 0x20, n = 32;\n"
        "int o = t >> 5u, p = t - 32, q = &x[32], r = *32, s = 31 &, 32 * 32 & 31 % 32;\n"
    )
    view = _view(text)
    toks = view.tokens

    def kept(i: int) -> bool:  # the filter the check applied to every literal before
        value = cs.int_value(toks[i][3])
        if i == 0:
            return False
        op = toks[i - 1]
        right = op[0] is Kind.PUNCT and op[3] in Rule._OPS and Rule._OPS[op[3]] == value
        left = (i + 1 < len(toks) and toks[i + 1][0] is Kind.PUNCT and toks[i + 1][3] in ("&", "*")
                and Rule._OPS[toks[i + 1][3]] == value)
        return right or left

    want = [i for i in view.number_indices(5, 31, 32) if kept(i)]
    assert len(want) > 15
    assert Rule()._candidates(view) == want


def test_number_indices_answers_are_fresh_lists():
    view = _view(TRICKY)
    first = view.number_indices(32)
    first.append(-1)
    assert view.number_indices(32) == _brute(view, Kind.NUMBER, lambda t: cs.int_value(t) == 32)


def test_low_precision_names_all_hold_the_needle():
    """ARCH003 skips files without its needles: every name its pattern accepts holds one."""
    from vado.rules.arch import fp8 as arch

    assert all(any(n in name for n in arch._FP_NEEDLES) for name in arch._FP8_NAMES)
    assert all(p.startswith("__nv_fp") for p in arch._FP_SMALL)
    view = _view("__nv_fp8_e4m3 a; __nv_fp4_e2m1 b; nv_fp8 c; __HIP_E4M3_FNUZ d; __hip_fp8_e5m2 e;")
    assert [view.tokens[i][3] for i in view.idents_matching(arch._FP_NAMES)] == [
        "__nv_fp8_e4m3", "__nv_fp4_e2m1", "__hip_fp8_e5m2"]
    assert not any(n in "float x; // no low precision\n" for n in arch._FP_NEEDLES)


def test_rule_triggers_skip_only_files_where_the_rule_finds_nothing():
    """The engine skips a rule with triggers for a file whose code spells none of them: on
    every C-family fixture and example, such a rule run anyway finds nothing, and each rule
    with triggers finds something in some file."""
    from vado.knowledge.targets import default_audit_targets, get_target
    from vado.model.text import decode_source
    from vado.rules.engine import check_context, file_context, rules_for
    from vado.scan.classify import classify

    targets = (*default_audit_targets(), get_target("hip-5.2"))
    root = FIXTURES.parent.parent
    paths = [p for base in ("tests", "examples") for p in sorted((root / base).rglob("*")) if p.is_file()]
    found_somewhere: set[str] = set()
    checked = 0
    for path in paths:
        kind = classify(path.name)
        if kind not in cs.CUDA_CXX_KINDS:
            continue
        text = decode_source(path.read_bytes())
        # A fixture's wave mode (vado-wave: / vado-port: --wave): WARP008 fires only with --wave native.
        wave = re.search(r"vado-wave:[ \t]*(\w+)|vado-port:[^\n]*--wave[ \t]+(\w+)", text)
        options = {"wave": wave.group(1) or wave.group(2)} if wave else {}
        ctx = file_context(path.name, text, targets, kind=kind, options=options)
        index = cs.device_view(ctx).spelling_index
        gated = {f.code for f in check_context(ctx)}
        for rule in rules_for(kind):
            if rule.triggers is None:
                continue
            findings = list(rule.check(ctx))
            if not index.has_any(rule.triggers):
                assert findings == [], (rule.code, path)
            elif findings:
                found_somewhere.add(rule.code)
                assert rule.code in gated, (rule.code, path)
        checked += 1
    assert checked > 50
    with_triggers = {r.code for r in rules_for(FileKind.CUDA_SOURCE) if r.triggers is not None}
    assert len(with_triggers) >= 10 and with_triggers <= found_somewhere, with_triggers - found_somewhere


def test_has_any_matches_a_scan_of_the_spellings():
    view = _view(TRICKY)
    index, ref = view.spelling_index, cs.SpellingIndex(list(view.tokens))
    for texts in [("__managed__",), ("barrier", "nothing"), ("<<<",), ("32",), ("nothing",), (), ("__sync",), ("\u0100",)]:
        want = any(t in ref.spellings(Kind.IDENT) + ref.spellings(Kind.PUNCT) + ref.spellings(Kind.NUMBER) for t in texts)
        assert index.has_any(texts) == ref.has_any(texts) == want, texts


@pytest.mark.parametrize("limit", [0, 5, 31, 32, 64, 255])
def test_plain_integers_left_out_are_above_the_limit(limit):
    """integer_spellings(limit) leaves out only literals int_value reads above the limit."""
    literals = ["0", "0u", "5", "31", "32", "32u", "32UL", "0x1f", "0x20", "0X20ull", "0x00000020", "0xFFFFFFFF",
                "0xffffffffu", "0b100000", "040", "0x", "0x1p-3", "1'000", "1e5", "32_x", "0xg1", "99999999999999999999"]
    text = "int a[] = {" + ", ".join(literals) + "};"
    view = _view(text)
    kept = set(view.spelling_index.integer_spellings(limit))
    for lit in literals:
        if lit not in kept and "." not in lit:
            assert cs.int_value(lit) is not None and cs.int_value(lit) > limit, lit
    assert kept >= {lit for lit in literals if (v := cs.int_value(lit)) is not None and v <= limit}
