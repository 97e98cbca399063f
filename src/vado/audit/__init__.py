"""``vado audit``: an honest inventory of every CUDA dependency in a tree, with verdicts.

:func:`vado.audit.pipeline.audit` is the library entry point; the CLI and the MCP
server call it.
"""

from vado.audit.pipeline import audit

__all__ = ["audit"]
