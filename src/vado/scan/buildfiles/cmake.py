"""CMake files: the CUDA language, FindCUDA and CUDA toolkit packages, architecture lists, ``CMAKE_CUDA_*``
variables, separable compilation, CUDA libraries, nvcc and its flags (:func:`parse_cmake`)."""

from __future__ import annotations

import re

from vado.scan.buildfiles.cmake_syntax import CMakeArg, cmake_commands
from vado.scan.buildfiles.facts import BuildFact, BuildFacts, FactKind, dedupe, with_text
from vado.scan.buildfiles.nvcc_flags import CUDA_LIBRARIES, CUDA_TOOLKIT_PATH, NVCC_WORD, arch_numbers, flag_facts, path_form


_CMAKE_ARCH_VARS = {"CMAKE_CUDA_ARCHITECTURES", "CUDA_ARCHITECTURES", "TORCH_CUDA_ARCH_LIST", "CUDA_ARCH_LIST",
                    "CUDA_ARCH", "GPU_ARCHS", "CMAKE_CUDA_ARCHS"}
_CMAKE_CUDA_VARS = re.compile(
    r"^(?:CMAKE_CUDA_\w+|CUDA_NVCC_FLAGS(?:_\w+)?|CUDA_PROPAGATE_HOST_FLAGS|CUDA_HOST_COMPILER|CUDA_STANDARD"
    r"|CUDA_STANDARD_REQUIRED|CUDA_EXTENSIONS|CUDA_RUNTIME_LIBRARY|CUDA_PTX_COMPILATION|CUDA_TOOLKIT_ROOT_DIR)$"
)
_CMAKE_RDC_VARS = {"CUDA_SEPARABLE_COMPILATION", "CMAKE_CUDA_SEPARABLE_COMPILATION", "CUDA_RESOLVE_DEVICE_SYMBOLS"}
_CUDA_COMMANDS = {"cuda_add_library", "cuda_add_executable", "cuda_compile", "cuda_compile_ptx", "cuda_compile_fatbin",
                  "cuda_compile_cubin", "cuda_wrap_srcs", "cuda_add_cublas_to_target", "cuda_add_cufft_to_target",
                  "cuda_include_directories", "cuda_select_nvcc_arch_flags"}
_IMPORTED = re.compile(r"\bCUDA::(\w+)")
_CUDA_VAR_REF = re.compile(r"\$\{(CMAKE_CUDA_\w+)\}")
#: ``${CMAKE_CUDA_…}`` references worth reporting (their definitions are renamed by BLD001).
_RENAMABLE_REFS = frozenset({
    "CMAKE_CUDA_FLAGS", "CMAKE_CUDA_FLAGS_DEBUG", "CMAKE_CUDA_FLAGS_RELEASE", "CMAKE_CUDA_FLAGS_RELWITHDEBINFO",
    "CMAKE_CUDA_FLAGS_MINSIZEREL", "CMAKE_CUDA_STANDARD",
    "CMAKE_CUDA_ARCHITECTURES",  # its definitions are renamed by BLD002
})
_CUDA_LIB_VAR = re.compile(r"\$\{CUDA_(?:(\w+?)_)?LIBRAR(?:Y|IES)\}")
#: A word of a CMake list in an argument (split on blanks and ``;``), and the generator
#: expression heads (``$<CONFIG:Release>:``) before a flag in it.
_CMAKE_LIST_WORD = re.compile(r"[^\s;]+")
_GENERATOR_HEAD = re.compile(r"^(?:\$<[^:>]*(?::[^:>]*)?>?:)+")
_LINK_COMMANDS = {"target_link_libraries", "link_libraries", "target_link_options"}
_VALUE_COMMANDS = {"set", "list", "string", "option"}


