"""Root confinement: every path a client names must resolve inside one directory.

The MCP server is started with a root (``vado mcp --root .``); a coding assistant
then names files relative to it. A path is accepted only when its *real* path
(``os.path.realpath``: ``..`` removed, every symlink followed) lies inside the
real path of the root, so neither ``../../etc/passwd`` nor a symlink inside the
tree that points out of it reaches a file outside. Paths that do not exist yet
(a port's output directory) are checked through their nearest existing parent.
"""

from __future__ import annotations

import os
from pathlib import Path

from vado.errors import McpError


class Root:
    """A directory that confines every path a client passes to the server."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        real = Path(os.path.realpath(os.fspath(path)))
        if not real.is_dir():
            raise McpError(
                f"root {os.fspath(path)!r} is not a directory",
                "the MCP server confines every path to one directory",
                "pass --root DIR naming an existing directory",
            )
        self.path = real

    def __repr__(self) -> str:
        return f"Root({str(self.path)!r})"

    def contains(self, real: Path) -> bool:
        """Whether the real path ``real`` is the root or lies below it."""
        return real == self.path or self.path in real.parents

    def resolve(self, path: str, *, must_exist: bool = True) -> Path:
        """The real path of ``path`` (relative to the root, or absolute), refused when outside the root.

        Raises :class:`McpError` for an empty path, a path outside the root (after
        following symlinks), or, with ``must_exist``, a path that does not exist.
        """
        if not isinstance(path, str) or not path.strip():
            raise McpError("no path given", "every tool that reads files needs a path", "pass a path relative to the root, e.g. '.'")
        if "\x00" in path:
            raise McpError(f"path {path!r} is not valid", "it contains a NUL byte", "pass a plain path")
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.path / candidate
        real = Path(os.path.realpath(candidate))
        if not self.contains(real):
            raise McpError(
                f"path {path!r} is outside the server's root",
                f"it resolves to {real}, and this server only serves {self.path}",
                "pass a path inside the root, or restart `vado mcp --root DIR` with a wider root",
            )
        if must_exist and not real.exists():
            raise McpError(f"path {path!r} does not exist", f"no file or directory at {real}", "check the path; it is relative to the root")
        return real

    def relative(self, real: Path) -> str:
        """``real`` (inside the root) as a POSIX path relative to the root; ``.`` for the root itself."""
        rel = Path(os.path.realpath(real)).relative_to(self.path)
        return rel.as_posix() or "."
