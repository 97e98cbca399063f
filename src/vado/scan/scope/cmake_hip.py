"""The HIP build of a project's CMake files (read, never run): the switch that turns it on (an option named
for HIP, or a cache string compared with ``"hip"``), the macros its configuration defines, the hipify steps
it runs, the CUDA sources it compiles as HIP and those only its CUDA build names. The ``if()`` reading
(:func:`branches`) and the CMake truth values are shared with :mod:`vado.scan.amd_build`."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Mapping

from vado.scan.scope.model import HipBuild, unique


_SWITCH_LAST = frozenset({"HIP", "ROCM", "HIPBLAS", "AMD", "AMDGPU"})
_ARCH_VARS = ("GPU_TARGETS", "AMDGPU_TARGETS", "CMAKE_HIP_ARCHITECTURES")
CMAKE_TRUE = frozenset({"ON", "YES", "TRUE", "Y", "1"})
CMAKE_FALSE = frozenset({"OFF", "NO", "FALSE", "N", "0", "", "IGNORE", "NOTFOUND"})
#: Platform variables CMake sets, for the Linux hosts a ROCm build runs on.
_PLATFORM = {"LINUX": True, "UNIX": True, "WIN32": False, "APPLE": False, "MSVC": False, "MINGW": False,
             "CYGWIN": False, "IOS": False, "ANDROID": False, "EMSCRIPTEN": False}
HIP_CMAKE_SIGN = re.compile(r"\benable_language\s*\(\s*HIP\b|\bfind_package\s*\(\s*hip\b|\bproject\s*\([^)]*\bHIP\b",
                            re.IGNORECASE)


def is_switch(name: str) -> bool:
    """Whether a variable's name says it turns a HIP build on (``GGML_HIP``, ``USE_ROCM``, ``WITH_HIP_X``)."""
    parts = name.upper().split("_")
    return parts[-1] in _SWITCH_LAST or (len(parts) >= 2 and parts[0] in ("USE", "WITH", "ENABLE", "BUILD")
                                         and parts[1] in _SWITCH_LAST)


def _cond(args: list[str], values: Mapping[str, bool]) -> bool | None:
    """An ``if()`` condition of plain names, ``NOT``, ``AND``, ``OR`` and ``DEFINED``, or None."""
    words = [a.strip() for a in args]
    if not words or any(w in ("(", ")") or " " in w for w in words):
        return None

    def atom(i: int) -> tuple[bool | None, int]:
        if i >= len(words):
            return None, i
        w = words[i]
        if w.upper() == "NOT":
            v, j = atom(i + 1)
            return (None if v is None else not v), j
        if w.upper() == "DEFINED" and i + 1 < len(words):
            name = words[i + 1].strip("${}")
            return (True if name in values else None), i + 2
        name = w[2:-1] if w.startswith("${") and w.endswith("}") else w
        if name.upper() in CMAKE_TRUE:
            return True, i + 1
        if name.upper() in CMAKE_FALSE:
            return False, i + 1
        if name in values:
            return values[name], i + 1
        if name in _PLATFORM:
            return _PLATFORM[name], i + 1
        return None, i + 1

    value, i = atom(0)
    while i < len(words):
        op = words[i].upper()
        if op not in ("AND", "OR"):
            return None
        rhs, i = atom(i + 1)
        if op == "AND":
            value = False if value is False or rhs is False else (None if value is None or rhs is None else True)
        else:
            value = True if value is True or rhs is True else (None if value is None or rhs is None else False)
    return value


@dataclass
class _Branch:
    """The open branch of one ``if()``: whether it holds in the configuration (None: undecided), whether an
    earlier branch of the same ``if()`` held, and the command that opened it with its arguments."""

    holds: bool | None
    held: bool
    opened_by: str  # "if", "elseif" or "else"
    args: tuple[str, ...]

    @property
    def text(self) -> str:
        """The branch's condition as written (``NOT (…)`` of the last condition for an ``else()``)."""
        cond = " ".join(self.args)
        return f"NOT ({cond})" if self.opened_by == "else" else cond


