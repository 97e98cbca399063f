"""Port-only build-file transforms: what a CMake HIP build needs beyond the BLD rules' renames.

The BLD rules rewrite what is there (``CUDA`` → ``HIP`` in ``project()``,
``CUDA::cublas`` → ``roc::hipblas`` …). Two things a port must *add*:

- CMake compiles a file by its extension: once the CUDA language is gone, a
  ``.cu`` source whose name is kept needs ``set_source_files_properties(...
  PROPERTIES LANGUAGE HIP)``, and the HIP language needs CMake 3.21.
- With ``--rename-sources`` (``.cu`` → ``.hip``) the build files that name a
  renamed source (CMake arguments, Makefile words, ``#include "k.cu"``) must
  name the new file.

Once HIP is enabled, a CMake project also needs what the CUDA language or
FindCUDAToolkit gave it implicitly (:func:`cmake_project_fixes`):

- ``find_package(<pkg>)`` for every ROCm imported target it links
  (``roc::hipblas`` → ``find_package(hipblas REQUIRED)``, from the library table's
  ``cmake_packages``), placed before the first link that needs it;
- ``hip::host`` for a target that mixes ``.cu`` and C/C++ sources: C++ files get
  the HIP headers and ``__HIP_PLATFORM_AMD__`` from it (CUDA's C++ files found
  ``cuda_runtime.h`` through the toolkit's include directory);
- ``-fgpu-rdc`` compile and link options for ``CUDA_SEPARABLE_COMPILATION``
  (CMake has no HIP property for it) and no ``CUDA_RESOLVE_DEVICE_SYMBOLS``
  (HIP links device code at the final link);
- ``$<COMPILE_LANGUAGE:CUDA>`` → ``HIP`` in generator expressions,
  ``cuda_std_17`` → ``hip_std_17`` and ``LANGUAGE CUDA`` → ``LANGUAGE HIP``.

These fixes are produced only by the port (never by ``vado audit``) and only
once the file already enables HIP: a port that keeps the CUDA build (in place
without ``--unsafe-fixes``) gets none of them.

A Makefile that builds with hipcc also links what its sources need on ROCm
but never linked on CUDA (:func:`makefile_link_fixes`): NVTX 3 is header-only,
its replacement ROCTx a shared library (llm.c's ``train_gpt2cu``).
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Iterable

from vado.model import Applicability, Edit, Fix
from vado.scan.buildfiles import cmake_commands

#: CMake commands whose arguments list sources.
SOURCE_COMMANDS = frozenset({"add_executable", "add_library", "target_sources"})
HIP_MIN_CMAKE = (3, 21)


def renamed_name(name: str) -> str:
    """The name of a source after ``--rename-sources``: ``k.cu`` → ``k.hip``."""
    return name[: -len(".cu")] + ".hip" if name.endswith(".cu") else name


def _enables_hip(cmds) -> bool:
    """Whether the file enables HIP and not CUDA: a file that enables both (``if(GGML_HIP)
    enable_language(HIP) else() enable_language(CUDA)``) has its own AMD build, left as it is."""
    for c in cmds:
        if c.lname in ("project", "enable_language") and any(a.text == "CUDA" for a in c.args[c.lname == "project":]):
            return False
    for c in cmds:
        if c.lname == "project" and any(a.text == "HIP" for a in c.args[1:]):
            return True
        if c.lname == "enable_language" and any(a.text == "HIP" for a in c.args):
            return True
    return False


def _names_language(cmds) -> bool:
    """Whether the file enables a GPU language itself (``project``/``enable_language`` naming CUDA or HIP)."""
    return any(c.lname in ("project", "enable_language") and any(a.text in ("CUDA", "HIP") for a in c.args)
               for c in cmds)


def cmake_cuda_dirs(files: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The folders (``""`` for the root) of the CMake files among ``files`` (``(path, text)``) that enable CUDA
    and not HIP: the port turns that into HIP, and a subdirectory's file below (``add_subdirectory(samples)``)
    that enables no GPU language itself inherits it, so its ``.cu`` sources need ``LANGUAGE HIP`` too."""
    dirs = []
    for path, text in files:
        cmds, problems = cmake_commands(text)
        if problems:
            continue
        cuda = any(c.lname in ("project", "enable_language") and any(a.text == "CUDA" for a in c.args)
                   for c in cmds)
        hip = any(c.lname in ("project", "enable_language") and any(a.text == "HIP" for a in c.args)
                  for c in cmds)
        if cuda and not hip:
            dirs.append(posixpath.dirname(path))
    return tuple(sorted(set(dirs)))


