"""Tests of the one-pass fact extraction (includes, uses, launches, kernels, links)."""

from __future__ import annotations

from vado.rules.base import FileContext
from vado.scan.classify import FileKind
from vado.scan.facts import Include, KernelDef, LinkRef, extract_facts, source_facts
from vado.scan.lexer import tokenize


def facts(src: str):
    return extract_facts(src, tokenize(src))


def at(src: str, needle: str, nth: int = 0) -> int:
    pos = -1
    for _ in range(nth + 1):
        pos = src.index(needle, pos + 1)
    return pos


def test_includes_system_quoted_and_macro():
    src = '#include <cuda_runtime.h>\n#  include "my_cudnn_helpers.h"\n#include HEADER_MACRO\n#include_next <cublas_v2.h>\n'
    f = facts(src)
    assert f.includes == (
        Include("cuda_runtime.h", True, 9, 25, 0),
        Include("my_cudnn_helpers.h", False, at(src, '"my'), at(src, '.h"') + 3, at(src, "#  include")),
        Include("cublas_v2.h", True, at(src, "<cublas"), at(src, "v2.h>") + 5, at(src, "#include_next")),
    )
    assert "HEADER_MACRO" not in f.idents  # the operand of #include is not a use


def test_uses_skip_comments_strings_members_and_macro_names():
    src = (
        "// cudaFree in a comment\n"
        "/* cudaMemcpy */ const char* s = \"cudaMalloc\"; char c = 'x';\n"
        "#define cudaCheck(x) report(cudaGetErrorString(x))\n"
        "#undef cudaCheck\n"
        "#error cudaMallocAsync is required\n"
        "#pragma unroll cudaDeviceSynchronize\n"
        "void f() { ops.cudaMemset(p); ptr->cudaStream = 0; CUDA_CHECK(cudaMalloc(&p, 4)); }\n"
    )
    f = facts(src)
    for absent in ("cudaFree", "cudaMemcpy", "cudaMallocAsync", "cudaDeviceSynchronize", "cudaCheck",
                   "cudaMemset", "cudaStream", "unroll"):
        assert absent not in f.idents, absent
    assert f.idents["cudaGetErrorString"] == [at(src, "cudaGetErrorString")]  # macro bodies are code
    assert f.idents["cudaMalloc"] == [at(src, "cudaMalloc(")]  # inside a macro invocation
    assert f.idents["CUDA_CHECK"] == [at(src, "CUDA_CHECK")]
    assert f.defines == {"cudaCheck": [at(src, "cudaCheck("), at(src, "cudaCheck", 1)]}
    assert f.members == {"cudaMemset": [at(src, "cudaMemset")], "cudaStream": [at(src, "cudaStream")]}
    assert f.count("cudaMalloc") == 1 and f.count("nothing") == 0
    assert f.first_use("cudaMalloc") == at(src, "cudaMalloc(") and f.first_use("nothing") is None


def test_qualifiers_and_scopes():
    src = "cub::DeviceReduce::Sum(a); ::cudaFree(p); cutlass::gemm::device::Gemm<float> g; std::vector<int> v;"
    f = facts(src)
    s = at(src, "Sum")
    assert f.qualifiers[s] == "cub::DeviceReduce"
    assert f.qualified_name("Sum", s) == "cub::DeviceReduce::Sum"
    assert f.qualified_name("cudaFree", at(src, "cudaFree")) == "cudaFree"  # global :: is no qualifier
    assert f.qualifiers[at(src, "Gemm")] == "cutlass::gemm::device"
    assert f.scopes == {"cub": [0], "cutlass": [at(src, "cutlass")], "std": [at(src, "std")]}


def test_kernel_launches_with_templates_and_qualifiers():
    src = (
        "kern<float, 4><<<dim3(g, 1), block, smem, stream>>>(a, b);\n"
        "ns::k2<<<1, 256>>>(p);\n"
        "int x = a<b<c>>>d;  // no launch: >>> without <<<\n"
        "y = q <<< 3;\n"
    )
    f = facts(src)
    assert [(l.kernel, l.config) for l in f.launches] == [
        ("kern", ("dim3(g, 1)", "block", "smem", "stream")),
        ("ns::k2", ("1", "256")),
    ]
    first = f.launches[0]
    assert src[first.start : first.end] == "kern<float, 4><<<dim3(g, 1), block, smem, stream>>>"
    assert f.launches[1].start == at(src, "ns::k2")


def test_kernel_definitions_skip_attributes():
    src = (
        "template <typename T> __global__ void __launch_bounds__(256, 2) scale(T* a) {}\n"
        "extern \"C\" __global__ void plain(int*);\n"
        "#define KERNEL __global__\n"
    )
    f = facts(src)
    assert f.kernels == (
        KernelDef("scale", at(src, "scale"), at(src, "scale") + 5),
        KernelDef("plain", at(src, "plain"), at(src, "plain") + 5),
    )


def test_link_references():
    src = (
        '#pragma comment(lib, "cublas.lib")\n'
        '#pragma message("libfoo.so")\n'
        'void* h = dlopen("libcudnn_ops.so.9", RTLD_NOW);\n'
        'HMODULE m = LoadLibraryA("C:\\\\cuda\\\\bin\\\\cublas64_12.dll");\n'
        'const char* msg = "see libcudnn.so for details";\n'
    )
    f = facts(src)
    assert [(l.name, l.file, l.how) for l in f.links] == [
        ("cublas", "cublas.lib", "pragma"),
        ("cudnn_ops", "libcudnn_ops.so.9", "load"),
        ("cublas", "C:\\\\cuda\\\\bin\\\\cublas64_12.dll", "load"),
    ]
    assert isinstance(f.links[0], LinkRef) and src[f.links[0].start : f.links[0].end] == '"cublas.lib"'


def test_source_facts_is_computed_once_per_context():
    ctx = FileContext("a.cu", FileKind.CUDA_SOURCE, "cudaFree(p);", ())
    first = source_facts(ctx)
    assert source_facts(ctx) is first
    assert first.idents["cudaFree"] == [0]
    other = FileContext("b.cu", FileKind.CUDA_SOURCE, "cudaFree(p);", ())
    assert source_facts(other) is not first  # one cache per context, not per text


def test_non_c_files_have_empty_facts():
    ctx = FileContext("requirements.txt", FileKind.REQUIREMENTS, "cudaMalloc\n", ())
    f = source_facts(ctx)
    assert f.idents == {} and f.includes == () and f.launches == ()


def test_unterminated_input_never_crashes():
    for src in ("kern<<<1, 2", "kern<<<(1, 2>>>", "__global__ void", '#include "', "#include <", "a::", "::"):
        facts(src)


def test_calls_are_names_followed_by_a_parenthesis():
    f = facts("nvshmem_init(); int nvml_available = 0; CHECK (cudaFree(p)); x.member(1);")
    assert f.calls == {"nvshmem_init", "CHECK", "cudaFree"}
