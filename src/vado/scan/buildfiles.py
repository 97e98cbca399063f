"""CUDA facts in build files (CMake, Make, setup.py) with exact byte spans.

Three readers share one result type, :class:`BuildFact`: a kind, the span of
the thing to rewrite, its text and a small ``data`` dict. ``vado audit`` turns
facts into BLD findings; ``vado port`` rewrites the spans (``CUDA`` →
``HIP`` in ``project()``, ``-arch=sm_80`` → ``--offload-arch=gfx942`` …).

- CMake is tokenised the way CMake reads it (commands, quoted, bracket and
  unquoted arguments, line and bracket comments), so a ``CUDA`` in a comment or
  a string of another command is never a fact.
- Makefiles are read line by line with comments removed; flags are found as
  words, so ``-ffast-math`` is not ``--use_fast_math``.
- ``setup.py`` is read with :mod:`ast` (never executed); a file that does not
  parse is read by pattern and says so in ``problems``.

Offsets are byte offsets into the file's latin-1 view.
"""

from __future__ import annotations

import ast
import bisect
import functools
import itertools
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable

from vado.scan.pydeps import (
    Problem,
    call_name,
    node_span,
    parse_python,
    source_bytes_offsets,
    string_content_span,
)


class FactKind(str, Enum):
    """What a :class:`BuildFact` is."""

    CUDA_LANGUAGE = "cuda-language"  # project(... CUDA) / enable_language(CUDA)
    FIND_CUDA = "find-cuda"  # find_package(CUDA|CUDAToolkit)
    CUDA_ARCH = "cuda-arch"  # CUDA_ARCHITECTURES, CMAKE_CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST
    CUDA_COMMAND = "cuda-command"  # cuda_add_library / cuda_add_executable / cuda_compile …
    CUDA_VARIABLE = "cuda-variable"  # CMAKE_CUDA_FLAGS, CUDA_NVCC_FLAGS, CMAKE_CUDA_COMPILER …
    CUDA_LIBRARY = "cuda-library"  # CUDA::cublas, cublas in target_link_libraries, -lcublas
    NVCC = "nvcc"  # an nvcc invocation or NVCC variable
    NVCC_FLAG = "nvcc-flag"  # -arch=sm_80, -gencode …, --use_fast_math, -Xptxas …
    RDC = "rdc"  # -rdc=true, -dc, -dlink, CUDA_SEPARABLE_COMPILATION ON
    CUDA_PATH = "cuda-path"  # CUDA_PATH / CUDA_HOME / /usr/local/cuda
    CUDA_EXTENSION = "cuda-extension"  # torch CUDAExtension / BuildExtension / cpp_extension.load


@dataclass(frozen=True)
class BuildFact:
    """One CUDA-specific thing in a build file.

    ``start``/``end`` is the span to rewrite (the ``CUDA`` word, the flag and
    its value, the library name); ``text`` is that span's text. ``data`` holds
    the parsed parts (``{"flag": "arch", "sm": ["80"]}``, ``{"library": "cublas"}``).
    ``context`` names the enclosing command (``project``, ``target_link_libraries``,
    a Make variable, ``CUDAExtension``).
    """

    kind: FactKind
    start: int
    end: int
    text: str
    context: str = ""
    data: dict = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class BuildFacts:
    """All facts of one build file."""

    path: str
    facts: tuple[BuildFact, ...] = ()
    problems: tuple[Problem, ...] = ()

    def of(self, *kinds: FactKind) -> list[BuildFact]:
        """Facts of the given kinds, in file order."""
        return [f for f in self.facts if f.kind in kinds]


# ---------------------------------------------------------------------------
# nvcc flags, shared by Make, CMake and setup.py readers


#: Linker names of CUDA libraries (``-l<name>``, CMake ``CUDA::<name>`` or a bare name).
CUDA_LIBRARIES = frozenset({
    "cudart", "cudart_static", "cuda", "cublas", "cublas_static", "cublasLt", "cublasLt_static", "cudnn",
    "cufft", "cufft_static", "cufftw", "curand", "curand_static", "cusparse", "cusparse_static", "cusparseLt",
    "cusolver", "cusolver_static", "nccl", "nccl_static", "nvToolsExt", "nvrtc", "nvrtc_static", "nvjpeg",
    "nvjitlink", "nvJitLink", "cupti", "nvidia-ml", "nvml", "cutensor", "nvshmem", "npps", "nppc", "nppial",
    "nppicc", "nppidei", "nppif", "nppig", "nppim", "nppist", "nppisu", "nppitc", "culibos", "cuda_driver",
})

_SM = r"(?:sm|compute|lto)_(\d+[a-z]?)"

