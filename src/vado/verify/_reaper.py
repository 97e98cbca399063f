"""Run one command and, when it ends or this process gets SIGTERM, kill everything it started.

:func:`vado.verify.sandbox.run_limited` starts commands through this script
(``python -I -S _reaper.py -- CMD ARGS...``), which makes itself the *child
subreaper* (``PR_SET_CHILD_SUBREAPER``, Linux): a grandchild that escapes the
command's process group (``setsid``, a double fork) is re-parented to this
process instead of init, so it stays a descendant that this script finds and
kills. A process-group kill alone misses such a process, and a pipe it holds
open would keep the caller reading forever.

Standalone on purpose: it imports nothing of vado (``-S`` skips site, start-up
is a few milliseconds). Exit status: the command's own; killed by a signal, this
script kills itself with the same signal, so the caller sees what the command did.
"""

import os
import signal
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36


def _children_map() -> dict:
    kids: dict = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return kids
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as fh:
                data = fh.read()
            ppid = int(data[data.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    return kids


def descendants(root: int) -> list:
    """Every live process below ``root`` (by parent links in /proc)."""
    kids = _children_map()
    out, stack = [], [root]
    while stack:
        for child in kids.get(stack.pop(), ()):
            out.append(child)
            stack.append(child)
    return out


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants() -> None:
    """SIGKILL every descendant of this process until none is left (new ones may be forked meanwhile)."""
    me = os.getpid()
    for _ in range(200):
        pids = descendants(me)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap()
        time.sleep(0.005)


def main(argv: list) -> int:
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        sys.stderr.write("_reaper: no command\n")
        return 2
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        except (OSError, AttributeError):
            pass

    def on_term(signum, frame):  # the caller's timeout
        kill_descendants()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            sys.stderr.write("cannot start %s: %s\n" % (argv[0], exc.strerror or exc))
            os._exit(127)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    kill_descendants()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        return 128 + sig
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
