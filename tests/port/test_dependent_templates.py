"""``template`` before member templates of dependent types (vado.port.dependent_templates).

Compiled by ROCm 7.2.4 through the PORT fixture dependent-template.cu; here, which names get the keyword."""

from __future__ import annotations

from vado.port.dependent_templates import (dependent_template_fixes, member_templates, template_heads,
                                           template_parameters)
from vado.scan.lexer import lex

SRC = """template <typename dst_t, typename src_t>
struct vec_cast {
  template <size_t vec_size>
  __device__ static void cast(dst_t* dst, const src_t* src) {}
  __device__ static void plain(dst_t* dst) {}
};
template <typename S, typename T, size_t N = 4>
__device__ void cast_from(T* d, const S* s) {
  vec_cast<T, S>::cast<N>(d, s);             // dependent: needs the keyword
  vec_cast<T, S>::template cast<N>(d, s);    // already marked
  vec_cast<float, float>::cast<4>(nullptr, nullptr);  // not dependent
  vec_cast<T, S>::plain(d);                  // not a template
  bool b = vec_cast<T, S>::value < N;        // not a member template: a comparison
  bool c = vec_cast<T, S>::cast < N;         // no `<…>(` call: left as written
}
"""


def _apply(src: str) -> str:
    out = src
    for fix in dependent_template_fixes("k.cu", src, lex(src)):
        for e in sorted(fix.edits, key=lambda e: e.start, reverse=True):
            out = out[:e.start] + e.content + out[e.end:]
    return out


def test_heads_parameters_and_member_templates():
    toks = lex(SRC)
    heads = template_heads(toks)
    assert len(heads) == 3
    assert template_parameters(toks, heads) == {"dst_t", "src_t", "vec_size", "S", "T", "N"}
    assert member_templates(toks, heads) == {"cast", "cast_from"}


def test_only_the_dependent_member_template_gets_the_keyword():
    out = _apply(SRC)
    assert "  vec_cast<T, S>::template cast<N>(d, s);             // dependent" in out
    assert out.count("::template cast<N>") == 2 and "vec_cast<float, float>::cast<4>" in out
    assert "vec_cast<T, S>::plain(d)" in out and "vec_cast<T, S>::value < N" in out
    assert "vec_cast<T, S>::cast < N;" in out
    assert _apply(out) == out


def test_files_without_member_templates_are_left_alone():
    src = "template <class T> struct A { static const int v = 1; };\ntemplate <class T> int f() { return A<T>::v; }\n"
    assert dependent_template_fixes("k.cu", src, lex(src)) == []
