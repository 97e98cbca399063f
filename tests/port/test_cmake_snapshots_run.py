"""Every CMake file a port writes (the snapshots of ``tests/fixtures``) is valid CMake, checked by CMake.

The ported snapshots (``PROJECTS/*-CMakeLists.ported.txt``, ``PORT/*.fixed.CMakeLists.txt``) are run by
the real ``cmake`` (Debian's 3.25 here) in script mode (``cmake -P``): CMake parses the whole file
first, then runs each command, so a malformed file or a command with invalid arguments (issue 25:
``list(SORT CMAKE_HIP_ARCHITECTURES gfx942;gfx950)``, ``list(GET … gfx942;gfx950)``) fails. Commands
that only a project configure may run (``project``, ``add_executable``, ``target_link_libraries``,
``find_package`` …) are replaced by functions of the same name that check nothing else, which CMake
allows for any command; ``if``/``set``/``list``/``string``/``message`` and the rest run for real. A full
configure and build of the projects with the ROCm 7.2.4 chroot's cmake is
``test_project_builds.py::test_port_builds_with_rocm_7_2``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SNAPSHOTS = sorted([*(FIXTURES / "PROJECTS").glob("*-CMakeLists.ported.txt"),
                    *(FIXTURES / "PORT").glob("*.fixed.CMakeLists.txt")])

#: The commands CMake refuses in script mode ("command is not scriptable") and those that reach
#: outside the file (find_package looks for installed packages, include() for modules, add_subdirectory
#: for other files): each becomes a function that takes any arguments.
PROJECT_ONLY = (
    "add_compile_definitions", "add_compile_options", "add_custom_command", "add_custom_target", "add_definitions",
    "add_dependencies", "add_executable", "add_library", "add_link_options", "add_subdirectory", "add_test",
    "aux_source_directory", "check_language", "define_property", "enable_language", "enable_testing", "export",
    "find_package", "get_source_file_property", "get_target_property", "include_directories", "install",
    "link_directories", "link_libraries", "project", "remove_definitions", "set_property",
    "set_source_files_properties", "set_target_properties", "set_tests_properties", "source_group",
    "target_compile_definitions", "target_compile_features", "target_compile_options",
    "target_include_directories", "target_link_directories", "target_link_libraries", "target_link_options",
    "target_precompile_headers", "target_sources", "try_compile", "try_run", "include", "find_library",
    "find_path", "find_program", "find_file",
)
STUBS = "".join(f"function({name})\nendfunction()\n" for name in PROJECT_ONLY)


def _run(cmake: str, script: Path) -> tuple[bool, str]:
    """``cmake -P script``: whether it ran clean, and its output. A developer warning fails as an error
    does (script mode ignores ``-Werror=dev``): under an old policy CMake only warns of an invalid list
    index."""
    proc = subprocess.run([cmake, "-P", str(script)], cwd=script.parent, capture_output=True, text=True, timeout=120)
    clean = proc.returncode == 0 and "CMake Error" not in proc.stderr and "CMake Warning (dev)" not in proc.stderr
    return clean, proc.stdout + proc.stderr


def test_there_are_cmake_snapshots_to_check():
    assert len(SNAPSHOTS) >= 5, SNAPSHOTS


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=lambda p: p.name)
def test_ported_cmake_file_runs_in_cmake(snapshot: Path, tmp_path: Path):
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH (apt-get install cmake)")
    script = tmp_path / "ported.cmake"
    script.write_text(STUBS + snapshot.read_text())
    clean, output = _run(cmake, script)
    assert clean, output


def test_the_check_catches_invalid_list_calls(tmp_path: Path):
    """What issue 25's port wrote fails the check; its fixed form passes."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH (apt-get install cmake)")
    for body, ok in (("set(CMAKE_HIP_ARCHITECTURES gfx942;gfx950)\nlist(SORT CMAKE_HIP_ARCHITECTURES gfx942;gfx950)\n", False),
                     ("set(CMAKE_HIP_ARCHITECTURES gfx942;gfx950)\nlist(GET CMAKE_HIP_ARCHITECTURES gfx942;gfx950)\n", False),
                     ("set(CMAKE_HIP_ARCHITECTURES gfx942;gfx950)\nlist(GET CMAKE_HIP_ARCHITECTURES 0 FIRST)\n"
                      "list(SORT CMAKE_HIP_ARCHITECTURES ORDER DESCENDING)\nproject(p LANGUAGES HIP)\n", True)):
        script = tmp_path / "t.cmake"
        script.write_text(STUBS + "cmake_minimum_required(VERSION 3.21)\n" + body)
        clean, output = _run(cmake, script)
        assert clean is ok, body + output
