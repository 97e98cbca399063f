#!/usr/bin/env python3
"""Import HIPIFY's published CUDA→HIP support tables into vado's own API data files.

HIPIFY (https://github.com/ROCm/HIPIFY) publishes, per CUDA library, a markdown
table of every CUDA name with the HIP (and, in the ``_and_ROC`` /
``_and_MIOPEN`` variants, the roc*/MIOpen) name and the versions each appeared,
was deprecated, changed or removed in. This tool reads those tables and writes
vado's data format under ``src/vado/knowledge/data/api/``:

* one CSV per library (``runtime.csv``, ``cublas.csv``, ...) with a header row of
  named fields (``FIELDS`` below), sorted by CUDA name; header rows (``kind=header``,
  from HIPIFY's include map) go to their library's file;
* ``index.yaml`` listing every table: library, source repository URL, commit,
  path, row count, how the ``kind`` column was decided.

Sources (any mix; a table read from ``--tables`` replaces the mirror's table of
the same file name, so newer tables win):

* ``--git-mirror PATH --commit C``: a bare clone of ROCm/HIPIFY; tables are read
  from ``docs/tables/`` (or ``docs/reference/tables/``) at commit C, and the
  include map and per-name kinds from ``src/CUDA2HIP*.cpp`` at the same commit;
* ``--tables DIR``: raw table files saved from a newer HIPIFY revision, with a
  ``sources.json`` beside them: ``{"<file>.md": {"repo": URL, "commit": SHA,
  "path": "docs/reference/tables/<file>.md"}}``;
* ``--compat FILE``: vado's research facts (``compat.yaml``) for NCCL→RCCL,
  NVTX→ROCTx and Thrust→rocThrust, which HIPIFY's tables do not cover.

How ``kind`` is decided, per row, first rule that applies:

1. the name appears in the mirror's ``src/CUDA2HIP_*_{types,functions}.cpp`` maps:
   ``CONV_TYPE``/``CONV_DEVICE_TYPE`` → ``type``, ``CONV_NUMERIC_LITERAL`` →
   ``enum`` (an enumerator), ``CONV_DEFINE`` → ``define``, any other conversion
   kind (``CONV_LIB_FUNC``, ``CONV_MEMORY``, ...) → ``function``;
2. otherwise the section title: a section whose title names types ("Data types",
   "Types", "Types References") holds types, enumerators and constants; there an
   ALL_CAPS name (``[A-Z0-9_]+``) is an ``enum`` and any other name a ``type``;
   every other section holds ``function`` rows.

How ``support`` is decided: no HIP and no roc*/MIOpen name → ``unsupported``;
otherwise the HIP side's columns (or the roc side's, when there is no HIP name):
R set → ``removed``, D set → ``deprecated``, E set → ``experimental``, else
``supported``.

Usage::

    python tools/import_hipify.py --git-mirror /work/.mirror/ROCm+HIPIFY/repo --commit 014177bc... \\
        --tables scratch/helper-api/tables --compat /work/shared/knowledge/compat.yaml --docs docs/api-coverage.md
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HIPIFY_URL = "https://github.com/ROCm/HIPIFY"

#: Column order of every library CSV.
FIELDS = (
    "cuda_name",
    "kind",
    "library",
    "section",
    "hip_name",
    "roc_name",
    "support",
    "cuda_added",
    "cuda_deprecated",
    "cuda_changed",
    "cuda_removed",
    "hip_added",
    "hip_deprecated",
    "hip_changed",
    "hip_removed",
    "hip_experimental",
    "hip_unsupported_cuda",
    "roc_added",
    "roc_deprecated",
    "roc_changed",
    "roc_removed",
    "roc_experimental",
    "note",
)

#: Table file stem → vado library name. Where HIPIFY publishes a ``_by_HIP``, a
#: ``_by_ROC`` and an ``_and_ROC`` variant, only the combined one is read: it holds
#: both name columns. Order matters: CUSPARSELT before CUSPARSE.
TABLES = (
    ("CUDA_Runtime_API_functions_supported_by_HIP", "runtime"),
    ("CUDA_Driver_API_functions_supported_by_HIP", "driver"),
    ("CUDA_Device_API_supported_by_HIP", "device"),
    ("CUDA_RTC_API_supported_by_HIP", "rtc"),
    ("cuComplex_API_supported_by_HIP", "complex"),
    ("CUB_API_supported_by_HIP", "cub"),
    ("CUBLAS_API_supported_by_HIP_and_ROC", "cublas"),
    ("CUDNN_API_supported_by_HIP_and_MIOPEN", "cudnn"),
    ("CUFFT_API_supported_by_HIP", "cufft"),
    ("CURAND_API_supported_by_HIP_and_ROC", "curand"),
    ("CUSOLVER_API_supported_by_HIP_and_ROC", "cusolver"),
    ("CUSPARSE_API_supported_by_HIP_and_ROC", "cusparse"),
    ("CUSPARSELT_API_supported_by_HIP", "cusparselt"),
    ("CUTENSOR_API_supported_by_HIP", "cutensor"),
    ("cuFile_API_supported_by_HIP", "cufile"),
)

#: cuBLAS's table carries cuBLASLt in sections of its own; rows there go to ``cublaslt``.
_CUBLASLT_SECTION = re.compile(r"BLASLt", re.I)

_TYPE_SECTION = re.compile(r"\btypes?\b", re.I)
_ALL_CAPS = re.compile(r"^[A-Z0-9_]+$")
_HEADING = re.compile(r"^##\s+\**\s*(?:\d+\.\s*)?(.*?)\s*\**\s*$")

_CONV_KIND = {
    "CONV_TYPE": "type",
    "CONV_DEVICE_TYPE": "type",
    "CONV_NUMERIC_LITERAL": "enum",
    "CONV_DEFINE": "define",
}
_MAP_ENTRY = re.compile(r'^\s*\{"([^"]+)",\s*\{"([^"]*)",\s*"([^"]*)",\s*(CONV_[A-Z0-9_]+),\s*(API_[A-Z0-9_]+)(.*)$')

#: HIPIFY's include map still names some ROCm headers by their pre-6.0 flat paths
#: (``hipblas.h``); ROCm 6 removed those wrappers, so vado records the current paths.
ROCM6_HEADER_PATHS = {
    "hipblas.h": "hipblas/hipblas.h",
    "rocblas.h": "rocblas/rocblas.h",
    "hipblaslt.h": "hipblaslt/hipblaslt.h",
    "hipsparse.h": "hipsparse/hipsparse.h",
    "rocsparse.h": "rocsparse/rocsparse.h",
    "hipsolver.h": "hipsolver/hipsolver.h",
    "hiprtc.h": "hip/hiprtc.h",
}
#: Header names HIPIFY maps to that ROCm does not ship (the retired hipDNN wrapper).
RETIRED_HEADERS = {"hipDNN.h": "the old hipDNN wrapper is not part of ROCm; MIOpen is the ROCm library"}

_API_LIBRARY = {
    "API_DRIVER": "driver",
    "API_RUNTIME": "runtime",
    "API_COMPLEX": "complex",
    "API_BLAS": "cublas",
    "API_RAND": "curand",
    "API_DNN": "cudnn",
    "API_FFT": "cufft",
    "API_SPARSE": "cusparse",
    "API_SOLVER": "cusolver",
    "API_CUB": "cub",
    "API_RTC": "rtc",
}


@dataclass
class Source:
    """Where one table's text came from."""

    repo: str
    commit: str
    path: str

    def as_dict(self) -> dict[str, str]:
        return {"repo": self.repo, "commit": self.commit, "path": self.path}


