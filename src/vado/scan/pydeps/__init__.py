"""Python dependency declarations and imports, with exact byte spans.

Every parser here reads the latin-1 view of one file (:mod:`vado.model.text`) and
returns plain frozen records whose ``start``/``end`` are byte offsets into that
file, so ``vado port`` can rewrite a pin, an index URL or an import in place.
The parsers never execute anything (``setup.py`` is read with :mod:`ast`),
never open other files (``-r other.txt`` is reported, not followed) and never
raise for bad input: what they cannot read becomes a :class:`Problem`.

Supported inputs: pip requirements/constraints files (options, includes,
markers, URLs, continuations, comments), ``pyproject.toml`` (PEP 621, PEP 735
groups, build-system requires, Poetry, uv/Poetry/PDM index URLs), ``setup.cfg``,
``setup.py``, conda ``environment.yml`` (including ``pip:`` sections) and Python
source imports.

One module per input kind (:mod:`.requirements_txt`, :mod:`.pyproject`, :mod:`.setup_files`,
:mod:`.conda`, :mod:`.python_imports`) over shared records (:mod:`.model`), logical lines
(:mod:`.lines`) and PEP 508 text (:mod:`.requirement`); this package re-exports the public names.
"""

from __future__ import annotations

from vado.scan.pydeps.conda import parse_conda_env
from vado.scan.pydeps.dispatch import parse_dependency_file
from vado.scan.pydeps.lines import LogicalLine, logical_lines
from vado.scan.pydeps.model import (
    CondaChannel,
    CondaSpec,
    DependencyFile,
    DepSource,
    Include,
    IndexOption,
    Problem,
    PyImport,
    PythonFacts,
    RawKernel,
    Requirement,
    cuda_local,
    local_label,
    normalize_name,
)
from vado.scan.pydeps.pyproject import TomlString, parse_pyproject, toml_strings
from vado.scan.pydeps.python_imports import scan_python_imports
from vado.scan.pydeps.requirement import parse_requirement
from vado.scan.pydeps.requirements_txt import parse_pip_args, parse_requirements_txt, resolve_include
from vado.scan.pydeps.setup_files import (
    call_name,
    node_span,
    parse_python,
    parse_setup_cfg,
    parse_setup_py,
    source_bytes_offsets,
    string_content_span,
)

__all__ = [
    "CondaChannel",
    "CondaSpec",
    "DepSource",
    "DependencyFile",
    "Include",
    "IndexOption",
    "LogicalLine",
    "Problem",
    "PyImport",
    "PythonFacts",
    "RawKernel",
    "Requirement",
    "TomlString",
    "call_name",
    "cuda_local",
    "local_label",
    "logical_lines",
    "node_span",
    "normalize_name",
    "parse_conda_env",
    "parse_dependency_file",
    "parse_pip_args",
    "parse_pyproject",
    "parse_python",
    "parse_requirement",
    "parse_requirements_txt",
    "parse_setup_cfg",
    "parse_setup_py",
    "resolve_include",
    "scan_python_imports",
    "source_bytes_offsets",
    "string_content_span",
    "toml_strings",
]
