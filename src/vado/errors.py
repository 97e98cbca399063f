"""One exception family per boundary. Each error says what failed, why, and what to do.

Library code raises these; the CLI turns them into a message and exit code 3 (tool
failure) or 2 (usage), and reports serialise them beside the results.
"""

from __future__ import annotations


class VadoError(Exception):
    """Base class: ``what`` failed, ``why``, and a ``tip`` on what to do next."""

    exit_code = 3

    def __init__(self, what: str, why: str = "", tip: str = "") -> None:
        self.what = what
        self.why = why
        self.tip = tip
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """One line: what failed: why. Tip on its own."""
        text = self.what
        if self.why:
            text += f": {self.why}"
        if self.tip:
            text += f" (tip: {self.tip})"
        return text

    def to_json(self) -> dict[str, str]:
        """The error as it appears in JSON and SARIF output."""
        return {"type": type(self).__name__, "what": self.what, "why": self.why, "tip": self.tip}


class UsageError(VadoError):
    """The user asked for something that cannot be done as asked (exit code 2)."""

    exit_code = 2


class ScanError(VadoError):
    """Walking or reading a tree failed as a whole (single files are skipped, not raised)."""


class KnowledgeError(VadoError):
    """A knowledge-base file is missing or malformed, or a name is unknown."""


class ToolchainError(VadoError):
    """A compiler or other external tool is missing or failed to start."""


class PortError(VadoError):
    """Writing a port failed (overlapping edits, an output that exists, a failed write)."""


class AgentError(VadoError):
    """The agent loop could not talk to its model or keep to its budget."""


class McpError(VadoError):
    """The MCP server refused a request (a path outside its root, a bad argument)."""


class ReportError(VadoError):
    """A saved report cannot be read back (not JSON, another schema version, bad content)."""


class SchemaError(VadoError):
    """A document does not match vado's model schema, or it cannot be checked (jsonschema missing)."""


class PlanError(VadoError):
    """A fleet repository cannot be resolved (a clone or fetch failed) or its cache cannot be used."""
