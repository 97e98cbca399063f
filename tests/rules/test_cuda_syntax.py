"""Unit tests of the shallow CUDA structure helpers (vado.rules.cuda_syntax)."""

from __future__ import annotations

from vado.model import Target, Verdict
from vado.rules import cuda_syntax as cs
from vado.scan.lexer import code_tokens, tokenize


def toks(text: str) -> list:
    return code_tokens(tokenize(text))


def test_bracket_map_pairs_and_survives_unbalanced_input():
    t = toks("f(a[1], {b}) )")
    pairs = cs.bracket_map(t)
    assert t[pairs[1]][3] == ")" and pairs[pairs[1]] == 1
    assert t[pairs[3]][3] == "]"
    assert len(t) - 1 not in pairs  # the stray ')' matches nothing


def test_split_args_respects_nesting_and_empty_lists():
    text = "g(x, h(y, z), a[i, j])"
    t = toks(text)
    pairs = cs.bracket_map(t)
    args = cs.split_args(t, 1, pairs[1])
    assert [cs.text_of(text, t, a, b) for a, b in args] == ["x", "h(y, z)", "a[i, j]"]
    t2 = toks("g()")
    assert cs.split_args(t2, 1, 2) == []


def test_decode_string_handles_escapes_prefixes_and_raw_strings():
    assert cs.decode_string(r'"mov.u32 %0, %%laneid;\n\t"') == "mov.u32 %0, %%laneid;\n\t"
    assert cs.decode_string(r'"a\\"') == "a\\"
    assert cs.decode_string(r'"\x41\101"') == "AA"
    assert cs.decode_string('R"(x\\n)"') == "x\\n"
    assert cs.decode_string('u8"ok"') == "ok"
    assert cs.decode_string('"unterminated') == "unterminated"


def test_parse_ptx_scopes_predicates_labels_and_comments():
    prog = cs.parse_ptx(
        "{\n .reg .pred p; // temp\n setp.ne.b32 p, %1, 0;\n"
        "LOOP: @!p bra DONE; /* c */ vote.sync.ballot.b32 %0, p, 0xffffffff;\n DONE:\n}"
    )
    assert [i.mnemonic for i in prog.instructions] == ["setp.ne.b32", "bra", "vote.sync.ballot.b32"]
    assert prog.instructions[1].predicate == "!p"
    assert prog.labels == ("LOOP", "DONE")
    assert prog.declares_registers and prog.has_scopes
    vote = prog.instructions[2]
    assert vote.opcode == "vote" and vote.has("sync", "ballot") and vote.operands == ("%0", "p", "0xffffffff")


def test_parse_ptx_reduces_percent_escapes_and_keeps_brace_operands_together():
    prog = cs.parse_ptx("mov.u32 %0, %%laneid; ld.global.v2.f32 {%0, %1}, [%2+8];")
    assert prog.instructions[0].operands == ("%0", "%laneid")
    assert prog.instructions[1].operands == ("{%0, %1}", "[%2+8]")


def test_find_asm_reads_template_operands_and_qualifiers():
    text = 'void f(){ asm volatile("add.u32 %0, %1, %2;" "\\n" : "=r"(d) : "r"(a[i]), "r"(b) : "memory"); }'
    t = toks(text)
    (asm,) = cs.find_asm(text, t)
    assert asm.volatile and not asm.opaque and asm.keyword == "asm"
    assert asm.template == "add.u32 %0, %1, %2;\n"
    assert [(o.constraint, o.expr, o.output) for o in asm.operands] == [("=r", "d", True), ("r", "a[i]", False), ("r", "b", False)]
    assert asm.clobbers == ("memory",)
    assert text[asm.stmt_end - 1] == ";"


def test_find_asm_ignores_comments_strings_and_non_calls_and_flags_macros():
    text = '// asm("x")\nconst char* s = "asm(\\"y\\")"; int asm_count; __asm__(BODY : "=r"(x));\n#define A asm("trap;")\n'
    t = toks(text)
    found = cs.find_asm(text, t)
    assert len(found) == 2
    assert found[0].opaque and found[0].template == ""
    assert found[1].in_directive and found[1].template == "trap;"


def test_find_functions_collects_cuda_qualifiers_through_launch_bounds_and_templates():
    text = (
        "template <typename T, int N>\n__global__ void __launch_bounds__(256) k(T* x) { x[0] = 1; }\n"
        "__host__ __device__ inline int h(int a) const { return a; }\n"
        "void host() { if (x) { y(); } }\n"
    )
    t = toks(text)
    fns = {f.name: f for f in cs.find_functions(t)}
    assert set(fns) == {"k", "h", "host"}
    assert fns["k"].is_kernel and "template" in fns["k"].qualifiers
    assert fns["h"].is_device and "__host__" in fns["h"].qualifiers
    assert not fns["host"].is_device
    inner = text.index("y()")
    assert cs.enclosing_function(list(fns.values()), inner).name == "host"


