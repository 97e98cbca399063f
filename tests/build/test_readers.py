"""compile_commands.json, setup.py (read, never run), the guess, and how read_build chooses."""

import json

import pytest

from vado.build.compdb import read_compile_db
from vado.build.guess import guess_config
from vado.build.model import IncludeKind, Language
from vado.build.read import BuildOptions, read_build
from vado.build.setuppy import read_setup_py


def test_compile_db_entries(tmp_path):
    (tmp_path / "src").mkdir()
    db = [
        {"directory": str(tmp_path), "file": "src/a.cu",
         "arguments": ["nvcc", "-Iinc", "-isystem", "/opt/x", "-DN=4", "-UNDEBUG", "-std=c++17", "-c", "src/a.cu"]},
        {"directory": str(tmp_path / "src"), "file": "b.c", "command": "cc -DB -c b.c -o b.o"},
        {"file": 3}, "junk",
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    cfg = read_compile_db(tmp_path / "compile_commands.json")
    a, b = cfg.units
    assert a.language is Language.CUDA and a.defines == ("N=4",) and a.undefines == ("NDEBUG",) and a.std == "c++17"
    assert [(i.path, i.kind) for i in a.includes] == [(str(tmp_path / "inc"), IncludeKind.DIR), ("/opt/x", IncludeKind.SYSTEM)]
    assert b.language is Language.C and b.source == str(tmp_path / "src" / "b.c") and b.directory == str(tmp_path / "src")
    assert cfg.notes == ("2 entries of compile_commands.json name no compilable source and were skipped",)


@pytest.mark.parametrize("text,why", [("{", "not valid JSON"), ("{}", "not a JSON list")])
def test_malformed_compile_db_falls_back_to_a_guess(tmp_path, text, why):
    (tmp_path / "compile_commands.json").write_text(text)
    (tmp_path / "k.cu").write_text("")
    cfg = read_build(tmp_path)
    assert cfg.guessed and any(why in n for n in cfg.notes)


def test_setup_py_is_read_not_run(tmp_path):
    (tmp_path / "setup.py").write_text(
        "import sys\nsys.exit('never run')\n"
        "from torch.utils.cpp_extension import CUDAExtension\n"
        "FLAGS = ['-O3', '--use_fast_math']\n"
        "ext = CUDAExtension('pkg._C', ['csrc/op.cpp', 'csrc/kern.cu'], include_dirs=['csrc/include'],\n"
        "    define_macros=[('WITH_CUDA', None)],\n"
        "    extra_compile_args={'cxx': ['-O2', '-DHOST'], 'nvcc': FLAGS + ['-DDEV']})\n"
        "other = CUDAExtension(name_from_somewhere(), sources=srcs)\n")
    cfg = read_setup_py(tmp_path / "setup.py")
    op, kern = cfg.units
    assert op.language is Language.CXX and op.options == ("-O2",) and "HOST" in op.defines and "DEV" not in op.defines
    assert kern.language is Language.CUDA and kern.options == ("-O3", "-ffast-math") and "DEV" in kern.defines
    assert "WITH_CUDA" in kern.defines and "TORCH_EXTENSION_NAME=_C" in kern.defines
    assert str(tmp_path / "csrc" / "include") in [i.path for i in kern.includes]
    assert any("not literals" in n for n in cfg.notes)


def test_guess_is_marked_and_does_not_shadow_system_headers(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "unistd.h").write_text("#error shadowed\n")
    (tmp_path / "dev" / "t.c").write_text("#include <unistd.h>\n")
    (tmp_path / "include").mkdir()
    (tmp_path / "Makefile").write_text("CFLAGS = -std=c++17 -DX\n")
    cfg = guess_config(tmp_path, "test")
    (u,) = cfg.units
    assert cfg.guessed and u.origin == "guess: Makefile" and u.language is Language.C
    assert u.std == ""  # -std=c++17 is not for a C unit
    kinds = {i.path: i.kind for i in u.includes}
    # The unit's directory and the root are searched for "quoted" includes only: <unistd.h> is the system's.
    assert kinds[str(tmp_path / "dev")] is IncludeKind.QUOTE and kinds[str(tmp_path)] is IncludeKind.QUOTE
    assert kinds[str(tmp_path / "include")] is IncludeKind.DIR


def test_read_build_modes(tmp_path):
    (tmp_path / "k.cu").write_text("")
    assert read_build(tmp_path, BuildOptions(mode="none")).guessed
    cfg = read_build(tmp_path, BuildOptions(mode="compile-db"))
    assert cfg.guessed and "no compile_commands.json" in cfg.notes[0]
    with pytest.raises(ValueError):
        read_build(tmp_path, BuildOptions(mode="bazel"))