def _under_any(path: str, dirs: Iterable[str]) -> bool:
    """Whether ``path`` is in a folder strictly below one of ``dirs`` (``""``: the root)."""
    here = posixpath.dirname(path)
    return any(here != d and (not d or here.startswith(d + "/")) for d in dirs)


def cmake_hip_fixes(path: str, text: str, renamed: Iterable[str] = (), archs: Iterable[str] = (),
                    library_ids: Iterable[str] = (), cuda_dirs: Iterable[str] = ()) -> list[Fix]:
    """``LANGUAGE HIP`` for kept ``.cu`` sources and ``cmake_minimum_required`` ≥ 3.21, once HIP is enabled,
    and what :func:`cmake_project_fixes` adds (``archs``: the offload architectures for a project that
    names none; ``library_ids``: libraries its sources use that only ROCm must link, see
    :func:`makefile_link_fixes`).

    Sources in ``renamed`` (paths relative to the tree root) become ``.hip``
    files, which CMake compiles as HIP by their extension. A file that enables no GPU language itself, in
    a folder below one of ``cuda_dirs`` (:func:`cmake_cuda_dirs`: where the port turns CUDA into HIP),
    gets ``LANGUAGE HIP`` for its ``.cu`` sources too.
    """
    names = set(renamed)
    here = posixpath.dirname(path)
    cmds, problems = cmake_commands(text)
    if problems:
        return []
    # A subdirectory's marks follow from the root's unsafe switch to HIP: unsafe like it.
    applicability = Applicability.SAFE
    if _enables_hip(cmds):
        fixes: list[Fix] = cmake_project_fixes(path, text, archs)
        fixes += _cmake_link_fixes(path, text, cmds, tuple(library_ids))
    elif not _names_language(cmds) and _under_any(path, cuda_dirs):
        fixes, applicability = [], Applicability.UNSAFE
    else:
        return []
    marked: set[str] = set()
    for c in cmds:
        words = [a.text for a in c.args]
        if c.lname == "set_source_files_properties" and "PROPERTIES" in words:
            p = words.index("PROPERTIES")
            props = words[p + 1 :]
            if any(props[k] == "LANGUAGE" and props[k + 1] == "HIP" for k in range(len(props) - 1)):
                marked.update(words[:p])
    source_vars = _source_variables(cmds)
    for c in cmds:
        if c.lname == "cmake_minimum_required":
            fix = _min_version_fix(path, c)
            if fix:
                fixes.append(fix)
        listed = _listed_sources(c, source_vars)
        if listed is None:
            continue
        sources = [w for w in listed if w.endswith(".cu") and "$" not in w and w not in marked
                   and not _refers(here, w, names)]
        if not sources:
            continue
        line_start = text.rfind("\n", 0, c.start) + 1
        indent = re.match(r"[ \t]*", text[line_start:c.start]).group()
        eol = text.find("\n", c.end)
        at = len(text) if eol < 0 else eol
        stmt = f"\n{indent}set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
        fixes.append(Fix((Edit(path, at, at, stmt),), applicability,
                         f"compile {', '.join(sources)} as HIP (CMake picks the language by extension)", ("build",)))
        marked.update(sources)
    return fixes


_VAR_REF = re.compile(r"\$\{([A-Za-z0-9_.+-]+)\}")
#: ``list()`` subcommands whose arguments after the variable (and INSERT's index) are elements.
_LIST_ADDS = {"APPEND": 2, "PREPEND": 2, "INSERT": 3}


def _source_variables(cmds) -> frozenset[str]:
    """Variables a source command of the file expands (``add_library(lib ${SOURCES})``): the ``.cu``
    names ``set()`` or ``list(APPEND …)`` puts in them are sources too (tiny-cuda-nn's ``TCNN_SOURCES``)."""
    return frozenset(m.group(1) for c in cmds if c.lname in SOURCE_COMMANDS for a in c.args[1:]
                     for m in _VAR_REF.finditer(a.text))


