"""Reading one compiler command line (nvcc, hipcc, gcc, g++, clang, clang++) into translation units.

:func:`parse_command` takes the words of a command and the directory it runs in, and returns one
:class:`~vado.build.model.TranslationUnit` per source file it compiles (none for a link-only
command, or for a command that is not a compiler). Relative paths are resolved against the
directory. What matters for compiling the unit elsewhere is kept (macros, include paths by kind,
forced includes, standard, optimisation, warnings, ``-f`` and ``-m`` options, ``-Xclang`` pairs);
output, dependency-file, link and offload-target options are left out; nvcc's own options are
translated where clang has an equivalent (``--use_fast_math`` → ``-ffast-math``, ``-rdc=true`` →
``-fgpu-rdc``, ``-Xcompiler a,b`` → ``a b``) and recorded in ``dropped`` otherwise.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Iterable, Sequence

from vado.build.model import IncludeKind, IncludePath, Language, TranslationUnit

#: Extensions of sources, by the language a C/C++ driver compiles them as.
C_EXTS = {".c"}
CXX_EXTS = {".cc", ".cpp", ".cxx", ".c++", ".cp", ".C"}
CUDA_EXTS = {".cu"}
HIP_EXTS = {".hip"}
SOURCE_EXTS = C_EXTS | CXX_EXTS | CUDA_EXTS | HIP_EXTS

_WRAPPERS = {"ccache", "sccache", "distcc", "env", "time", "nice"}
_NVCC = re.compile(r"^nvcc(?:\.exe)?$")
_HIPCC = re.compile(r"^(?:hipcc|amdclang\+\+|amdclang)(?:\.exe)?$")
_CXX = re.compile(r"^(?:.*-)?(?:g\+\+|c\+\+|clang\+\+)(?:-[\d.]+)?$")
_CC = re.compile(r"^(?:.*-)?(?:gcc|cc|clang)(?:-[\d.]+)?$")

#: Options of gcc/clang/hipcc whose value is the next word (when not attached).
_GCC_VALUE = {"-o", "-x", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
              "-MF", "-MT", "-MQ", "-L", "-l", "-Xclang", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-target",
              "-isysroot", "-T", "-u", "-z", "-e", "-arch", "-Xarch_host", "-Xarch_device", "-Xoffload-linker",
              "-framework", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-imultilib", "-aux-info"}
#: nvcc options whose value is the next word (when not given with ``=``); long and short spellings.
_NVCC_VALUE = {"-o", "--output-file", "-x", "--x", "-I", "--include-path", "-D", "--define-macro", "-U",
               "--undefine-macro", "-L", "--library-path", "-l", "--library", "-arch", "--gpu-architecture",
               "-code", "--gpu-code", "-gencode", "--generate-code", "-ccbin", "--compiler-bindir",
               "-Xcompiler", "--compiler-options", "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options",
               "-Xlinker", "--linker-options", "-Xarchive", "--archive-options", "-Xcudafe", "-maxrregcount",
               "--maxrregcount", "-t", "--threads", "-std", "--std", "-include", "--pre-include", "-isystem",
               "--system-include", "-odir", "--output-directory", "-MF", "--dependency-output", "-MT",
               "--dependency-target-name", "-rdc", "--relocatable-device-code", "--machine", "-m",
               "-diag-suppress", "--diag-suppress", "--diag-warn", "--diag-error", "-default-stream",
               "--default-stream", "--Werror", "-Werror", "-Wno-deprecated-declarations", "--input-drive-prefix",
               "-ldir", "--libdevice-directory", "-optf", "--options-file", "-split-compile", "--split-compile",
               "-time", "--time", "-iquote", "-idirafter"}
#: nvcc flags with no clang meaning for a compile on AMD (left out, recorded in ``dropped``).
_NVCC_NOARG_DROP = {"-lineinfo", "--generate-line-info", "--expt-relaxed-constexpr", "-expt-relaxed-constexpr",
                    "--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda", "-extended-lambda",
                    "-res-usage", "--resource-usage", "--keep", "-keep", "-G", "--device-debug", "-src-in-ptx",
                    "--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler", "-cudart",
                    "--use-local-env", "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets", "-v",
                    "--dryrun", "-dryrun", "--display-error-number", "-err-no", "--restrict", "-restrict",
                    "-allow-unsupported-compiler", "--allow-unsupported-compiler", "-w"}

_OUTPUT_ONLY = {"-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-MG", "-shared", "-static", "-rdynamic",
                "-pie", "-no-pie", "-s", "-nostartfiles", "-nodefaultlibs", "-nostdlib", "-pipe", "-v", "-###",
                "-save-temps", "--save-temps", "-fsyntax-only"}

_LANG_OF_X = {"cu": Language.CUDA, "cuda": Language.CUDA, "hip": Language.HIP, "c": Language.C,
              "c++": Language.CXX, "cpp": Language.CXX}


def compiler_family(word: str) -> str:
    """``nvcc``, ``hipcc``, ``cxx``, ``cc`` or ``""`` for a command's first word (a path or a name)."""
    base = os.path.basename(word)
    if _NVCC.match(base):
        return "nvcc"
    if _HIPCC.match(base):
        return "hipcc"
    if _CXX.match(base):
        return "cxx"
    if _CC.match(base):
        return "cc"
    return ""