@dataclass
class Table:
    """The rows read from one source file, with their provenance."""

    name: str
    library: str
    source: Source
    rows: list[dict[str, str]] = field(default_factory=list)
    kind_from: Counter = field(default_factory=Counter)


# --------------------------------------------------------------------------- sources


class Mirror:
    """Read files from a bare git clone at one commit (``git show C:path``)."""

    def __init__(self, path: Path, commit: str) -> None:
        self.path = path
        self.commit = self._resolve(commit)

    def _git(self, *args: str) -> str:
        out = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"git {' '.join(args)} failed in {self.path}: {out.stderr.strip()}")
        return out.stdout

    def _resolve(self, commit: str) -> str:
        return self._git("rev-parse", f"{commit}^{{commit}}").strip()

    def ls(self, folder: str) -> list[str]:
        text = self._git("ls-tree", "--name-only", self.commit, folder.rstrip("/") + "/")
        return [line for line in text.splitlines() if line]

    def show(self, path: str) -> str:
        return self._git("show", f"{self.commit}:{path}")

    def tables_dir(self) -> str:
        for folder in ("docs/reference/tables", "docs/tables"):
            if self.ls(folder):
                return folder
        raise SystemExit(f"no docs/tables in {self.path} at {self.commit}")


def load_table_texts(mirror: Mirror | None, tables_dir: Path | None) -> dict[str, tuple[str, Source]]:
    """File stem → (markdown text, source), the ``--tables`` copies replacing the mirror's."""
    texts: dict[str, tuple[str, Source]] = {}
    if mirror is not None:
        folder = mirror.tables_dir()
        for path in mirror.ls(folder):
            stem = Path(path).stem
            texts[stem] = (mirror.show(path), Source(HIPIFY_URL, mirror.commit, path))
    if tables_dir is not None:
        manifest_path = tables_dir / "sources.json"
        if not manifest_path.is_file():
            raise SystemExit(f"{manifest_path} is missing: it must name repo, commit and path for each table file")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        for file in sorted(tables_dir.glob("*.md")):
            meta = manifest.get(file.name)
            if not meta:
                raise SystemExit(f"{file.name} has no entry in {manifest_path}")
            texts[file.stem] = (file.read_text(encoding="utf-8"), Source(meta["repo"], meta["commit"], meta["path"]))
    return texts


def load_kind_map(mirror: Mirror | None) -> dict[str, str]:
    """CUDA name → kind, from HIPIFY's own conversion maps (rule 1 in the module doc)."""
    kinds: dict[str, str] = {}
    if mirror is None:
        return kinds
    for path in mirror.ls("src"):
        if not re.search(r"CUDA2HIP_.*_(types|functions)\.cpp$", path):
            continue
        for line in mirror.show(path).splitlines():
            m = _MAP_ENTRY.match(line)
            if m:
                kinds.setdefault(m.group(1), _CONV_KIND.get(m.group(4), "function"))
    return kinds


# --------------------------------------------------------------------------- parsing


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _name(cell: str) -> str:
    return cell.strip().strip("`").strip()


