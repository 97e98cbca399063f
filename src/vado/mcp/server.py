"""``vado mcp``: vado's library functions as Model Context Protocol tools.

Built on the official MCP Python SDK (``mcp`` 2.x, :class:`mcp.server.mcpserver.MCPServer`),
which derives each tool's JSON schema from the wrapper's signature and its
description from the docstring, so the wrappers below carry precise types and
say what every argument means. Every path is confined to the root fixed at start
(:class:`vado.mcp.root.Root`); a path outside it is refused with a tool error.

Transports: stdio (the default, what Claude Code, Codex and Cursor start) and
streamable HTTP on a loopback address (``--http``). ``bench_kernel`` is offered
only where a GPU is visible (nvidia-smi, rocm-smi or amd-smi lists one).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from vado import __version__
from vado.errors import VadoError
from vado.mcp import tools
from vado.mcp.root import Root

TOOL_NAMES = ("audit", "explain", "lookup", "facts", "port", "verify")

INSTRUCTIONS = """\
vado audits CUDA code for AMD ROCm/HIP (and Intel oneAPI/SYCL, SCALE, ZLUDA) and ports it.
Paths are relative to the server's root; paths outside it are refused.
Typical flow: audit the tree, explain the codes you do not know, port into a new directory,
edit what remains by hand, then verify the files (hipcc for gfx90a by default) until they compile.
"""

PathArg = Annotated[str, Field(description="A file or directory, relative to the server's root (absolute paths must lie inside it).")]
TargetName = Annotated[str, Field(description="A target profile: rocm-7.2 (default), rocm-6.4, hip-5.2 (ports); audits also take oneapi, scale, zluda.")]


def _call(fn, *args, **kwargs) -> dict[str, Any]:
    """Run a tool body; a VadoError becomes a ToolError whose text tells the assistant what to do."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return fn(*args, **kwargs)
    except VadoError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc.message}") from exc


def build_server(root: Root):
    """An ``MCPServer`` whose tools are vado's functions, confined to ``root``."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="vado", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    def audit(
        path: PathArg = ".",
        targets: Annotated[list[str] | None, Field(description="Target profiles to judge against; default: vado's audit set (rocm-7.2, oneapi, scale, zluda).")] = None,
        min_severity: Annotated[Literal["info", "low", "medium", "high", "critical"], Field(description="Leave out findings below this severity.")] = "info",
        max_findings: Annotated[int, Field(ge=0, le=5000, description="Return at most this many findings (counts cover all).")] = tools.DEFAULT_MAX_FINDINGS,
    ) -> dict[str, Any]:
        """Audit CUDA code: per-target verdicts (moves as is / rename / rework / manual / blocked), counts per finding code, and the findings with location, message and whether vado can fix them."""
        return _call(tools.audit, root, path, targets, min_severity, max_findings)

    @server.tool()
    def explain(
        code: Annotated[str, Field(description="A finding code such as PTX002 or LIB001, or a rule name such as inline-ptx-asm.")],
    ) -> dict[str, Any]:
        """Explain a finding code: what the rule detects, why it matters on AMD/Intel, an example, what to write instead, and how safe vado's fix is."""
        return _call(tools.explain, code)

    @server.tool()
    def lookup(
        name: Annotated[str, Field(description="A CUDA API name (cudaMallocAsync, cublasSgemm, cudnnCreate) or header (cublas_v2.h).")],
        target: Annotated[str | None, Field(description="Answer for this target only; default: every target profile.")] = None,
    ) -> dict[str, Any]:
        """Look up a CUDA name in vado's tables (imported from HIPIFY): its HIP/ROCm name, the versions it appeared or was removed in, and its status on each target. Unknown names come back with close matches."""
        return _call(tools.lookup, name, target)

    @server.tool()
    def facts(
        name: Annotated[str, Field(description="A CUDA library (cudnn, libcublas.so, cudnn.h), a Python package (flash_attn, cupy-cuda12x), a target (rocm) or a container image.")],
    ) -> dict[str, Any]:
        """Show the knowledge-base facts vado holds about a library, Python package, target or image, each with its public source."""
        return _call(tools.facts, name)

    @server.tool()
    def port(
        path: PathArg,
        output: Annotated[str | None, Field(description="A new (or empty) directory inside the root to write the port into; omit it to get the diffs without writing anything.")] = None,
        target: TargetName = "rocm-7.2",
        launch: Annotated[Literal["chevron", "ggl"], Field(description="Kernel launches: keep <<<>>> (chevron) or rewrite to hipLaunchKernelGGL (ggl).")] = "chevron",
        unsafe: Annotated[bool, Field(description="Also apply fixes marked unsafe (usually right, may change behaviour).")] = False,
        include_diffs: Annotated[bool, Field(description="Return each changed file's unified diff.")] = True,
    ) -> dict[str, Any]:
        """Port a CUDA file or tree to HIP (sources, headers, build files, requirements, Dockerfiles). Returns per-file status, applied fixes and diffs, and the findings that remain for a human or an assistant to resolve."""
        return _call(tools.port, root, path, output, target, launch, unsafe, include_diffs)

    from vado.bench.environment import has_gpu

    if has_gpu():

        @server.tool()
        def bench_kernel(
            path: PathArg,
            kernel: Annotated[str | None, Field(description="Name of the __global__ function; needed when the file has several.")] = None,
            n: Annotated[int, Field(ge=1, le=1 << 30, description="Elements per pointer parameter (and the value of integer parameters).")] = 1 << 24,
            block: Annotated[int, Field(ge=1, le=1024, description="Threads per block.")] = 256,
            iters: Annotated[int, Field(ge=1, le=1000, description="Timed launches.")] = 50,
        ) -> dict[str, Any]:
            """Time one kernel of a CUDA/HIP file on this machine's GPU with vado's generated driver."""
            return _call(tools.bench_kernel, root, path, kernel, n, block, iters)

    @server.tool()
    def verify(
        path: PathArg,
        archs: Annotated[list[str] | None, Field(description="AMD offload architectures to compile for; default ['gfx90a'].")] = None,
        target: TargetName = "rocm-7.2",
    ) -> dict[str, Any]:
        """Compile a HIP file (or every .cu/.hip file under a directory) with hipcc for AMD GPUs and report the evidence (command, exit code, compiler errors) and the findings still open. Use it after every edit: a port is done when this passes."""
        return _call(tools.verify, root, path, archs, target)

    return server


def serve(root: str, *, http: bool = False, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the server on stdio, or on streamable HTTP at ``http://host:port/mcp``.

    HTTP is served on loopback addresses only: the tools read the user's files,
    so the server is not meant to be reachable from other machines.
    """
    from vado.errors import UsageError

    server = build_server(Root(root))
    if not http:
        server.run("stdio")
        return
    if host not in ("127.0.0.1", "localhost", "::1") and not host.startswith("127."):
        raise UsageError(f"refusing to serve on {host}", "the MCP server reads files under its root", "use a loopback address (127.0.0.1)")
    server.run("streamable-http", host=host, port=port)
