"""One entry point choosing the parser by file kind."""

from __future__ import annotations

from vado.scan.pydeps.conda import parse_conda_env
from vado.scan.pydeps.model import DepSource, DependencyFile, Problem
from vado.scan.pydeps.pyproject import parse_pyproject
from vado.scan.pydeps.requirements_txt import parse_requirements_txt
from vado.scan.pydeps.setup_files import parse_setup_cfg, parse_setup_py


def parse_dependency_file(path: str, text: str, kind: str) -> DependencyFile:
    """The parser for ``kind`` (a :class:`vado.scan.classify.FileKind` value) applied to ``text``."""
    parsers = {
        "requirements": parse_requirements_txt,
        "pyproject": parse_pyproject,
        "setup-cfg": parse_setup_cfg,
        "setup-py": parse_setup_py,
        "conda-env": parse_conda_env,
    }
    parser = parsers.get(str(getattr(kind, "value", kind)))
    if parser is None:
        return DependencyFile(path, DepSource.REQUIREMENTS, problems=(Problem(0, 0, f"no dependency parser for {kind}"),))
    return parser(text, path)
