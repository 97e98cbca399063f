"""Running external commands with a timeout and resource limits.

Every subprocess vado starts to prove something (a compiler, a user's program,
a probe) goes through :func:`run_limited`. It:

- starts the child in its own session, so a timeout kills the whole process
  group (compilers fork drivers, drivers fork back ends), and on Linux through
  ``_reaper.py``, a subreaper that also kills what escaped the group (``setsid``,
  double forks) when the command ends or times out;
- sets POSIX resource limits in the child before ``exec``: CPU seconds, the size
  of a file it may write, no core dumps, and optionally address space;
- caps captured output while reading it (a runaway program cannot fill vado's
  memory: at most twice :data:`MAX_OUTPUT` per stream is held) and keeps the
  tail, where compilers print their summary;
- never raises for a failed or killed child: the outcome says what happened.
  A command that cannot start at all (missing executable) raises
  :class:`~vado.errors.ToolchainError`.

Address space is not limited by default: the CUDA and HIP runtimes reserve
terabytes of virtual address space for unified addressing at start-up, so an
``RLIMIT_AS`` that would stop a runaway compile also stops every GPU program.
Compiles get a limit (:data:`COMPILE_LIMITS`); runs do not (:data:`RUN_LIMITS`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

from vado.errors import ToolchainError

#: Bytes of stdout/stderr kept per stream; the tail is kept when a stream is longer.
MAX_OUTPUT = 256 * 1024


@dataclass(frozen=True)
class Limits:
    """Limits for one child process.

    ``timeout_s`` is wall-clock time (the group is killed after it);
    ``cpu_s`` CPU seconds (``RLIMIT_CPU``); ``memory_mb`` address space
    (``RLIMIT_AS``, None for no limit: see the module docstring); ``file_mb``
    the largest file the child may write (``RLIMIT_FSIZE``).
    """

    timeout_s: float = 300.0
    cpu_s: int | None = None
    memory_mb: int | None = None
    file_mb: int | None = 2048


#: Compilers: 5 minutes wall, 16 GiB of address space, no file over 2 GiB.
COMPILE_LIMITS = Limits(timeout_s=300.0, cpu_s=600, memory_mb=16384, file_mb=2048)
#: Programs under test: 2 minutes wall, no address-space limit (GPU runtimes need it).
RUN_LIMITS = Limits(timeout_s=120.0, cpu_s=600, memory_mb=None, file_mb=4096)
#: Version queries and probes: short.
PROBE_LIMITS = Limits(timeout_s=60.0, cpu_s=120, memory_mb=8192, file_mb=256)


@dataclass(frozen=True)
class Outcome:
    """What a child did: exit status (negative: killed by that signal), output, time."""

    command: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """True when the child exited 0 within its time."""
        return self.returncode == 0 and not self.timed_out

    def why(self) -> str:
        """A short reason for a failure (empty when it succeeded)."""
        if self.timed_out:
            return "timed out"
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"killed by {name}"
        if self.returncode:
            return f"exit code {self.returncode}"
        return ""


def _limiter(limits: Limits):
    def apply() -> None:  # runs in the child between fork and exec
        import resource

        def setlim(which: int, value: int) -> None:
            soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, hard))

        setlim(resource.RLIMIT_CORE, 0)
        if limits.cpu_s:
            setlim(resource.RLIMIT_CPU, int(limits.cpu_s))
        if limits.memory_mb:
            setlim(resource.RLIMIT_AS, int(limits.memory_mb) * 1024 * 1024)
        if limits.file_mb:
            setlim(resource.RLIMIT_FSIZE, int(limits.file_mb) * 1024 * 1024)

    return apply


def _text(data: bytes | None, dropped: int = 0) -> str:
    if not data:
        return ""
    if dropped or len(data) > MAX_OUTPUT:
        dropped += max(0, len(data) - MAX_OUTPUT)
        data = b"[... output cut: %d bytes dropped, the last %d follow ...]\n" % (dropped, MAX_OUTPUT) + data[-MAX_OUTPUT:]
    return data.decode("utf-8", errors="replace")


class _Tail:
    """The last :data:`MAX_OUTPUT` bytes of a stream, read by a thread as they come."""

    def __init__(self, stream) -> None:
        import threading

        self.data = bytearray()
        self.dropped = 0
        self._fd = stream.fileno()
        self._stream = stream
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while chunk := os.read(self._fd, 1 << 16):
                self.data += chunk
                if len(self.data) > 2 * MAX_OUTPUT:
                    cut = len(self.data) - MAX_OUTPUT
                    del self.data[:cut]
                    self.dropped += cut
        except OSError:
            pass

    def text(self, wait_s: float) -> str:
        self.thread.join(wait_s)
        return _text(bytes(self.data), self.dropped)


def _feed(pipe, data: bytes) -> None:
    import threading

    def write() -> None:
        try:
            pipe.write(data)
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                pipe.close()
            except OSError:
                pass

    threading.Thread(target=write, daemon=True).start()


_REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_reaper.py")


def _startable(cmd: tuple[str, ...], cwd, env) -> None:
    """Raise :class:`ToolchainError` when ``cmd[0]`` cannot be executed (the reaper would
    only report it as exit status 127)."""
    import shutil

    prog = cmd[0]
    if os.sep in prog:
        path = prog if os.path.isabs(prog) or cwd is None else os.path.join(os.fspath(cwd), prog)
        ok = os.path.isfile(path) and os.access(path, os.X_OK)
        why = "no such file, or not executable"
    else:
        search = (env or os.environ).get("PATH", os.defpath)
        ok = shutil.which(prog, path=search) is not None
        why = "not found on PATH"
    if not ok:
        raise ToolchainError(f"cannot start {prog}", why,
                             "check the path, or that the tool is installed (`vado doctor` lists toolchains)")


def run_limited(
    command: Sequence[str],
    *,
    cwd: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    limits: Limits = COMPILE_LIMITS,
    stdin: bytes | None = None,
) -> Outcome:
    """Run ``command`` (no shell) under ``limits``; return its :class:`Outcome`.

    ``env`` replaces the environment when given (pass ``{**os.environ, ...}`` to
    extend it). Raises :class:`ToolchainError` only when the program cannot be
    started (not found, not executable).
    """
    import sys

    cmd = tuple(str(c) for c in command)
    started = time.perf_counter()
    argv: tuple[str, ...] = cmd
    if sys.platform.startswith("linux") and os.path.exists(_REAPER) and sys.executable and cmd:
        _startable(cmd, cwd, env)
        argv = (sys.executable, "-I", "-S", _REAPER, "--", *cmd)
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=_limiter(limits) if os.name == "posix" else None,
        )
    except OSError as exc:
        raise ToolchainError(
            f"cannot start {cmd[0]}",
            exc.strerror or str(exc),
            "check the path, or that the tool is installed (`vado doctor` lists toolchains)",
        ) from None
    timed_out = False
    out, err = _Tail(proc.stdout), _Tail(proc.stderr)
    if stdin is not None:
        _feed(proc.stdin, stdin)
    try:
        proc.wait(timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        if argv is not cmd:
            # The reaper kills the command and everything it started, escaped or not.
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.wait()
    # Output ends when the last process holding the pipes is gone: at once, normally;
    # a descendant that outlived everything is not waited for.
    stdout, stderr = out.text(5.0), err.text(5.0)
    for pipe in (proc.stdout, proc.stderr):
        try:
            pipe.close()
        except OSError:
            pass
    return Outcome(
        command=cmd,
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        duration_s=round(time.perf_counter() - started, 4),
        timed_out=timed_out,
    )


def run_capped(
    args: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess:
    """``subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=timeout)``
    through :func:`run_limited`: output capped as it is read, descendants killed at the end.

    For callers written against ``subprocess.run``: a timeout raises
    ``subprocess.TimeoutExpired`` and a program that cannot start ``FileNotFoundError``,
    as there. No CPU, memory or file-size limit is set (``timeout`` bounds the run).
    """
    try:
        out = run_limited(args, cwd=cwd, env=env, stdin=input.encode("utf-8") if input is not None else None,
                          limits=Limits(timeout_s=timeout, cpu_s=None, memory_mb=None, file_mb=None))
    except ToolchainError as exc:
        raise FileNotFoundError(2, exc.why or exc.what, str(args[0]) if args else "") from None
    if out.timed_out:
        raise subprocess.TimeoutExpired(list(out.command), timeout, output=out.stdout, stderr=out.stderr)
    return subprocess.CompletedProcess(list(out.command), out.returncode, out.stdout, out.stderr)
