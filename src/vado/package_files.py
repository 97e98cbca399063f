"""The data files that ship inside vado's packages (knowledge tables, schemas, the HIP-on-CUDA layer).

``importlib.resources.files(package)`` is the general answer, and for a package installed as
files on disk (every pip install, editable or not) it is the package's own directory. Importing
:mod:`importlib.resources` costs 12 ms, a tenth of a one-file ``vado audit`` (for an editor or a
pre-commit hook): :func:`files` answers from the imported module's ``__file__`` where that is a
directory on disk and asks :mod:`importlib.resources` only otherwise (a zip, say).
"""

from __future__ import annotations

import sys
from pathlib import Path


def files(package: str):
    """The folder of the imported ``package``'s data: a :class:`~pathlib.Path` on disk, else the
    :class:`importlib.resources.abc.Traversable` that ``importlib.resources.files`` returns."""
    module = sys.modules.get(package)
    where = getattr(module, "__file__", None)
    if where:
        folder = Path(where).parent
        if folder.is_dir():
            return folder
    from importlib import resources

    return resources.files(package)
