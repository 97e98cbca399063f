"""The records the dependency parsers return, and package name/version helpers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class DepSource(str, Enum):
    """Where a dependency was declared."""

    REQUIREMENTS = "requirements"
    PYPROJECT = "pyproject"
    POETRY = "poetry"
    SETUP_CFG = "setup-cfg"
    SETUP_PY = "setup-py"
    CONDA = "conda"
    CONDA_PIP = "conda-pip"
    PIP_COMMAND = "pip-command"  # ``pip install …`` on a command line (Dockerfile RUN)


@dataclass(frozen=True)
class Requirement:
    """One declared Python dependency.

    ``start``/``end`` cover the requirement text (no comment, no per-line
    options); ``name_*`` the project name, ``spec_*`` the version specifier
    (an empty span right after the name or extras when there is none).
    ``version`` is the exact pinned version (``==``/``===``, a wheel file name
    or a Poetry exact version), ``local`` its local label (``cu121`` of
    ``2.1.0+cu121``; the first one found in any specifier). ``name`` is empty
    for an unnamed URL or path requirement without ``#egg=``.
    """

    name: str
    key: str
    start: int
    end: int
    name_start: int
    name_end: int
    spec_start: int
    spec_end: int
    extras: tuple[str, ...] = ()
    specifier: str = ""
    marker: str = ""
    url: str = ""
    version: str = ""
    local: str = ""
    source: DepSource = DepSource.REQUIREMENTS
    group: str = ""
    editable: bool = False

    @property
    def text_span(self) -> tuple[int, int]:
        """``(start, end)`` of the whole requirement."""
        return self.start, self.end


@dataclass(frozen=True)
class IndexOption:
    """A package index or find-links location (``--index-url``, a Poetry/uv source …).

    ``option`` is the canonical long option name (``--index-url``,
    ``--extra-index-url``, ``--find-links``) or, for pyproject sources, the TOML
    key (``url``, ``index-url`` …). ``start``/``end`` cover the option and its
    value; ``url_start``/``url_end`` the value alone.
    """

    option: str
    url: str
    start: int
    end: int
    url_start: int
    url_end: int
    source: DepSource = DepSource.REQUIREMENTS


@dataclass(frozen=True)
class Include:
    """``-r``/``-c`` of another requirements file: reported, never followed.

    ``resolved`` is the POSIX path relative to the scanned root when the
    included file lies inside it, else ``None`` (``inside_root`` False).
    """

    option: str  # "--requirement" or "--constraint"
    path: str
    start: int
    end: int
    path_start: int
    path_end: int
    resolved: str | None = None

    @property
    def inside_root(self) -> bool:
        """True when the include names a file inside the scanned root."""
        return self.resolved is not None


@dataclass(frozen=True)
class CondaChannel:
    """A channel in ``channels:`` (or a ``channel::`` prefix of a dependency)."""

    name: str
    start: int
    end: int


@dataclass(frozen=True)
class CondaSpec:
    """A conda (non-pip) dependency: ``[channel::]name[ op version[ build]]``."""

    name: str
    key: str
    start: int
    end: int
    name_start: int
    name_end: int
    spec: str = ""
    channel: str = ""


@dataclass(frozen=True)
class Problem:
    """Something a parser could not read; ``reason`` says what and why."""

    start: int
    end: int
    reason: str
    text: str = ""


@dataclass(frozen=True)
class DependencyFile:
    """All dependency facts of one file."""

    path: str
    source: DepSource
    requirements: tuple[Requirement, ...] = ()
    indexes: tuple[IndexOption, ...] = ()
    includes: tuple[Include, ...] = ()
    channels: tuple[CondaChannel, ...] = ()
    conda: tuple[CondaSpec, ...] = ()
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class PyImport:
    """An import of ``module`` (``from numba import cuda`` gives ``numba.cuda``).

    ``start``/``end`` cover the imported name as written (``numba`` … ``cuda``
    for a from-import: the module and the name); ``approximate`` is True when
    the file did not parse and the import was found by pattern.
    """

    module: str
    start: int
    end: int
    statement_start: int
    statement_end: int
    approximate: bool = False


@dataclass(frozen=True)
class RawKernel:
    """A CuPy ``RawKernel``/``RawModule``/``ElementwiseKernel`` source string.

    ``ptx`` lists the inline-asm snippets found in it (``asm volatile("…")``).
    """

    call: str
    start: int
    end: int
    ptx: tuple[str, ...] = ()


@dataclass(frozen=True)
class PythonFacts:
    """Imports and raw-kernel strings of one Python file."""

    path: str
    imports: tuple[PyImport, ...] = ()
    raw_kernels: tuple[RawKernel, ...] = ()
    problems: tuple[Problem, ...] = ()


# ---------------------------------------------------------------------------
# Names and versions


_NORMALIZE = re.compile(r"[-_.]+")


def normalize_name(name: str) -> str:
    """PEP 503 normalised project name: ``Torch_Vision`` → ``torch-vision``."""
    return _NORMALIZE.sub("-", name).lower()


_LOCAL = re.compile(r"\+([A-Za-z0-9][A-Za-z0-9._-]*)")


def local_label(version_text: str) -> str:
    """The local version label in ``version_text`` (``cu121`` of ``==2.1.0+cu121``), or ``""``."""
    m = _LOCAL.search(version_text)
    return m.group(1).lower() if m else ""


_CUDA_LOCAL = re.compile(r"^cu(?:da)?-?(\d{2,3})")


def cuda_local(label: str) -> str | None:
    """``"121"`` for a CUDA local label such as ``cu121`` (``None`` for ``cpu``, ``rocm6.2`` …)."""
    m = _CUDA_LOCAL.match(label.lower())
    return m.group(1) if m else None