def parse_cmake(text: str, path: str = "CMakeLists.txt") -> BuildFacts:
    """CUDA language, toolkit, architecture, flag and library facts of a CMake file."""
    cmds, probs = cmake_commands(text)
    facts: list[BuildFact] = []
    for cmd in cmds:
        ln = cmd.lname
        args = cmd.args
        if ln == "project":
            for a in args[1:]:
                if a.text.upper() == "CUDA":
                    facts.append(BuildFact(FactKind.CUDA_LANGUAGE, a.start, a.end, "", ln, {"command": ln}))
        elif ln == "enable_language":
            for a in args:
                if a.text.upper() == "CUDA":
                    facts.append(BuildFact(FactKind.CUDA_LANGUAGE, a.start, a.end, "", ln, {"command": ln}))
        elif ln == "check_language" and args and args[0].text.upper() == "CUDA":
            facts.append(BuildFact(FactKind.CUDA_LANGUAGE, args[0].start, args[0].end, "", ln, {"command": ln}))
        elif ln == "find_package" and args and args[0].text in ("CUDA", "CUDAToolkit", "CUDNN", "cuDNN", "NCCL"):
            facts.append(BuildFact(FactKind.FIND_CUDA, args[0].start, args[0].end, "", ln,
                                   {"package": args[0].text, "command": ln}))
        if ln in _CUDA_COMMANDS:
            facts.append(BuildFact(FactKind.CUDA_COMMAND, cmd.name_start, cmd.name_end, "", ln, {"command": ln}))
        # Variables and properties named anywhere in the command's arguments.
        for k, a in enumerate(args):
            word = a.text
            if not a.quoted and word in _CMAKE_ARCH_VARS:
                values = _values_after(args, k, ln)
                facts.append(BuildFact(FactKind.CUDA_ARCH, a.start, a.end, "", ln, {
                    "variable": word,
                    "values": [(v.text, v.start, v.end) for v in values],
                    "sm": [s for v in values for s in arch_numbers(v.text)],
                    "command": ln,
                }))
            elif not a.quoted and word in _CMAKE_RDC_VARS:
                values = _values_after(args, k, ln)
                on = any(v.text.upper() in ("ON", "TRUE", "1", "YES") for v in values)
                if on or ln not in _VALUE_COMMANDS | {"set_target_properties", "set_property"}:
                    facts.append(BuildFact(FactKind.RDC, a.start, a.end, "", ln,
                                           {"flag": "rdc", "variable": word, "command": ln, "source": "cmake"}))
            elif not a.quoted and _CMAKE_CUDA_VARS.match(word) and (k == 0 or ln not in _VALUE_COMMANDS):
                facts.append(BuildFact(FactKind.CUDA_VARIABLE, a.start, a.end, "", ln, {"variable": word, "command": ln}))
            if "CUDA" not in word and "cuda" not in word:
                # What the patterns below find all spell CUDA or cuda; the link check needs neither.
                if ln in _LINK_COMMANDS and k > 0 and not a.quoted and word in CUDA_LIBRARIES:
                    facts.append(BuildFact(FactKind.CUDA_LIBRARY, a.start, a.end, "", ln,
                                           {"library": word, "form": "name", "command": ln, "source": "cmake"}))
                continue
            for m in _CUDA_VAR_REF.finditer(word):
                var = m.group(1)
                if var in _RENAMABLE_REFS:
                    facts.append(BuildFact(FactKind.CUDA_VARIABLE, a.start + m.start(1), a.start + m.end(1), "", ln,
                                           {"variable": var, "command": ln, "form": "reference"}))
            for m in _IMPORTED.finditer(word):
                facts.append(BuildFact(FactKind.CUDA_LIBRARY, a.start + m.start(), a.start + m.end(), "", ln,
                                       {"library": m.group(1), "form": "CUDA::", "command": ln, "source": "cmake"}))
            for m in _CUDA_LIB_VAR.finditer(word):
                # FindCUDA spells them CUDA_LIBRARIES (cudart), CUDA_CUBLAS_LIBRARIES, CUDA_cublas_LIBRARY.
                lib = (m.group(1) or "cudart").lower()
                facts.append(BuildFact(FactKind.CUDA_LIBRARY, a.start + m.start(), a.start + m.end(), "", ln,
                                       {"library": lib, "form": "variable", "command": ln, "source": "cmake"}))
            if ln in _LINK_COMMANDS and k > 0 and not a.quoted and word in CUDA_LIBRARIES:
                facts.append(BuildFact(FactKind.CUDA_LIBRARY, a.start, a.end, "", ln,
                                       {"library": word, "form": "name", "command": ln, "source": "cmake"}))
            for m in CUDA_TOOLKIT_PATH.finditer(word):
                facts.append(BuildFact(FactKind.CUDA_PATH, a.start + m.start(), a.start + m.end(), "", ln,
                                       {"source": "cmake", "form": path_form(m.group(0))}))
        # nvcc flags inside argument text (quoted flag lists are split on spaces
        # and ';', CMake's list separator; generator expressions are unwrapped).
        words: list[tuple[int, int, str]] = []
        for a in args:
            for m in _CMAKE_LIST_WORD.finditer(a.text):
                w = m.group(0)
                ge = _GENERATOR_HEAD.match(w) if w.startswith("$<") else None
                off = ge.end() if ge else 0
                w2 = w[off:].rstrip(">")
                if w2:
                    words.append((a.start + m.start() + off, a.start + m.start() + off + len(w2), w2))
        for f in flag_facts(words, ln, "cmake"):
            if f.kind is FactKind.CUDA_LIBRARY and ln not in _LINK_COMMANDS:
                continue
            if f.kind is FactKind.CUDA_LIBRARY and f.data.get("form") == "-l":
                facts.append(f)
            elif f.kind is not FactKind.CUDA_LIBRARY:
                facts.append(f)
        for s, e, w in words:
            if ("nvcc" in w or "NVCC" in w) and NVCC_WORD.match(w):
                facts.append(BuildFact(FactKind.NVCC, s, e, "", ln, {"source": "cmake"}))
    facts = dedupe(facts)
    return BuildFacts(path, tuple(with_text(text, facts)), tuple(probs))


_KEYWORDS_END = {"PROPERTIES", "PROPERTY", "PRIVATE", "PUBLIC", "INTERFACE", "CACHE", "PARENT_SCOPE", "FORCE",
                 "TARGET", "TARGETS", "SOURCE", "DIRECTORY", "APPEND", "APPEND_STRING"}


#: ``list()`` sub-commands whose arguments after the list's name (and ``INSERT``'s index) are elements.
_LIST_ELEMENTS = {"APPEND": 2, "PREPEND": 2, "INSERT": 3}


def _values_after(args: tuple[CMakeArg, ...], k: int, command: str) -> list[CMakeArg]:
    """Value arguments that follow a variable or property name at ``args[k]``.

    ``set_target_properties`` pairs each property with exactly one value;
    ``list()`` has elements only after ``APPEND``/``PREPEND`` (and ``INSERT``'s
    index) of the list named first: ``list(GET L 0 OUT)``, ``list(SORT L ORDER
    DESCENDING)`` and ``list(FIND L 90 OUT)`` hold indices, options and output
    variables, which are not values of ``L``; elsewhere values run to the next
    keyword (``CACHE``, ``PARENT_SCOPE`` …).
    """
    if command == "list":
        first = _LIST_ELEMENTS.get(args[0].text.upper()) if k == 1 else None
        return list(args[first:]) if first is not None else []
    out = []
    for a in args[k + 1 :]:
        if not a.quoted and a.text in _KEYWORDS_END:
            break
        out.append(a)
        if command == "set_target_properties":
            break
    return out