def _listed_sources(c, source_vars: frozenset[str]) -> list[str] | None:
    """The words of ``c`` that name sources: a source command's arguments after the target, the values of
    ``set(VAR …)`` / ``list(APPEND|PREPEND|INSERT VAR …)`` for a variable in ``source_vars``; None for any
    other command."""
    words = [a.text for a in c.args]
    if c.lname in SOURCE_COMMANDS:
        return words[1:]
    if c.lname == "set" and words and words[0] in source_vars:
        # set(VAR a.cu CACHE STRING "doc"): the values end at CACHE / PARENT_SCOPE.
        values = words[1:]
        for stop in ("CACHE", "PARENT_SCOPE"):
            if stop in values:
                values = values[: values.index(stop)]
        return values
    if c.lname == "list" and len(words) > 1 and words[0] in _LIST_ADDS and words[1] in source_vars:
        return words[_LIST_ADDS[words[0]]:]
    return None


#: Link commands whose arguments name libraries and imported targets.
_LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
_LINK_KEYWORDS = frozenset({"PRIVATE", "PUBLIC", "INTERFACE", "LINK_PRIVATE", "LINK_PUBLIC", "LINK_INTERFACE_LIBRARIES"})
_CXX_SOURCE = re.compile(r"\.(?:c|cc|cpp|cxx|C|c\+\+)$")
#: Generator expressions and compile features that name the CUDA language.
_CUDA_GENEX = re.compile(r"(?<=\$<)(?:COMPILE_LANGUAGE|LINK_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANG_AND_ID)"
                         r"(?=:CUDA\b)|(?<=\bcuda_std_)(?=\d)")
_RDC_PROPERTIES = frozenset({"CUDA_SEPARABLE_COMPILATION", "CUDA_RESOLVE_DEVICE_SYMBOLS"})
_TRUE = frozenset({"ON", "TRUE", "1", "YES", "Y"})
_RDC_COMPILE = "$<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>"
_RDC_LINK = "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc>"


def cmake_project_fixes(path: str, text: str, archs: Iterable[str] = ()) -> list[Fix]:
    """What a CMake project that now enables HIP needs beyond the renames (see the module's doc).

    Every fix is unsafe (it follows from enabling HIP, itself unsafe) and tagged ``build``.
    """
    cmds, problems = cmake_commands(text)
    if problems or not _enables_hip(cmds):
        return []
    fixes: list[Fix] = _architecture_fixes(path, text, cmds, tuple(archs))
    fixes += _find_package_fixes(path, text, cmds)
    fixes += _host_link_fixes(path, text, cmds)
    fixes += _rdc_fixes(path, text, cmds)
    fixes += _language_name_fixes(path, text, cmds)
    return fixes


def _architecture_fixes(path: str, text: str, cmds, archs: tuple[str, ...]) -> list[Fix]:
    """``CMAKE_HIP_ARCHITECTURES`` before the command that enables HIP, when the file names no
    architectures: CMake's default is the compiler's (gfx906 on a machine without a GPU).
    ``if(NOT DEFINED …)`` keeps ``-DCMAKE_HIP_ARCHITECTURES=…`` and a parent project's choice."""
    if not archs or "HIP_ARCHITECTURES" in text or "CUDA_ARCHITECTURES" in text:
        return []
    for c in cmds:
        if (c.lname == "project" and any(a.text == "HIP" for a in c.args[1:])) or (
                c.lname == "enable_language" and any(a.text == "HIP" for a in c.args)):
            line_start, indent = _line_of(text, c.start)
            if text[line_start:c.start].strip():
                return []
            block = (f"if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n{indent}  set(CMAKE_HIP_ARCHITECTURES "
                     f"{';'.join(archs)})\n{indent}endif()\n{indent}")
            return [_unsafe(path, c.start, c.start, block,
                            f"build for {';'.join(archs)} (CMAKE_HIP_ARCHITECTURES; CMake's default is the compiler's)")]
    return []


def _unsafe(path: str, start: int, end: int, content: str, description: str) -> Fix:
    return Fix((Edit(path, start, end, content),), Applicability.UNSAFE, description, ("build",))