def branches(cmds, values: Mapping[str, bool]):
    """Each command of a CMake file with the branches open around it, ``(command, [_Branch, …])``, the
    conditions evaluated with ``values`` (:func:`_cond`); an ``if()``/``elseif()``/``else()`` is given with
    the branch it opens, an ``endif()`` after its ``if()`` is closed. The list is the same object throughout:
    read it before the next step."""
    stack: list[_Branch] = []
    for c in cmds:
        name = c.lname
        if name == "if":
            args = tuple(a.text for a in c.args)
            v = _cond(list(args), values)
            stack.append(_Branch(v, v is True, "if", args))
        elif name == "elseif" and stack:
            args = tuple(a.text for a in c.args)
            v = _cond(list(args), values)
            b = stack[-1]
            b.holds = False if b.held else v
            b.held = b.held or v is True
            b.opened_by, b.args = "elseif", args
        elif name == "else" and stack:
            b = stack[-1]
            b.holds = False if b.held else (None if b.holds is None else not b.holds)
            b.opened_by = "else"
        elif name == "endif" and stack:
            stack.pop()
        yield c, stack


def _hip_string_test(args: list[str]) -> tuple[str, str] | None:
    """``(VAR, value)`` for an ``if()`` that compares a variable with a HIP/ROCm value (``${COMPUTE_BACKEND}
    STREQUAL "hip"``), else None."""
    if len(args) != 3 or args[1].upper() != "STREQUAL":
        return None
    name, value = args[0], args[2]
    if value.startswith("${"):
        name, value = value, name
    name = name[2:-1] if name.startswith("${") and name.endswith("}") else name
    if not re.fullmatch(r"\w+", name) or value.lower() not in ("hip", "rocm", "amd"):
        return None
    return name, value


#: A project's own command that adds one macro to its configuration (AMReX 92679ba: ``add_amrex_define(AMREX_USE_HIP
#: NO_LEGACY)``, written into the generated config header its sources include): its first argument is the macro.
_OWN_DEFINE_COMMAND = re.compile(r"\w+_defines?")
_MACRO_ARG = re.compile(r"[A-Za-z_]\w*(?:=[^\s$;\\\"]*)?")


def _definitions(cmd) -> list[str]:
    """The macros a CMake command defines (``add_compile_definitions``, ``add_definitions(-DX)``,
    ``target_compile_definitions(t PUBLIC X)``, a project's ``add_X_define(NAME …)``)."""
    name = cmd.lname
    args = [a.text for a in cmd.args]
    if (_OWN_DEFINE_COMMAND.fullmatch(name) and name not in ("add_definitions", "remove_definitions")
            and args and _MACRO_ARG.fullmatch(args[0])):
        return [args[0]]
    if name == "add_compile_definitions":
        return [a for a in args if a and not a.startswith("$")]
    if name == "add_definitions":
        return [a[2:] for a in args if a.startswith(("-D", "/D")) and len(a) > 2]
    if name == "target_compile_definitions" and len(args) > 1:
        # CMake removes a leading -D from each item (libocca/occa c0c601f: PRIVATE -DUSE_CMAKE).
        return [a[2:] if a.startswith("-D") else a for a in args[1:]
                if a and a not in ("PUBLIC", "PRIVATE", "INTERFACE") and not a.startswith("$") and a != "-D"]
    return []


_CMAKE_VAR = re.compile(r"\$\{(\w+)\}")
#: Variables that stand for the directory of the CMake file that reads them, or for the project's root.
CMAKE_HERE = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/")
CMAKE_TOP = ("${CMAKE_SOURCE_DIR}/", "${PROJECT_SOURCE_DIR}/")
_CUDA_SOURCE_EXT = (".cu",)