#: ``(flag kind, pattern)``: one nvcc option as a single word. Patterns that
#: need the next word as their value are in ``_TAKES_VALUE``.
_FLAG_PATTERNS: tuple[tuple[str, re.Pattern], ...] = tuple(
    (k, re.compile(p))
    for k, p in (
        ("arch", rf"^(?:-arch|--gpu-architecture|-code|--gpu-code)=(?:\\?\"|')?{_SM}.*$"),
        ("arch", r"^(?:-arch|--gpu-architecture)=(?:native|all|all-major)$"),
        # `-arch=$(ARCH)` with `ARCH = sm_60` elsewhere (HeCBench's Makefiles): still an nvcc architecture.
        ("arch", r"^(?:-arch|--gpu-architecture)=\$[({][A-Za-z_]\w*[)}]$"),
        # `-arch=sm_$(SM)`: the number from a variable (llm.c-style nvidia-smi detection).
        ("arch", r"^(?:-arch|--gpu-architecture|-code|--gpu-code)=(?:\\?\"|')?(?:sm|compute|lto)_\$[({][A-Za-z_]\w*[)}].*$"),
        ("gencode", r"^(?:-gencode|--generate-code)=.*$"),
        ("fast-math", r"^--?use[_-]fast[_-]math$"),
        ("xptxas", r"^(?:-Xptxas|--ptxas-options)=.*$"),
        ("xcompiler", r"^(?:-Xcompiler|--compiler-options)=.*$"),
        ("xnvlink", r"^(?:-Xnvlink|--nvlink-options)=.*$"),
        ("rdc", r"^(?:-rdc|--relocatable-device-code)=(?:true|1)$"),
        ("rdc", r"^(?:-dc|--device-c|-dlink|--device-link|-dw|--device-w)$"),
        # nvcc takes the short spellings too (torchcompactradius 0.5.5: -extended-lambda; hipcc: "unknown argument").
        ("expt", r"^--?(?:expt-relaxed-constexpr|expt-extended-lambda|extended-lambda)$"),
        ("lineinfo", r"^(?:-lineinfo|--generate-line-info)$"),
        ("maxrregcount", r"^(?:-maxrregcount|--maxrregcount)=\d+$"),
        ("threads", r"^(?:--threads|-t)=\d+$"),
        ("cudart", r"^(?:-cudart|--cudart)=(?:static|shared|none)$"),
        ("default-stream", r"^--default-stream=(?:per-thread|legacy|null)$"),
        ("ccbin", r"^(?:-ccbin|--compiler-bindir)=.+$"),
        ("deprecated-targets", r"^-Wno-deprecated-gpu-targets$"),
        # nvcc front-end diagnostic numbers (gsplat: -diag-suppress 20012,186); clang has none of them.
        ("diag", r"^--?diag[-_](?:suppress|error|warn|default)=\S+$"),
        # Options for nvcc's EDG front end (tiny-cuda-nn: -Xcudafe=--diag_suppress=unrecognized_gcc_pragma);
        # clang rejects the option as unknown.
        ("xcudafe", r"^(?:-Xcudafe|--cudafe-options)=.*$"),
        # nvcc's own code-generation, fatbinary and diagnostic switches: clang (hipcc) rejects each as an
        # "unknown argument" (measured, ROCm 7.2.4 hipcc; clic-inference-extensions 0.1.0's
        # --extra-device-vectorization).
        ("nvcc-only", r"^--?(?:extra-device-vectorization|res(?:ource)?-usage|src-in-ptx|source-in-ptx|keep|restrict"
                      r"|disable-warnings|display-error-number|use-local-env|allow-unsupported-compiler"
                      r"|dlink-time-opt)$"),
        ("nvcc-only", r"^--?(?:ftz|prec-div|prec-sqrt|fmad)=(?:true|false)$"),
        ("nvcc-only", r"^(?:-Xfatbin|--fatbin-options)=.*$"),
        # Undoes PyTorch's -D__CUDA_NO_HALF_OPERATORS__ & co. of a CUDA build; a ROCm build defines
        # __HIP_NO_HALF_OPERATORS__/__HIP_NO_HALF_CONVERSIONS__ instead, which it leaves on (fpscan 0.1.2).
        ("cuda-half-undef", r"^-U__CUDA_NO_HALF2?_(?:OPERATORS|CONVERSIONS)__$"),
    )
)
#: Options whose value is the following word.
_TAKES_VALUE = {
    "-arch": "arch", "--gpu-architecture": "arch", "-code": "arch", "--gpu-code": "arch",
    "-gencode": "gencode", "--generate-code": "gencode",
    "-Xptxas": "xptxas", "--ptxas-options": "xptxas",
    "-Xcompiler": "xcompiler", "--compiler-options": "xcompiler",
    "-Xnvlink": "xnvlink", "--nvlink-options": "xnvlink",
    "-Xcudafe": "xcudafe", "--cudafe-options": "xcudafe",
    "-Xfatbin": "nvcc-only", "--fatbin-options": "nvcc-only",
    # `--fmad false` as two words (accelerated-scan 0.3.1's load_inline flags)
    **{f"{d}{o}": "nvcc-only" for d in ("-", "--") for o in ("ftz", "prec-div", "prec-sqrt", "fmad")},
    "-rdc": "rdc", "--relocatable-device-code": "rdc",
    "-maxrregcount": "maxrregcount", "--threads": "threads",
    "-ccbin": "ccbin", "--compiler-bindir": "ccbin", "--default-stream": "default-stream",
    **{f"{d}diag{u}{w}": "diag" for d in ("-", "--") for u in "-_" for w in ("suppress", "error", "warn", "default")},
}
_SM_ALL = re.compile(_SM)
_LIB_FLAG = re.compile(r"^-l(?P<lib>[A-Za-z0-9_+-]+)$")
_CUDA_PATH = re.compile(
    r"\$[({](?:CUDA_PATH|CUDA_HOME|CUDA_ROOT|CUDA_DIR|CUDA_TOOLKIT_ROOT_DIR|CUDA_INSTALL_PATH|CUDAToolkit_ROOT)[)}]"
    r"|\b(?:CUDA_PATH|CUDA_HOME|CUDA_ROOT|CUDA_DIR|CUDA_TOOLKIT_ROOT_DIR|CUDA_INSTALL_PATH)\b"
    r"|/usr/local/cuda(?:-\d+(?:\.\d+)?)?\b|/opt/cuda\b"
)


def _path_form(text: str) -> str:
    """``literal`` for ``/usr/local/cuda``, ``reference`` for ``$(CUDA_PATH)``, ``name`` for ``CUDA_PATH``."""
    if text.startswith("/"):
        return "literal"
    return "reference" if text.startswith("$") else "name"


_NVCC_WORD = re.compile(r"^(?:.*/)?nvcc(?:\.exe)?$|^\$[({]NVCC[)}]$")


#: The option names (the part before ``=``) that some pattern of ``_FLAG_PATTERNS`` accepts.
_FLAG_OPTIONS = frozenset({
    "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code",
    *(f"{d}use{a}fast{b}math" for d in ("-", "--") for a in "_-" for b in "_-"),
    "-Xptxas", "--ptxas-options", "-Xcompiler", "--compiler-options", "-Xnvlink", "--nvlink-options",
    "-Xcudafe", "--cudafe-options",
    "-rdc", "--relocatable-device-code", "-dc", "--device-c", "-dlink", "--device-link", "-dw", "--device-w",
    *(f"{d}{o}" for d in ("-", "--") for o in ("expt-relaxed-constexpr", "expt-extended-lambda", "extended-lambda")),
    "-lineinfo", "--generate-line-info",
    "-maxrregcount", "--maxrregcount", "--threads", "-t", "-cudart", "--cudart", "--default-stream",
    "-ccbin", "--compiler-bindir", "-Wno-deprecated-gpu-targets",
    *(f"{d}{o}" for d in ("-", "--") for o in (
        "extra-device-vectorization", "res-usage", "resource-usage", "src-in-ptx", "source-in-ptx", "keep",
        "restrict", "disable-warnings", "display-error-number", "use-local-env", "allow-unsupported-compiler",
        "dlink-time-opt", "ftz", "prec-div", "prec-sqrt", "fmad")),
    "-Xfatbin", "--fatbin-options",
    "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF2_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
    *(f"{d}diag{u}{w}" for d in ("-", "--") for u in "-_" for w in ("suppress", "error", "warn", "default")),
})


def classify_flag(word: str) -> str | None:
    """The nvcc flag kind of ``word`` (``-arch=sm_80`` → ``arch``), or None for other words."""
    if not word.startswith("-"):  # every pattern starts with a dash; most words of a build file do not
        return None
    if word.split("=", 1)[0] not in _FLAG_OPTIONS:  # -O3, -I…, -Wall: no pattern to try
        return None
    for kind, pat in _FLAG_PATTERNS:
        if pat.match(word):
            return kind
    return None


def sm_numbers(text: str) -> list[str]:
    """``["80", "90a"]`` from ``arch=compute_80,code=[sm_80,sm_90a]``."""
    return list(dict.fromkeys(_SM_ALL.findall(text)))