def _line_of(text: str, at: int) -> tuple[int, str]:
    """The start of the line holding ``at`` and that line's indentation."""
    line_start = text.rfind("\n", 0, at) + 1
    return line_start, re.match(r"[ \t]*", text[line_start:at]).group()


def _find_package_fixes(path: str, text: str, cmds) -> list[Fix]:
    from vado.knowledge.libraries import cmake_package_for

    found: set[str] = set()
    fixes = []
    for c in cmds:
        if c.lname == "find_package" and c.args:
            found.add(c.args[0].text)
            continue
        if c.lname not in _LINK_COMMANDS:
            continue
        missing = []
        for a in c.args:
            pkg = cmake_package_for(a.text) if not a.quoted else None
            if pkg and pkg not in found and pkg not in missing:
                missing.append(pkg)
        if not missing:
            continue
        # Right before the link, in the same scope (an if() that links an optional library
        # finds it only there).
        line_start, indent = _line_of(text, c.start)
        if text[line_start:c.start].strip():
            continue  # another command on the same line: no place for a line of our own
        lines = "".join(f"find_package({p} REQUIRED)\n{indent}" for p in missing)
        fixes.append(_unsafe(path, c.start, c.start, lines,
                             f"find_package({', '.join(missing)}) for the ROCm targets "
                             f"{c.name}() links"))
        found.update(missing)
    return fixes


def _targets(cmds) -> dict[str, tuple]:
    """``{name: (command, source words)}`` of the targets this file builds (no imported, alias or interface ones)."""
    out = {}
    for c in cmds:
        if c.lname not in ("add_executable", "add_library") or not c.args:
            continue
        words = [a.text for a in c.args[1:]]
        if any(w in ("IMPORTED", "ALIAS", "INTERFACE") for w in words):
            continue
        out[c.args[0].text] = (c, words)
    return out


def _host_link_fixes(path: str, text: str, cmds) -> list[Fix]:
    from vado.knowledge.libraries import cmake_package_for

    links: dict[str, list] = {}
    for c in cmds:
        if c.lname == "target_link_libraries" and c.args:
            links.setdefault(c.args[0].text, []).append(c)
    fixes = []
    for name, (cmd, words) in _targets(cmds).items():
        if "$" in name or not any(w.endswith(".cu") for w in words) or not any(_CXX_SOURCE.search(w) for w in words):
            continue
        used = links.get(name, [])
        if any(cmake_package_for(a.text) for c in used for a in c.args[1:]):
            continue  # hip::host, or a ROCm library whose target brings it
        plain = bool(used) and all(len(c.args) > 1 and c.args[1].text not in _LINK_KEYWORDS for c in used)
        keyword = "" if plain else "PRIVATE "
        _, indent = _line_of(text, cmd.start)
        eol = text.find("\n", cmd.end)
        at = len(text) if eol < 0 else eol
        fixes.append(_unsafe(path, at, at, f"\n{indent}target_link_libraries({name} {keyword}hip::host)",
                             f"link hip::host to {name}: its C++ sources include HIP headers"))
    return fixes


def _wanted_links(text: str, library_ids: Iterable[str]) -> list[tuple[str, dict[str, str]]]:
    """``(library id, link_when_included)`` of the libraries the build file does not name yet."""
    from vado.knowledge.libraries import library

    wanted = []
    for lib_id in library_ids:
        rocm = library(lib_id).rocm
        choices = rocm.link_when_included if rocm is not None else {}
        if choices and not any(re.search(rf"-l{re.escape(n)}\b|\blib{re.escape(n)}\b|\b{re.escape(n)}\b(?!/)", text)
                               for n in choices.values()):
            wanted.append((lib_id, choices))
    return wanted


def _link_variable(lib_id: str) -> str:
    """``ROCTX_LIBRARY``: the CMake variable a port's ``find_library`` fills for a library."""
    from vado.knowledge.libraries import library

    rocm = library(lib_id).rocm
    name = (rocm.equivalent.split(" (")[0] if rocm is not None and rocm.equivalent else lib_id)
    return re.sub(r"\W+", "_", name).upper() + "_LIBRARY"


