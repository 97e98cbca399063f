"""Running external commands with a timeout and resource limits.

Every subprocess vado starts to prove something (a compiler, a user's program,
a probe) goes through :func:`run_limited`. It:

- starts the child in its own session, so a timeout kills the whole process
  group (compilers fork drivers, drivers fork back ends);
- sets POSIX resource limits in the child before ``exec``: CPU seconds, the size
  of a file it may write, no core dumps, and optionally address space;
- caps captured output (a runaway program cannot fill vado's memory) and keeps
  the tail, where compilers print their summary;
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


def _text(data: bytes | None) -> str:
    if not data:
        return ""
    if len(data) > MAX_OUTPUT:
        data = b"[... output cut to its last %d bytes ...]\n" % MAX_OUTPUT + data[-MAX_OUTPUT:]
    return data.decode("utf-8", errors="replace")


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
    cmd = tuple(str(c) for c in command)
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(
            cmd,
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
    try:
        out, err = proc.communicate(stdin, timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        out, err = proc.communicate()
    return Outcome(
        command=cmd,
        returncode=proc.returncode,
        stdout=_text(out),
        stderr=_text(err),
        duration_s=round(time.perf_counter() - started, 4),
        timed_out=timed_out,
    )