def flag_facts(words: list[tuple[int, int, str]], context: str, source: str) -> list[BuildFact]:
    """nvcc flags, rdc options and ``-l`` CUDA libraries in a list of words ``(start, end, text)``.

    A value-taking option and its value (``-Xptxas -v``, ``-gencode arch=…``)
    become one fact whose span covers both.
    """
    out: list[BuildFact] = []
    k = 0
    while k < len(words):
        s, e, w = words[k]
        bare = w.strip("\"'")
        if not bare.startswith("-"):
            k += 1  # every flag, value-taking option and -l library starts with a dash
            continue
        kind = classify_flag(bare)
        value = ""
        if bare == "-x" and k + 1 < len(words) and words[k + 1][2].strip("\"'") == "cu":
            # nvcc's language name for CUDA; clang (hipcc) calls it hip (and cuda), never cu.
            out.append(BuildFact(FactKind.NVCC_FLAG, s, words[k + 1][1], "", context,
                                 {"flag": "language", "option": "-x", "value": "cu", "source": source}))
            k += 2
            continue
        if kind is None and bare in _TAKES_VALUE and k + 1 < len(words):
            kind = _TAKES_VALUE[bare]
            raw = words[k + 1][2]
            last = k + 1
            quote = raw[:1] if raw[:1] in "\"'" else ""
            if quote and (len(raw) == 1 or not raw.endswith(quote)):
                # A quoted value split into words (`-Xcompiler "-fPIC -Wall"`): up to its closing quote.
                while last + 1 < len(words) and not words[last][2].endswith(quote):
                    last += 1
                if words[last][2].endswith(quote) and last > k + 1:
                    raw = " ".join(w[2] for w in words[k + 1 : last + 1])
                else:
                    last = k + 1
            value = raw.strip("\"'")
            if kind == "rdc" and value.lower() not in ("true", "1"):
                k += 2
                continue
            e = words[last][1]
            k = last
        elif kind is not None:
            value = bare.split("=", 1)[1] if "=" in bare else ""
        if kind is not None:
            data = {"flag": kind, "option": bare.split("=", 1)[0], "value": value, "source": source}
            if kind in ("arch", "gencode"):
                data["sm"] = sm_numbers(bare + " " + value)
            fk = FactKind.RDC if kind == "rdc" else FactKind.NVCC_FLAG
            out.append(BuildFact(fk, s, e, "", context, data))
            k += 1
            continue
        lm = _LIB_FLAG.match(bare)
        if lm and lm.group("lib") in CUDA_LIBRARIES:
            out.append(BuildFact(FactKind.CUDA_LIBRARY, s, e, "", context,
                                 {"library": lm.group("lib"), "form": "-l", "source": source}))
        k += 1
    return out


def _with_text(text: str, facts: list[BuildFact]) -> list[BuildFact]:
    """Fill each fact's ``text`` from its span."""
    return [f if f.text else BuildFact(f.kind, f.start, f.end, text[f.start:f.end], f.context, f.data) for f in facts]


# ---------------------------------------------------------------------------
# Makefiles


#: A word of a Makefile line (a run of characters other than blanks and backslashes).
_MAKE_WORD = re.compile(r"[^\s\\]+")
#: Where a word starting with a dash (after quotes) begins: every flag fact needs one.
_DASH_WORD = re.compile(r"(?:^|[\s\\])[\"']*-")
_MAKE_ASSIGN = re.compile(r"^\s*(?:export\s+|override\s+)?(?P<name>[A-Za-z_][\w.-]*)\s*(?P<op>[:+?!]?=|::=)")


def _make_comment_cut(line: str, recipe: bool) -> int:
    """Index where the comment of a Makefile line starts (``len(line)`` when none)."""
    if "#" not in line:  # most lines: no comment can start
        return len(line)
    i = 0
    quote = ""
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if recipe and ch in "\"'":
            quote = "" if quote == ch else (quote or ch)
        elif ch == "#" and not quote and (not recipe or i == 0 or line[i - 1] in " \t;"):
            return i
        i += 1
    return len(line)


#: Where a Makefile fact may be: a word starting with a dash (after quotes), nvcc, cuda. The
#: definition; the reader finds the same places through _MAKE_MARK and _opens_dash_word.
_MAKE_CANDIDATE = re.compile(r"nvcc|NVCC|cuda|CUDA|" + _DASH_WORD.pattern, re.MULTILINE)
#: The marks of a candidate: the words, and each run of dashes (only a run's first dash may
#: start a dash word: the others follow a dash). Every alternative starts with a literal, so
#: the regex engine skips to the next n, N, c, C or dash, where _MAKE_CANDIDATE's blank-led
#: alternative is tried at every character.
_MAKE_MARK = re.compile(r"nvcc|NVCC|cuda|CUDA|-[-]*")


def _opens_dash_word(text: str, at: int) -> bool:
    """Whether the dash at ``at`` starts a dash word as _DASH_WORD finds one: after quotes only,
    which follow the text's start, a blank (``\\s`` is ``str.isspace``, line breaks included)
    or a backslash."""
    k = at - 1
    while k >= 0 and text[k] in "\"'":
        k -= 1
    return k < 0 or text[k].isspace() or text[k] == "\\"


def _continues(line: str) -> bool:
    """Whether a Makefile line (without its line break) goes on onto the next one: it ends in one backslash."""
    return line.endswith("\\") and not line.endswith("\\\\")


def _makefile_lines(raws: Iterable[str]) -> list[BuildFact]:
    """The facts of a run of lines (with their line breaks), read one by one from a line that
    opens no comment or assignment, at offsets from the run's start."""
    facts: list[BuildFact] = []
    in_comment = False
    variable = ""
    continued = False
    offset = 0
    for raw in raws:
        line_start, offset = offset, offset + len(raw)
        line = raw.rstrip("\r\n")
        ends_continued = _continues(line)
        if in_comment:
            # A comment ending in a backslash continues onto the next line.
            in_comment = ends_continued
            continue
        recipe = line.startswith("\t")
        if "#" in line:
            cut = _make_comment_cut(line, recipe)
            if cut < len(line):
                in_comment = ends_continued
            body = line[:cut]
        else:
            cut, body = len(line), line
        if not continued:
            am = _MAKE_ASSIGN.match(body) if "=" in body else None  # an assignment has an "="
            variable = am.group("name") if am else ("recipe" if recipe else "")
            value_at = am.end() if am else 0
        else:
            value_at = 0
        continued = ends_continued and cut == len(line)
        # Every fact needs one of these: a flag (and the value a flag takes) starts with a
        # dash, an nvcc word holds nvcc/NVCC, a CUDA path cuda/CUDA. Most lines have none.
        nvcc = "nvcc" in body or "NVCC" in body
        if nvcc or ("-" in body and _DASH_WORD.search(body)):
            words = [(line_start + m.start(), line_start + m.end(), m.group(0)) for m in _MAKE_WORD.finditer(body)
                     if m.start() >= value_at]
            if nvcc:
                for s, e, w in words:
                    if _NVCC_WORD.match(w.strip("\"'")):
                        facts.append(BuildFact(FactKind.NVCC, s, e, "", variable, {"source": "make"}))
            facts += flag_facts(words, variable, "make")
        if "cuda" in body or "CUDA" in body:
            for m in _CUDA_PATH.finditer(body):
                facts.append(BuildFact(FactKind.CUDA_PATH, line_start + m.start(), line_start + m.end(), "", variable,
                                       {"source": "make", "form": _path_form(m.group(0))}))
    return facts