def parse_table(text: str, library: str, source: Source, kinds: dict[str, str]) -> list[Table]:
    """Rows of one HIPIFY markdown file (two tables when cuBLAS carries cuBLASLt)."""
    main = Table(Path(source.path).stem, library, source)
    lt = Table(Path(source.path).stem + " (cuBLASLt sections)", "cublaslt", source) if library == "cublas" else None
    section = ""
    columns: list[tuple[str, str]] = []  # (group, field) per cell
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            section = heading.group(1).strip("* ").strip()
            columns = []
            continue
        if not line.startswith("|"):
            continue
        cells = _cells(line)
        if cells and cells[0].startswith("**"):
            columns = _header_columns(cells)
            continue
        if not columns or not cells or not cells[0].startswith("`"):
            continue  # the :-- alignment row, or text outside a table
        row = _row(cells, columns, section)
        target = lt if lt is not None and _CUBLASLT_SECTION.search(section) else main
        row["library"] = target.library
        row["kind"], basis = _kind(row["cuda_name"], section, kinds)
        target.kind_from[basis] += 1
        target.rows.append(row)
    return [t for t in (main, lt) if t is not None and t.rows]


def _header_columns(cells: list[str]) -> list[tuple[str, str]]:
    letters = {"A": "added", "D": "deprecated", "C": "changed", "R": "removed", "E": "experimental", "U": "unsupported_cuda"}
    out: list[tuple[str, str]] = []
    group = ""
    for cell in cells:
        label = cell.strip("*").strip()
        if label in letters:
            out.append((group, letters[label]))
        else:
            group = {"CUDA": "cuda", "HIP": "hip"}.get(label, "roc")  # ROC, MIOPEN → roc
            out.append((group, "name"))
    return out


def _row(cells: list[str], columns: list[tuple[str, str]], section: str) -> dict[str, str]:
    row = {f: "" for f in FIELDS}
    row["section"] = section
    for (group, what), cell in zip(columns, cells):
        value = _name(cell) if what == "name" else cell.strip()
        key = f"{group}_{what}"
        if key == "cuda_experimental" or key == "cuda_unsupported_cuda":
            continue
        if key == "hip_unsupported_cuda" or key in row:
            row[key] = value
    row["support"] = _support(row)
    return row


def _support(row: dict[str, str]) -> str:
    if row["hip_name"]:
        side = "hip"
    elif row["roc_name"]:
        side = "roc"
    else:
        return "unsupported"
    if row[f"{side}_removed"]:
        return "removed"
    if row[f"{side}_deprecated"]:
        return "deprecated"
    if row[f"{side}_experimental"]:
        return "experimental"
    return "supported"


def _kind(name: str, section: str, kinds: dict[str, str]) -> tuple[str, str]:
    if name in kinds:
        return kinds[name], "hipify-src"
    if _TYPE_SECTION.search(section):
        return ("enum" if _ALL_CAPS.match(name) else "type"), "section"
    return "function", "section"


# --------------------------------------------------------------------------- headers and extras


def parse_headers(mirror: Mirror) -> Table:
    """``kind=header`` rows from HIPIFY's ``CUDA_INCLUDE_MAP`` (``src/CUDA2HIP.cpp``)."""
    path = "src/CUDA2HIP.cpp"
    # Header rows join their library's CSV (cublas_v2.h → cublas.csv); the table keeps its own source.
    table = Table("CUDA_INCLUDE_MAP", "headers", Source(HIPIFY_URL, mirror.commit, path))
    text = mirror.show(path)
    start = text.index("CUDA_INCLUDE_MAP")
    body = text[start : text.index("};", start)]
    for line in body.splitlines():
        m = _MAP_ENTRY.match(line)
        if not m:
            continue
        cuda, hip, roc, _conv, api, rest = m.groups()
        if api not in _API_LIBRARY:
            continue  # Caffe2 headers: not a CUDA library vado audits
        library = "cublaslt" if cuda == "cublasLt.h" else _API_LIBRARY[api]
        row = {f: "" for f in FIELDS}
        note = []
        if hip in RETIRED_HEADERS:
            note.append(f"HIPIFY maps to {hip}; {RETIRED_HEADERS[hip]}")
            hip = ""
        if hip in ROCM6_HEADER_PATHS:
            note.append(f"HIPIFY's table says {hip}; ROCm >= 6 path used")
            hip = ROCM6_HEADER_PATHS[hip]
        if roc in ROCM6_HEADER_PATHS:
            roc = ROCM6_HEADER_PATHS[roc]
        if not hip and not roc and "UNSUPPORTED" not in rest:
            note.append("not needed under HIP: hipify removes the #include")
        row.update(cuda_name=cuda, kind="header", library=library, section="CUDA_INCLUDE_MAP", hip_name=hip, roc_name=roc, note="; ".join(note))
        row["support"] = "unsupported" if "UNSUPPORTED" in rest else "supported"
        table.rows.append(row)
        table.kind_from["hipify-src"] += 1
    return table