def split_command(words: Sequence[str]) -> list[str]:
    """Words without launcher prefixes (``ccache``, ``env A=B``, ``time``): the compiler first."""
    out = list(words)
    while out:
        base = os.path.basename(out[0])
        if base in _WRAPPERS:
            out = out[1:]
            while out and (out[0].startswith("-") or ("=" in out[0] and not out[0].startswith("/"))):
                out = out[1:]
        elif "=" in out[0] and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", out[0]):
            out = out[1:]  # VAR=value cmd
        else:
            break
    return out


def language_of(path: str, family: str, forced: Language | None = None) -> Language | None:
    """The language ``family`` compiles ``path`` as (``forced`` by ``-x``); None for a non-source."""
    if forced is not None:
        return forced
    ext = os.path.splitext(path)[1]
    if ext not in SOURCE_EXTS and ext != ".C":
        return None
    if ext in HIP_EXTS:
        return Language.HIP
    if family == "nvcc":
        return Language.CUDA if ext in CUDA_EXTS else (Language.C if ext in C_EXTS else Language.CXX)
    if family == "hipcc":
        # hipcc compiles .cu and (HIP_COMPILE_CXX_AS_HIP, on by default) C++ sources as HIP; .c as C.
        return Language.C if ext in C_EXTS else Language.HIP
    if ext in CUDA_EXTS:
        return Language.CUDA  # clang's CUDA mode
    if family == "cxx":
        return Language.CXX  # g++ and clang++ compile .c files as C++
    return Language.C if ext in C_EXTS else Language.CXX


#: GCC's own header directory (``/usr/lib/gcc/x86_64-linux-gnu/16/include``, ``include-fixed``): its intrinsics
#: headers (``mmintrin.h``) call GCC builtins clang does not have. A CMake project that sets
#: ``CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES`` to the implicit directories (tiny-cuda-nn, for its compile
#: database) names it in a C++ unit's flags; hipcc, which verify compiles every unit with, has its own.
_GCC_PRIVATE_INCLUDE = re.compile(r"/lib(?:32|64|x32)?/gcc(?:-cross)?/[^/]+/\d+(?:\.\d+)*/include(?:-fixed)?/?$")


def gcc_private_include(path: str) -> bool:
    """Whether ``path`` is GCC's own header directory (see :data:`_GCC_PRIVATE_INCLUDE`), which clang must not
    search."""
    return bool(_GCC_PRIVATE_INCLUDE.search(path.replace("\\", "/")))


def _abs(path: str, directory: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(directory, path))


