"""nvcc flags, CUDA libraries and CUDA toolkit paths as words of a build file, shared by the Make, CMake and
setup.py readers: :func:`classify_flag` (one word), :func:`flag_facts` (a list of words, a value-taking option
with its value), :func:`sm_numbers` and :func:`arch_numbers` (compute capabilities)."""

from __future__ import annotations

import re

from vado.scan.buildfiles.facts import BuildFact, FactKind


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
CUDA_TOOLKIT_PATH = re.compile(
    r"\$[({](?:CUDA_PATH|CUDA_HOME|CUDA_ROOT|CUDA_DIR|CUDA_TOOLKIT_ROOT_DIR|CUDA_INSTALL_PATH|CUDAToolkit_ROOT)[)}]"
    r"|\b(?:CUDA_PATH|CUDA_HOME|CUDA_ROOT|CUDA_DIR|CUDA_TOOLKIT_ROOT_DIR|CUDA_INSTALL_PATH)\b"
    r"|/usr/local/cuda(?:-\d+(?:\.\d+)?)?\b|/opt/cuda\b"
)


def path_form(text: str) -> str:
    """``literal`` for ``/usr/local/cuda``, ``reference`` for ``$(CUDA_PATH)``, ``name`` for ``CUDA_PATH``."""
    if text.startswith("/"):
        return "literal"
    return "reference" if text.startswith("$") else "name"


NVCC_WORD = re.compile(r"^(?:.*/)?nvcc(?:\.exe)?$|^\$[({]NVCC[)}]$")


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


def arch_numbers(text: str) -> list[str]:
    """Compute capabilities in a CMake value: ``80;90a``, ``80-real``, ``8.0 9.0+PTX``, ``sm_80``."""
    out = []
    for piece in re.split(r"[;\s,]+", text):
        piece = piece.strip()
        m = re.match(r"^(?:sm_|compute_)?(\d+)(?:\.(\d))?([a-z]?)(?:-real|-virtual|\+PTX)?$", piece)
        if m:
            out.append(m.group(1) + (m.group(2) or "") + m.group(3))
    return out