#: Facts HIPIFY's tables do not hold: (library, cuda_name, kind, hip_name, note).
#: Each group's source is the compat.yaml entry named in ``_EXTRA_GROUPS``.
_NCCL_NAMES = (
    ("function", "ncclGetVersion"), ("function", "ncclGetUniqueId"), ("function", "ncclCommInitRank"),
    ("function", "ncclCommInitAll"), ("function", "ncclCommInitRankConfig"), ("function", "ncclCommDestroy"),
    ("function", "ncclCommAbort"), ("function", "ncclCommCount"), ("function", "ncclCommCuDevice"),
    ("function", "ncclCommUserRank"), ("function", "ncclCommGetAsyncError"), ("function", "ncclGetErrorString"),
    ("function", "ncclAllReduce"), ("function", "ncclBroadcast"), ("function", "ncclBcast"),
    ("function", "ncclReduce"), ("function", "ncclAllGather"), ("function", "ncclReduceScatter"),
    ("function", "ncclSend"), ("function", "ncclRecv"), ("function", "ncclGroupStart"), ("function", "ncclGroupEnd"),
    ("type", "ncclComm_t"), ("type", "ncclUniqueId"), ("type", "ncclResult_t"), ("type", "ncclDataType_t"),
    ("type", "ncclRedOp_t"), ("enum", "ncclSuccess"), ("enum", "ncclSum"), ("enum", "ncclFloat32"),
)
_NVTX_NAMES = (
    ("function", "nvtxRangePushA", "roctxRangePushA", ""),
    ("function", "nvtxRangePop", "roctxRangePop", ""),
    ("function", "nvtxMarkA", "roctxMarkA", ""),
    ("function", "nvtxRangeStartA", "roctxRangeStartA", ""),
    ("function", "nvtxRangeEnd", "roctxRangeStop", ""),
    ("function", "nvtxRangePushEx", "", "ROCTx has no event-attribute form; use roctxRangePushA with the message"),
    ("function", "nvtxMarkEx", "", "ROCTx has no event-attribute form; use roctxMarkA with the message"),
)
_THRUST_HEADERS = (
    "thrust/device_vector.h", "thrust/host_vector.h", "thrust/sort.h", "thrust/reduce.h", "thrust/transform.h",
    "thrust/scan.h", "thrust/copy.h", "thrust/fill.h", "thrust/sequence.h", "thrust/functional.h",
    "thrust/execution_policy.h", "thrust/device_ptr.h", "thrust/iterator/counting_iterator.h",
)


def extra_tables(compat_path: Path) -> list[Table]:
    """NCCL→RCCL, NVTX→ROCTx, Thrust→rocThrust rows; each group sourced from compat.yaml."""
    import yaml

    facts = yaml.safe_load(compat_path.read_text(encoding="utf-8"))
    by_name = {entry.get("cuda"): entry for entry in facts.get("cuda_libraries", [])}

    def source_of(lib: str) -> tuple[Source, str]:
        entry = by_name.get(lib)
        if not entry or "rocm" not in entry:
            raise SystemExit(f"compat.yaml has no {lib} entry with a rocm fact")
        rocm = entry["rocm"]
        as_of = f" (as of {rocm['as_of']})" if rocm.get("as_of") else ""
        return Source(rocm.get("source", ""), "", f"compat.yaml cuda_libraries[{lib}]{as_of}"), rocm.get(
            "equivalent", ""
        )

    def row(library: str, cuda: str, kind: str, hip: str, note: str, section: str) -> dict[str, str]:
        r = {f: "" for f in FIELDS}
        r.update(cuda_name=cuda, kind=kind, library=library, section=section, hip_name=hip, note=note)
        r["support"] = "supported" if hip else "unsupported"
        return r

    out = []
    src, equivalent = source_of("NCCL")
    t = Table("NCCL", "nccl", src)
    t.rows.append(row("nccl", "nccl.h", "header", "rccl/rccl.h", "RCCL implements the NCCL API", "RCCL"))
    t.rows += [row("nccl", n, k, n, "RCCL keeps NCCL's names", "RCCL") for k, n in _NCCL_NAMES]
    out.append(t)
    src, equivalent = source_of("NVTX")
    t = Table("NVTX", "nvtx", src)
    for header in ("nvToolsExt.h", "nvtx3/nvToolsExt.h"):
        t.rows.append(row("nvtx", header, "header", "rocprofiler-sdk-roctx/roctx.h", "link librocprofiler-sdk-roctx", "ROCTx"))
    t.rows += [row("nvtx", c, k, h, n, "ROCTx") for k, c, h, n in _NVTX_NAMES]
    out.append(t)
    src, equivalent = source_of("Thrust")
    t = Table("Thrust", "thrust", src)
    t.rows += [row("thrust", h, "header", h, "rocThrust keeps Thrust's header paths", "rocThrust") for h in _THRUST_HEADERS]
    t.rows.append(row("thrust", "thrust::", "namespace", "thrust::", "rocThrust keeps the thrust:: namespace and names", "rocThrust"))
    out.append(t)
    t = Table("CUDA internal headers", "runtime", CUDA_INTERNAL_SOURCE)
    t.rows += [row("runtime", h, "header", hip, note, "CUDA internal headers") for h, hip, note in CUDA_INTERNAL_HEADERS]
    out.append(t)
    for table in out:
        table.kind_from["curated"] += len(table.rows)
    return out


