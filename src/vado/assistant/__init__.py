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
from vado.safefs import read_under, write_under

SKILL_NAME = "vado-port"
#: The project-scoped MCP entry Claude Code reads from .mcp.json (a plugin's: its users' PATH finds vado).
MCP_ENTRY = {"command": "vado", "args": ["mcp", "--root", "."]}


def mcp_entry(command: str = "vado") -> dict:
    """The ``.mcp.json`` entry that starts ``vado mcp`` with the executable ``command``."""
    return {"command": command, "args": list(MCP_ENTRY["args"])}


def _is_vado_entry(entry: object) -> bool:
    """Whether ``entry`` is one vado wrote (its own command, by whatever path, and arguments)."""
    return (isinstance(entry, dict) and entry.get("args") == MCP_ENTRY["args"]
            and Path(str(entry.get("command", ""))).name in ("vado", "vado.exe"))


#: The assistants :func:`mcp_config` writes an entry for.
CLIENTS = ("claude", "codex", "cursor")


def mcp_config(client: str, command: str, root: str = ".") -> str:
    """The configuration that registers ``vado mcp`` (started as ``command``, an absolute path) with
    ``client``: a ``claude mcp add`` command line, a Codex ``config.toml`` table or a Cursor
    ``.cursor/mcp.json``. ``root`` is what ``--root`` names (Codex starts servers outside the repository,
    so it needs an absolute one). Raises :class:`UsageError` for another client."""
    import shlex

    if client == "claude":
        return f"claude mcp add vado -- {shlex.quote(command)} mcp --root {shlex.quote(root)}\n"
    if client == "codex":
        return (f"[mcp_servers.vado]\ncommand = {json.dumps(command)}\n"
                f"args = {json.dumps(['mcp', '--root', root])}\n")
    if client == "cursor":
        return json.dumps({"mcpServers": {"vado": {"command": command, "args": ["mcp", "--root", root]}}},
                          indent=2) + "\n"
    raise UsageError(f"unknown assistant {client!r}", "", f"choose one of {', '.join(CLIENTS)}")


def skill_text() -> str:
    """The skill (``SKILL.md``) as shipped."""
    return package_files.files("vado.assistant").joinpath("SKILL.md").read_text(encoding="utf-8")


def install(repo: str | os.PathLike, *, force: bool = False, mcp: bool = True, command: str = "vado") -> list[tuple[Path, str]]:
    """Install the skill (and the MCP server entry) into ``repo``; ``[(path, what happened)]``.

    The entry starts ``command`` (the CLI passes the absolute path of the vado that runs, which an
    assistant finds whatever its PATH). A file that already holds the same content is left alone
    ("unchanged"). A different ``SKILL.md``, or a ``vado`` entry in ``.mcp.json`` that vado did not
    write (another command or arguments), is replaced only with ``force``; other servers in ``.mcp.json``
    are kept as they are. Raises :class:`UsageError` when ``repo`` is not a
    directory, ``.mcp.json`` is not a JSON object, or a file would be replaced
    without ``force``.
    """
    root = Path(repo)
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory", "", "pass the repository's top directory")
    skill_rel = f".claude/skills/{SKILL_NAME}/SKILL.md"
    skill = root / skill_rel
    config = root / ".mcp.json"
    # Every check first, so that a refusal leaves the repository as it was. The repository
    # decides what its paths are (a cloned one may make .claude or .mcp.json a link out of
    # it): nothing is read or written through a link (vado.safefs).
    skill_state = _state(root, skill_rel, skill_text(), force)
    doc: dict | None = None
    existed = False
    if mcp:
        doc = {}
        try:
            raw = read_under(root, ".mcp.json", limit=1 << 20)
        except OSError as exc:
            raise UsageError(f"cannot read {config}", exc.strerror or str(exc), "fix it or pass --no-mcp") from None
        if raw is not None:
            existed = True
            try:
                doc = json.loads(raw.decode("utf-8"))
            except ValueError as exc:
                raise UsageError(f"cannot read {config}", str(exc), "fix it or pass --no-mcp") from None
            if not isinstance(doc, dict) or not isinstance(doc.get("mcpServers", {}), dict):
                raise UsageError(f"{config} is not an MCP configuration", "expected {\"mcpServers\": {…}}", "fix it or pass --no-mcp")
        servers = doc.setdefault("mcpServers", {})
        if "vado" in servers and not _is_vado_entry(servers["vado"]) and not force:
            raise UsageError(f"{config} already has a different 'vado' server", json.dumps(servers["vado"]),
                             "pass --force to replace it, or --no-mcp to leave it")
    done = [(skill, _write(root, skill_rel, skill_text(), force) if skill_state != "unchanged" else "unchanged")]
    if doc is not None:
        entry = mcp_entry(command)
        if doc["mcpServers"].get("vado") == entry:
            done.append((config, "unchanged"))
        else:
            doc["mcpServers"]["vado"] = entry
            _put(root, ".mcp.json", json.dumps(doc, indent=2) + "\n")
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
        ".claude-plugin/plugin.json": json.dumps(manifest, indent=2) + "\n",
        f"skills/{SKILL_NAME}/SKILL.md": skill_text(),
        ".mcp.json": json.dumps({"mcpServers": {"vado": {"command": "vado", "args": ["mcp", "--root", "."]}}}, indent=2) + "\n",
    }
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {root}", exc.strerror or str(exc), "choose a writable directory") from None
    for rel, text in files.items():
        _state(root, rel, text, force)  # refuse before writing anything
    return [(root / rel, _write(root, rel, text, force)) for rel, text in files.items()]


def _state(root: Path, rel: str, text: str, force: bool) -> str:
    """What writing ``text`` to ``root/rel`` would do: written, unchanged or replaced; raises
    without ``force``, and for a link on the way (with or without it)."""
    try:
        current = read_under(root, rel, limit=1 << 20)
    except OSError as exc:
        raise UsageError(f"cannot read {root / rel}", exc.strerror or str(exc), "check the file") from None
    if current is None:
        return "written"
    if current == text.encode("utf-8"):
        return "unchanged"
    if not force:
        raise UsageError(f"{root / rel} exists and differs from vado's", "", "pass --force to replace it")
    return "replaced"


def _write(root: Path, rel: str, text: str, force: bool) -> str:
    state = _state(root, rel, text, force)
    if state != "unchanged":
        _put(root, rel, text)
    return state


def _put(root: Path, rel: str, text: str) -> None:
    try:
        write_under(root, rel, text.encode("utf-8"))
    except UsageError:
        raise
    except OSError as exc:
        raise UsageError(f"cannot write {root / rel}", exc.strerror or str(exc), "check free space and permissions") from None
