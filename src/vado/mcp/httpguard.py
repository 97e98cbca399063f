"""Serving ``vado mcp --http`` so that no local user can take it down.

Any local user can reach a loopback port; the bearer token keeps them from the
tools, not from the socket. Uvicorn alone would let them: it has no deadline for
a request's head or body (a client that sends half a header holds a connection
forever), no cap on connections (each holds a file descriptor until the process
hits ``RLIMIT_NOFILE``), and at that limit asyncio's accept error goes to a
logging handler (the MCP SDK's rich handler) that imports a module, fails on
``EMFILE`` inside the exception handler, and ends the process.

:func:`serve_app` runs uvicorn with:

- :func:`guarded_protocol`: a connection beyond :func:`connection_cap` is reset as
  soon as it is accepted (its descriptor freed at once), and a request whose head
  and body have not arrived within ``request_timeout_s`` is dropped;
- uvicorn's own limits: ``limit_concurrency`` (503 beyond it), a short keep-alive,
  a bounded incomplete-request buffer, a backlog the size of the cap;
- an event-loop exception handler that reports ``EMFILE``/``ENFILE`` (asyncio
  retries the accept a second later) in one pre-formatted line written to fd 2,
  opening nothing, and never raises.

Sessions of the MCP SDK expire after :data:`SESSION_IDLE_TIMEOUT_S` without a
request and at most :data:`MAX_SESSIONS` are open (``http_app`` passes both).
"""

from __future__ import annotations

import errno
import os
import time

#: Seconds a request's head and body may take to arrive.
REQUEST_TIMEOUT_S = 10.0
#: Seconds an idle keep-alive connection is kept.
KEEP_ALIVE_S = 5
#: Connections served at once, at most (lowered to fit the descriptor limit: :func:`connection_cap`).
MAX_CONNECTIONS = 256
#: Seconds without a request after which an MCP session is closed and its memory freed.
SESSION_IDLE_TIMEOUT_S = 600.0
#: MCP sessions open at once, at most (a local server has one user).
MAX_SESSIONS = 32
#: Largest request head uvicorn buffers (h11's incomplete-event limit).
MAX_HEAD_BYTES = 16 * 1024
#: Descriptors kept free of connections for the process itself (files, pipes, compilers).
RESERVED_FDS = 64

_RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def connection_cap(limit: int = MAX_CONNECTIONS) -> int:
    """``limit``, lowered so that connections use at most half the descriptors left after
    :data:`RESERVED_FDS` (``RLIMIT_NOFILE``'s soft limit); at least 4."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return limit
    if soft == getattr(resource, "RLIM_INFINITY", -1) or soft <= 0:
        return limit
    return max(4, min(limit, (soft - RESERVED_FDS) // 2))


def guarded_protocol(max_connections: int, request_timeout_s: float = REQUEST_TIMEOUT_S):
    """Uvicorn's h11 protocol with a connection cap and a deadline for each request's arrival."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting_states = (h11.IDLE, h11.SEND_BODY)

    class GuardedH11Protocol(H11Protocol):
        _refused = False
        _deadline = None

        def connection_made(self, transport) -> None:  # type: ignore[override]
            if len(self.connections) >= max_connections:
                # Reset at once: the descriptor is freed now, not when the client gives up.
                self._refused = True
                self.transport = transport
                transport.abort()
                return
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._refused or self.transport.is_closing():
                return
            if self.conn.their_state in waiting_states:
                self._arm()  # half a head, or a body still coming
            else:
                self._disarm()

        def connection_lost(self, exc) -> None:
            if self._refused:
                return
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(request_timeout_s, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            state = self.conn.their_state
            # A body still coming (whatever the app is doing), or half a head of a new request.
            if state is h11.SEND_BODY or (state is h11.IDLE and (self.cycle is None or self.cycle.response_complete)):
                self.transport.abort()

    return GuardedH11Protocol


class _ExceptionReporter:
    """An event-loop exception handler that opens nothing and never raises."""

    def __init__(self) -> None:
        self.last = 0.0
        self.dropped = 0

    def __call__(self, loop, context) -> None:
        exc = context.get("exception")
        try:
            if isinstance(exc, OSError) and exc.errno in _RESOURCE_ERRNOS:
                now = time.monotonic()
                if now - self.last < 10.0:
                    self.dropped += 1
                    return
                self.last = now
                line = (f"vado mcp: {context.get('message', 'accept failed')}: {os.strerror(exc.errno)}; "
                        f"new connections wait ({self.dropped} similar messages left out)\n")
                self.dropped = 0
                os.write(2, line.encode("utf-8", "replace"))
                return
            loop.default_exception_handler(context)
        except Exception:  # noqa: BLE001 - a handler that raises ends the server
            try:
                os.write(2, b"vado mcp: an error in the event loop could not be reported\n")
            except OSError:
                pass


def serve_app(app, host: str, port: int, *, max_connections: int | None = None,
              request_timeout_s: float = REQUEST_TIMEOUT_S) -> None:
    """Serve the ASGI ``app`` on ``host:port`` with uvicorn and the guards of the module docstring."""
    import asyncio

    import anyio
    import uvicorn

    try:  # The SDK's rich log handler imports this on its first traceback: not at EMFILE time.
        import rich.traceback  # noqa: F401
    except ImportError:
        pass
    cap = connection_cap(max_connections or MAX_CONNECTIONS)
    config = uvicorn.Config(app, host=host.strip("[]"), port=port, log_level="warning",
                            http=guarded_protocol(cap, request_timeout_s), limit_concurrency=cap + 1,
                            timeout_keep_alive=KEEP_ALIVE_S, h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                            backlog=max(16, cap))
    server = uvicorn.Server(config)

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(_ExceptionReporter())
        await server.serve()

    anyio.run(main)


__all__ = ["serve_app", "guarded_protocol", "connection_cap", "REQUEST_TIMEOUT_S", "SESSION_IDLE_TIMEOUT_S",
           "MAX_SESSIONS"]