#: CUDA 13 names HIPIFY's tables (at the imported commits) lack: the math-emulation controls of CUDA's
#: ``library_types.h`` (CUDA 13.0, /usr/local/cuda/include) and of cuBLAS (``cublas_api.h`` of cuBLAS 13.1, the
#: nvidia-cublas 13.1 wheel): BF16x9 and fixed-point emulation of FP32/FP64 GEMMs. Neither HIP nor hipBLAS/rocBLAS
#: of ROCm 7.2.4 declares a counterpart (measured: no ``Emulation`` name in /usr/include/hip*, rocblas). Without a
#: row, a port left them with no finding and hipcc failed on an unknown type (CUDALibrarySamples' cuBLAS/utils).
EMULATION_NAMES = (
    *(("type", n, "13.0") for n in ("cudaEmulationStrategy", "cudaEmulationStrategy_t", "cudaEmulationMantissaControl",
                                    "cudaEmulationMantissaControl_t", "cudaEmulationSpecialValuesSupport",
                                    "cudaEmulationSpecialValuesSupport_t")),
    *(("enum", f"CUDA_EMULATION_{n}", "13.0") for n in (
        "STRATEGY_DEFAULT", "STRATEGY_PERFORMANT", "STRATEGY_EAGER", "MANTISSA_CONTROL_DYNAMIC",
        "MANTISSA_CONTROL_FIXED", "SPECIAL_VALUES_SUPPORT_DEFAULT", "SPECIAL_VALUES_SUPPORT_NONE",
        "SPECIAL_VALUES_SUPPORT_INFINITY", "SPECIAL_VALUES_SUPPORT_NAN")),
    ("type", "cublasEmulationStrategy_t", ""),
    *(("enum", f"CUBLAS_EMULATION_STRATEGY_{n}", "") for n in ("DEFAULT", "PERFORMANT", "EAGER")),
    *(("function", f"cublas{gs}{n}", "") for n in (
        "EmulationStrategy", "EmulationSpecialValuesSupport", "FixedPointEmulationMantissaControl",
        "FixedPointEmulationMaxMantissaBitCount", "FixedPointEmulationMantissaBitOffset",
        "FixedPointEmulationMantissaBitCountPointer") for gs in ("Get", "Set")),
)
EMULATION_SOURCE = Source(
    "https://docs.nvidia.com/cuda/cublas/", "",
    "CUDA 13.0 library_types.h (cudaEmulation*); cuBLAS 13.1 cublas_api.h (cublas*Emulation*); absent from "
    "HIPIFY's tables and from ROCm 7.2.4's HIP, hipBLAS and rocBLAS headers")


def emulation_table() -> Table:
    """Rows for :data:`EMULATION_NAMES`: no HIP or ROCm counterpart."""
    t = Table("CUDA 13 emulation names HIPIFY lacks", "cublas", EMULATION_SOURCE)
    for kind, name, added in EMULATION_NAMES:
        r = {f: "" for f in FIELDS}
        where = "CUDA's library_types.h" if name.startswith(("cuda", "CUDA")) else "cuBLAS"
        r.update(cuda_name=name, kind=kind, library="cublas", section="CUDA 13 emulation", support="unsupported",
                 cuda_added=added, note=f"vado: {where} math emulation (CUDA 13); HIPIFY lists no counterpart and "
                                        "ROCm 7.2.4's HIP, hipBLAS and rocBLAS declare none")
        t.rows.append(r)
    t.kind_from["curated"] += len(t.rows)
    return t


#: CUDA's scoped atomics HIPIFY's device table (at the imported commit) lacks: every ``*_block`` form and
#: ``atomicInc_system``/``atomicDec_system`` (CUDA 13.0 sm_60_atomic_functions.h declares them). ROCm 7.2.4's
#: ``hip/amd_detail/amd_hip_atomic.h`` declares the ``*_system`` forms of the others and no ``*_block`` form; its
#: plain atomics are device (agent) scope, which covers a block's, so a ``*_block`` call renames to the plain one
#: and keeps every guarantee. Without a row, a port left these names with no finding and hipcc failed
#: (cuda-samples systemWideAtomics: atomicInc_system).
SCOPED_ATOMIC_OPS = ("Add", "Sub", "Exch", "Min", "Max", "Inc", "Dec", "CAS", "And", "Or", "Xor")
SCOPED_ATOMICS_SOURCE = Source(
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#atomic-functions", "",
    "CUDA 13.0 sm_60_atomic_functions.h (atomic*_block, atomic*_system); ROCm 7.2.4 hip/amd_detail/amd_hip_atomic.h "
    "declares atomic{Add,Sub,Exch,Min,Max,CAS,And,Or,Xor}_system and no *_block form; absent from HIPIFY's device table")


def scoped_atomics_table() -> Table:
    """Rows for :data:`SCOPED_ATOMIC_OPS`' ``*_block`` forms (HIP's device-scope atomic) and for
    ``atomicInc_system``/``atomicDec_system`` (no HIP counterpart)."""
    t = Table("CUDA scoped atomics HIPIFY lacks", "device", SCOPED_ATOMICS_SOURCE)
    for op in SCOPED_ATOMIC_OPS:
        r = {f: "" for f in FIELDS}
        r.update(cuda_name=f"atomic{op}_block", kind="function", library="device", section="Device Functions",
                 hip_name=f"atomic{op}", support="supported", hip_added="1.6.0",
                 note=f"vado: HIP has no block-scope atomics; its atomic{op} is device scope, which covers a block's")
        t.rows.append(r)
    for op in ("Inc", "Dec"):
        r = {f: "" for f in FIELDS}
        r.update(cuda_name=f"atomic{op}_system", kind="function", library="device", section="Device Functions",
                 support="unsupported",
                 note=f"vado: ROCm 7.2.4's amd_hip_atomic.h has atomic{op} (device scope) and no atomic{op}_system")
        t.rows.append(r)
    t.kind_from["curated"] += len(t.rows)
    return t