def _cmake_sources(path: str, cmds, files: frozenset[str],
                   values_on: Mapping[str, bool] | None = None) -> tuple[list[str], list[str], list[str]]:
    """The planned files one CMake file gives ``LANGUAGE HIP`` (``set_source_files_properties``), every
    planned ``.cu`` file it names, those it names only where an enclosing ``if()`` is false in the
    AMD configuration (``values_on``: the options and switch values that configuration sets), and those
    that configuration takes out of a list (``list(REMOVE_ITEM V …)`` in a branch it takes), each in the
    order read.

    Variables are followed in the file's order, ignoring its conditionals: ``set(V …)`` replaces,
    ``list(APPEND|PREPEND V …)`` adds, ``list(REMOVE_ITEM V …)`` removes, ``file(GLOB V pattern …)`` matches the planned files of one
    directory; a name is relative to the file's directory (``${CMAKE_CURRENT_SOURCE_DIR}/``) or the
    root (``${CMAKE_SOURCE_DIR}/``, ``${PROJECT_SOURCE_DIR}/``). Anything else (a generator expression,
    an unknown variable) names nothing."""
    import fnmatch

    base = posixpath.dirname(path)
    values: dict[str, list[str]] = {}

    def expand(args: list[str]) -> list[str]:
        out: list[str] = []
        for a in args:
            m = _CMAKE_VAR.fullmatch(a)
            if m:
                out.extend(values.get(m.group(1), ()))
            else:
                out.extend(x for x in a.split(";") if x)
        return out

    def resolve(name: str) -> str | None:
        for pre in CMAKE_HERE:
            if name.startswith(pre):
                name = name[len(pre):]
                break
        else:
            for pre in CMAKE_TOP:
                if name.startswith(pre):
                    got = posixpath.normpath(name[len(pre):])
                    return got if got in files else None
        if "$" in name or name.startswith("/"):
            return None
        got = posixpath.normpath(posixpath.join(base, name))
        return got if got in files else None

    hip: list[str] = []
    named: list[str] = []
    off: list[str] = []
    removed: list[str] = []
    for c, stack in branches(cmds, dict(values_on or {})):
        args = [a.text for a in c.args]
        dead = any(b.holds is False for b in stack)
        if dead and c.lname in ("set", "list", "file"):
            # What a branch the AMD configuration does not take would assign does not happen there.
            for a in expand(args):
                r = resolve(a) if a.endswith(_CUDA_SOURCE_EXT) else None
                if r is not None:
                    off.append(r)
            continue
        if c.lname == "set" and args:
            values[args[0]] = [a for a in expand(args[1:]) if a not in ("CACHE", "PARENT_SCOPE")]
        elif c.lname == "list" and len(args) >= 2 and args[0].upper() in ("APPEND", "PREPEND"):
            values.setdefault(args[1], []).extend(expand(args[2:]))
        elif c.lname == "list" and len(args) >= 2 and args[0].upper() == "REMOVE_ITEM":
            # The AMD configuration takes these sources out of the list (CTranslate2 0d8bcd3: its WITH_HIP branch
            # removes the AWQ kernels from CUDA_SOURCES before giving the rest LANGUAGE HIP): not compiled there.
            gone = set(expand(args[2:]))
            values[args[1]] = [a for a in values.get(args[1], ()) if a not in gone]
            for a in gone:
                r = resolve(a) if a.endswith(_CUDA_SOURCE_EXT) else None
                if r is not None:
                    removed.append(r)
            continue
        elif c.lname == "file" and len(args) >= 2 and args[0].upper() == "GLOB" and "RELATIVE" not in args:
            found = []
            for pat in expand(args[2:]):
                if pat in ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES") or pat.upper() in CMAKE_TRUE | CMAKE_FALSE:
                    continue
                for pre in CMAKE_HERE:
                    pat = pat[len(pre):] if pat.startswith(pre) else pat
                if "$" in pat:
                    continue
                pat = posixpath.normpath(posixpath.join(base, pat))
                home = posixpath.dirname(pat)
                found.extend(sorted(f for f in files if posixpath.dirname(f) == home and fnmatch.fnmatchcase(f, pat)))
            values[args[1]] = found
        elif c.lname == "set_source_files_properties" and "PROPERTIES" in args:
            k = args.index("PROPERTIES")
            props = args[k + 1:]
            if any(props[j].upper() == "LANGUAGE" and props[j + 1].upper() == "HIP" for j in range(len(props) - 1)):
                hip.extend(r for r in map(resolve, expand(args[:k])) if r is not None)
        for a in expand(args):
            r = resolve(a) if a.endswith(_CUDA_SOURCE_EXT) else None
            if r is not None:
                (off if dead else named).append(r)
    return hip, named, off, removed