@functools.lru_cache(maxsize=4096)
def _run_facts(run: tuple[str, ...]) -> tuple[BuildFact, ...]:
    """The facts of one run of continued Makefile lines (with their line breaks), at offsets
    from the run's start. A run's facts depend on its lines alone, so they are kept: the
    second round of a port reads the Makefile again with most runs unchanged, and the
    Makefiles of one project repeat their flag lines."""
    return tuple(_makefile_lines(run))


def parse_makefile(text: str, path: str = "Makefile") -> BuildFacts:
    """nvcc calls, nvcc flags, CUDA libraries and CUDA paths in a Makefile."""
    facts: list[BuildFact] = []
    raws = text.splitlines(keepends=True)
    # Only lines that hold a candidate (a dash word, nvcc, cuda) can hold a fact. Each is read
    # with the lines it continues (backslash-newline), from the first line of that run, which
    # starts with no comment and no assignment open: exactly as a read of every line.
    starts: list[int] = []
    last = -1  # the last line read
    for m in _MAKE_MARK.finditer(text):
        at = m.start()  # a word's first character or the dash: on the candidate's line
        if text[at] == "-" and not _opens_dash_word(text, at):
            continue
        if not starts:
            starts = list(itertools.accumulate(map(len, raws), initial=0))
        k = bisect.bisect_right(starts, at) - 1
        if k <= last:
            continue  # read with an earlier candidate's run
        first = k
        while first > last + 1 and _continues(raws[first - 1].rstrip("\r\n")):
            first -= 1
        last = k
        while last + 1 < len(raws) and _continues(raws[last].rstrip("\r\n")):
            last += 1
        base = starts[first]
        for f in _run_facts(tuple(raws[first : last + 1])):
            # A copy per use: the kept facts are shared, and their data dicts must stay as they are.
            facts.append(BuildFact(f.kind, f.start + base, f.end + base, f.text, f.context, dict(f.data)))
    if not starts:
        return BuildFacts(path, (), ())
    return BuildFacts(path, _makefile_result(text, facts), ())


#: Words of a Makefile condition that select a platform other than Linux: ``ifeq ($(OS),Windows_NT)``,
#: ``ifeq ($(shell uname),Darwin)``.
_OTHER_PLATFORMS = (("Windows_NT", "windows"), ("Darwin", "macos"))


