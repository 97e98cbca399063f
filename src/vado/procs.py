"""Worker processes that never outlive vado, and a cap on how many there are.

``audit``, ``port`` and ``plan`` fork worker pools (``concurrent.futures``). A
worker forked by a parent that is then killed (SIGKILL, or SIGTERM, which ends
the parent without running the pool's shutdown) would otherwise keep running,
re-parented to init. :func:`die_with_parent` is every pool's initializer: on Linux
the kernel sends the worker SIGKILL when its parent dies (``PR_SET_PDEATHSIG``);
elsewhere a worker only checks that its parent is still the one that forked it.
"""

from __future__ import annotations

import os
import signal
import sys

#: ``prctl`` option: the signal the calling process gets when its parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Pool initializer: have the kernel kill this worker when its parent dies.

    ``parent_pid`` is the pid of the process that created the pool; a worker whose
    parent is already gone when it starts (the race ``prctl`` cannot close) exits.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no libc prctl (a static or unusual build): the check below remains
            pass
    if os.getppid() != parent_pid:
        os._exit(1)


def pool_kwargs() -> dict:
    """``ProcessPoolExecutor`` keyword arguments that tie its workers' lives to this process."""
    return {"initializer": die_with_parent, "initargs": (os.getpid(),)}


def cap_jobs(jobs: int, tasks: int | None = None) -> int:
    """How many workers to start for ``jobs`` asked and ``tasks`` to share out.

    At least 1; at most the CPUs this process may use (never fewer than 2, so that the
    parallel path is taken on a one-CPU machine when asked for) and at most ``tasks``:
    a worker beyond those only costs a fork and its memory.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    n = min(int(jobs), max(2, cpus))
    if tasks is not None:
        n = min(n, tasks)
    return max(1, n)