def cmake_hip(texts: Mapping[str, str], hip_dirs: set[str], arches: str,
              files: frozenset[str] = frozenset()) -> HipBuild | None:
    """The HIP build of a project's CMake files (path → text), or None; ``files``: the planned paths, for
    the sources the HIP build compiles."""
    from vado.scan.buildfiles import cmake_commands

    options: dict[str, bool] = {}
    evidence: list[str] = []
    parsed = {}
    for path, text in texts.items():
        cmds, _ = cmake_commands(text)
        parsed[path] = cmds
        for c in cmds:
            if c.lname in ("option", "cmake_dependent_option") and c.args:
                default = c.args[2].text.upper() if len(c.args) > 2 else "OFF"
                options[c.args[0].text] = default in CMAKE_TRUE
    hip_files = [p for p, t in texts.items() if HIP_CMAKE_SIGN.search(t) or posixpath.dirname(p) in hip_dirs]
    tested = {} if hip_files else _tested_switches(parsed)
    if not hip_files and not tested:
        return None
    if not hip_files:
        # No HIP language or package in sight, but the files test a HIP switch the project's own functions set
        # (kokkos 28848df: kokkos_device_option(HIP …) makes Kokkos_ENABLE_HIP, tested by if(KOKKOS_ENABLE_HIP)).
        hip_files = sorted({p for p, _ in tested.values()})
    # A value switch: a cache string compared with "hip" (COMPUTE_BACKEND=hip), read directly or through a
    # variable set ON in its branch (bitsandbytes: if(COMPUTE_BACKEND STREQUAL "hip") set(BUILD_HIP ON)), in any
    # of the project's CMake files (AMReX 92679ba: AMReXOptions.cmake turns AMReX_GPU_BACKEND=HIP into AMReX_HIP,
    # which AMReXParallelBackends.cmake tests around its find_package(hip)).
    chosen: dict[str, tuple[str, str]] = {}  # variable set ON in such a branch -> (string variable, value)
    set_off: dict[tuple[str, str], set[str]] = {}  # (string variable, value) -> variables its branch sets OFF
    for path in sorted(texts):
        stack: list[tuple[str, str] | None] = []
        for c in parsed[path]:
            args = [a.text for a in c.args]
            if c.lname in ("if", "elseif"):
                got = _hip_string_test(args)
                if c.lname == "if":
                    stack.append(got)
                elif stack:
                    stack[-1] = got
            elif c.lname == "else" and stack:
                stack[-1] = None
            elif c.lname == "endif" and stack:
                stack.pop()
            elif c.lname == "set" and len(args) >= 2 and stack and stack[-1]:
                if args[1].upper() in CMAKE_TRUE:
                    chosen[args[0]] = stack[-1]
                elif args[1].upper() in CMAKE_FALSE:
                    set_off.setdefault(stack[-1], set()).add(args[0])
            elif c.lname in ("enable_language", "find_package") and stack and stack[-1] and args \
                    and args[0].lower() == "hip":
                chosen[""] = stack[-1]
    # The switch: the if() around a HIP sign, else an option named for HIP (GGML_HIP, USE_ROCM).
    switch = ""
    string_switch: tuple[str, str] | None = chosen.get("")
    for path in hip_files:
        stack: list[str] = []
        for c in parsed[path]:
            if c.lname == "if":
                stack.append(" ".join(a.text for a in c.args))
            elif c.lname == "elseif" and stack:
                stack[-1] = " ".join(a.text for a in c.args)
            elif c.lname == "endif" and stack:
                stack.pop()
            elif c.lname in ("enable_language", "find_package") and c.args and c.args[0].text.lower() == "hip":
                for cond in reversed(stack):
                    name = cond.replace("NOT ", "").strip()
                    if name in options and is_switch(name) and not cond.startswith("NOT "):
                        switch = name
                        break
                    if name in chosen and not cond.startswith("NOT ") and string_switch is None:
                        string_switch = chosen[name]
                        break
        if switch:
            break
    if not switch and string_switch is None:
        named = sorted((n for n in options if is_switch(n)), key=lambda n: (options[n], len(n), n))
        switch = named[0] if named else ""
    if not switch and string_switch is None and tested:
        switch = _user_spelling(tested)
        evidence.append(f"{tested[switch][0]}: if({switch}) (a switch the project's own CMake functions set, "
                        f"tested {tested[switch][1]} times; default OFF)")
    elif switch:
        evidence.append(f"option {switch} (default {'ON' if options.get(switch) else 'OFF'})")
    elif string_switch is not None:
        evidence.append(f"{string_switch[0]}={string_switch[1]} builds with HIP")
    evidence.extend(f"{p}: builds with HIP" for p in sorted(hip_files)[:4])
    values = dict(options)
    if switch:
        values[switch] = True
    elif string_switch is not None:
        switch = string_switch[0]
        # The variables its HIP branch sets ON or OFF hold; nothing else is assumed of the string.
        for name, test in chosen.items():
            if name and test == string_switch:
                values[name] = True
        for name in set_off.get(string_switch, ()):
            values.setdefault(name, False)
    defines: list[str] = []
    undecided: list[str] = []
    # The switch's own branches: if(SWITCH), or if(X) of a variable its HIP value sets ON (AMReX_HIP).
    own_branch = {(switch,)} if switch else set()
    own_branch |= {(name,) for name, test in chosen.items() if name and test == string_switch}
    for path in sorted(texts):
        hip_file = path in hip_files
        for c, stack in branches(parsed[path], values):
            found = _definitions(c)
            # In a HIP build file, or in the switch's own branch (its if(), not an elseif()/else()).
            if not found or not (hip_file or any(b.opened_by == "if" and b.args in own_branch for b in stack)):
                continue
            holds = [b.holds for b in stack]
            if all(h is True for h in holds):
                defines.extend(found)
            elif False not in holds:
                undecided.extend(found)
    hipify_step: list[str] = []
    for path in sorted(texts):
        for c, stack in branches(parsed[path], values):
            # A command the AMD configuration runs that names a hipify tool (hipify-perl, hipify-clang, a
            # project's hipify script): the build converts its CUDA sources when it is configured or built.
            if c.lname in _RUNS and any("hipify" in a.text.lower() for a in c.args) \
                    and all(b.holds is True for b in stack):
                line = texts[path].count("\n", 0, c.start) + 1
                tool = next(a.text for a in c.args if "hipify" in a.text.lower())
                hipify_step.append(f"{path}:{line}: {c.name} runs {tool.replace('${PROJECT_SOURCE_DIR}/', '')}")
    evidence.extend(f"{h} (its CUDA sources are hipified by the build)" for h in hipify_step)
    archvar = next((v for v in _ARCH_VARS if any(re.search(rf"\b{v}\b", t) for t in texts.values())),
                   "CMAKE_HIP_ARCHITECTURES")
    archvar = _forced_from(parsed, archvar)
    on = f"={string_switch[1]}" if string_switch is not None else "=ON"
    own_arch, no_option = _own_arch_options(parsed, switch, arches)
    if own_arch:
        how = "cmake" + (f" -D{switch}{on}" if switch else "") + "".join(f" -D{d}" for d in own_arch)
        if no_option:  # said where the command is shown: that build cannot be told to target these arches
            how += f" (no arch option of the project's names {', '.join(no_option)})"
        evidence.extend(f"the project defines no GPU arch option for {a} (its CMake files name none)" for a in no_option)
    else:
        how = "cmake" + (f" -D{switch}{on}" if switch else "") + f" -D{archvar}={arches}"
    hip_language: list[str] = []
    named: list[str] = []
    off: list[str] = []
    removed: list[str] = []
    for path in sorted(texts):
        got, names, dead, gone = _cmake_sources(path, parsed[path], files, values)
        if got:
            evidence.append(f"{path}: compiles {len(set(got))} CUDA sources as HIP (LANGUAGE HIP)")
        hip_language.extend(got)
        named.extend(names)
        off.extend(dead)
        removed.extend(gone)
    # With the HIP build's sources named, a CUDA source the CMake files name only under a condition false in
    # the AMD configuration is one only the CUDA build compiles (bitsandbytes' sm75/sm80 MMA kernels, in the
    # if(BUILD_CUDA) branch alone), and so is one that configuration removes from its lists and compiles as HIP
    # nowhere else.
    cuda_only = sorted((set(off) - set(named) | set(removed)) - set(hip_language)) if hip_language else []
    return HipBuild(how, switch, unique(defines), tuple(sorted(set(undecided) - set(defines))),
                    evidence=tuple(evidence), hip_language=unique(hip_language), cuda_only=tuple(cuda_only),
                    hipify_step=tuple(hipify_step))


