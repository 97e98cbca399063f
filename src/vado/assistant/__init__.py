"""What vado gives coding assistants beside its MCP server: a Claude Code skill and its installer.

``SKILL.md`` (package data) teaches an assistant the audit → port → verify →
fix-remaining loop over vado's MCP tools. :func:`install` writes it into a
repository as a project skill (``.claude/skills/vado-port/SKILL.md``) and
registers the server in the project's ``.mcp.json``; :func:`write_plugin`
writes the same as a Claude Code plugin directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from vado import package_files
from vado.errors import UsageError

SKILL_NAME = "vado-port"
#: The project-scoped MCP entry Claude Code reads from .mcp.json.
MCP_ENTRY = {"command": "vado", "args": ["mcp", "--root", "."]}


def skill_text() -> str:
    """The skill (``SKILL.md``) as shipped."""
    return package_files.files("vado.assistant").joinpath("SKILL.md").read_text(encoding="utf-8")


def install(repo: str | os.PathLike, *, force: bool = False, mcp: bool = True) -> list[tuple[Path, str]]:
    """Install the skill (and the MCP server entry) into ``repo``; ``[(path, what happened)]``.

    A file that already holds the same content is left alone ("unchanged"). A
    different ``SKILL.md``, or a ``vado`` entry in ``.mcp.json`` that differs
    from vado's, is replaced only with ``force``; other servers in ``.mcp.json``
    are kept as they are. Raises :class:`UsageError` when ``repo`` is not a
    directory, ``.mcp.json`` is not a JSON object, or a file would be replaced
    without ``force``.
    """
    root = Path(repo)
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory", "", "pass the repository's top directory")
    skill = root / ".claude" / "skills" / SKILL_NAME / "SKILL.md"
    config = root / ".mcp.json"
    # Every check first, so that a refusal leaves the repository as it was.
    skill_state = _state(skill, skill_text(), force)
    doc: dict | None = None
    if mcp:
        doc = {}
        if config.exists():
            try:
                doc = json.loads(config.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise UsageError(f"cannot read {config}", str(exc), "fix it or pass --no-mcp") from None
            if not isinstance(doc, dict) or not isinstance(doc.get("mcpServers", {}), dict):
                raise UsageError(f"{config} is not an MCP configuration", "expected {\"mcpServers\": {…}}", "fix it or pass --no-mcp")
        servers = doc.setdefault("mcpServers", {})
        if "vado" in servers and servers["vado"] != MCP_ENTRY and not force:
            raise UsageError(f"{config} already has a different 'vado' server", json.dumps(servers["vado"]),
                             "pass --force to replace it, or --no-mcp to leave it")
    done = [(skill, _write(skill, skill_text(), force) if skill_state != "unchanged" else "unchanged")]
    if doc is not None:
        if doc["mcpServers"].get("vado") == MCP_ENTRY:
            done.append((config, "unchanged"))
        else:
            existed = config.exists()
            doc["mcpServers"]["vado"] = MCP_ENTRY
            config.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
            done.append((config, "updated" if existed else "written"))
    return done


def write_plugin(directory: str | os.PathLike, *, force: bool = False) -> list[tuple[Path, str]]:
    """A Claude Code plugin in ``directory`` (manifest, the skill, the MCP server); ``[(path, what happened)]``.

    Load it with ``claude --plugin-dir DIRECTORY`` or add it to a plugin marketplace.
    """
    from vado import __version__

    root = Path(directory)
    manifest = {
        "name": "vado",
        "version": __version__,
        "description": "Audit CUDA code for AMD ROCm, port it to HIP, and verify the port with hipcc, through vado's MCP tools.",
        "license": "Apache-2.0",
        "keywords": ["cuda", "rocm", "hip", "amd", "porting"],
    }
    files = {
        root / ".claude-plugin" / "plugin.json": json.dumps(manifest, indent=2) + "\n",
        root / "skills" / SKILL_NAME / "SKILL.md": skill_text(),
        root / ".mcp.json": json.dumps({"mcpServers": {"vado": {"command": "vado", "args": ["mcp", "--root", "."]}}}, indent=2) + "\n",
    }
    for path, text in files.items():
        _state(path, text, force)  # refuse before writing anything
    return [(path, _write(path, text, force)) for path, text in files.items()]


def _state(path: Path, text: str, force: bool) -> str:
    """What writing ``text`` to ``path`` would do: written, unchanged or replaced; raises without ``force``."""
    if not path.exists():
        return "written"
    try:
        same = path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        same = False
    if same:
        return "unchanged"
    if not force:
        raise UsageError(f"{path} exists and differs from vado's", "", "pass --force to replace it")
    return "replaced"


def _write(path: Path, text: str, force: bool) -> str:
    state = _state(path, text, force)
    if state != "unchanged":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return state