def other_platform_ranges(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, platform)`` of the Makefile branches that build for Windows or macOS only.

    A branch of ``ifeq ($(OS),Windows_NT)`` (or the ``else`` of an ``ifneq`` on it), and the
    same for ``Darwin``, is not part of a Linux ROCm build: a port leaves it alone. Nested
    conditionals are followed; an ``else ifeq`` branch gets the platform its own condition names.
    """
    if "Windows_NT" not in text and "Darwin" not in text:
        return []
    out: list[tuple[int, int, str]] = []
    # One frame per open conditional: the platform its current branch builds for only ("" for any).
    stack: list[list] = []  # [platform of the branch, its start, platform of the else branch]

    def close(at: int) -> None:
        platform, start, _ = stack[-1]
        if platform:
            out.append((start, at, platform))

    for m in re.finditer(r"^[ \t]*(?:else\b[ \t]*)?(?:ifeq|ifneq|ifdef|ifndef)\b.*$|^[ \t]*(?:else|endif)\b.*$",
                         text, re.MULTILINE):
        line = m.group().strip()
        words = line.split(None, 1)
        head = words[0]
        if head == "endif":
            if stack:
                close(m.start())
                stack.pop()
            continue
        if head == "else":
            if not stack:
                continue
            close(m.start())
            rest = words[1] if len(words) > 1 else ""
            cond = rest.split(None, 1)
            if cond and cond[0] in ("ifeq", "ifneq", "ifdef", "ifndef"):
                here, other = _platform_of(cond[0], cond[1] if len(cond) > 1 else "")
                stack[-1] = [here, m.end(), other]
            else:
                stack[-1] = [stack[-1][2], m.end(), ""]
            continue
        here, other = _platform_of(head, words[1] if len(words) > 1 else "")
        stack.append([here, m.end(), other])
    while stack:
        close(len(text))
        stack.pop()
    return out


@dataclass(frozen=True)
class MakeConditional:
    """One ``ifeq``/``ifneq``/``ifdef``/``ifndef`` … ``endif`` block of a Makefile.

    ``start`` is the start of the ``if`` line, ``body`` the start of the line after it,
    ``end_line`` the start of the ``endif`` line and ``end`` the offset after it (its line
    break included). ``has_else`` says whether the block has an ``else`` branch.
    """

    keyword: str
    condition: str
    start: int
    body: int
    end_line: int
    end: int
    has_else: bool


_MAKE_CONDITIONAL_LINE = re.compile(
    r"^[ \t]*(?:(?P<else>else\b[ \t]*)?(?P<kw>ifeq|ifneq|ifdef|ifndef)\b[ \t]*(?P<cond>[^\n#]*)"
    r"|(?P<plain_else>else)\b[^\n]*|(?P<endif>endif)\b[^\n]*|(?P<define>define)\b[^\n]*|(?P<endef>endef)\b[^\n]*)\n?",
    re.MULTILINE)


def makefile_conditionals(text: str) -> list[MakeConditional]:
    """Every complete conditional block of a Makefile, in the order their ``endif`` lines come.

    Lines inside ``define`` … ``endef`` are text, not conditionals, and are skipped; an
    unbalanced ``endif`` or an unclosed ``if`` gives no block.
    """
    if "if" not in text:
        return []
    out: list[MakeConditional] = []
    stack: list[list] = []  # [keyword, condition, start, body, has_else]
    in_define = 0
    for m in _MAKE_CONDITIONAL_LINE.finditer(text):
        if m.group("define"):
            in_define += 1
            continue
        if m.group("endef"):
            in_define = max(0, in_define - 1)
            continue
        if in_define:
            continue
        if m.group("kw"):
            if m.group("else"):
                if stack:
                    stack[-1][4] = True
                continue
            stack.append([m.group("kw"), m.group("cond").strip(), m.start(), m.end(), False])
        elif m.group("plain_else"):
            if stack:
                stack[-1][4] = True
        elif m.group("endif") and stack:
            kw, cond, start, body, has_else = stack.pop()
            out.append(MakeConditional(kw, cond, start, body, m.start(), m.end(), has_else))
    return out


_MAKE_REF = re.compile(r"\$\((?:strip[ \t]+)?\$\((?P<a>\w+)\)\)|\$\((?P<b>\w+)\)|\$\{(?P<c>\w+)\}")


def tested_for_value(cond: MakeConditional) -> str:
    """The variable a conditional's true branch requires to be non-empty (``ifneq ($(V),)``,
    ``ifneq (,$(V))``, ``ifneq "$(V)" ""``, ``ifneq ($(strip $(V)),)``, ``ifdef V``), or ``""``."""
    if cond.keyword == "ifdef":
        return cond.condition if re.fullmatch(r"\w+", cond.condition) else ""
    if cond.keyword != "ifneq":
        return ""
    c = cond.condition
    if c.startswith("(") and c.endswith(")"):
        parts = c[1:-1].split(",")
        if len(parts) != 2:
            return ""
    else:
        parts = re.findall(r"\"([^\"]*)\"|'([^']*)'", c)
        parts = [a or b for a, b in parts]
        if len(parts) != 2:
            return ""
    a, b = (p.strip() for p in parts)
    value = a if not b else b if not a else ""
    m = _MAKE_REF.fullmatch(value)
    return (m.group("a") or m.group("b") or m.group("c")) if m else ""


def _platform_of(keyword: str, condition: str) -> tuple[str, str]:
    """The platform the true branch of a condition builds for only, and the one its else builds for."""
    for word, platform in _OTHER_PLATFORMS:
        if word in condition and keyword in ("ifeq", "ifneq"):
            return (platform, "") if keyword == "ifeq" else ("", platform)
    return "", ""


def _makefile_result(text: str, facts: list[BuildFact]) -> tuple[BuildFact, ...]:
    """The Makefile facts read line by line, deduplicated, with their text; none in a Windows or macOS branch."""
    facts = _dedupe(facts)
    skipped = other_platform_ranges(text)
    if skipped:
        facts = [f for f in facts if not any(s <= f.start < e for s, e, _ in skipped)]
    # ``CUDA_PATH ?= /usr/local/cuda``: the literal path is the fact; the name beside it adds nothing.
    literal_lines = {text.count("\n", 0, f.start) for f in facts
                     if f.kind is FactKind.CUDA_PATH and f.data.get("form") == "literal"}
    facts = [f for f in facts if not (f.kind is FactKind.CUDA_PATH and f.data.get("form") == "name"
                                      and text.count("\n", 0, f.start) in literal_lines)]
    return tuple(_with_text(text, facts))


def _dedupe(facts: list[BuildFact]) -> list[BuildFact]:
    seen = set()
    out = []
    for f in sorted(facts, key=lambda f: (f.start, f.end, f.kind.value)):
        key = (f.kind, f.start, f.end)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


# ---------------------------------------------------------------------------
# CMake


@dataclass(frozen=True, slots=True)  # slots: a CMake file of short arguments makes millions
class CMakeArg:
    """One argument: ``text`` is its content (quotes and brackets removed, escapes kept)."""

    text: str
    start: int
    end: int
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class CMakeCommand:
    """A command invocation ``name(args)``."""

    name: str
    start: int
    end: int
    name_start: int
    name_end: int
    args: tuple[CMakeArg, ...] = ()

    @property
    def lname(self) -> str:
        """Lower-case name (CMake command names are case-insensitive)."""
        return self.name.lower()


#: CMake's tokens, as one regular expression: the reference of :func:`_cmake_token`, which
#: finds the same tokens by hand. Matching this expression costs ~300 bytes of stack per
#: byte of a long argument (an alternation inside a repeat saves state at each character) and
#: scans to the end of the text again at every unclosed ``[[``.
_CMAKE_TOKEN = re.compile(
    r"""
    (?P<bcomment>\#\[(?P<beq>=*)\[.*?\](?P=beq)\])
  | (?P<comment>\#[^\n]*)
  | (?P<bracket>\[(?P<eq>=*)\[.*?\](?P=eq)\])
  | (?P<quoted>"(?:[^"\\]|\\.)*"?)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<unquoted>(?:[^\s()#"\\]|\\.)(?:[^\s()"\\]|\\.)*)
  | (?P<ws>\s+)
    """,
    re.VERBOSE | re.DOTALL,
)
_CMAKE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPEN_BRACKET = re.compile(r"\[(=*)\[")
_UNQUOTED_RUN = re.compile(r'[^\s()"\\]*')
_QUOTED_RUN = re.compile(r'[^"\\]*')
_BLANKS = re.compile(r"\s+")


def _cmake_token(text: str, i: int, unclosed: set[int]) -> tuple[str, int, int, int] | None:
    """The token at ``i``: ``(kind, start, end, length of the "=" run of a bracket)``, or None;
    ``_CMAKE_TOKEN.match(text, i)`` (kind is its ``lastgroup``) in time linear in the token.

    ``unclosed`` holds the "=" counts of brackets found to have no close after some point
    (``]==]`` missing from there on): a later bracket of that count has none either, so
    the text is searched for each close at most once after its last occurrence.
    """
    n = len(text)
    c = text[i]
    if c == "#" or c == "[":
        at = i + 1 if c == "#" else i
        m = _OPEN_BRACKET.match(text, at) if at < n and text[at] == "[" else None
        if m is not None:
            eq = m.end(1) - m.start(1)
            if eq not in unclosed:
                end = text.find("]" + "=" * eq + "]", m.end())
                if end != -1:
                    return ("bcomment" if c == "#" else "bracket"), i, end + eq + 2, eq
                unclosed.add(eq)
        if c == "#":
            end = text.find("\n", i)
            return "comment", i, n if end == -1 else end, 0
    if c == '"':
        j = i + 1
        while True:
            j = _QUOTED_RUN.match(text, j).end()
            if j + 1 < n and text[j] == "\\":
                j += 2
                continue
            break
        if j < n and text[j] == '"':
            j += 1
        return "quoted", i, j, 0
    if c == "(":
        return "open", i, i + 1, 0
    if c == ")":
        return "close", i, i + 1, 0
    if c == "\\":
        if i + 1 >= n:
            return None
        j = i + 2
    elif c.isspace():
        return "ws", i, _BLANKS.match(text, i).end(), 0
    else:
        j = i + 1  # c is none of \s ( ) # " \ here
    while True:
        j = _UNQUOTED_RUN.match(text, j).end()
        if j + 1 < n and text[j] == "\\":
            j += 2
            continue
        return "unquoted", i, j, 0


def cmake_commands(text: str) -> tuple[list[CMakeCommand], list[Problem]]:
    """Command invocations of a CMake file, in order; an unclosed one is a :class:`Problem`."""
    cmds, probs = _cmake_commands(text)
    return list(cmds), list(probs)


@functools.lru_cache(maxsize=32)  # port reads one CMake text twice: for its facts and for its fixes
def _cmake_commands(text: str) -> tuple[tuple[CMakeCommand, ...], tuple[Problem, ...]]:
    cmds: list[CMakeCommand] = []
    probs: list[Problem] = []
    unclosed: set[int] = set()
    i = 0
    n = len(text)
    while i < n:
        tok = _cmake_token(text, i, unclosed)
        if tok is None:
            i += 1
            continue
        kind, s, e, _ = tok
        if kind == "unquoted" and _CMAKE_NAME.fullmatch(text, s, e):
            name = text[s:e]
            j = e
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == "(":
                cmd, i, closed = _cmake_args(text, name, s, e, j + 1, unclosed)
                cmds.append(cmd)
                if not closed:
                    # CMake itself stops here; the arguments read so far are still facts.
                    probs.append(Problem(s, n, f"{name}( is never closed"))
                    break
                continue
        i = e
    return tuple(cmds), tuple(probs)


def _cmake_args(text: str, name: str, ns: int, ne: int, i: int, unclosed: set[int]) -> tuple[CMakeCommand, int, bool]:
    args: list[CMakeArg] = []
    depth = 0
    n = len(text)
    while i < n:
        tok = _cmake_token(text, i, unclosed)
        if tok is None:
            i += 1
            continue
        kind, s, e, eq = tok
        if kind == "close":
            if depth == 0:
                return CMakeCommand(name, ns, e, ns, ne, tuple(args)), e, True
            depth -= 1
        elif kind == "open":
            depth += 1
        elif kind == "quoted":
            close = 1 if text[e - 1] == '"' and e - s >= 2 else 0
            args.append(CMakeArg(text[s + 1 : e - close], s + 1, e - close, True))
        elif kind == "bracket":
            k = eq + 2
            args.append(CMakeArg(text[s + k : e - k], s + k, e - k, True))
        elif kind == "unquoted":
            args.append(CMakeArg(text[s:e], s, e))
        i = e
    return CMakeCommand(name, ns, n, ns, ne, tuple(args)), n, False


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
                    "sm": [s for v in values for s in _arch_numbers(v.text)],
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
            for m in _CUDA_PATH.finditer(word):
                facts.append(BuildFact(FactKind.CUDA_PATH, a.start + m.start(), a.start + m.end(), "", ln,
                                       {"source": "cmake", "form": _path_form(m.group(0))}))
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
            if ("nvcc" in w or "NVCC" in w) and _NVCC_WORD.match(w):
                facts.append(BuildFact(FactKind.NVCC, s, e, "", ln, {"source": "cmake"}))
    facts = _dedupe(facts)
    return BuildFacts(path, tuple(_with_text(text, facts)), tuple(probs))


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


def _arch_numbers(text: str) -> list[str]:
    """Compute capabilities in a CMake value: ``80;90a``, ``80-real``, ``8.0 9.0+PTX``, ``sm_80``."""
    out = []
    for piece in re.split(r"[;\s,]+", text):
        piece = piece.strip()
        m = re.match(r"^(?:sm_|compute_)?(\d+)(?:\.(\d))?([a-z]?)(?:-real|-virtual|\+PTX)?$", piece)
        if m:
            out.append(m.group(1) + (m.group(2) or "") + m.group(3))
    return out


# ---------------------------------------------------------------------------
# setup.py (torch.utils.cpp_extension)


_EXT_CALLS = {"CUDAExtension", "BuildExtension", "load", "load_inline", "CppExtension"}


def parse_setup_py_build(text: str, path: str = "setup.py") -> BuildFacts:
    """``CUDAExtension``/``BuildExtension``/``cpp_extension.load`` uses and their nvcc flags.

    Flags come from ``extra_compile_args={"nvcc": [...]}`` and
    ``extra_cuda_cflags=[...]`` literals (module-level names are followed).
    """
    tree = parse_python(text)
    if isinstance(tree, SyntaxError):
        facts = _setup_by_pattern(text)
        line = tree.lineno or 0
        starts = source_bytes_offsets(text)
        at = starts[line - 1] if 0 < line <= len(starts) else 0
        return BuildFacts(path, tuple(_with_text(text, facts)),
                          (Problem(at, at, f"setup.py does not parse ({tree.msg}, line {line}); read by pattern"),))
    starts = source_bytes_offsets(text)
    names = _setup_names(tree)
    imported_from_cpp_ext = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("torch.utils.cpp_extension"):
            imported_from_cpp_ext.update(a.asname or a.name for a in node.names)
    # Extension = CppExtension if suffix == "cpu" else CUDAExtension; Extension(...) (torch_scatter, torch_cluster)
    aliases = {n for n, vals in names.items() for v in vals if not isinstance(v, _NvccItem)
               and any(isinstance(x, ast.Name) and x.id == "CUDAExtension" for x in ast.walk(v))}
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    facts: list[BuildFact] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            full = call_name(node.func)
            if not full and _picks_cuda_extension(node.func):
                full = "CUDAExtension"  # (CUDAExtension if with_cuda else CppExtension)(...): torch-ms-deform-attn 0.1.1
            short = full.rsplit(".", 1)[-1]
            if short in aliases and short not in _EXT_CALLS:
                short = "CUDAExtension"
            if short not in _EXT_CALLS:
                continue
            if short in ("load", "load_inline") and "cpp_extension" not in full and short not in imported_from_cpp_ext:
                continue
            sp = node_span(node.func, starts)
            if sp is None:
                continue
            # A CppExtension compiles no CUDA: only its nvcc flags (none) could matter.
            if short != "CppExtension":
                facts.append(BuildFact(FactKind.CUDA_EXTENSION, sp[0], sp[1], "", short, {"call": full}))
            for kw in _keywords(node, names, defs):
                if kw.arg == "extra_compile_args":
                    values = names.get(kw.value.id, [kw.value]) if isinstance(kw.value, ast.Name) else [kw.value]
                    for value in values:
                        if isinstance(value, ast.Dict):
                            for k, v in zip(value.keys, value.values):
                                if isinstance(k, ast.Constant) and k.value == "nvcc":
                                    facts += _py_flag_facts(text, v, names, starts, short)
                        elif isinstance(value, _NvccItem):  # extra_compile_args["nvcc"] = flags
                            facts += _py_flag_facts(text, value.node, names, starts, short)
                        elif isinstance(value, (ast.List, ast.BinOp)) and short != "CppExtension":
                            # A list is every compiler's: cpp_extension gives it to nvcc (hipcc on ROCm)
                            # too (pytorch-fast-transformers 0.4.0: extra_compile_args=["-arch=compute_50"]).
                            facts += _py_flag_facts(text, value, names, starts, short)
                elif kw.arg in ("extra_cuda_cflags",):
                    facts += _py_flag_facts(text, kw.value, names, starts, short)
                elif kw.arg in ("extra_ldflags", "libraries", "extra_link_args"):  # stainx 0.1.6: extra_link_args=["-lcudart"]
                    for s, e, w in _py_words(text, kw.value, names, starts):
                        lib = w[2:] if w.startswith("-l") else w if kw.arg == "libraries" else ""
                        if lib in CUDA_LIBRARIES:
                            facts.append(BuildFact(FactKind.CUDA_LIBRARY, s, e, "", short,
                                                   {"library": lib, "form": "-l" if w.startswith("-l") else "name",
                                                    "source": "setup.py"}))
        elif isinstance(node, ast.Name) and node.id in ("CUDA_HOME", "CUDA_PATH"):
            sp = node_span(node, starts)
            if sp:
                facts.append(BuildFact(FactKind.CUDA_PATH, sp[0], sp[1], "", "setup.py",
                                       {"source": "setup.py", "form": "name"}))
    facts += _setup_arch_list_facts(text, tree, starts)
    facts = _dedupe(facts)
    return BuildFacts(path, tuple(_with_text(text, facts)), ())


def _keywords(call: ast.Call, names: dict, defs: dict) -> list[ast.keyword]:
    """``call``'s keywords, those of a ``**kwargs`` included: the keys of the dict it is bound to (``dict(...)``
    or ``{...}``), directly or as what a function of the file returns (torchani 2.9.0:
    ``CUDAExtension(**cuaev_kwargs)`` with ``cuaev_kwargs = cuaev_extension_kwargs(...)``, a function that
    returns ``dict(..., extra_compile_args={"nvcc": nvcc_args})``)."""
    out = [kw for kw in call.keywords if kw.arg is not None]
    for kw in call.keywords:
        if kw.arg is None:
            for d in _dicts(kw.value, names, defs, frozenset()):
                out += d
    return out


def _dicts(node: ast.AST, names: dict, defs: dict, seen: frozenset[str]) -> list[list[ast.keyword]]:
    """The keyword lists of the dicts ``node`` may be: a ``dict(k=v)`` call, a ``{"k": v}`` literal, a name
    bound to one, or a call of a function of the file whose ``return`` gives one (each name once)."""
    if isinstance(node, ast.Dict):
        return [[ast.keyword(arg=k.value, value=v) for k, v in zip(node.keys, node.values)
                 if isinstance(k, ast.Constant) and isinstance(k.value, str)]]
    if isinstance(node, ast.Name) and node.id not in seen:
        return [d for v in names.get(node.id, []) if not isinstance(v, _NvccItem)
                for d in _dicts(v, names, defs, seen | {node.id})]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "dict":
            return [[kw for kw in node.keywords if kw.arg is not None]]
        fn = defs.get(node.func.id)
        if fn is not None and fn.name not in seen:
            return [d for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None
                    for d in _dicts(r.value, names, defs, seen | {fn.name})]
    return []


def _setup_arch_list_facts(text: str, tree: ast.AST, starts: list[int]) -> list[BuildFact]:
    """``"TORCH_CUDA_ARCH_LIST"`` strings in setup.py (``os.environ["TORCH_CUDA_ARCH_LIST"] = "8.0;9.0"``,
    ``os.environ.setdefault(…)``, ``os.environ.get(…)``): the name's span, and the literal value set."""
    values: dict[int, tuple[str, int, int]] = {}
    for node in ast.walk(tree):
        value = None
        key = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            key, value = node.targets[0].slice, node.value
        elif isinstance(node, ast.Call) and call_name(node.func).endswith("setdefault") and len(node.args) == 2:
            key, value = node.args
        if isinstance(key, ast.Constant) and key.value == "TORCH_CUDA_ARCH_LIST" and isinstance(value, ast.Constant) \
                and isinstance(value.value, str):
            sp = node_span(value, starts)
            content = string_content_span(text, sp) if sp else None
            if content:
                values[id(key)] = (value.value, content[0], content[1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == "TORCH_CUDA_ARCH_LIST":
            sp = node_span(node, starts)
            content = string_content_span(text, sp) if sp else None
            if content is None:
                continue
            v = values.get(id(node))
            out.append(BuildFact(FactKind.CUDA_ARCH, content[0], content[1], "", "setup.py", {
                "variable": "TORCH_CUDA_ARCH_LIST", "values": [v] if v else [],
                "sm": _arch_numbers(v[0]) if v else [], "command": "set" if v else "read",
            }))
    return out


class _NvccItem(ast.AST):
    """``X["nvcc"] = value`` on a name bound to ``extra_compile_args``: stands for the dict's nvcc entry."""

    _fields = ("node",)


def _picks_cuda_extension(func: ast.AST) -> bool:
    """Whether a call's callee is a conditional expression one of whose branches is ``CUDAExtension``
    (``(CUDAExtension if with_cuda else CppExtension)(...)``): the build makes a CUDA extension where that
    branch is taken."""
    return isinstance(func, ast.IfExp) and any(call_name(b).rsplit(".", 1)[-1] == "CUDAExtension"
                                               for b in (func.body, func.orelse))


def _setup_names(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """What each name of a setup.py is bound to or grown by, in source order.

    ``X = v`` and ``X += v`` give ``v``; ``X.append(a)``/``X.insert(i, a)`` a one-item list;
    ``X.extend(v)`` gives ``v``; ``X["nvcc"] = v`` an :class:`_NvccItem` (the way
    torch_scatter fills ``extra_compile_args``). Flags appended in any branch reach the list.
    """
    names: dict = {}
    for stmt in ast.walk(tree):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # What a function or method of the file returns, under ("return", name): a flag list built by a
            # method (stainx 0.1.6's get_architecture_flags) reaches the extension that takes its result.
            names.setdefault(("return", stmt.name), []).extend(
                r.value for r in ast.walk(stmt) if isinstance(r, ast.Return) and r.value is not None)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            names.setdefault(stmt.target.id, []).append(stmt.value)  # BASE_FLAGS: ClassVar[list[str]] = [...]
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            t = stmt.targets[0]
            if isinstance(t, ast.Name):
                names.setdefault(t.id, []).append(stmt.value)
            elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                    and isinstance(t.slice, ast.Constant) and t.slice.value == "nvcc":
                names.setdefault(t.value.id, []).append(_NvccItem(node=stmt.value))
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name):
            names.setdefault(stmt.target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and isinstance(stmt.value.func.value, ast.Name):
            call, owner = stmt.value, stmt.value.func.value.id
            if call.func.attr == "append" and len(call.args) == 1:
                names.setdefault(owner, []).append(ast.List(elts=[call.args[0]], ctx=ast.Load()))
            elif call.func.attr == "insert" and len(call.args) == 2:
                names.setdefault(owner, []).append(ast.List(elts=[call.args[1]], ctx=ast.Load()))
            elif call.func.attr == "extend" and len(call.args) == 1:
                names.setdefault(owner, []).append(call.args[0])
    return names


def _py_words(text: str, node: ast.AST, names: dict, starts: list[int],
              _seen: frozenset[str] = frozenset()) -> list[tuple[int, int, str]]:
    """Words of string constants in a list expression, with spans (one list item may hold several flags).

    Names are followed through every binding and growth (:func:`_setup_names`), once each
    (``X = X + [...]`` does not loop); both arms of ``a if t else b`` count.
    """
    if isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                                       and node.value.id in ("self", "cls")):
        name = node.id if isinstance(node, ast.Name) else node.attr  # self.BASE_FLAGS: the class attribute
        if name not in names or name in _seen:
            return []
        seen = _seen | {name}
        return [w for v in names[name] if not isinstance(v, _NvccItem)
                for w in _py_words(text, v, names, starts, seen)]
    if isinstance(node, ast.Call):
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if callee == "copy" and not node.args and isinstance(node.func, ast.Attribute):  # flags.copy()
            return _py_words(text, node.func.value, names, starts, _seen)
        key = ("return", callee)
        if key in names and key not in _seen:  # what a function or method of the file returns
            return [w for v in names[key] for w in _py_words(text, v, names, starts, _seen | {key})]
    items: list[ast.AST] = []
    if isinstance(node, (ast.List, ast.Tuple)):
        items = list(node.elts)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _py_words(text, node.left, names, starts, _seen) + _py_words(text, node.right, names, starts, _seen)
    elif isinstance(node, ast.IfExp):
        return _py_words(text, node.body, names, starts, _seen) + _py_words(text, node.orelse, names, starts, _seen)
    elif isinstance(node, ast.Call) and node.args:  # list(x), a helper that extends x: append_nvcc_threads(x)
        return _py_words(text, node.args[0], names, starts, _seen)
    elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        # [f"-gencode=arch=compute_{sm},code=sm_{sm}" for sm in sms] (torchani 2.9.0): one word per flag of
        # the element, each spanning the whole comprehension.
        return _formatted_words(node, node.elt, starts)
    out = []
    for it in items:
        if isinstance(it, ast.Starred):
            out += _py_words(text, it.value, names, starts, _seen)
            continue
        if isinstance(it, ast.JoinedStr):  # f"-arch=sm_{cc}"
            if out and out[-1][2].startswith("-") and _is_value_fstring(it):
                # the value of the option before it (stainx 0.1.6: "-gencode", f"arch={a},code={c}"): its content,
                # as a plain string's, so that the pair is two items of one list
                sp = node_span(it, starts)
                content = string_content_span(text, sp) if sp else None
                words = _formatted_words(it, it, starts, values=True)
                if content is not None and words:
                    out.append((content[0], content[1], words[0][2]))
                    continue
            out += _formatted_words(it, it, starts)
            continue
        if not (isinstance(it, ast.Constant) and isinstance(it.value, str)):
            continue
        sp = node_span(it, starts)
        content = string_content_span(text, sp) if sp else None
        if content is None:
            continue
        s, e = content
        for m in re.finditer(r"\S+", text[s:e]):
            out.append((s + m.start(), s + m.end(), m.group(0)))
    return out


def _is_value_fstring(node: ast.JoinedStr) -> bool:
    """Whether an f-string renders one word that is no flag (``f"arch=compute_{a},code=sm_{a}"``)."""
    rendered = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "0" for v in node.values)
    return len(rendered.split()) == 1 and not rendered.startswith("-")


def _formatted_words(node: ast.AST, elt: ast.AST, starts: list[int], values: bool = False) -> list[tuple[int, int, str]]:
    """The words of an f-string (or a string) ``elt`` with each replacement field read as ``0``
    (``-gencode=arch=compute_0,code=sm_0``: enough to tell the flag), each spanning ``node``. Only a flag
    (``-…``) unless ``values`` (the value of the option before it)."""
    if isinstance(elt, ast.JoinedStr):
        rendered = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "0"
                           for v in elt.values)
    elif isinstance(elt, ast.Constant) and isinstance(elt.value, str):
        rendered = elt.value
    else:
        return []
    sp = node_span(node, starts)
    if sp is None or not (values or rendered.startswith("-")):
        return []
    return [(sp[0], sp[1], w) for w in rendered.split()]