#: CUDA-internal headers a project may include directly (warp-rnnt 0.7.0: <device_atomic_functions.h>), which
#: HIPIFY's include map does not list: hip/hip_runtime.h declares what they declare, so the #include goes.
_INTERNAL_NOTE = ("not needed under HIP: a CUDA-internal header (cuda_runtime.h includes it) whose functions "
                  "hip/hip_runtime.h declares (vado)")
CUDA_INTERNAL_HEADERS = tuple(
    (h, "", _INTERNAL_NOTE) for h in (
        "device_atomic_functions.h", "device_double_functions.h", "sm_20_atomic_functions.h", "sm_32_atomic_functions.h",
        "sm_35_atomic_functions.h", "sm_60_atomic_functions.h", "sm_20_intrinsics.h", "sm_30_intrinsics.h",
        "sm_32_intrinsics.h", "sm_35_intrinsics.h", "sm_61_intrinsics.h")
) + (("math_functions.h", "hip/math_functions.h",
      "vado: CUDA's math_functions.h (a CUDA-internal header since 10.0); HIP ships hip/math_functions.h"),)
CUDA_INTERNAL_SOURCE = Source(
    "https://github.com/ROCm/clr/blob/rocm-7.2.0/hipamd/include/hip/amd_detail/amd_hip_runtime.h", "",
    "hip/hip_runtime.h declares the atomics, intrinsics and double functions of CUDA's sm_*_atomic_functions.h/"
    "sm_*_intrinsics.h/device_*_functions.h; ROCm 7.2.4 ships hip/math_functions.h (measured, /usr/include/hip)")


# --------------------------------------------------------------------------- output


#: Corrections to HIPIFY's rows, each with its evidence in ``note``. HIPIFY dates the whole
#: ``hipDataType`` family to HIP 5.7.0 (when the integer and bfloat16 values were added), but
#: the type with its six floating-point values is older: ROCm/HIP commit 94eb4155 ("Introduce
#: library_types.h as a common header for libs", first in rocm-3.3.0) added it, and Debian's
#: HIP 5.2.3 ``hip/library_types.h`` declares exactly those six.
_HIP_DATATYPE_NOTE = (
    "vado: HIP has hipDataType with HIP_R_16F/32F/64F and HIP_C_16F/32F/64F since 3.3.0 "
    "(ROCm/HIP 94eb4155, hip/library_types.h); HIPIFY's 5.7.0 dates the later values"
)
CORRECTIONS: dict[str, dict[str, str]] = {
    name: {"hip_added": "3.3.0", "note": _HIP_DATATYPE_NOTE}
    for name in ("cudaDataType", "cudaDataType_t", "CUDA_R_16F", "CUDA_R_32F", "CUDA_R_64F",
                 "CUDA_C_16F", "CUDA_C_32F", "CUDA_C_64F")
}


#: HIPIFY maps ``__hmax2``/``__hmin2`` to themselves since HIP 5.7.0, but that HIP release added them for
#: ``__hip_bfloat162`` only (amd_hip_bf16.h): ROCm 7.2.4's amd_hip_fp16.h declares ``__hmax``/``__hmin`` and no
#: ``__half2`` overload, so a CUDA call on ``__half2`` fails ("use of undeclared identifier '__hmax2'",
#: cugpt 0.1.0's relu.cu). The row says unsupported; vado's port writes a local definition for both types
#: (vado.port.half_math), the bfloat16 one calling HIP's own.
_HALF2_MINMAX_NOTE = ("vado: ROCm 7.2.4 declares {n} for __hip_bfloat162 only (amd_hip_bf16.h, since HIP 5.7.0); "
                      "amd_hip_fp16.h has no __half2 overload; vado's port writes a local vado_{b} (vado.port.half_math)")
CORRECTIONS.update({
    n: {"hip_name": "", "hip_added": "", "support": "unsupported",
        "note": _HALF2_MINMAX_NOTE.format(n=n, b=n.lstrip("_"))}
    for n in ("__hmax2", "__hmin2")
})


#: hipBLAS 3.0 (ROCm 7.0) gave each plain hipBLAS name the signature of its ``_v2`` twin
#: (``hipDataType``, ``hipComplex``; ``hipblasComputeType_t`` for the GEMM compute type) and
#: removed the ``_v2`` names. HIPIFY's tables at the imported commit predate that and map
#: 369 cuBLAS names to ``hipblas*_v2``, which ROCm 7.2.4's ``hipblas/hipblas.h`` (hipBLAS
#: 3.2.0) does not declare. vado keeps both facts: the ``_v2`` row, removed in 7.0.0, for
#: ROCm 6.x, and a row with the plain name from 7.0.0 (before 7.0 the plain name takes
#: ``hipblasDatatype_t``/``hipblasComplex``, so it is no CUDA counterpart there).
HIPBLAS3_VERSION = "7.0.0"
HIPBLAS3_SOURCE = Source(
    "https://rocm.docs.amd.com/projects/hipBLAS/en/develop/_sources/reference/deprecation.rst",
    "",
    "'Removed in hipBLAS 3.0'; HIPIFY pull requests #1969-#2031 (SWDEV-534480, e.g. "
    "https://github.com/ROCm/HIPIFY/pull/1970); checked against hipblas/hipblas.h of ROCm 7.2.4 (hipBLAS 3.2.0)",
)
_HIPBLAS_V2 = re.compile(r"^(hipblas\w*)_v2((?:_64)?)$")