class _Acc:
    """What the words of one command say, gathered in order."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.macros: list[tuple[str, str]] = []
        self.includes: list[IncludePath] = []
        self.forced: list[str] = []
        self.std = ""
        self.options: list[str] = []
        self.dropped: list[str] = []

    def include(self, path: str, kind: IncludeKind) -> None:
        inc = IncludePath(_abs(path.strip("\"'"), self.directory), kind)
        if gcc_private_include(inc.path):
            self.dropped.append(f"-isystem{inc.path}" if kind is IncludeKind.SYSTEM else f"-I{inc.path}")
            return
        if inc not in self.includes:
            self.includes.append(inc)

    def host_option(self, word: str, rest: list[str]) -> None:
        """A gcc/clang-style option (also what nvcc passes through ``-Xcompiler``)."""
        if word.startswith("-D") and len(word) > 2:
            self.macros.append(("D", word[2:]))
        elif word.startswith("-U") and len(word) > 2:
            self.macros.append(("U", word[2:]))
        elif word.startswith("-I") and len(word) > 2:
            self.include(word[2:], IncludeKind.DIR)
        elif word.startswith("-std="):
            self.std = word[5:]
        elif word.startswith("/"):
            self.dropped.append(word)  # an MSVC option through -Xcompiler
        elif word.startswith(("-l", "-L", "-Wl,", "-Wa,", "-fuse-ld", "-Wp,-M", "-M")) or word in _OUTPUT_ONLY:
            self.dropped.append(word)
        elif word.startswith(("-O", "-g", "-W", "-w", "-f", "-m", "-pthread", "-ansi", "-pedantic", "-no")):
            self.options.append(word)
        elif word in ("-Xclang",) and rest:
            self.options += [word, rest.pop(0)]
        elif word:
            self.dropped.append(word)

    def unit(self, source: str, language: Language, compiler: str, origin: str, target: str) -> TranslationUnit:
        """The unit compiling ``source`` with what was gathered."""
        return TranslationUnit(
            source=source, directory=self.directory, language=language, compiler=compiler,
            macros=tuple(self.macros), includes=tuple(self.includes), forced_includes=tuple(self.forced),
            std=self.std, options=tuple(o for o in self.options if o), dropped=tuple(self.dropped),
            origin=origin, target=target,
        )


def _take(word: str, names: set[str], rest: list[str]) -> tuple[str, str] | None:
    """``(option, value)`` when ``word`` is one of ``names`` (value attached, ``=value`` or next word)."""
    if word in names:
        return word, (rest.pop(0) if rest else "")
    if "=" in word:
        opt, val = word.split("=", 1)
        if opt in names:
            return opt, val
    return None


def parse_flags(words: Sequence[str], family: str, directory: str) -> tuple["_Acc", list[tuple[str, Language]]]:
    """Read compiler words (the compiler itself left out) as ``family`` (``nvcc``, ``hipcc``, ``cxx``,
    ``cc``) would: the flags gathered, and the sources named with their language."""
    acc = _Acc(directory)
    rest = list(words)
    sources: list[tuple[str, Language]] = []
    forced_lang: Language | None = None
    while rest:
        w = rest.pop(0)
        if not w.startswith("-") or w == "-":
            if w != "-":
                lang = language_of(w, family, forced_lang)
                if lang is not None:
                    sources.append((_abs(w, directory), lang))
                else:
                    acc.dropped.append(w)  # objects, libraries
            continue
        if family == "nvcc":
            if w in ("-x", "--x") or w.startswith(("-x=", "--x=")):
                val = (rest.pop(0) if rest else "") if w in ("-x", "--x") else w.split("=", 1)[1]
                forced_lang = None if val == "none" else _LANG_OF_X.get(val, forced_lang)
            else:
                _nvcc_option(w, rest, acc)
            continue
        if w == "-x" or (w.startswith("-x") and len(w) > 2):
            val = rest.pop(0) if w == "-x" and rest else w[2:]
            forced_lang = None if val == "none" else _LANG_OF_X.get(val, forced_lang)
            continue
        _driver_option(w, rest, acc)
    return acc, sources


def _driver_option(w: str, rest: list[str], acc: "_Acc") -> None:
    """One option of gcc, clang or hipcc."""
    if w.startswith(("--offload-arch", "--cuda-gpu-arch", "-offload-arch", "--amdgpu-target")):
        if w in ("--offload-arch", "--cuda-gpu-arch") and rest:
            rest.pop(0)
        acc.dropped.append(w)
        return
    got = _take(w, {"-o", "-MF", "-MT", "-MQ", "-L", "-l", "-Xlinker", "-T", "-u", "-z", "-e", "-target",
                    "-arch", "-framework", "-aux-info", "-Xoffload-linker"}, rest)
    if got:
        acc.dropped += [got[0], got[1]]
        return
    for opt, kind in (("-isystem", IncludeKind.SYSTEM), ("-iquote", IncludeKind.QUOTE),
                      ("-idirafter", IncludeKind.AFTER)):
        if w.startswith(opt):
            acc.include(w[len(opt):] if w != opt else (rest.pop(0) if rest else ""), kind)
            return
    if w in ("-I", "-D", "-U"):
        acc.host_option(w + (rest.pop(0) if rest else ""), rest)
    elif w == "-include":
        acc.forced.append(_abs(rest.pop(0) if rest else "", acc.directory))
    elif w == "-imacros":
        acc.options += [w, _abs(rest.pop(0) if rest else "", acc.directory)]
    elif w in ("-Xarch_host", "-Xarch_device", "-Xassembler", "-Xpreprocessor", "-mllvm"):
        acc.options += [w, rest.pop(0) if rest else ""]
    elif w == "-isysroot":
        acc.dropped += [w, rest.pop(0) if rest else ""]
    elif w.startswith(("--rocm-path", "--hip-path", "--hip-device-lib", "-fgpu-rdc", "-fno-gpu-rdc",
                       "-munsafe-fp-atomics", "-mcumode", "-mno-wavefrontsize64", "-mwavefrontsize64", "-fgpu-")):
        acc.options.append(w)
    elif w == "--hip-link" or w.startswith("--sysroot"):
        acc.dropped.append(w)
    else:
        acc.host_option(w, rest)


def parse_command(words: Sequence[str], directory: str, *, origin: str = "", target: str = "") -> list[TranslationUnit]:
    """The translation units one compiler command compiles (empty when it compiles none)."""
    words = split_command([str(w) for w in words])
    if not words:
        return []
    family = compiler_family(words[0])
    if not family:
        return []
    acc, sources = parse_flags(words[1:], family, directory)
    return [acc.unit(src, lang, words[0], origin, target) for src, lang in sources]


def _nvcc_option(w: str, rest: list[str], acc: _Acc) -> None:
    """One nvcc option: translated into ``acc`` (clang words) or recorded as dropped."""
    got = _take(w, _NVCC_VALUE, rest)
    if got is None and re.match(r"^-(?:I|D|U|L|l|O)", w):
        # Attached values: -Iinc -DX=1 -O3 -lcublas
        if w.startswith("-O"):
            acc.options.append(w)
            return
        got = (w[:2], w[2:])
    if got is None:
        if w in ("--use_fast_math", "-use_fast_math"):
            acc.options.append("-ffast-math")
        elif w in ("-dc", "--device-c"):
            acc.options.append("-fgpu-rdc")
        elif w in _OUTPUT_ONLY or w in ("-c", "--compile", "-dw", "--device-w", "-link", "--link", "-lib", "--lib"):
            acc.dropped.append(w)
        elif w.startswith("-g") and w not in ("-gencode",):
            acc.options.append(w)
        elif w in ("-m64", "-m32"):
            acc.options.append(w)
        else:
            acc.dropped.append(w)
        return
    opt, val = got
    if opt in ("-I", "--include-path"):
        acc.include(val, IncludeKind.DIR)
    elif opt in ("-isystem", "--system-include"):
        acc.include(val, IncludeKind.SYSTEM)
    elif opt in ("-iquote",):
        acc.include(val, IncludeKind.QUOTE)
    elif opt in ("-idirafter",):
        acc.include(val, IncludeKind.AFTER)
    elif opt in ("-D", "--define-macro"):
        acc.macros.append(("D", val))
    elif opt in ("-U", "--undefine-macro"):
        acc.macros.append(("U", val))
    elif opt in ("-include", "--pre-include"):
        acc.forced.append(_abs(val, acc.directory))
    elif opt in ("-std", "--std"):
        acc.std = val
    elif opt in ("-rdc", "--relocatable-device-code"):
        if val.lower() in ("true", "1"):
            acc.options.append("-fgpu-rdc")
    elif opt in ("-Xcompiler", "--compiler-options"):
        # A comma-separated list; quotes may group several words ("-Xcompiler \"/EHsc /W0\"").
        inner: list[str] = []
        for part in val.split(","):
            try:
                inner += shlex.split(part)
            except ValueError:
                inner.append(part)
        while inner:
            acc.host_option(inner.pop(0), inner)
    elif opt in ("--machine", "-m"):
        if val in ("32", "64"):
            acc.options.append(f"-m{val}")
    else:
        acc.dropped.append(f"{opt}={val}" if val else opt)


def command_words(command: str | Iterable[str]) -> list[str]:
    """The words of a command given as a string (POSIX shell quoting) or a list."""
    if isinstance(command, str):
        try:
            return shlex.split(command)
        except ValueError:
            return command.split()
    return [str(w) for w in command]