def test_device_code_holds_statement_bodies_read_like_definitions():
    # `if constexpr (c) {` is no function; a statement macro's `LOOP(i, n) {` reads like one, but C++ has no
    # definition inside a function, so its body is device code in a kernel and host code in a host function.
    # More than eight such bodies before a use must not lose the kernel around them.
    loops = "".join(f"  LOOP(i{k}, n) {{ a[i{k}] = {k}; }}\n" for k in range(12))
    text = ("__global__ void k(int* a, int n) {\n  if constexpr (sizeof(int) == 4) { a[0] = 1; }\n" + loops
            + "  a[1] = FAR;\n  LOOP(j, n) { a[j] = NEAR; }\n}\nvoid h(int* a) { LOOP(i, 4) { a[i] = HOST; } }\n")
    t = toks(text)
    assert "constexpr" not in {f.name for f in cs.find_functions(t)}
    view = cs.DeviceView(text, t)
    for word in ("a[0] = 1", "FAR", "NEAR"):
        assert view.in_device_code(text.index(word)), word
    assert view.function_at(text.index("FAR")).name == "k"
    assert view.function_at(text.index("NEAR")).name == "LOOP"
    assert not view.in_device_code(text.index("HOST"))


def test_find_shared_decls_reads_dims_names_and_qualifiers():
    text = "__global__ void k(){ static __shared__ volatile float s[32][33], t[WARP_SIZE]; extern __shared__ int dyn[]; __shared__ __align__(16) char raw[64]; }"
    t = toks(text)
    decls = {d.name: d for d in cs.find_shared_decls(text, t)}
    assert decls["s"].dims == ("32", "33") and decls["s"].volatile and decls["s"].type_text == "float"
    assert decls["t"].dims == ("WARP_SIZE",)
    assert decls["dyn"].extern and decls["dyn"].dims == ("",)
    assert decls["raw"].dims == ("64",)


def test_find_defines_skips_function_like_macros():
    t = toks("#define WARP_SIZE 32\n#define MAX(a, b) ((a)>(b)?(a):(b))\n#define F (x)\n")
    names = {m.name: m.body_text for m in cs.find_defines(t)}
    assert names == {"WARP_SIZE": "32", "F": "( x )"}


def test_int_value_literals():
    assert [cs.int_value(x) for x in ("32", "0x20", "32u", "0b100000", "040", "1'000", "3.0", "x")] == [32, 32, 32, 32, 32, 1000, None, None]


def _target(family, wavefront, hip=None, **features):
    return Target(name=f"{family}-t", family=family, version="1", hip_version=hip, wavefront=wavefront, features=features)


def test_warp_verdict_per_family_and_wavefront():
    cdna = _target("rocm", {"gfx942": 64, "gfx1100": 32}, "7.2")
    rdna_only = _target("rocm", {"gfx1100": 32}, "7.2")
    assert cs.warp_verdict(cdna, fixable=False) is Verdict.MANUAL
    assert cs.warp_verdict(cdna, fixable=True) is Verdict.AUTOMATIC
    assert cs.warp_verdict(rdna_only, fixable=False) is Verdict.MOVES_AS_IS
    assert cs.warp_verdict(_target("zluda", {"gfx1100": 32}), fixable=False) is Verdict.MOVES_AS_IS
    assert cs.warp_verdict(_target("oneapi", {"pvc": 16}), fixable=True) is Verdict.MANUAL
    assert cs.warp_verdict(_target("scale", {"gfx942": 64}), fixable=False) is Verdict.MOVES_AS_IS
    assert cs.warp_verdict(_target("other", {}), fixable=False) is None


def test_hip_at_least():
    assert cs.hip_at_least(_target("rocm", {}, "7.2"), "7.0")
    assert not cs.hip_at_least(_target("rocm", {}, "5.2"), "6.2")
    assert not cs.hip_at_least(_target("scale", {}), "1.0")


def test_enclosing_paren_stops_at_the_statement_and_optionally_at_a_comma():
    t = toks("x = 1; static_assert(N == f(a, b) && M, \"m\"); g(a, (b + c)); #define P (q\n{ y; }")
    spell = [tok[3] for tok in t]
    n = spell.index("N")
    assert spell[cs.enclosing_paren(t, n) - 1] == "static_assert"
    assert spell[cs.enclosing_paren(t, n, comma_stops=True) - 1] == "static_assert"
    m = spell.index("M")  # past f(a, b): the nested parentheses are skipped
    assert spell[cs.enclosing_paren(t, m) - 1] == "static_assert"
    quoted = spell.index('"m"')  # the message, after a top-level comma
    assert cs.enclosing_paren(t, quoted) is not None
    assert cs.enclosing_paren(t, quoted, comma_stops=True) is None
    c = spell.index("c")  # the inner parenthesis of g's second argument
    assert spell[cs.enclosing_paren(t, c) - 1] == ","
    assert cs.enclosing_paren(t, spell.index("x")) is None  # not inside parentheses
    assert cs.enclosing_paren(t, spell.index("y")) is None  # a block boundary comes first


def test_split_text_args_cuts_at_commas_outside_the_brackets_it_is_given():
    from vado.rules.cuda_syntax.tokens import split_text_args

    assert split_text_args('"=r"(a), "r"(f(b, c)), ') == ['"=r"(a)', ' "r"(f(b, c))', " "]
    assert split_text_args("a<b, c>, d") == ["a<b", " c>", " d"]  # '<' is no bracket by default
    assert split_text_args("a<b, c>, d", "()[]{}<>") == ["a<b, c>", " d"]
    assert split_text_args("") == [""]
