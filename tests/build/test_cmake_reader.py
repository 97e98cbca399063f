"""CMake: the File API reply and compile_commands.json of a real configure, read into units."""

import shutil

import pytest

from vado.build.cmake import configure
from vado.build.compdb import read_compile_db
from vado.build.fileapi import read_file_api, reply_dir
from vado.build.model import IncludeKind, Language
from vado.build.read import BuildOptions, read_build

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                reason="cmake or a C compiler not installed")

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(demo C CXX)
option(USE_EXTRA "extra backend" OFF)
add_library(core STATIC core.c)
target_include_directories(core PUBLIC inc)
target_include_directories(core SYSTEM PRIVATE sys)
target_compile_definitions(core PRIVATE CORE=1)
set_property(TARGET core PROPERTY C_STANDARD 11)
if(USE_EXTRA)
  add_executable(extra extra.cpp)
  target_compile_definitions(extra PRIVATE EXTRA)
endif()
add_executable(app main.cpp)
target_link_libraries(app core)
set_property(TARGET app PROPERTY CXX_STANDARD 17)
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "demo"
    for d in ("inc", "sys"):
        (root / d).mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(CMAKELISTS)
    (root / "core.c").write_text("int core(void) { return 1; }\n")
    (root / "main.cpp").write_text("int main() { return 0; }\n")
    (root / "extra.cpp").write_text("int extra() { return 0; }\n")
    return root


def _by(cfg):
    return {u.relpath(cfg.root): u for u in cfg.units}


def test_file_api_reply_of_a_real_configure(project, tmp_path):
    cfg = configure(project, build_dir=tmp_path / "b")
    assert cfg.reader == "cmake-file-api" and cfg.ran and "cmake -S" in cfg.ran[0]
    by = _by(cfg)
    assert set(by) == {"core.c", "main.cpp"}  # extra.cpp: the USE_EXTRA branch is not taken
    core = by["core.c"]
    assert core.language is Language.C and core.std in ("c11", "gnu11") and "CORE=1" in core.defines
    assert (str(project / "inc"), IncludeKind.DIR) in [(i.path, i.kind) for i in core.includes]
    assert (str(project / "sys"), IncludeKind.SYSTEM) in [(i.path, i.kind) for i in core.includes]
    app = by["main.cpp"]
    assert app.language is Language.CXX and app.std in ("c++17", "gnu++17") and app.target == "app"
    assert str(project / "inc") in [i.path for i in app.includes]  # PUBLIC include of core
    assert not (project / "CMakeCache.txt").exists()  # configured out of the tree


def test_a_source_the_build_generates_is_left_out_with_a_note(project, tmp_path):
    # An add_custom_command output (tiny-cuda-nn's CMakeRC resources): it exists only once the build ran, so
    # a configure gives nothing to compile; the reply lists it, the reader leaves it out and says so.
    (project / "CMakeLists.txt").write_text(CMAKELISTS + (
        'add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/gen.cpp\n'
        '  COMMAND ${CMAKE_COMMAND} -E echo "int gen() { return 2; }" > ${CMAKE_CURRENT_BINARY_DIR}/gen.cpp)\n'
        'add_library(generated STATIC ${CMAKE_CURRENT_BINARY_DIR}/gen.cpp)\n'
        'configure_file(made.cpp.in ${CMAKE_CURRENT_BINARY_DIR}/made.cpp COPYONLY)\n'
        'add_library(configured STATIC ${CMAKE_CURRENT_BINARY_DIR}/made.cpp)\n'))
    (project / "made.cpp.in").write_text("int made() { return 3; }\n")
    cfg = configure(project, build_dir=tmp_path / "b")
    names = {u.source.rsplit("/", 1)[-1] for u in cfg.units}
    assert "gen.cpp" not in names and {"core.c", "main.cpp", "made.cpp"} <= names  # the configure made made.cpp
    assert any("generates" in n and "gen.cpp" in n for n in cfg.notes)


def test_options_pick_the_branch(project, tmp_path):
    cfg = configure(project, build_dir=tmp_path / "b", args=["-DUSE_EXTRA=ON"])
    assert _by(cfg)["extra.cpp"].defines == ("EXTRA",)