def hipblas3_names(tables: list[Table]) -> Table | None:
    """Rows for the plain hipBLAS 3.0 names of every cuBLAS row mapped to a ``_v2`` name.

    The ``_v2`` rows themselves get ``hip_removed`` = 7.0.0 (in place); the new rows
    form a table of their own, so the HIPIFY table keeps its row count and source.
    """
    out = Table("hipBLAS 3.0 plain names (ROCm 7.0)", "cublas", HIPBLAS3_SOURCE)
    for table in tables:
        if table.library != "cublas" or table is out:
            continue
        for r in table.rows:
            m = _HIPBLAS_V2.match(r["hip_name"])
            if not m or r["hip_removed"]:
                continue
            plain = m.group(1) + m.group(2)
            r["hip_removed"] = HIPBLAS3_VERSION
            r["support"] = _support(r)
            r["note"] = f"vado: hipBLAS 3.0 (ROCm 7.0) removed {r['hip_name']}; {plain} has its signature since then"
            new = dict(r)
            new.update(hip_name=plain, hip_added=HIPBLAS3_VERSION, hip_deprecated="", hip_changed="", hip_removed="",
                       note=f"vado: {plain} takes the arguments of {r['hip_name']} since hipBLAS 3.0 (ROCm 7.0); "
                            "before, it took hipblasDatatype_t or hipblasComplex arguments")
            new["support"] = _support(new)
            out.rows.append(new)
    out.kind_from["curated"] += len(out.rows)
    return out if out.rows else None


#: HIP names HIPIFY's tables lack where the hip* library has the function, each with its evidence.
#: ``cublasGetStatusString`` has only a rocBLAS name there (``rocblas_status_to_string``), which
#: a hipBLAS port does not declare (hipblas.h does not include rocblas.h); hipBLAS has had
#: ``hipblasStatusToString`` since 0.46.0 (ROCm 4.3.0).
HIP_NAME_ADDITIONS: dict[str, dict[str, str]] = {
    "cublasGetStatusString": {
        "hip_name": "hipblasStatusToString",
        "hip_added": "4.3.0",
        "note": "vado: hipBLAS 0.46.0 (ROCm 4.3.0) added hipblasStatusToString "
                "(ROCm/hipBLAS CHANGELOG.md); declared by hipblas/hipblas.h of ROCm 7.2.4",
    },
}


#: hipBLAS 2.3.0 (ROCm 6.3.0) added the ILP64 (``_64``, ``int64_t`` sizes) level-3 and BLAS-like
#: extension functions (ROCm/hipBLAS f41024c0 "64-bit interface for L3 functions", 4e49f5ce for the
#: ``GemmEx`` family; CHANGELOG "Level 3 functions have an additional ILP64 API"). HIPIFY's tables at
#: the imported commit list the cuBLAS ``_64`` names of these families without a HIP name. Real-typed
#: functions take cuBLAS's argument types since 6.3.0; the complex ones take ``hipComplex`` and the
#: ``Ex`` ones ``hipDataType``/``hipblasComputeType_t`` only since hipBLAS 3.0 (ROCm 7.0), before which
#: the plain name took ``hipblasComplex``/``hipblasDatatype_t`` (see :data:`HIPBLAS3_SOURCE`).
_ILP64_L3 = ("dgmm", "geam", "symm", "syrk", "syr2k", "syrkx", "trmm", "hemm")
_ILP64_EX = ("GemmEx", "GemmBatchedEx", "GemmStridedBatchedEx")


def _ilp64_additions() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    names = [(p + f, p in "CZ") for f in _ILP64_L3 for p in "SDCZ" if f != "hemm" or p in "CZ"]
    names += [(f, True) for f in _ILP64_EX]
    for base, v3_types in names:
        hip = f"hipblas{base}_64"
        added = HIPBLAS3_VERSION if v3_types else "6.3.0"
        why = ("its hipComplex/hipDataType arguments since hipBLAS 3.0 (ROCm 7.0)" if v3_types
               else "cuBLAS's argument types")
        note = (f"vado: hipBLAS 2.3.0 (ROCm 6.3.0) added {hip} (ROCm/hipBLAS CHANGELOG.md, ILP64 level 3), "
                f"with {why}; declared by hipblas/hipblas.h of ROCm 7.2.4")
        for cuda in (f"cublas{base}_64", f"cublas{base}_v2_64"):
            out[cuda] = {"hip_name": hip, "hip_added": added, "note": note}
    return out


HIP_NAME_ADDITIONS.update(_ilp64_additions())


def apply_corrections(rows: list[dict[str, str]]) -> None:
    """Apply :data:`CORRECTIONS` and :data:`HIP_NAME_ADDITIONS` to ``rows`` in place (rows of other names are untouched)."""
    for r in rows:
        fix = CORRECTIONS.get(r["cuda_name"])
        if fix and r.get("hip_name"):
            r.update(fix)
        added = HIP_NAME_ADDITIONS.get(r["cuda_name"])
        if added and not r.get("hip_name") and r.get("library") == "cublas":
            r.update(added)
            r["support"] = _support(r)


