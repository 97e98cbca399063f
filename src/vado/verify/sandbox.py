"""Running external commands with a timeout and resource limits.

Every subprocess vado starts to prove something (a compiler, a user's program,
a probe) goes through :func:`run_limited`. It:

- starts the child in its own session, so a timeout kills the whole process
  group (compilers fork drivers, drivers fork back ends), and on Linux through
  ``_reaper.py``, a subreaper that also kills what escaped the group (``setsid``,
  double forks) when the command ends or times out (a confined command needs no
  reaper: it is the first process of its own PID namespace, and the kernel kills
  everything in that namespace when it ends or its ``unshare`` is killed);
- sets POSIX resource limits in the child before ``exec``: CPU seconds, the size
  of a file it may write, no core dumps, and optionally address space;
- caps captured output while reading it (a runaway program cannot fill vado's
  memory: at most twice :data:`MAX_OUTPUT` per stream is held) and keeps the
  tail, where compilers print their summary;
- never raises for a failed or killed child: the outcome says what happened.
  A command that cannot start at all (missing executable) raises
  :class:`~vado.errors.ToolchainError`.

A compiler can also be *confined* (``confine=``, :class:`Confinement`): it then
runs in fresh mount, PID, network, IPC and UTS namespaces whose file system shows
only the system's ``/usr``, the toolchain, the directories the caller names (the
root read-only, a scratch directory writable), a private ``/tmp`` and an ``/etc``
without secrets (``_confine.py`` builds it). A source that names a file outside
(``#include "/etc/shadow"``, ``#embed``, ``__has_include``) then finds nothing,
whatever the compiler prints. Where namespaces cannot be made (not Linux, no
``unshare``, no user namespaces for a non-root user), the command runs as before
and :attr:`Outcome.confinement` says so: callers keep redacting diagnostics
(:mod:`vado.verify.redact`) as a second, weaker layer.

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
    #: How the command was confined: "" (not asked), "namespaces", or "none: WHY" (asked, not possible).
    confinement: str = ""

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
_CONFINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_confine.py")


@dataclass(frozen=True)
class Confinement:
    """What a confined command sees besides the system (see the module docstring).

    ``read_only`` and ``writable`` are directories (or files) shown at their own
    paths; everything else outside ``/usr`` is absent. ``privileged`` keeps the
    command's capabilities (mount, chroot): only for a toolchain wrapper that makes
    its own chroot inside this view (vado's ROCm 7.2.4 wrapper).
    """

    read_only: tuple[str, ...] = ()
    writable: tuple[str, ...] = ()
    privileged: bool = False


def toolchain_dirs(executable: str) -> tuple[str, ...]:
    """Directories a confined ``executable`` needs besides ``/usr``: its install prefix
    (``/opt/rocm-6.4.0``, a vado ROCm chroot, a Python's prefix), where it is not under ``/usr``."""
    import shutil

    exe = executable if os.sep in executable else (shutil.which(executable) or executable)
    out: list[str] = []
    for path in dict.fromkeys((os.path.abspath(exe), os.path.realpath(exe))):
        if path.startswith("/usr/") and not path.startswith("/usr/local/"):
            continue
        bindir = os.path.dirname(path)
        prefix = os.path.dirname(bindir) if os.path.basename(bindir) == "bin" else bindir
        if prefix not in ("/", "/usr", "/usr/local"):
            out.append(prefix)
    out += [d for d in _rocm_dirs() if d not in out]
    return tuple(out)


def _rocm_dirs() -> list[str]:
    try:
        return sorted(os.path.join("/opt", n) for n in os.listdir("/opt") if n.startswith("rocm"))
    except OSError:
        return []


def python_dirs(python: str) -> tuple[str, ...]:
    """Directories a confined Python needs: its prefixes and the places it imports from (asked of it)."""
    import json as _json

    code = ("import json, sys, site; p = [sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path];"
            "u = getattr(site, 'getusersitepackages', lambda: '')(); print(json.dumps(p + ([u] if u else [])))")
    try:
        out = run_limited([python, "-c", code], limits=PROBE_LIMITS)
        paths = _json.loads(out.stdout.strip().splitlines()[-1])
    except (ToolchainError, ValueError, IndexError):
        return toolchain_dirs(python)
    keep = [p for p in paths if isinstance(p, str) and os.path.isabs(p) and os.path.exists(p)]
    return tuple(dict.fromkeys([*toolchain_dirs(python), *keep]))


#: The first line of a vado ROCm chroot wrapper (``vado.verify.toolchains.CHROOT_MARK``).
_CHROOT_MARK = b"# vado-rocm-chroot:"


def _is_chroot_wrapper(executable: str) -> bool:
    try:
        with open(executable, "rb") as fh:
            return _CHROOT_MARK in fh.read(512)
    except OSError:
        return False


def compiler_confinement(executable: str, *, read_only: Sequence[str | os.PathLike] = (),
                         writable: Sequence[str | os.PathLike] = (),
                         flags: Sequence[str] = ()) -> Confinement:
    """The view a compile of a tree gets: ``read_only`` (the root) and the ``-I`` directories of
    ``flags`` (the caller's own flags, not a project's) read-only, ``writable`` (the scratch
    directory) writable, the toolchain of ``executable`` (:func:`toolchain_dirs`).

    vado's ROCm chroot wrapper makes its own chroot and mount namespace inside this view: it
    runs privileged, and its chroot is writable (it makes the mount points it binds).
    """
    import shutil

    exe = executable if os.sep in executable else (shutil.which(executable) or executable)
    ro = [os.fspath(p) for p in read_only]
    ro += [f[2:] for f in flags if f.startswith("-I") and len(f) > 2 and os.path.isabs(f[2:])]
    rw = [os.fspath(p) for p in writable]
    tools = list(toolchain_dirs(exe))
    chroot = _is_chroot_wrapper(exe)
    if chroot:
        rw += tools
    else:
        ro += tools
    return Confinement(tuple(dict.fromkeys(ro)), tuple(dict.fromkeys(rw)), privileged=chroot)


def _unshare_argv(spec: dict, cmd: tuple[str, ...]) -> tuple[str, ...]:
    import shutil
    import sys

    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    flags = ["--mount", "--pid", "--net", "--ipc", "--uts", "--fork", "--kill-child", "--propagation", "private"]
    if os.geteuid() != 0:
        flags[:0] = ["--user", "--map-root-user"]
    opts = ["--stage", spec["stage"], "--cwd", spec["cwd"]]
    opts += ["--privileged"] if spec["privileged"] else []
    opts += [w for p in spec["ro"] for w in ("--ro", p)] + [w for p in spec["rw"] for w in ("--rw", p)]
    return (unshare, *flags, "--", sys.executable, "-I", "-S", _CONFINE, *opts, "--", *cmd)


_AVAILABLE: list[tuple[bool, str]] = []


def confinement_available() -> tuple[bool, str]:
    """Whether commands can be confined here, and why not (probed once: a confined ``true``)."""
    import shutil
    import sys

    if _AVAILABLE:
        return _AVAILABLE[0]
    why = ""
    if not sys.platform.startswith("linux"):
        why = "not Linux (namespaces are Linux's)"
    elif not shutil.which("unshare"):
        why = "no `unshare` (util-linux) on PATH"
    elif not os.path.exists(_CONFINE):
        why = "vado's _confine.py is missing"
    else:
        true = shutil.which("true") or "/bin/true"
        out = run_limited([true], limits=PROBE_LIMITS, confine=Confinement(), _probe=True)
        if not out.ok:
            tail = (out.stderr.strip().splitlines() or [out.why()])[-1]
            why = f"namespaces cannot be made here ({tail})"
    _AVAILABLE.append((not why, why))
    return _AVAILABLE[0]


def _stage_and_spec(confine: Confinement, cwd) -> tuple[str, dict]:
    import tempfile

    stage = tempfile.mkdtemp(prefix="vado-confine-")
    real = lambda p: os.path.abspath(os.fspath(p))  # noqa: E731 - links are made again inside
    spec = {"stage": stage, "ro": [real(p) for p in confine.read_only], "rw": [real(p) for p in confine.writable],
            "cwd": os.path.abspath(os.fspath(cwd)) if cwd is not None else "/tmp", "privileged": confine.privileged}
    if cwd is not None and not any(_under(spec["cwd"], p) for p in spec["ro"] + spec["rw"]):
        spec["ro"].append(spec["cwd"])
    return stage, spec


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


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
    confine: Confinement | None = None,
    _probe: bool = False,
) -> Outcome:
    """Run ``command`` (no shell) under ``limits``; return its :class:`Outcome`.

    ``env`` replaces the environment when given (pass ``{**os.environ, ...}`` to
    extend it). With ``confine``, the command runs in the view it describes where
    namespaces can be made (:func:`confinement_available`), and as before where
    not: :attr:`Outcome.confinement` says which. Raises :class:`ToolchainError`
    only when the program cannot be started (not found, not executable).
    """
    import shutil
    import sys

    cmd = tuple(str(c) for c in command)
    started = time.perf_counter()
    inner: tuple[str, ...] = cmd
    confined = ""
    stage = None
    if confine is not None and cmd:
        ok, why = (True, "") if _probe else confinement_available()
        if ok:
            _startable(cmd, cwd, env)
            stage, spec = _stage_and_spec(confine, cwd)
            if os.sep not in cmd[0]:
                # Resolved here, against the caller's PATH: inside, only /usr's directories exist.
                cmd = (shutil.which(cmd[0], path=(env or os.environ).get("PATH", os.defpath)) or cmd[0], *cmd[1:])
            inner = _unshare_argv(spec, cmd)
            confined = "namespaces"
            # Inside, /tmp is private; a TMPDIR named outside would not exist there.
            env = {k: v for k, v in (os.environ if env is None else env).items() if k not in ("TMPDIR", "TMP", "TEMP")}
        else:
            confined = f"none: {why}"
    argv: tuple[str, ...] = inner
    # A confined command is its PID namespace's first process: when it ends, the kernel kills what it left
    # there, and killing `unshare` kills it (--kill-child), so nothing escapes and no reaper is needed.
    if sys.platform.startswith("linux") and os.path.exists(_REAPER) and sys.executable and cmd and not stage:
        _startable(cmd, cwd, env)
        argv = (sys.executable, "-I", "-S", _REAPER, "--", *inner)
    try:
        return _run(cmd, argv, cwd, env, limits, stdin, started, confined)
    finally:
        if stage is not None:
            try:
                os.rmdir(stage)
            except OSError:
                pass


def _run(cmd, argv, cwd, env, limits, stdin, started, confined) -> Outcome:
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
        if argv[0] != cmd[0] and not confined.startswith("namespaces"):
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
        confinement=confined,
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