_GFX = re.compile(r"gfx9[0-9a-f]{2}", re.I)


def _own_arch_options(parsed: Mapping[str, list], switch: str, arches: str) -> tuple[list[str], list[str]]:
    """The project's own AMD GPU arch options for ``arches`` (``gfx942`` or ``"gfx942;gfx950"``), as ``NAME=VALUE``
    words, and the arches it defines none for; nothing where it defines none at all (then the caller's
    ``GPU_TARGETS``/``CMAKE_HIP_ARCHITECTURES``).

    - an ``option()``/``cmake_dependent_option()`` whose name holds an arch (``option(MB_ARCH_AMD_GFX942 …)``):
      ``NAME=ON``;
    - a string cache variable or option whose name holds ARCH and AMD, HIP or ROCM and that no ``set(… FORCE)``
      derives (``set(MB_AMD_ARCH "gfx90a" CACHE STRING …)``): ``NAME=gfx942;gfx950``;
    - kokkos 28848df's pattern: the arch is a word of a list its option function turns into ``ARCH_<word>``
      options of the package's prefix (``list(APPEND SUPPORTED_AMD_ARCHS AMD_GFX942 …)`` and
      ``kokkos_dependent_option(ARCH_${SUFFIX} …)`` in cmake/kokkos_arch.cmake; the cache variable is
      ``Kokkos_ARCH_AMD_GFX942``, prefix as in the HIP switch ``Kokkos_ENABLE_HIP``): ``Kokkos_ARCH_AMD_GFX942=ON``.
    """
    wanted = [a for a in arches.strip('"').split(";") if a]
    booleans: dict[str, str] = {}  # gfx → option name
    strings: list[str] = []
    list_words: dict[str, str] = {}  # gfx → a list word naming it (AMD_GFX942)
    arch_option_function = False
    for path in sorted(parsed):
        for c in parsed[path]:
            args = [a.text for a in c.args]
            if not args:
                continue
            first = args[0]
            if c.lname in ("option", "cmake_dependent_option") or (c.lname == "set" and "CACHE" in args):
                m = _GFX.search(first)
                if m and c.lname != "set":
                    booleans.setdefault(m.group(0).lower(), first)
                elif (re.search(r"ARCH", first, re.I) and re.search(r"AMD|HIP|ROCM", first, re.I)
                      and "FORCE" not in args and first not in _ARCH_VARS
                      and (c.lname == "set" and "STRING" in args)):
                    strings.append(first)
            elif c.lname.endswith("option") and first.startswith("ARCH_${"):
                arch_option_function = True
            elif c.lname == "list" and len(args) > 2 and "ARCH" in args[1].upper() and "AMD" in args[1].upper():
                for w in args[2:]:
                    m = _GFX.search(w)
                    if m and re.fullmatch(r"\w+", w) and w.upper() == w:
                        list_words.setdefault(m.group(0).lower(), w)
    if booleans:
        return [f"{booleans[a]}=ON" for a in wanted if a in booleans], [a for a in wanted if a not in booleans]
    prefix = switch.split("_ENABLE_", 1)[0] if "_ENABLE_" in switch else ""
    if arch_option_function and list_words and prefix:
        return ([f"{prefix}_ARCH_{list_words[a]}=ON" for a in wanted if a in list_words],
                [a for a in wanted if a not in list_words])
    if strings:
        value = ";".join(wanted)
        return [f"{strings[0]}=" + (f'"{value}"' if ";" in value else value)], []
    return [], []