def test_compile_commands_of_the_same_configure(project, tmp_path):
    configure(project, build_dir=tmp_path / "b")
    cfg = read_compile_db(tmp_path / "b" / "compile_commands.json", project)
    by = _by(cfg)
    assert set(by) == {"core.c", "main.cpp"} and cfg.reader == "compile-db"
    assert by["core.c"].language is Language.C and "CORE=1" in by["core.c"].defines
    assert by["core.c"].std in ("c11", "gnu11")
    sys_inc = [i for i in by["core.c"].includes if i.path == str(project / "sys")]
    assert sys_inc and sys_inc[0].kind is IncludeKind.SYSTEM


def test_an_existing_reply_is_read_without_running_anything(project, tmp_path):
    configure(project, build_dir=project / "build")
    assert reply_dir(project / "build").is_dir()
    cfg = read_build(project, BuildOptions(mode="compile-db"))
    assert cfg.reader == "cmake-file-api" and cfg.ran == () and not cfg.guessed
    assert read_file_api(reply_dir(project / "build"), project).units == cfg.units


def test_a_failing_configure_falls_back_to_a_marked_guess(project):
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.16)\nproject(x C)\nmessage(FATAL_ERROR \"no CUDA\")\n")
    cfg = read_build(project, BuildOptions(mode="cmake"))
    assert cfg.guessed and cfg.reader == "guess" and any("no CUDA" in n for n in cfg.notes)


CUDA_PROJECT = """\
cmake_minimum_required(VERSION 3.18)
project(k LANGUAGES CXX CUDA)
add_executable(k k.cu host.cpp)
target_compile_definitions(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:ON_DEVICE>)
"""
HIP_PROJECT = """\
cmake_minimum_required(VERSION 3.21)
project(k LANGUAGES CXX HIP)
add_executable(k k.hip host.cpp)
target_compile_definitions(k PRIVATE $<$<COMPILE_LANGUAGE:HIP>:ON_DEVICE>)
"""


def _kproject(tmp_path, text, ext):
    root = tmp_path / "k"
    root.mkdir()
    (root / "CMakeLists.txt").write_text(text)
    (root / f"k.{ext}").write_text("__global__ void k() {}\nint main() { return 0; }\n")
    (root / "host.cpp").write_text("int host() { return 0; }\n")
    return root


@pytest.mark.skipif(shutil.which("nvcc") is None and not __import__("os").path.exists("/usr/local/bin/nvcc"),
                    reason="nvcc not installed")
def test_original_configured_as_cuda_with_nvcc(tmp_path):
    from vado.build.cmake import cuda_args

    nvcc = shutil.which("nvcc") or "/usr/local/bin/nvcc"
    root = _kproject(tmp_path, CUDA_PROJECT, "cu")
    cfg = configure(root, build_dir=tmp_path / "b", args=cuda_args(nvcc))
    by = _by(cfg)
    assert by["k.cu"].language is Language.CUDA and by["k.cu"].defines == ("ON_DEVICE",)
    assert by["host.cpp"].language is Language.CXX and by["host.cpp"].defines == ()


def test_port_configured_as_hip_with_the_rocm_chroot_cmake(tmp_path):
    import os

    from vado.build.cmake import hip_args
    from vado.verify.toolchains import rocm_chroot_wrappers

    wrappers = [w for w in rocm_chroot_wrappers() if "7.2" in w]
    if not wrappers or os.geteuid() != 0:
        pytest.skip("needs the ROCm 7.2.4 chroot and root")
    cmake = os.path.join(os.path.dirname(wrappers[0]), "cmake")
    root = _kproject(tmp_path, HIP_PROJECT, "hip")
    cfg = configure(root, cmake=cmake, build_dir=tmp_path / "b", args=hip_args(["gfx942"]))
    by = _by(cfg)
    assert by["k.hip"].language is Language.HIP and "ON_DEVICE" in by["k.hip"].defines
    assert "--offload-arch=gfx942" in by["k.hip"].dropped
