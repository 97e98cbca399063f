from vado.knowledge.targets import get_target
from vado.verify.mapping import DiagnosticMapper, line_map, parse_diagnostics

CLANG = """k.cu:19:5: error: use of undeclared identifier 'cudaFoo'
    cudaFoo(0);
    ^
k.cu:3:1: warning: unused
/usr/include/x.h(2815): error: argument of type "size_t" is incompatible
1 error generated when compiling for gfx90a.
"""


def test_parse_diagnostics_clang_and_nvcc():
    ds = parse_diagnostics(CLANG)
    assert [(d.file, d.line, d.col) for d in ds] == [("k.cu", 19, 5), ("/usr/include/x.h", 2815, 0)]
    assert len(parse_diagnostics(CLANG, errors_only=False)) == 3


def test_line_map_equal_replace_insert():
    orig = "a\n#include <cuda_runtime.h>\nb\nc\n"
    port = "a\n#include <hip/hip_runtime.h>\nb\nnew\nc\n"
    m = line_map(orig, port)
    assert m[0] == (1, True)
    assert m[1] == (2, True)  # a rewritten line is the same line
    assert m[2] == (3, True)
    assert m[3] == (3, False)  # inserted: nearest original line before it
    assert m[4] == (4, True)


def test_mapper_attaches_finding_code(tmp_path):
    orig, port = tmp_path / "orig", tmp_path / "port"
    orig.mkdir()
    port.mkdir()
    (orig / "k.cu").write_text("// x\n#include <cuda_runtime.h>\nint main() { cudaGraphExecNodeSetParams(0, 0, 0); }\n")
    (port / "k.cu").write_text("// x\n#include <hip/hip_runtime.h>\n\nint main() { cudaGraphExecNodeSetParams(0, 0, 0); }\n")
    mapper = DiagnosticMapper(port, orig, [get_target("hip-5.2")])
    d = parse_diagnostics("k.cu:4:14: error: use of undeclared identifier 'cudaGraphExecNodeSetParams'")[0]
    got = mapper.map(d, port)
    assert (got.original_file, got.original_line, got.exact) == ("k.cu", 3, True)
    assert got.code == "API003"
    outside = parse_diagnostics("/usr/include/hip/x.h:1:1: error: boom")[0]
    assert mapper.map(outside, port) == outside