def _forced_from(parsed: Mapping[str, list], archvar: str) -> str:
    """The variable a user sets for ``archvar``: the project's own where it forces the cache entry from one
    (AMReX 92679ba: ``set(GPU_TARGETS "${AMReX_AMD_ARCH}" CACHE STRING … FORCE)`` overwrites a -DGPU_TARGETS)."""
    for path in sorted(parsed):
        for c in parsed[path]:
            args = [a.text for a in c.args]
            if c.lname == "set" and len(args) >= 3 and args[0] == archvar and "FORCE" in args and "CACHE" in args:
                m = _CMAKE_VAR.fullmatch(args[1])
                if m:
                    return m.group(1)
    return archvar


def _tested_switches(parsed: Mapping[str, list]) -> dict[str, tuple[str, int]]:
    """The HIP switches (:func:`is_switch`) the CMake files test by name alone (``if(KOKKOS_ENABLE_HIP)``,
    ``elseif(X AND Kokkos_ENABLE_HIP)``) without ever giving them a literal value (what ``set(X_HIP ON)``
    sets is derived from another switch, an ``option()`` is read as such): name → (first file, number of tests)."""
    found: dict[str, list] = {}
    assigned: set[str] = set()
    for path in sorted(parsed):
        for c in parsed[path]:
            if c.lname in ("if", "elseif"):
                for a in c.args:
                    name = a.text[2:-1] if a.text.startswith("${") and a.text.endswith("}") else a.text
                    if re.fullmatch(r"\w+", name) and is_switch(name):
                        got = found.setdefault(name, [path, 0])
                        got[1] += 1
            elif c.lname in ("set", "option", "cmake_dependent_option") and c.args:
                assigned.add(c.args[0].text)
    return {n: (p, k) for n, (p, k) in found.items() if n not in assigned}


def _user_spelling(tested: Mapping[str, tuple[str, int]]) -> str:
    """The switch a user sets, among :func:`_tested_switches`: the most tested name (counting together the
    spellings that differ only in case), in the package's own mixed case where it has one (``Kokkos_ENABLE_HIP``,
    the cache variable; ``KOKKOS_ENABLE_HIP`` is the copy its functions make of it)."""
    groups: dict[str, list[str]] = {}
    for n in tested:
        groups.setdefault(n.upper(), []).append(n)
    best = max(groups.values(), key=lambda ns: (sum(tested[n][1] for n in ns), -min(len(n) for n in ns), sorted(ns)))
    return sorted(best, key=lambda n: (n == n.upper(), n))[0]


#: CMake commands that run a program when the project is configured or built.
_RUNS = frozenset({"execute_process", "add_custom_command", "add_custom_target"})