def _cmake_link_fixes(path: str, text: str, cmds, library_ids: tuple[str, ...]) -> list[Fix]:
    """``find_library`` and ``target_link_libraries`` for each library in ``library_ids`` (see
    :func:`makefile_link_fixes`), for every target this file compiles: the library of the first
    replacement header's name that is installed (``NAMES`` in ``link_when_included`` order)."""
    wanted = _wanted_links(text, library_ids)
    if not wanted:
        return []
    targets = [(name, cmd) for name, (cmd, words) in _targets(cmds).items()
               if "$" not in name and any(w.endswith((".cu", ".hip")) or _CXX_SOURCE.search(w) for w in words)]
    if not targets:
        return []
    links: dict[str, list] = {}
    for c in cmds:
        if c.lname == "target_link_libraries" and c.args:
            links.setdefault(c.args[0].text, []).append(c)
    # Right after the command that enables HIP (top level in a project), so every target below sees it.
    enable = next(c for c in cmds if (c.lname == "project" and any(a.text == "HIP" for a in c.args[1:]))
                  or (c.lname == "enable_language" and any(a.text == "HIP" for a in c.args)))
    _, indent = _line_of(text, enable.start)
    eol = text.find("\n", enable.end)
    at = len(text) if eol < 0 else eol
    finds = "".join(f"\n{indent}find_library({_link_variable(i)} NAMES {' '.join(c.values())} "
                    f"HINTS ${{ROCM_PATH}}/lib $ENV{{ROCM_PATH}}/lib /opt/rocm/lib REQUIRED)" for i, c in wanted)
    edits = [Edit(path, at, at, finds)]
    variables = " ".join(f"${{{_link_variable(i)}}}" for i, _ in wanted)
    for name, cmd in targets:
        used = links.get(name, [])
        plain = bool(used) and all(len(c.args) > 1 and c.args[1].text not in _LINK_KEYWORDS for c in used)
        _, t_indent = _line_of(text, cmd.start)
        eol = text.find("\n", cmd.end)
        at = len(text) if eol < 0 else eol
        edits.append(Edit(path, at, at, f"\n{t_indent}target_link_libraries({name} {'' if plain else 'PRIVATE '}{variables})"))
    # One fix: the find_library and every link go together (the next round sees the library named).
    return [Fix(tuple(edits), Applicability.UNSAFE,
                f"find and link {variables} to {', '.join(n for n, _ in targets)}: the sources include its "
                "headers, and unlike CUDA's the ROCm library is not header-only", ("build",))]


def _rdc_fixes(path: str, text: str, cmds) -> list[Fix]:
    fixes = []
    for c in cmds:
        words = [a.text for a in c.args]
        if c.lname == "set" and words and words[0] in ("CMAKE_CUDA_SEPARABLE_COMPILATION", "CMAKE_CUDA_RESOLVE_DEVICE_SYMBOLS"):
            on = len(words) > 1 and words[1].upper() in _TRUE
            new = (f"add_compile_options({_RDC_COMPILE})\n" + _line_of(text, c.start)[1] + f"add_link_options({_RDC_LINK})"
                   if on and words[0] == "CMAKE_CUDA_SEPARABLE_COMPILATION" else "")
            fixes.append(_command_fix(path, text, c, new, f"{words[0]} → -fgpu-rdc compile and link options"
                                      if new else f"drop {words[0]} (HIP links device code at the final link)"))
        elif c.lname == "set_target_properties" and "PROPERTIES" in words:
            p = words.index("PROPERTIES")
            pairs = [(k, k + 1) for k in range(p + 1, len(words) - 1, 2)]
            rdc = [(k, v) for k, v in pairs if words[k] in _RDC_PROPERTIES]
            if not rdc:
                continue
            on = any(words[k] == "CUDA_SEPARABLE_COMPILATION" and words[v].upper() in _TRUE for k, v in rdc)
            targets = [w for w in words[:p] if "$" not in w]
            added = _rdc_options(targets, _line_of(text, c.start)[1]) if on else ""
            if len(rdc) == len(pairs):
                fixes.append(_command_fix(path, text, c, added.lstrip("\n"), "CUDA_SEPARABLE_COMPILATION → -fgpu-rdc "
                                          "compile and link options" if on else "drop CUDA_RESOLVE_DEVICE_SYMBOLS"))
                continue
            edits = []
            for k, v in rdc:
                start = c.args[k].start
                while start > 0 and text[start - 1] in " \t":
                    start -= 1
                edits.append(Edit(path, start, c.args[v].end + (1 if c.args[v].quoted else 0), ""))
            if added:
                eol = text.find("\n", c.end)
                at = len(text) if eol < 0 else eol
                edits.append(Edit(path, at, at, added))
            fixes.append(Fix(tuple(edits), Applicability.UNSAFE, "CUDA_SEPARABLE_COMPILATION → -fgpu-rdc compile and "
                             "link options", ("build",)))
        elif c.lname == "set_property" and "PROPERTY" in words and "TARGET" in words[:1]:
            p = words.index("PROPERTY")
            if p + 1 >= len(words) or words[p + 1] not in _RDC_PROPERTIES:
                continue
            on = words[p + 1] == "CUDA_SEPARABLE_COMPILATION" and (len(words) == p + 2 or words[p + 2].upper() in _TRUE)
            targets = [w for w in words[1:p] if "$" not in w and w not in ("APPEND", "APPEND_STRING")]
            added = _rdc_options(targets, _line_of(text, c.start)[1]) if on else ""
            fixes.append(_command_fix(path, text, c, added.lstrip("\n"), f"{words[p + 1]} → -fgpu-rdc compile and link "
                                      "options" if on else f"drop {words[p + 1]}"))
    return fixes


