"""vado's compiled hot paths, when they were built.

``vado._native_ext`` (C sources in ``src/vado/_native/``) is an optional
extension built by ``pip install``: where no C compiler was available, vado runs
its pure-Python implementations, which give the same results and stay the
reference the tests compare against. Set ``VADO_NATIVE=0`` to use the Python
implementations even where the extension is present.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["ext", "available"]


def _load() -> ModuleType | None:
    if os.environ.get("VADO_NATIVE", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    try:
        from vado import _native_ext
    except ImportError:
        return None
    return _native_ext


#: The extension module, or None where it is absent or disabled.
ext: ModuleType | None = _load()


def available() -> bool:
    """Whether the compiled helpers are in use."""
    return ext is not None