def write_data(tables: list[Table], out_dir: Path) -> dict[str, list[dict[str, str]]]:
    """Write one CSV per library and ``index.yaml``; return rows per library."""
    import yaml

    by_lib: dict[str, list[dict[str, str]]] = defaultdict(list)
    for table in tables:
        apply_corrections(table.rows)
        for r in table.rows:
            by_lib[r["library"]].append(r)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.csv"):
        old.unlink()
    for lib, rows in sorted(by_lib.items()):
        # A name with rows for two HIP spellings (hipblas3_names) lists the current one first.
        rows.sort(key=lambda r: (r["cuda_name"], r["section"], bool(r["hip_removed"])))
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        (out_dir / f"{lib}.csv").write_text(buf.getvalue(), encoding="utf-8")
    index = {
        "format": 1,
        "description": "CUDA→HIP/ROCm API mappings imported from HIPIFY's support tables by tools/import_hipify.py",
        "fields": list(FIELDS),
        "tables": [
            {
                "name": t.name,
                "library": t.library,
                "files": sorted({f"{r['library']}.csv" for r in t.rows}),
                "rows": len(t.rows),
                "source": t.source.as_dict(),
                "kind_from": dict(sorted(t.kind_from.items())),
            }
            for t in tables
        ],
    }
    (out_dir / "index.yaml").write_text(yaml.safe_dump(index, sort_keys=False, width=120), encoding="utf-8")
    return by_lib


def render_docs(tables: list[Table], by_lib: dict[str, list[dict[str, str]]]) -> str:
    """``docs/api-coverage.md``: rows per library and support level, and where they came from."""
    levels = ("supported", "deprecated", "removed", "experimental", "unsupported")
    lines = [
        "# CUDA API coverage on HIP/ROCm",
        "",
        "Generated by `tools/import_hipify.py --docs` from vado's API data",
        "(`src/vado/knowledge/data/api/`); do not edit by hand. Look a name up with `vado lookup NAME`.",
        "",
        "| library | rows | " + " | ".join(levels) + " | with a HIP/ROCm name |",
        "|:--|--:|" + "--:|" * len(levels) + "--:|",
    ]
    total = Counter()
    for lib, rows in sorted(by_lib.items()):
        c = Counter(r["support"] for r in rows)
        mapped = sum(1 for r in rows if r["hip_name"] or r["roc_name"])
        total.update(c)
        total["_rows"] += len(rows)
        total["_mapped"] += mapped
        pct = f" ({100 * mapped / len(rows):.0f}%)" if rows else ""
        lines.append(f"| {lib} | {len(rows)} | " + " | ".join(str(c[lv]) for lv in levels) + f" | {mapped}{pct} |")
    lines.append(
        f"| **total** | **{total['_rows']}** | "
        + " | ".join(f"**{total[lv]}**" for lv in levels)
        + f" | **{total['_mapped']}** ({100 * total['_mapped'] / max(total['_rows'], 1):.0f}%) |"
    )
    lines += ["", "## Sources", "", "| table | library | rows | source |", "|:--|:--|--:|:--|"]
    for t in tables:
        s = t.source
        where = f"{s.repo} @ `{s.commit[:12]}` `{s.path}`" if s.commit else f"{s.repo} `{s.path}`"
        lines.append(f"| {t.name} | {t.library} | {len(t.rows)} | {where} |")
    lines += [
        "",
        "Support levels: no HIP and no roc*/MIOpen name → unsupported; otherwise the HIP columns",
        "(or the roc columns when HIP has no name): removed (R), deprecated (D), experimental (E), else supported.",
        "Kinds come from HIPIFY's own conversion maps where the name appears there, else from the section title.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=Path, help="folder of raw HIPIFY table files plus sources.json")
    p.add_argument("--git-mirror", type=Path, help="bare clone of ROCm/HIPIFY")
    p.add_argument("--commit", default="HEAD", help="commit of --git-mirror to read (default HEAD)")
    p.add_argument("--compat", type=Path, help="compat.yaml with the NCCL/NVTX/Thrust facts")
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "src/vado/knowledge/data/api")
    p.add_argument("--docs", type=Path, help="also write the coverage page (e.g. docs/api-coverage.md)")
    args = p.parse_args(argv)
    if args.tables is None and args.git_mirror is None:
        p.error("give --tables DIR and/or --git-mirror PATH")

    mirror = Mirror(args.git_mirror, args.commit) if args.git_mirror else None
    texts = load_table_texts(mirror, args.tables)
    kinds = load_kind_map(mirror)
    tables: list[Table] = []
    for stem, library in TABLES:
        if stem not in texts:
            print(f"warning: no table {stem}.md in the sources; {library} skipped", file=sys.stderr)
            continue
        text, source = texts[stem]
        tables += parse_table(text, library, source, kinds)
    renamed = hipblas3_names(tables)
    if renamed is not None:
        tables.append(renamed)
    if mirror is not None:
        tables.append(parse_headers(mirror))
    if args.compat is not None:
        tables += extra_tables(args.compat)
    tables.append(emulation_table())
    tables.append(scoped_atomics_table())
    by_lib = write_data(tables, args.out)
    if args.docs is not None:
        args.docs.parent.mkdir(parents=True, exist_ok=True)
        args.docs.write_text(render_docs(tables, by_lib), encoding="utf-8")
    total = sum(len(r) for r in by_lib.values())
    for lib, rows in sorted(by_lib.items()):
        print(f"{lib:12} {len(rows):6}", file=sys.stderr)
    print(f"{'total':12} {total:6}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