def _rdc_options(targets: list[str], indent: str) -> str:
    # Link options are PUBLIC: the final link of whatever links a relocatable library needs -fgpu-rdc.
    return "".join(f"\n{indent}target_compile_options({t} PRIVATE {_RDC_COMPILE})"
                   f"\n{indent}target_link_options({t} PUBLIC {_RDC_LINK})" for t in targets)


def _command_fix(path: str, text: str, c, new: str, description: str) -> Fix:
    """Replace command ``c`` with ``new``; an empty ``new`` removes its line when the command is alone on it."""
    start, end = c.start, c.end
    if not new:
        line_start, _ = _line_of(text, start)
        eol = text.find("\n", end)
        if not text[line_start:start].strip() and (eol < 0 or not text[end:eol].strip()):
            start, end = line_start, (len(text) if eol < 0 else eol + 1)
    return _unsafe(path, start, end, new, description)


def _language_name_fixes(path: str, text: str, cmds) -> list[Fix]:
    fixes = []
    for c in cmds:
        for k, a in enumerate(c.args):
            if "CUDA" in a.text or "cuda_std_" in a.text:
                for m in _CUDA_GENEX.finditer(a.text):
                    if m.group():  # $<COMPILE_LANGUAGE:CUDA>: the CUDA after the colon
                        at = a.start + m.end() + 1
                        if text[at:at + 4] == "CUDA":
                            fixes.append(_unsafe(path, at, at + 4, "HIP", f"{m.group()}:CUDA → {m.group()}:HIP"))
                    else:  # cuda_std_17: the cuda before the number
                        at = a.start + m.start() - len("cuda_std_")
                        if text[at:at + 4] == "cuda":
                            fixes.append(_unsafe(path, at, at + 4, "hip", "cuda_std_* → hip_std_* compile feature"))
            if (a.text in ("LANGUAGE", "LINKER_LANGUAGE") and not a.quoted and k + 1 < len(c.args)
                    and c.args[k + 1].text == "CUDA" and c.lname in ("set_source_files_properties", "set_property",
                                                                      "set_target_properties")):
                v = c.args[k + 1]
                if text[v.start:v.end] == "CUDA":
                    fixes.append(_unsafe(path, v.start, v.end, "HIP", f"{a.text} CUDA → {a.text} HIP"))
    return fixes


#: Signs that a build file already builds for AMD GPUs (a HIP language, hipcc, a ROCm switch).
_AMD_BUILD_SIGNS = re.compile(
    r"\benable_language\s*\(\s*HIP\b|\bproject\s*\([^)]*\bHIP\b|\bfind_package\s*\(\s*hip\b"
    r"|\bhipcc\b|\bHIP_PLATFORM\b|\bUSE_ROCM\b|\bGGML_HIP\b|\bIS_HIP_EXTENSION\b|\bROCM_HOME\b"
    r"|\btorch\.version\.hip\b|--offload-arch\b|\bamdgpu-target\b",
    re.IGNORECASE,
)


