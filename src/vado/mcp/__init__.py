"""vado's MCP server: audit, explain, lookup, facts, port and verify as tools for coding assistants.

See :mod:`vado.mcp.server`; paths are confined by :mod:`vado.mcp.root`.
"""