def _py_flag_facts(text: str, node: ast.AST, names: dict, starts: list[int], context: str) -> list[BuildFact]:
    out = []
    for f in flag_facts(_py_words(text, node, names, starts), context, "setup.py"):
        if f.kind is FactKind.CUDA_LIBRARY:
            continue
        head = text[f.start:f.start + 2]
        if head[:1] in "[(":  # a comprehension: its flags are made at run time
            f = BuildFact(f.kind, f.start, f.end, f.text, f.context, {**f.data, "formatted": "comprehension"})
        elif head[:1] in "fF" and head[1:2] in "\"'" or head.lower() in ("rf", "fr"):
            f = BuildFact(f.kind, f.start, f.end, f.text, f.context, {**f.data, "formatted": "f-string"})
        if "formatted" in f.data and "sm" in f.data:  # the numbers come at run time
            f = BuildFact(f.kind, f.start, f.end, f.text, f.context, {**f.data, "sm": [], "value": ""})
        out.append(f)
    return out


_EXT_PATTERN = re.compile(r"\b(CUDAExtension|load_inline|cpp_extension\.load)(?=\s*\()")
_NVCC_LIST = re.compile(r"""["']nvcc["']\s*:\s*\[([^\]]*)\]|extra_cuda_cflags\s*=\s*\[([^\]]*)\]""")


def _setup_by_pattern(text: str) -> list[BuildFact]:
    facts = []
    for m in _EXT_PATTERN.finditer(text):
        facts.append(BuildFact(FactKind.CUDA_EXTENSION, m.start(), m.end(), "", m.group(1), {"call": m.group(1)}))
    for m in _NVCC_LIST.finditer(text):
        g = 1 if m.group(1) is not None else 2
        base = m.start(g)
        words = []
        for sm in re.finditer(r"""(["'])(.*?)\1""", m.group(g)):
            s = base + sm.start(2)
            for w in re.finditer(r"\S+", sm.group(2)):
                words.append((s + w.start(), s + w.end(), w.group(0)))
        facts += [f for f in flag_facts(words, "setup.py", "setup.py") if f.kind is not FactKind.CUDA_LIBRARY]
    return _dedupe(facts)


__all__ = [
    "BuildFact",
    "BuildFacts",
    "CMakeArg",
    "CMakeCommand",
    "CUDA_LIBRARIES",
    "FactKind",
    "classify_flag",
    "cmake_commands",
    "flag_facts",
    "other_platform_ranges",
    "parse_cmake",
    "parse_makefile",
    "parse_setup_py_build",
    "sm_numbers",
]