def existing_amd_support(text: str) -> str:
    """What in a build file's text shows it already builds for AMD GPUs (``enable_language(HIP)``,
    ``USE_ROCM``, ``IS_HIP_EXTENSION`` …), or ``""``. Comment lines (``#`` first) do not count: a
    Makefile that explains why it bypasses "hipcc" builds nothing with it."""
    for m in _AMD_BUILD_SIGNS.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if not text[line_start:m.start()].lstrip().startswith("#"):
            return m.group()
    return ""


def _min_version_fix(path: str, cmd) -> Fix | None:
    args = list(cmd.args)
    for k, a in enumerate(args[:-1]):
        if a.text != "VERSION":
            continue
        v = args[k + 1]
        low = v.text.split("...")[0]
        parts = tuple(int(p) for p in re.findall(r"\d+", low)[:2])
        if len(parts) == 2 and parts < HIP_MIN_CMAKE:
            new = "3.21" + v.text[len(low):]
            return Fix((Edit(path, v.start, v.end, new),), Applicability.SAFE,
                       "the HIP language needs CMake 3.21", ("build",))
    return None


def cmake_rename_fixes(path: str, text: str, renamed: Iterable[str]) -> list[Fix]:
    """CMake arguments naming a renamed ``.cu`` source (relative to the CMake file's folder) → ``.hip``."""
    names = set(renamed)
    if not names:
        return []
    here = posixpath.dirname(path)
    cmds, _ = cmake_commands(text)
    fixes = []
    for c in cmds:
        for a in c.args:
            if a.text.endswith(".cu") and _refers(here, a.text, names):
                start = a.start + (1 if a.quoted else 0)
                end = start + len(a.text)
                if text[start:end] == a.text:
                    fixes.append(_rename_fix(path, start, end, a.text))
    return fixes


_MAKE_WORD = re.compile(r"[^\s:=;|&<>()'\"$,]+\.cu(?![\w.])")


def makefile_rename_fixes(path: str, text: str, renamed: Iterable[str]) -> list[Fix]:
    """Makefile words naming a renamed source (``k.cu``, ``src/k.cu``) or a ``.cu`` pattern (``%.cu``, ``*.cu``) → ``.hip``.

    Patterns change only when every ``.cu`` file of the Makefile's folder tree is
    renamed, which ``--rename-sources`` does.
    """
    names = set(renamed)
    if not names:
        return []
    here = posixpath.dirname(path)
    fixes = []
    offset = 0
    for line in text.splitlines(keepends=True):
        code = _strip_make_comment(line)
        for m in _MAKE_WORD.finditer(code):
            word = m.group()
            if "%" in word or "*" in word or _refers(here, word, names):
                fixes.append(_rename_fix(path, offset + m.start(), offset + m.end(), word))
        offset += len(line)
    return fixes


def include_rename_fixes(path: str, toks: list, renamed: Iterable[str]) -> list[Fix]:
    """``#include "k.cu"`` of a renamed source → ``"k.hip"`` (quoted includes resolve beside the including file)."""
    if not renamed:  # the common case: no --rename-sources
        return []
    from vado.rules.cuda_syntax import spelling_index
    from vado.scan.lexer import Kind

    names = set(renamed)
    here = posixpath.dirname(path)
    fixes = []
    for i in spelling_index(toks).directive_marks():
        tok = toks[i]
        if i + 1 >= len(toks) or tok[0] is not Kind.DIRECTIVE or not tok[3].endswith("include"):
            continue
        op = toks[i + 1]
        if op[0] is Kind.STRING and op[3].endswith('.cu"') and _refers(here, op[3][1:-1], names):
            fixes.append(_rename_fix(path, op[1] + 1, op[2] - 1, op[3][1:-1]))
    return fixes


def _strip_make_comment(line: str) -> str:
    for i, ch in enumerate(line):
        if ch == "#" and (i == 0 or line[i - 1] != "\\"):
            return line[:i]
    return line


