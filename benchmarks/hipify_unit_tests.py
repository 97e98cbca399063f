"""HIPIFY's own unit tests as a benchmark: CHECK lines satisfied and translations that compile.

Usage::

    python benchmarks/hipify_unit_tests.py [--mirror DIR] [--work DIR] [--no-compile] [--jobs 2]
                                           [--tools vado,vado-ggl,vado-run,hipify-perl,torch,identity]
                                           [--json FILE] [--misses N]

What it does, in one run:

1. Extracts ``tests/unit_tests`` and ``bin/hipify-perl`` from the bare git mirror of
   github.com/ROCm/HIPIFY (``git archive HEAD``) into ``--work`` (never into the repo:
   HIPIFY's tests are not vado's to ship).
2. Translates every ``.cu`` / ``.cpp`` test file (and, so that relative includes
   resolve when compiling, every ``.h`` / ``.hpp`` beside them) with each tool:

   ``vado``        :func:`vado.port.file.port_bytes`, target ``rocm-7.2``, launches kept (``<<<>>>``).
   ``vado-ggl``    the same with ``--launch ggl``.
   ``vado-run``    the same, ``--launch ggl`` only where the file's RUN line asks HIPIFY for
                   ``--hip-kernel-execution-syntax`` (the like-for-like comparison).
   ``hipify-perl`` ``perl bin/hipify-perl`` from the mirror.
   ``torch``       ``torch.utils.hipify.hipify_python.hipify`` over a copy of the tree (from an
                   installed torch, or else loaded from the torch wheel named by ``--torch-wheel``:
                   the module is pure Python and self-contained).
   ``identity``    no translation: the share of CHECK lines the untouched CUDA file already meets.

   RUN-line options that a tool has an equivalent for are passed on: ``-roc`` / ``--roc``
   (vado ``roc=True``, hipify-perl ``-roc``), ``--experimental`` and
   ``--hip-kernel-execution-syntax`` (hipify-perl). torch's hipify has no such options.
3. Scores CHECK lines, order-free (rule below), and compiles each translation with
   ``HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -c -x hip`` (``--timeout`` seconds
   each, ``--jobs`` at a time; results are cached by content in ``--work`` so a
   re-run compiles only what changed). Failures are classified by their first error.
4. Prints one table: CHECK share and files compiled per tool, failure classes, and
   the top categories of CHECK lines ``vado-run`` misses.

CHECK rule (HIPIFY's ``tests/run_test.sh`` + FileCheck, made order-free):

* The output is prepared as HIPIFY's test script prepares it: on every line,
  everything from the first ``//`` on is replaced by ``// `` (``sed -Ee 's|//.+|// |g'``),
  so the CHECK comments themselves, which every tool copies into its output, can
  never satisfy a CHECK.
* A directive is ``CHECK:``, ``CHECK-NEXT:``, ``CHECK-SAME:`` or ``CHECK-NOT:`` (the
  prefix not preceded by a letter, digit, ``_`` or ``-``); its pattern is the rest of
  the line, stripped. Empty patterns are not counted.
* As in FileCheck without ``--strict-whitespace``, runs of spaces and tabs count as one
  space, in the pattern and in each output line.
* A pattern is literal text except ``{{...}}`` blocks, which are regular expressions
  (Python ``re``; HIPIFY's only use is ``{{(HIP_SYMBOL\\()?}}``).
* ``CHECK`` / ``CHECK-NEXT`` / ``CHECK-SAME`` is satisfied when some output line
  contains a match (substring search, as FileCheck); NEXT/SAME adjacency and the order
  of directives are ignored.
* ``CHECK-NOT: P`` is satisfied when the output has no more lines matching ``P`` than
  the file has positive directives whose own text ``P`` matches. FileCheck only looks
  for ``P`` between the neighbouring matches, and HIPIFY uses that to say "exactly
  once" (``CHECK: #include <hip/hip_runtime.h>`` then ``CHECK-NOT:`` the same line);
  counting is the order-free form of it. With no such positive directive, no line
  may match.

Only the CHECK lines of ``.cu`` / ``.cpp`` files count; headers carry none that a
single-file run could test.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from collections import Counter
from pathlib import Path

DEFAULT_MIRROR = "/work/.mirror/ROCm+HIPIFY/repo"
DEFAULT_WORK = str(Path(__file__).resolve().parent.parent / "scratch" / "hipifybench")
DEFAULT_WHEELS = "/opt/wheels"
SOURCE_EXT = (".cu", ".cpp")
HEADER_EXT = (".h", ".hpp", ".cuh")
ALL_TOOLS = ("identity", "vado", "vado-ggl", "vado-run", "hipify-perl", "torch")
COMPILED_TOOLS = ("vado", "vado-ggl", "vado-run", "hipify-perl", "torch")
#: The ROCm libraries whose headers Debian 12 does not package (Debian ships hipcc,
#: rocPRIM, rocRAND/hipRAND, rocSPARSE/hipSPARSE only): "file not found" for one of
#: these is the image's gap, not the translation's. Matched on the first path
#: component or the file stem of the missing header.
DEBIAN_MISSING = {
    "hipblas": "hipBLAS", "rocblas": "rocBLAS", "hipblaslt": "hipBLASLt", "hipfft": "hipFFT",
    "rocfft": "rocFFT", "hipsolver": "hipSOLVER", "rocsolver": "rocSOLVER", "miopen": "MIOpen",
    "rccl": "RCCL", "hipdnn": "hipDNN", "hipcub": "hipCUB", "thrust": "rocThrust",
    "hiptensor": "hipTensor", "hipsparselt": "hipSPARSELt", "roctracer": "roctracer", "roctx": "roctracer",
    "hipfile": "hipFile", "rocprofiler": "rocprofiler",
}

_DIRECTIVE = re.compile(r"(?<![A-Za-z0-9_-])CHECK(-NEXT|-SAME|-NOT)?:(.*)$")
_WS = re.compile(r"[ \t]+")
_COMMENT = re.compile(r"//.+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------- test files and CHECK lines


@dataclasses.dataclass(frozen=True)
class Check:
    """One CHECK directive: kind (``CHECK``, ``CHECK-NOT`` …), its pattern text, its compiled regex, its line."""

    kind: str
    text: str
    regex: re.Pattern
    line: int


@dataclasses.dataclass(frozen=True)
class TestFile:
    """A HIPIFY unit-test source: path relative to ``tests/unit_tests``, bytes, RUN options, CHECKs."""

    rel: str
    data: bytes
    run: tuple[str, ...]
    checks: tuple[Check, ...]

    @property
    def roc(self) -> bool:
        return any(o in ("-roc", "--roc") for o in self.run)

    @property
    def hip_launch(self) -> bool:
        return "--hip-kernel-execution-syntax" in self.run


def normalise(line: str) -> str:
    """Runs of spaces/tabs → one space, ends stripped (FileCheck's default canonicalisation)."""
    return _WS.sub(" ", line).strip()


def pattern_regex(text: str) -> re.Pattern:
    """A CHECK pattern as a regex: literal text with ``{{...}}`` blocks taken as regular expressions."""
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find("{{", pos)
        if start < 0:
            parts.append(re.escape(text[pos:]))
            break
        end = text.find("}}", start + 2)
        if end < 0:
            parts.append(re.escape(text[pos:]))
            break
        parts.append(re.escape(text[pos:start]))
        parts.append("(?:" + text[start + 2 : end] + ")")
        pos = end + 2
    return re.compile("".join(parts))


def parse_checks(text: str) -> tuple[Check, ...]:
    """Every CHECK directive of a test file (1-based line numbers)."""
    out: list[Check] = []
    for no, line in enumerate(text.splitlines(), 1):
        m = _DIRECTIVE.search(line)
        if m is None:
            continue
        pattern = normalise(m.group(2))
        if not pattern:
            continue
        out.append(Check("CHECK" + (m.group(1) or ""), pattern, pattern_regex(pattern), no))
    return tuple(out)


def parse_run(text: str) -> tuple[str, ...]:
    """The hipify options of the file's ``// RUN:`` line (between the option count and ``%clang_args``)."""
    for line in text.splitlines():
        if "RUN:" in line and "%hipify_args" in line:
            tail = line.split("%hipify_args", 1)[1].split("%clang_args", 1)[0]
            return tuple(o.strip('"') for o in tail.split() if not o.isdigit())
    return ()


def prepared_lines(output: str) -> list[str]:
    """The output as HIPIFY's test script feeds it to FileCheck (``//…`` → ``// ``), normalised."""
    return [normalise(_COMMENT.sub("// ", line)) for line in output.splitlines()]


def score(checks: tuple[Check, ...], output: str | None) -> list[bool]:
    """One bool per check: satisfied by ``output`` under the order-free rule (None output: all fail)."""
    if output is None:
        return [False] * len(checks)
    lines = prepared_lines(output)
    blob = "\n".join(lines)
    positive = [c.text for c in checks if c.kind != "CHECK-NOT"]
    result = []
    for c in checks:
        if c.kind == "CHECK-NOT":
            allowed = sum(1 for text in positive if c.regex.search(text))
            result.append(sum(1 for line in lines if c.regex.search(line)) <= allowed)
        elif "{{" in c.text:
            result.append(any(c.regex.search(line) for line in lines))
        else:
            # A literal pattern holds no newline, so one search over the joined
            # lines is a per-line search; regex blocks could span lines, so they go per line.
            result.append(c.regex.search(blob) is not None)
    return result


def extract(mirror: str, work: Path) -> Path:
    """``tests/unit_tests`` and ``bin/hipify-perl`` of the mirror's HEAD, unpacked under ``work/src``."""
    src = work / "src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", mirror, "archive", "HEAD", "tests/unit_tests", "bin/hipify-perl"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(src, filter="data")
    return src


def mirror_commit(mirror: str) -> str:
    return subprocess.run(["git", "-C", mirror, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def load_tests(src: Path) -> tuple[list[TestFile], list[str]]:
    """The test sources (with CHECKs) and the header paths beside them."""
    root = src / "tests" / "unit_tests"
    tests: list[TestFile] = []
    headers: list[str] = []
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if path.suffix in HEADER_EXT:
            headers.append(rel)
        elif path.suffix in SOURCE_EXT:
            data = path.read_bytes()
            text = data.decode("latin-1")
            tests.append(TestFile(rel, data, parse_run(text), parse_checks(text)))
    return tests, headers


# --------------------------------------------------------------------------- tools


def _vado_translate(root: Path, rels: list[str], tests: dict[str, TestFile], mode: str) -> dict[str, str | None]:
    from vado.knowledge.targets import get_target
    from vado.model.text import decode_source
    from vado.port.file import PortOptions, port_bytes
    from vado.scan.classify import classify

    target = get_target("rocm-7.2")
    out: dict[str, str | None] = {}
    for rel in rels:
        t = tests.get(rel)
        roc = bool(t and t.roc)
        if mode == "vado":
            launch = "chevron"
        elif mode == "vado-ggl":
            launch = "ggl"
        else:
            launch = "ggl" if (t and t.hip_launch) else "chevron"
        data = (root / rel).read_bytes()
        try:
            result = port_bytes(rel, classify(rel), data, target, PortOptions(launch=launch, roc=roc))
            out[rel] = decode_source(result.after)
        except Exception as exc:  # a crash is a result to report, not a reason to stop the benchmark
            out[rel] = None
            print(f"vado failed on {rel}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return out


def _perl_translate(src: Path, root: Path, rels: list[str], tests: dict[str, TestFile], jobs: int) -> dict[str, str | None]:
    perl = src / "bin" / "hipify-perl"

    def one(rel: str) -> tuple[str, str | None]:
        t = tests.get(rel)
        opts = []
        if t is not None:
            if t.roc:
                opts.append("-roc")
            if "--experimental" in t.run:
                opts.append("-experimental")
            if t.hip_launch:
                opts.append("-hip-kernel-execution-syntax")
        proc = subprocess.run(
            ["perl", str(perl), "-quiet-warnings", *opts, str(root / rel)], capture_output=True, timeout=300
        )
        if proc.returncode != 0:
            return rel, None
        return rel, proc.stdout.decode("latin-1")

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(one, rels))


def _load_torch_hipify(wheels: str, work: Path):
    """``torch.utils.hipify.hipify_python`` from an installed torch, else from the local torch wheel."""
    try:
        return importlib.import_module("torch.utils.hipify.hipify_python"), "installed torch"
    except ImportError:
        pass
    wheel_dir = Path(wheels)
    wheels_found = sorted(wheel_dir.glob("torch-*.whl")) if wheel_dir.is_dir() else []
    if not wheels_found:
        return None, "torch is not installed and no torch wheel was found"
    wheel = wheels_found[-1]
    dest = work / "torch-hipify"
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith("torch/utils/hipify/") and name.endswith(".py"):
                z.extract(name, dest)
    # Load the subpackage under its own name: importing all of torch is not needed
    # (hipify imports nothing from torch) and the CPU wheel installs to ~1 GB.
    sys.path.insert(0, str(dest / "torch" / "utils"))
    return importlib.import_module("hipify.hipify_python"), f"{wheel.name} (torch/utils/hipify only)"


def _torch_translate(module, root: Path, work: Path, rels: list[str]) -> dict[str, str | None]:
    tree = work / "torch-tree"
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(root, tree)
    import contextlib

    out: dict[str, str | None] = {}
    for rel in rels:
        path = (tree / rel).resolve()
        # One call per file: hipify() aborts the whole run on the first file it cannot
        # decode as UTF-8, and a crash on one file should cost only that file.
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                results = module.hipify(
                    project_directory=str(tree),
                    output_directory=str(tree),
                    includes=[str(path)],
                    show_progress=False,
                    show_detailed=False,
                )
        except Exception as exc:  # torch's failure on this file is the measured result
            out[rel] = None
            print(f"torch hipify failed on {rel}: {type(exc).__name__}: {str(exc)[:100]}", file=sys.stderr)
            continue
        r = results.get(str(path))
        hipified = getattr(r, "hipified_path", None) if r is not None else None
        # hipify leaves a file it has nothing to change in place (hipified_path None or the input).
        out[rel] = Path(hipified or path).read_text(encoding="latin-1")
    return out


# --------------------------------------------------------------------------- compiling


def classify_error(stderr: str, timed_out: bool) -> str:
    """A failure class from the first ``error:`` line of hipcc's output."""
    if timed_out:
        return "timeout"
    for line in stderr.splitlines():
        if "error:" not in line:
            continue
        msg = line.split("error:", 1)[1].strip()
        m = re.match(r"'([^']+)' file not found", msg)
        if m:
            header = m.group(1)
            first = header.split("/")[0]
            stem = Path(header).stem
            for key in (first, stem):
                if key.lower() in DEBIAN_MISSING:
                    return f"header not in Debian 12: {DEBIAN_MISSING[key.lower()]}"
            if re.match(r"(cu|nv|cuda|cufft|curand|cusparse|cublas|cudnn|nccl)", stem):
                return f"CUDA header left: {header}"
            return f"header not found: {header}"
        if "undeclared identifier" in msg:
            return "undeclared identifier"
        if msg.startswith("unknown type name"):
            return "unknown type name"
        if msg.startswith("no matching function"):
            return "no matching function"
        if msg.startswith("no member named"):
            return "no member named"
        return re.sub(r"'[^']*'", "'…'", msg)[:60]
    return "failed without an error line"


def compile_all(work: Path, trees: dict[str, Path], rels: list[str], jobs: int, timeout: int) -> dict[str, dict[str, dict]]:
    """``{tool: {rel: {"ok": bool, "class": str, "first_error": str}}}``, cached by content."""
    cache_path = work / "compile-cache.json"
    cache: dict[str, dict] = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    env = dict(os.environ, HIP_PLATFORM="amd")
    cmd_base = ["hipcc", "--offload-arch=gfx90a", "-c", "-x", "hip"]

    def key_of(tree: Path, rel: str) -> str:
        h = hashlib.sha256(" ".join(cmd_base).encode())
        h.update(rel.encode())
        h.update((tree / rel).read_bytes())
        # Relative includes: the headers beside the file (translated by the same tool) matter too.
        for header in sorted((tree / rel).parent.rglob("*")):
            if header.suffix in HEADER_EXT:
                h.update(header.read_bytes())
        return h.hexdigest()

    def run_one(tree: Path, rel: str) -> dict:
        path = tree / rel
        try:
            proc = subprocess.run(
                [*cmd_base, str(path), "-o", os.devnull, "-I", str(path.parent)],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                env=env,
            )
            ok, stderr, timed_out = proc.returncode == 0, proc.stderr, False
        except subprocess.TimeoutExpired:
            ok, stderr, timed_out = False, "", True
        first = next((line for line in stderr.splitlines() if "error:" in line), "")
        return {"ok": ok, "class": "" if ok else classify_error(stderr, timed_out), "first_error": first[:300]}

    jobs_todo: dict[str, tuple[Path, str]] = {}
    keys: dict[tuple[str, str], str] = {}
    for tool, tree in trees.items():
        for rel in rels:
            if not (tree / rel).exists():
                continue
            k = key_of(tree, rel)
            keys[(tool, rel)] = k
            if k not in cache and k not in jobs_todo:
                jobs_todo[k] = (tree, rel)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, tree, rel): k for k, (tree, rel) in jobs_todo.items()}
        for fut in concurrent.futures.as_completed(futures):
            cache[futures[fut]] = fut.result()
            cache_path.write_text(json.dumps(cache))
    out: dict[str, dict[str, dict]] = {tool: {} for tool in trees}
    for (tool, rel), k in keys.items():
        out[tool][rel] = cache[k]
    return out


# --------------------------------------------------------------------------- miss categories


def _reverse_index():
    """``{hip_or_roc_name: [ApiEntry]}`` over vado's API tables."""
    from vado.knowledge.api import api_table

    rev: dict[str, list] = {}
    for e in api_table().entries:
        for name in {e.hip_name, e.roc_name} - {""}:
            rev.setdefault(name, []).append(e)
    return rev


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_INCLUDE = re.compile(r'#\s*include\s*[<"]([^>"]+)[>"]')
_ROC_TYPES = ("rocblas_half", "rocblas_bfloat16", "rocblas_float_complex", "rocblas_double_complex")


@dataclasses.dataclass(frozen=True)
class MissContext:
    """What the categoriser knows of one file's output: identifiers, lines without strings, includes."""

    idents: set[str]
    unstrung: list[str]
    includes: set[str]
    ggl: bool
    run: tuple[str, ...]

    @classmethod
    def of(cls, output: str | None, ggl: bool, run: tuple[str, ...]) -> "MissContext":
        lines = prepared_lines(output or "")
        return cls(
            set(_IDENT.findall("\n".join(lines))),
            [_STRING.sub('""', line) for line in lines],
            {m.group(1).rsplit("/", 1)[-1] for line in lines for m in [_INCLUDE.search(line)] if m},
            ggl,
            run,
        )


def miss_category(check: Check, ctx: MissContext, rev: dict, target) -> str:
    """Why a CHECK line is missed, as a short category; "(deliberate)" marks vado's chosen differences."""
    from vado.knowledge.api import availability

    text = check.text
    low = text.lower()
    if "caffe2" in low or "REGISTER_HIP_OPERATOR" in text or "HIPContext" in text:
        return "Caffe2/PyTorch path mapping (deliberate: not CUDA)"
    if "miopen" in low or "hipdnn" in low or "cudnn" in low:
        return "cuDNN not renamed to MIOpen/hipDNN (deliberate)"
    if check.kind == "CHECK-NOT":
        return "CHECK-NOT matched"
    inc = _INCLUDE.search(text)
    if inc:
        if inc.group(1).rsplit("/", 1)[-1] in ctx.includes:
            return "#include <lib.h> kept as <lib/lib.h> (deliberate)"
        return "#include not produced"
    if _STRING.search(text):
        stripped = pattern_regex(_STRING.sub('""', text))
        if any(stripped.search(line) for line in ctx.unstrung):
            return "CUDA name inside a string literal kept (deliberate)"
    if "<<<" in text and ctx.ggl and "--skip-excluded-preprocessor-conditional-blocks" in ctx.run:
        return "launch in an inactive #if branch converted too (deliberate)"
    if "HIP_SYMBOL(" in text:
        return "HIP_SYMBOL() not added (deliberate: no-op on AMD)"
    expected = [w for w in _IDENT.findall(re.sub(r"\{\{.*?\}\}", " ", text)) if w not in ctx.idents]
    if any(w in _ROC_TYPES for w in expected):
        return "--roc: rocBLAS half/complex types (deliberate)"
    if "HIP_KERNEL_NAME" in expected or ("hipLaunchKernelGGL" in text and not expected):
        return "hipLaunchKernelGGL spelling (HIP_KERNEL_NAME, dim3)"
    if not expected:
        return "argument rewrite (HIPIFY call matcher)"
    name = expected[0]
    if name in ("hipLaunchKernelGGL", "HIP_DYNAMIC_SHARED"):
        return f"{name} not produced"
    rows = rev.get(name)
    if not rows:
        if name.startswith("rocsparse_") and "policy" in name:
            return "argument rewrite (HIPIFY call matcher)"
        return "name not in vado's tables"
    e = rows[0]
    av = availability(e, target)
    status = av.status.value
    if status in ("renamed", "available", "deprecated"):
        if e.roc_name == name and e.hip_name and e.hip_name != name:
            return f"roc* name expected ({e.library})"
        if e.hip_name == name and e.cuda_name in ctx.idents:
            return f"in table, not applied ({e.library} {e.kind})"
        return f"HIPIFY maps another CUDA name to {e.library} {e.kind} {name}"
    return f"{status} on rocm-7.2 ({e.library})"


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR, help="bare git mirror of ROCm/HIPIFY")
    ap.add_argument("--work", default=DEFAULT_WORK, help="scratch directory (outside version control)")
    ap.add_argument("--tools", default=",".join(ALL_TOOLS))
    ap.add_argument("--torch-wheel-dir", default=DEFAULT_WHEELS, dest="wheels")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--jobs", type=int, default=2, help="parallel hipcc / hipify-perl processes (default 2)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per compile (default 60)")
    ap.add_argument("--misses", type=int, default=20, help="miss categories to list (default 20)")
    ap.add_argument("--examples", type=int, default=0, help="example missed CHECK lines per category")
    ap.add_argument("--json", help="write per-file results to this JSON file")
    args = ap.parse_args(argv)

    tools = [t for t in args.tools.split(",") if t]
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    started = time.time()
    src = extract(args.mirror, work)
    root = src / "tests" / "unit_tests"
    tests, headers = load_tests(src)
    by_rel = {t.rel: t for t in tests}
    rels = [t.rel for t in tests]
    n_checks = sum(len(t.checks) for t in tests)

    outputs: dict[str, dict[str, str | None]] = {}
    notes: dict[str, str] = {}
    for tool in tools:
        t0 = time.time()
        if tool == "identity":
            outputs[tool] = {r: (root / r).read_text(encoding="latin-1") for r in rels + headers}
        elif tool in ("vado", "vado-ggl", "vado-run"):
            outputs[tool] = _vado_translate(root, rels + headers, by_rel, tool)
        elif tool == "hipify-perl":
            outputs[tool] = _perl_translate(src, root, rels + headers, by_rel, args.jobs)
        elif tool == "torch":
            module, how = _load_torch_hipify(args.wheels, work)
            if module is None:
                notes[tool] = how
                continue
            notes[tool] = how
            outputs[tool] = _torch_translate(module, root, work, rels + headers)
        else:
            ap.error(f"unknown tool {tool!r}")
        notes[tool] = (notes.get(tool, "") + f" {time.time() - t0:.1f}s").strip()

    # Trees of translations (for the compiler) under work/out/<tool>/.
    trees: dict[str, Path] = {}
    for tool, outs in outputs.items():
        tree = work / "out" / tool
        if tree.exists():
            shutil.rmtree(tree)
        for rel, text in outs.items():
            if text is None:
                continue
            dest = tree / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(text.encode("latin-1", errors="replace"))
        trees[tool] = tree

    scores = {tool: {r: score(by_rel[r].checks, outs.get(r)) for r in rels} for tool, outs in outputs.items()}
    compiled: dict[str, dict[str, dict]] = {}
    if not args.no_compile:
        compiled = compile_all(work, {t: trees[t] for t in trees if t in COMPILED_TOOLS}, rels, args.jobs, args.timeout)

    # ---- table
    print(f"HIPIFY unit tests @ {mirror_commit(args.mirror)[:12]}: {len(tests)} .cu/.cpp files, {n_checks} CHECK lines")
    print()
    head = f"{'tool':<12} {'CHECK met':>10} {'share':>7} {'files all met':>14} {'compiled':>10} {'fail: no Debian hdr':>20}"
    print(head)
    print("-" * len(head))
    for tool in outputs:
        met = sum(sum(s) for s in scores[tool].values())
        full = sum(1 for r in rels if scores[tool][r] and all(scores[tool][r]))
        if tool in compiled:
            ok = sum(1 for r in rels if compiled[tool].get(r, {}).get("ok"))
            nodeb = sum(1 for r in rels if compiled[tool].get(r, {}).get("class", "").startswith("header not in Debian"))
            comp, nd = f"{ok}/{len(rels)}", str(nodeb)
        else:
            comp, nd = "-", "-"
        print(f"{tool:<12} {met:>10} {100 * met / max(n_checks, 1):>6.1f}% {full:>10}/{len(rels):<3} {comp:>10} {nd:>20}")
    for tool, note in notes.items():
        if tool not in outputs:
            print(f"{tool:<12} not run: {note}")
    print()
    if compiled:
        print("Compile failures by first error (count per tool):")
        classes = Counter()
        per_tool: dict[str, Counter] = {}
        for tool, res in compiled.items():
            per_tool[tool] = Counter(v["class"] for v in res.values() if not v["ok"])
            classes.update(per_tool[tool])
        tool_names = list(compiled)
        print(f"  {'class':<52}" + "".join(f"{t:>12}" for t in tool_names))
        for cls, _ in classes.most_common(25):
            print(f"  {cls[:52]:<52}" + "".join(f"{per_tool[t].get(cls, 0):>12}" for t in tool_names))
        print()
    focus = "vado-run" if "vado-run" in outputs else next((t for t in outputs if t.startswith("vado")), None)
    if focus is not None:
        from vado.knowledge.targets import get_target

        rev = _reverse_index()
        target = get_target("rocm-7.2")
        cats: Counter = Counter()
        examples: dict[str, list[str]] = {}
        for t in tests:
            ggl = focus == "vado-ggl" or (focus == "vado-run" and t.hip_launch)
            ctx = MissContext.of(outputs[focus].get(t.rel), ggl, t.run)
            for c, ok in zip(t.checks, scores[focus][t.rel]):
                if ok:
                    continue
                cat = miss_category(c, ctx, rev, target)
                cats[cat] += 1
                examples.setdefault(cat, []).append(f"{t.rel}:{c.line}: {c.text}")
        total_missed = sum(cats.values())
        print(f"Top {args.misses} categories of CHECK lines {focus} misses ({total_missed} missed):")
        for cat, n in cats.most_common(args.misses):
            print(f"  {n:>6}  {cat}")
            for ex in examples[cat][: args.examples]:
                print(f"            {ex[:150]}")
    print()
    print("Tools: " + "; ".join(f"{t}: {n}" for t, n in notes.items()) + f"; total {time.time() - started:.0f}s")

    if args.json:
        data = {
            "mirror_commit": mirror_commit(args.mirror),
            "files": {
                r: {
                    "checks": len(by_rel[r].checks),
                    **{f"{tool}_met": sum(scores[tool][r]) for tool in outputs},
                    **{f"{tool}_compile": compiled[tool].get(r) for tool in compiled},
                }
                for r in rels
            },
        }
        Path(args.json).write_text(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
