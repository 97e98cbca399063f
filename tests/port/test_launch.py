"""hipLaunchKernelGGL rewriting (``--launch ggl``)."""

from __future__ import annotations

import pytest

from vado.port.apply import fixpoint
from vado.port.launch import find_launches, launch_fixes
from vado.scan.lexer import Kind, tokenize


def ggl(text: str) -> str:
    return fixpoint(text, lambda t: launch_fixes("k.cu", t, tokenize(t))).text


@pytest.mark.parametrize(
    ("src", "want"),
    [
        ("k<<<g, b>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x);"),
        ("k<<<1, 1>>>();", "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0);"),
        ("k<<<g, b, shm, s>>>(a, b);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, s, a, b);"),
        ("k<<<g, b, 0>>>(a);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, a);"),
        ("k<T, 4><<<g, b>>>(a);", "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<T, 4>), dim3(g), dim3(b), 0, 0, a);"),
        ("k<A<int>><<<g, b>>>(a);", "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<A<int>>), dim3(g), dim3(b), 0, 0, a);"),
        ("ns::in::k<<<g, b>>>(a);", "hipLaunchKernelGGL(ns::in::k, dim3(g), dim3(b), 0, 0, a);"),
        ("::k<<<g, b>>>(a);", "hipLaunchKernelGGL(::k, dim3(g), dim3(b), 0, 0, a);"),
        ("k<<<dim3(2, 2), dim3(8, 8)>>>(a);", "hipLaunchKernelGGL(k, dim3(2, 2), dim3(8, 8), 0, 0, a);"),
        ("k<<<f(n, 2), b>>>(g(a, b));", "hipLaunchKernelGGL(k, dim3(f(n, 2)), dim3(b), 0, 0, g(a, b));"),
        ("#define L(x) k<<<1, 2>>>(x)\n", "#define L(x) hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, x)\n"),
    ],
)
def test_launch_rewrites(src: str, want: str):
    assert ggl(src) == want
    assert ggl(want) == want  # the output is a fixpoint


@pytest.mark.parametrize(
    "src",
    [
        "int x = a << 3;",  # shifts are not launches
        "// k<<<1, 1>>>(x);\n",  # comments stay
        'const char* s = "k<<<1, 1>>>(x)";',  # strings stay
        "k<<<1>>>(x);",  # one configuration argument is not a well-formed launch
    ],
)
def test_not_a_launch(src: str):
    assert ggl(src) == src


def test_find_launches_reports_template_and_config():
    toks = [t for t in tokenize("k<float><<<a, b, c, d>>>(x);") if t[0] is not Kind.COMMENT]
    (launch,) = find_launches(toks)
    assert launch.templated and len(launch.config) == 4


def test_launches_with_split_chevrons_are_launches_too():
    """Issue 25: clang-format writes old CUDA launches as `k<< <g, b >> >(x)`; nvcc takes it, clang does not."""
    text = "void f() { k<< <g, b >> >(x, y); k<<<1, 2>> >(z); t<T><< < 4, 8, 0, s>>>(w); }"
    toks = [t for t in tokenize(text) if t[0] is not Kind.COMMENT]
    assert find_launches(toks) == []  # without the text the spacing cannot be seen
    assert [(len(l.config), l.templated) for l in find_launches(toks, text)] == [(2, False), (2, False), (4, True)]
    out = text
    for fix in sorted(launch_fixes("k.cu", text, toks), key=lambda f: -f.edits[0].start):
        e = fix.edits[0]
        out = out[:e.start] + e.content + out[e.end:]
    assert out == ("void f() { hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y); "
                   "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, z); "
                   "hipLaunchKernelGGL(HIP_KERNEL_NAME(t<T>), dim3(4), dim3(8), 0, s, w); }")
