import json

from vado.verify.buildflags import flags_for


def test_compile_commands(tmp_path):
    (tmp_path / "src").mkdir()
    unit = tmp_path / "src" / "a.cu"
    unit.write_text("")
    db = [{"directory": str(tmp_path), "file": "src/a.cu",
           "arguments": ["nvcc", "-Iinc", "-isystem", "/opt/x", "-DN=4", "-UNDEBUG", "-std=c++17", "-c", "src/a.cu"]}]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    f = flags_for(tmp_path, unit)
    assert f.source == "compile_commands.json"
    assert str(tmp_path / "inc") in f.includes and "/opt/x" in f.includes
    assert f.defines == ("N=4",) and f.undefines == ("NDEBUG",) and f.std == "c++17"
    assert f.args()[-1] == "-std=c++17"


def test_makefile(tmp_path):
    (tmp_path / "Makefile").write_text("CFLAGS = -std=c++14 -Iinclude -DFOO=1 -I$(CUDA)/include # -DNOT\n")
    unit = tmp_path / "m.cu"
    unit.write_text("")
    f = flags_for(tmp_path, unit)
    assert f.source == "Makefile" and f.std == "c++14" and f.defines == ("FOO=1",)
    assert str((tmp_path / "include").resolve()) in f.includes
    assert not any("$" in i for i in f.includes)


def test_cmake(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(
        "set(CMAKE_CXX_STANDARD 17)\ninclude_directories(inc)\ntarget_include_directories(t PRIVATE sub)\n"
        "add_compile_definitions(A=2)\ntarget_compile_definitions(t PUBLIC B)\n"
    )
    unit = tmp_path / "m.cu"
    unit.write_text("")
    f = flags_for(tmp_path, unit)
    assert f.std == "c++17" and set(f.defines) == {"A=2", "B"}
    assert str((tmp_path / "inc").resolve()) in f.includes and str((tmp_path / "sub").resolve()) in f.includes


def test_defaults(tmp_path):
    unit = tmp_path / "m.cu"
    unit.write_text("")
    f = flags_for(tmp_path, unit)
    assert f.source == "defaults" and f.includes[0] == str(tmp_path.resolve())
