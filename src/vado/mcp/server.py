"""``vado mcp``: vado's library functions as Model Context Protocol tools.

Built on the official MCP Python SDK (``mcp`` 2.x, :class:`mcp.server.mcpserver.MCPServer`),
which derives each tool's JSON schema from the wrapper's signature and its
description from the docstring, so the wrappers below carry precise types and
say what every argument means. Every path is confined to the root fixed at start
(:class:`vado.mcp.root.Root`); a path outside it is refused with a tool error.

Transports: stdio (the default, what Claude Code, Codex and Cursor start) and
streamable HTTP on a loopback address (``--http``, guarded by :mod:`vado.mcp.httpguard`).

What the tools execute, and their annotations, honestly: ``audit``, ``explain``,
``lookup`` and ``facts`` execute nothing (read-only); ``port`` executes nothing and
writes only into a new directory; ``verify`` runs a compiler (hipcc) on the root's
files, confined to the root, the toolchain and a scratch directory
(:mod:`vado.verify.sandbox`); it runs no build system and no project code, and
writes nothing in the root (read-only). What builds and runs the project's code
needs ``allow_exec`` (``vado mcp --allow-exec``): verify's differential run (builds
original and port with nvcc and runs both programs) and ``bench_kernel`` (runs a
kernel of the tree on the GPU; offered only where a GPU is visible). Without it the
differential arguments are refused and ``bench_kernel`` is not offered.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from vado import __version__
from vado.errors import VadoError
from vado.mcp import tools
from vado.mcp.root import Root
from vado.mcp.schemas import AuditOut, BenchOut, ExplainOut, FactsOut, LookupOut, PortOut, VerifyOut

TOOL_NAMES = ("audit", "explain", "lookup", "facts", "port", "verify")

INSTRUCTIONS = """\
vado audits CUDA code for AMD ROCm/HIP (and Intel oneAPI/SYCL, SCALE, ZLUDA) and ports it.
Paths are relative to the server's root; paths outside it are refused.
Typical flow: audit the tree, explain the codes you do not know, port into a new directory,
edit what remains by hand, then verify the files (hipcc for the target's architectures, gfx942 and gfx950 for rocm-7.2) until they compile.
Answers fit about 8,000 tokens: audit and port give totals for the whole tree and one page of
findings or files; call again with offset=next_offset for the next page, or narrow the path.
"""

PathArg = Annotated[str, Field(description="A file or directory, relative to the server's root (absolute paths must lie inside it).")]
TargetName = Annotated[str, Field(description="A target profile: rocm-7.2 (default), rocm-6.4, hip-5.2 (ports); audits also take oneapi, scale, zluda.")]


def _call(fn, *args, max_tokens: int | None = None, **kwargs):
    """Run a tool body; a VadoError becomes a ToolError whose text tells the assistant what to do.

    The answer goes out as compact JSON text beside the same structured content,
    cut to ``max_tokens`` (default :data:`vado.mcp.paging.DEFAULT_MAX_TOKENS`)
    whatever the tool returned (:func:`vado.mcp.paging.shrink`).
    """
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent

    from vado.mcp.paging import DEFAULT_MAX_TOKENS, dumps, shrink

    try:
        answer = fn(*args, **kwargs)
    except VadoError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc.message}") from exc
    answer = shrink(answer, max_tokens or DEFAULT_MAX_TOKENS)
    return CallToolResult(content=[TextContent(type="text", text=dumps(answer))], structured_content=answer)


def _hints(*, read_only: bool, idempotent: bool = True, destructive: bool = False, title: str = ""):
    """MCP tool annotations: no vado tool reaches outside the machine, none writes over a file."""
    from mcp.types import ToolAnnotations

    return ToolAnnotations(title=title or None, readOnlyHint=read_only, destructiveHint=destructive,
                           idempotentHint=idempotent, openWorldHint=False)


Offset = Annotated[int, Field(ge=0, description="Index of the first item of the page (next_offset of the previous answer).")]
Limit = Annotated[int, Field(ge=1, le=5000, description="Items per page at most; the page is cut further to fit max_tokens.")]
MaxTokens = Annotated[int, Field(ge=1000, le=25000, description="Token budget of the answer (estimated); default 8000.")]


BuildArg = Annotated[Literal["compile-db", "none", "make", "cmake", "auto"], Field(description="How the tree's build is read for the configuration judged (which #if branches count; each file gets its translation units' -D/-U): compile-db (default: only a compile_commands.json, CMake File API reply or setup.py already in the tree; runs nothing), none (read no build), make/cmake/auto (execute the project's Makefile or CMake logic in vado's sandbox; need --allow-exec, and only when the user asked). The answer's build says which configuration was judged and where it came from.")]


def _refuse_exec(build: str, allow_exec: bool, tool: str) -> None:
    """Refuse a build mode that executes the project's build logic on a server without --allow-exec."""
    if build in ("make", "cmake", "auto") and not allow_exec:
        from mcp.server.mcpserver.exceptions import ToolError

        raise ToolError(f"McpError: build={build!r} runs the project's own Makefile or CMake logic; this server "
                        f"was started without --allow-exec. Call {tool} with build='compile-db' (reads only what "
                        "the tree holds), or ask the user to restart `vado mcp --allow-exec`.")


def build_server(root: Root, *, allow_exec: bool = False):
    """An ``MCPServer`` whose tools are vado's functions, confined to ``root``; ``allow_exec``
    offers what builds and runs the project's code (see the module docstring)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="vado", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=_hints(read_only=True, title="Audit CUDA code for AMD/Intel targets"))
    def audit(
        path: PathArg = ".",
        targets: Annotated[list[str] | None, Field(description="Target profiles to judge against; default: vado's audit set (rocm-7.2, oneapi, scale, zluda).")] = None,
        min_severity: Annotated[Literal["info", "low", "medium", "high", "critical"], Field(description="Leave out findings below this severity.")] = "info",
        codes: Annotated[list[str] | None, Field(description="Only findings with these codes or code prefixes (WARP, PTX002).")] = None,
        offset: Offset = 0,
        limit: Limit = tools.DEFAULT_PAGE,
        detail: Annotated[Literal["compact", "full"], Field(description="compact: code, place, message, fix applicability; full: also every target's verdict, the rule's data and the fix's description.")] = "compact",
        max_tokens: MaxTokens = 8000,
        build: BuildArg = "compile-db",
    ) -> AuditOut:
        """Audit CUDA code: the verdict per target (moves-as-is, moves-with-automatic-edits, needs-manual-work, blocked) with the codes that decide it, counts per finding code and per file, and one page of findings (location, message, whether vado's port fixes it). Page with offset/next_offset; narrow with path, codes or min_severity."""
        _refuse_exec(build, allow_exec, "audit")
        return _call(tools.audit, root, path, targets, min_severity, codes, offset, limit, detail, max_tokens, build,
                     max_tokens=max_tokens)

    @server.tool(annotations=_hints(read_only=True, title="Explain a finding code"))
    def explain(
        code: Annotated[str, Field(description="A finding code such as PTX002 or LIB001, or a rule name such as inline-ptx-asm.")],
    ) -> ExplainOut:
        """Explain a finding code: what the rule detects, why it matters on AMD/Intel, an example, what to write instead, and how safe vado's fix is."""
        return _call(tools.explain, code)

    @server.tool(annotations=_hints(read_only=True, title="Look up a CUDA name"))
    def lookup(
        name: Annotated[str, Field(description="A CUDA API name (cudaMallocAsync, cublasSgemm, cudnnCreate) or header (cublas_v2.h).")],
        target: Annotated[str | None, Field(description="Answer for this target only; default: every target profile.")] = None,
    ) -> LookupOut:
        """Look up a CUDA name in vado's tables (imported from HIPIFY): its HIP/ROCm name, the versions it appeared or was removed in, and its status on each target. Unknown names come back with close matches."""
        return _call(tools.lookup, name, target)

    @server.tool(annotations=_hints(read_only=True, title="Knowledge-base facts"))
    def facts(
        name: Annotated[str, Field(description="A CUDA library (cudnn, libcublas.so, cudnn.h), a Python package (flash_attn, cupy-cuda12x), a target (rocm) or a container image.")],
    ) -> FactsOut:
        """Show the knowledge-base facts vado holds about a library, Python package, target or image, each with its public source."""
        return _call(tools.facts, name)

    # Writes only into a new or empty directory (never over a file): not destructive; a second call
    # with the same output is refused, so not idempotent.
    @server.tool(annotations=_hints(read_only=False, idempotent=False, title="Port CUDA to HIP"))
    def port(
        path: PathArg,
        output: Annotated[str | None, Field(description="A new (or empty) directory inside the root to write the port into; omit it to get the diffs without writing anything.")] = None,
        target: TargetName = "rocm-7.2",
        launch: Annotated[Literal["chevron", "ggl"], Field(description="Kernel launches: keep <<<>>> (chevron) or rewrite to hipLaunchKernelGGL (ggl).")] = "chevron",
        unsafe: Annotated[bool, Field(description="Also apply fixes marked unsafe (usually right, may change behaviour).")] = False,
        include_diffs: Annotated[bool | None, Field(description="true: every listed file's unified diff; false: none; omitted: the page's diffs when they fit max_tokens.")] = None,
        diff_paths: Annotated[list[str] | None, Field(description="Files (relative to path) whose diffs you want, whatever the page.")] = None,
        offset: Offset = 0,
        limit: Limit = tools.DEFAULT_PAGE,
        max_tokens: MaxTokens = 8000,
        include_vendored: Annotated[bool, Field(description="Also port vendored code (third_party/, dependencies/, submodules, copies of known libraries).")] = False,
        include_backends: Annotated[bool, Field(description="Also port code for other backends (SYCL, MUSA, Vulkan, Metal, CPU instruction sets).")] = False,
        include_hip_path: Annotated[bool, Field(description="Also port the project's own HIP path (its CUDA-to-HIP vendor header and the sources its own ROCm build compiles).")] = False,
        build: BuildArg = "compile-db",
    ) -> PortOut:
        """Port a CUDA file or tree to HIP (sources, headers, build files, requirements, Dockerfiles). Returns totals for the whole port (files per status, fixes applied and findings left per code), one page of files (files with errors or findings left first), the findings left in them, and diffs on request. Page with offset/next_offset."""
        _refuse_exec(build, allow_exec, "port")
        return _call(tools.port, root, path, output, target, launch, unsafe, include_diffs, diff_paths, offset, limit,
                     max_tokens, include_vendored, include_backends, include_hip_path, build, max_tokens=max_tokens)

    from vado.bench.environment import has_gpu

    if allow_exec and has_gpu():

        # Runs a kernel of the tree on the GPU: project code executes (only with allow_exec).
        @server.tool(annotations=_hints(read_only=False, idempotent=False, title="Time a kernel on this GPU (runs it)"))
        def bench_kernel(
            path: PathArg,
            kernel: Annotated[str | None, Field(description="Name of the __global__ function; needed when the file has several.")] = None,
            n: Annotated[int, Field(ge=1, le=1 << 30, description="Elements per pointer parameter (and the value of integer parameters).")] = 1 << 24,
            block: Annotated[int, Field(ge=1, le=1024, description="Threads per block.")] = 256,
            iters: Annotated[int, Field(ge=1, le=1000, description="Timed launches.")] = 50,
        ) -> BenchOut:
            """Time one kernel of a CUDA/HIP file on this machine's GPU: vado writes the driver, builds it with the kernel's file and RUNS the kernel (project code executes on the GPU)."""
            return _call(tools.bench_kernel, root, path, kernel, n, block, iters)

    # Compile-only verify runs hipcc confined to the root and writes nothing there: read-only. With
    # allow_exec it may also build and run the programs (the differential): then it is not.
    verify_hints = _hints(read_only=not allow_exec, idempotent=not allow_exec,
                          title="Compile HIP with hipcc" + (" (and run original vs port)" if allow_exec else ""))
    exec_note = ("With original and run_args (this server allows it), where an NVIDIA GPU exists, vado also BUILDS "
                 "original and port with nvcc and RUNS both programs with those arguments (project code executes), "
                 "AMD's 64-lane waves emulated, and compares their outputs." if allow_exec else
                 "original and run_args (a differential run that builds and runs the project's programs) are refused: "
                 "the server was started without --allow-exec.")

    verify_doc = ("Compile a HIP file (or every .cu/.hip file under a directory) with hipcc for AMD GPUs and report "
                  "the evidence (command, exit code, compiler errors) and the findings still open. The compiler "
                  "runs confined: it sees the root (read-only), the toolchain and a scratch directory, nothing "
                  "else; no build system and no project code runs. " + exec_note +
                  " Use it after every edit: a port is done when this passes.")

    @server.tool(annotations=verify_hints, description=verify_doc)
    def verify(
        path: PathArg,
        archs: Annotated[list[str] | None, Field(description="AMD offload architectures to compile for; default: the target's (gfx942 and gfx950 for rocm-7.2), as `vado verify`.")] = None,
        target: TargetName = "rocm-7.2",
        original: Annotated[str | None, Field(description="The CUDA tree (inside the root) the port at path came from; with run_args, the port is built and run against it where an NVIDIA GPU exists (needs a server started with --allow-exec).")] = None,
        run_args: Annotated[str | None, Field(description="The program's command-line arguments for the differential run (split like a shell, never run by one; needs --allow-exec).")] = None,
        build: Annotated[Literal["compile-db", "none", "make", "cmake", "auto"], Field(description="How the root's build is read for each file's flags: compile-db (default: only a compile_commands.json, CMake File API reply or setup.py already in the root; runs nothing), none (guess), make/cmake/auto (execute the project's Makefile or CMake logic in vado's sandbox; needs --allow-exec, and only when the user asked).")] = "compile-db",
        codegen: Annotated[Literal["auto", "all", "none"], Field(description="Code generation, as `vado verify --codegen`: auto (default: the front end for host and arch, the full compile where only code generation can tell: inline asm, target builtins, -Werror), all (the full compile), none (the front end only). Each evidence record's detail.checked says which ran.")] = "auto",
    ) -> VerifyOut:
        if ((original is not None or run_args is not None) or build in ("make", "cmake", "auto")) and not allow_exec:
            from mcp.server.mcpserver.exceptions import ToolError

            raise ToolError("McpError: the differential run and build='make'/'cmake'/'auto' run the project's own "
                            "code; this server was started without --allow-exec. Call verify without original and "
                            "run_args and with build='compile-db' to compile only, or ask the user to restart "
                            "`vado mcp --allow-exec`.")
        return _call(tools.verify, root, path, archs, target, original, run_args, build, codegen)

    return server


def loopback_host(host: str) -> bool:
    """Whether ``host`` names a loopback interface: ``localhost`` or an IPv4/IPv6 loopback
    address, parsed (``127.attacker.example`` is a DNS name, not an address of 127/8)."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _authority(host: str) -> str:
    """``host`` as it appears in a Host header (IPv6 in brackets)."""
    h = host.strip("[]")
    return f"[{h}]" if ":" in h else h


def transport_security(host: str):
    """The SDK's DNS-rebinding protection (Host and Origin checks), on for every loopback
    ``host``: the SDK turns it on by itself only for 127.0.0.1, localhost and ::1."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = {_authority(host), "127.0.0.1", "localhost", "[::1]"}
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(f"{n}:*" for n in names),
        allowed_origins=sorted(f"http://{n}:*" for n in names),
    )


class BearerAuth:
    """ASGI middleware: every request must carry ``Authorization: Bearer <token>``.

    The token is made per start (:func:`new_token`) and handed to the user who
    started the server; other local users, who can reach a loopback port as well,
    do not have it. Compared in constant time.
    """

    def __init__(self, app, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        import hmac

        if scope.get("type") in ("http", "websocket"):
            got = b""
            for name, value in scope.get("headers") or ():
                if name.lower() == b"authorization":
                    got = value
                    break
            if not hmac.compare_digest(got, self._expected):
                if scope["type"] == "http":
                    body = b"missing or wrong bearer token: pass the token vado mcp printed at start\n"
                    await send({"type": "http.response.start", "status": 401,
                                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                            (b"www-authenticate", b'Bearer realm="vado"'),
                                            (b"content-length", str(len(body)).encode())]})
                    await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def new_token() -> str:
    """A fresh bearer token (256 random bits, URL-safe)."""
    import secrets

    return secrets.token_urlsafe(32)


def http_app(root: Root, host: str, token: str, *, session_idle_timeout_s: float | None = None,
             max_sessions: int | None = None, allow_exec: bool = False):
    """The streamable-HTTP ASGI app of a server on ``host``: bearer token and Host/Origin checks;
    sessions close after ``session_idle_timeout_s`` without a request, at most ``max_sessions`` at once
    (defaults: :mod:`vado.mcp.httpguard`)."""
    from vado.mcp import httpguard

    server = build_server(root, allow_exec=allow_exec)
    app = server.streamable_http_app(
        transport_security=transport_security(host), host=host,
        session_idle_timeout=session_idle_timeout_s or httpguard.SESSION_IDLE_TIMEOUT_S,
        max_sessions=max_sessions or httpguard.MAX_SESSIONS)
    return BearerAuth(app, token)


def serve(root: str, *, http: bool = False, host: str = "127.0.0.1", port: int = 8765,
          token: str | None = None, on_start=None, allow_exec: bool = False) -> None:
    """Run the server on stdio, or on streamable HTTP at ``http://host:port/mcp``.

    HTTP is served on loopback addresses only (:func:`loopback_host`): the tools read
    the user's files, so the server is not meant to be reachable from other machines.
    Every HTTP request needs ``Authorization: Bearer TOKEN`` (``token``, else a new one
    per start): any local user can reach a loopback port, and the tools act with the
    rights of the user who started the server. ``on_start(url, token)`` is called
    before serving, for the caller to show the token. ``allow_exec`` offers the tools that
    build and run the project's programs (:func:`build_server`).
    """
    from vado.errors import UsageError

    if not http:
        build_server(Root(root), allow_exec=allow_exec).run("stdio")
        return
    if not loopback_host(host):
        raise UsageError(f"refusing to serve on {host}", "the MCP server reads files under its root",
                         "use a loopback address (127.0.0.1, ::1 or localhost)")
    if not (0 < port < 65536):
        raise UsageError(f"port {port} is out of range", "a TCP port is 1 to 65535", "pass --port 8765")
    token = token or new_token()
    app = http_app(Root(root), host, token, allow_exec=allow_exec)

    from vado.mcp.httpguard import serve_app

    if on_start is not None:
        on_start(f"http://{_authority(host)}:{port}/mcp", token)
    # Deadlines, a connection cap and an EMFILE-safe loop: any local user reaches this port.
    serve_app(app, host, port)