def _refers(here: str, word: str, names: set[str]) -> bool:
    return posixpath.normpath(posixpath.join(here, word)) in names


def _rename_fix(path: str, start: int, end: int, word: str) -> Fix:
    new = renamed_name(word)
    return Fix((Edit(path, start, end, new),), Applicability.SAFE, f"{word} → {new} (renamed source)", ("rename-source",))


#: Where hipcc finds ROCm headers (``__has_include`` searches these for a ported include).
_ROCM_INCLUDE_DIRS = ("$(ROCM_PATH)/include", "/opt/rocm/include", "/usr/include")


def implied_link_flag(choices: dict[str, str]) -> str:
    """The Make expression that links the library of the first replacement header found.

    ``{"rocprofiler-sdk-roctx/roctx.h": "rocprofiler-sdk-roctx", "roctracer/roctx.h": "roctx64"}`` →
    ``$(if $(wildcard …/rocprofiler-sdk-roctx/roctx.h …),-lrocprofiler-sdk-roctx,-lroctx64)``: the
    same choice the ported source makes with ``__has_include``, made when make reads the file.
    """
    items = list(choices.items())
    expr = f"-l{items[-1][1]}"
    for header, lib in reversed(items[:-1]):
        paths = " ".join(f"{d}/{header}" for d in _ROCM_INCLUDE_DIRS)
        expr = f"$(if $(wildcard {paths}),-l{lib},{expr})"
    return expr


@functools.cache
def _rocm_link_names() -> frozenset[str]:
    from vado.knowledge.libraries import all_libraries

    names = set()
    for lib in all_libraries():
        if lib.rocm is not None:
            names.update(n for n in (*lib.rocm.links, *lib.rocm.roc_links) if "::" not in n)
    return frozenset(names)


_MAKE_LINK_WORD = re.compile(r"(?<![^\s=])-l([\w.+-]+)")


def makefile_link_fixes(path: str, text: str, library_ids: Iterable[str]) -> list[Fix]:
    """Link flags for libraries the sources under this Makefile's folder use without linking them on CUDA.

    NVTX 3 is header-only, so llm.c's Makefile links nothing for it; its ROCm replacement, ROCTx,
    is a shared library (``link_when_included`` in the library table). Once the Makefile builds
    with hipcc, its flag (:func:`implied_link_flag`) is appended to the first assignment that
    links a ROCm library (``NVCC_LDFLAGS = -lhipblas -lhipblaslt``). A Makefile that names none,
    or that names the library already, gets no fix.
    """
    from vado.knowledge.libraries import library
    from vado.scan.buildfiles.makefile import MAKE_ASSIGN, make_comment_cut, other_platform_ranges

    wanted = _wanted_links(text, library_ids)
    if not wanted or not re.search(r"^[^#\n]*\bhipcc\b", text, re.MULTILINE):
        return []
    skipped = other_platform_ranges(text)
    names = _rocm_link_names()
    offset = 0
    lines = text.splitlines(keepends=True)
    k = 0
    while k < len(lines):
        first, start = k, offset
        while k < len(lines) - 1 and lines[k].rstrip("\r\n").endswith("\\") and not lines[k].rstrip("\r\n").endswith("\\\\"):
            offset += len(lines[k])
            k += 1
        last_start = offset
        offset += len(lines[k])
        k += 1
        stmt = "".join(lines[first:k])
        am = MAKE_ASSIGN.match(stmt) if not stmt.startswith("\t") else None
        if am is None or any(s <= start < e for s, e, _ in skipped):
            continue
        code = "".join(line[:make_comment_cut(line, False)] for line in lines[first:k])
        if not any(m.group(1) in names for m in _MAKE_LINK_WORD.finditer(code[am.end():])):
            continue
        last = lines[k - 1]
        body = last[:make_comment_cut(last, False)].rstrip("\r\n")
        at = last_start + len(body.rstrip(" \t"))
        flags = " ".join(implied_link_flag(c) for _, c in wanted)
        return [_unsafe(path, at, at, f" {flags}",
                        f"link {', '.join(library(i).rocm.equivalent.split(' (')[0] or i for i, _ in wanted)}: "
                        "the sources include its headers, and unlike CUDA's it is a shared library")]
    return []
