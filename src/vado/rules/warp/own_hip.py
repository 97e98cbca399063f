"""The project's own HIP cross-lane calls that are written for 32-lane warps (WARP009).

A project's own AMD branch (``#ifdef USE_ROCM``) is left as written by warp32 emulation: it may size its warps
by the wavefront (``warpSize``, ``__AMDGCN_WAVEFRONT_SIZE``, a ``WARP_SIZE`` that is 64 under HIP). Not all of
it does. torch_sparse 0.6.18's ``csrc/cuda/utils.cuh`` maps ``SHFL_SYNC(mask, var, delta)`` to HIP's
``__shfl(var, delta)`` under ``USE_ROCM``, while every kernel that uses it indexes 32-lane warps
(``row = thread_idx >> 5``, ``lane_idx = thread_idx & (32 - 1)``, ``for (i = 0; i < 32; i++) SHFL_SYNC(…, i)``):
on a 64-lane wavefront lane ``i`` of the whole wave is read, so lanes 32-63 take the other row's values. Such
a call is 32-lane code, and gets the 32-lane helper as the CUDA branch does.

:func:`own_hip_lanes` judges one HIP cross-lane call without an explicit width in an own AMD branch, from the
functions that run it: the function around the call, or, for a call in a function-like ``#define`` body, the
functions that invoke the macro in this file and in the tree's files that include it (``source_root``).
"""

from __future__ import annotations

import bisect
import functools
import os
import posixpath
import re

from vado.rules import cuda_syntax as cs
from vado.scan.lexer import Kind

#: The tag of the fix :func:`own_hip_lanes` proves: the port applies it inside the project's own AMD branch.
OWN_HIP_TAG = "own-hip-warp32"

#: HIP cross-lane calls whose lanes default to the whole wavefront, with the argument count that leaves the
#: width out (the votes have none).
WIDTHLESS = {"__shfl": 2, "__shfl_up": 2, "__shfl_down": 2, "__shfl_xor": 2, "__ballot": 1, "__any": 1, "__all": 1}

#: The calls whose every result differs for lanes 32-63 when 32-lane code runs them on a 64-lane wavefront: an
#: indexed shuffle (``__shfl(v, i)`` reads lane ``i`` of the whole wave) and the votes. ``__shfl_up``/``__shfl_down``
#: differ only next to the halves' boundary; ``__shfl_xor`` with a lane mask below 32 (all 32-lane code passes)
#: never leaves its half, so it is no sign of anything and is not judged here.
WRONG_ON_WAVE64 = frozenset({"__shfl", "__ballot", "__any", "__all"})
#: The calls :func:`own_hip_lanes` judges.
JUDGED = frozenset(WIDTHLESS) - {"__shfl_xor"}

#: Token sequences (texts) that index lanes or warps by 32.
_NARROW = (("&", "31"), ("&", "0x1f"), ("&", "0x1F"), ("&", "(", "32", "-", "1", ")"), ("%", "32"), (">>", "5"),
           ("/", "32"), ("<", "32"), ("<=", "31"))
#: Calls and words that spell the wavefront itself (its size, its lane id, 64-bit masks counted whole).
_WIDE_WORDS = frozenset({"warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__", "__lane_id",
                         "__popcll", "__ffsll", "__clzll", "__builtin_popcountll"})
_WIDE = (("&", "63"), ("&", "0x3f"), ("&", "0x3F"), ("%", "64"), (">>", "6"), ("/", "64"), ("<", "64"))
#: A name that may be a platform-sized width (``WARP_SIZE``, ``kWarpSize``, ``wave_size``).
_WARP_NAME = re.compile(r"(?:warp|wave|wavefront)_?(?:size|width|sz|lanes)|lanes_?per_?(?:warp|wave)|threads_?per_?(?:warp|wave)", re.I)
_FULL32 = frozenset({"0xffffffff", "0xFFFFFFFF", "0xffffffffu", "0xFFFFFFFFu", "0xffffffffU", "0xFFFFFFFFU"})
_SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".cpp", ".cc", ".cxx", ".hip", ".inl", ".inc")
_MAX_FILE = 4 << 20


class OwnLanes:
    """How the functions that run an own-HIP cross-lane call index their lanes.

    ``narrow``: ``(place, text)`` of each 32-lane index (``spmm_cuda.cu:24 thread_idx & (32 - 1)``);
    ``wide``: each sign of the wavefront's width (``warpSize``, ``& 63``, a warp-named constant, ``__popcll``);
    ``silent``: the functions that run it and show neither; ``users``: how many functions run it."""

    __slots__ = ("narrow", "wide", "silent", "users", "macro", "amd32")

    def __init__(self, amd32: dict[str, str] | None = None) -> None:
        self.narrow: list[tuple[str, str]] = []
        self.wide: list[tuple[str, str]] = []
        self.silent: list[str] = []
        self.users = 0
        self.macro = ""
        #: Warp-named macros the project's own AMD branch defines as a literal 32 → where (``common.h:4``).
        self.amd32: dict[str, str] = amd32 or {}

    @property
    def thirty_two(self) -> bool:
        """Whether the call is 32-lane code: every function that runs it indexes 32-lane warps and none the
        wavefront's width."""
        return self.users > 0 and bool(self.narrow) and not self.wide and not self.silent

    def evidence(self, limit: int = 3) -> str:
        """The first ``limit`` 32-lane indexes, for a message."""
        shown = [f"{place} `{text}`" for place, text in self.narrow[:limit]]
        more = len(self.narrow) - limit
        return "; ".join(shown) + (f" and {more} more" if more > 0 else "")


def explicit_width(view: cs.DeviceView, i: int) -> bool:
    """Whether the call at token ``i`` passes more arguments than :data:`WIDTHLESS` names (a shuffle's width)."""
    toks, pairs = view.tokens, view.pairs
    if i + 1 >= len(toks) or (i + 1) not in pairs:
        return True
    return len(cs.split_args(toks, i + 1, pairs[i + 1])) > WIDTHLESS[toks[i][3]]


def own_hip_lanes(ctx, view: cs.DeviceView, i: int, amd32: dict[str, str] | None = None) -> OwnLanes | None:
    """How the functions that run the own-HIP call at token ``i`` index their lanes, or None when the call
    passes a width or stands where no function runs it that vado can find (a macro body of another shape).

    ``amd32``: the warp-named macros the project's own AMD branch defines as a literal 32 (``#ifdef
    __HIP_PLATFORM_AMD__`` ``#define WARP_SIZE 32``), with where: a use of one is a 32-lane index, not the
    wavefront's width. gfx9 GPUs (gfx90a, gfx942, gfx950) have no wave32 mode (``-mwavefrontsize32`` is for
    RDNA), so HIP code built for them runs 64 lanes whatever the macro says."""
    toks = view.tokens
    if toks[i][3] not in JUDGED or explicit_width(view, i):
        return None
    out = OwnLanes(amd32)
    func = view.function_at(toks[i][1])
    if func is not None:
        line_of = getattr(view, "_vado_line_of", None)
        if line_of is None:
            line_of = view._vado_line_of = _line_of(view.text)
        _judge(out, view, func, line_of, ctx.path)
        return out
    macro = _macro_around(toks, i)
    if not macro:
        return None
    out.macro = macro
    _judge_invokers(out, view, macro, ctx.path)
    root = (ctx.options or {}).get("source_root")
    if root:
        for rel, uview in _includer_views(str(os.path.realpath(root)), ctx.path.replace(os.sep, "/")):
            _judge_invokers(out, uview, macro, rel)
    return out if out.users else None


def warp_named(name: str) -> bool:
    """Whether a macro's name says it is a warp's or wavefront's width (``WARP_SIZE``, ``kWaveSize``)."""
    return bool(_WARP_NAME.search(name))


def _macro_around(toks, i: int) -> str:
    """The name of the function-like ``#define`` whose body holds token ``i``, or ``""``."""
    for j in range(i - 1, -1, -1):
        kind = toks[j][0]
        if kind is Kind.EOD:
            return ""
        if kind is Kind.DIRECTIVE:
            d = toks[j][3].replace(" ", "").replace("\t", "")
            if d == "#define" and j + 2 < i and toks[j + 1][0] is Kind.IDENT and toks[j + 2][3] == "(" \
                    and toks[j + 2][1] == toks[j + 1][2]:
                return toks[j + 1][3]
            return ""
    return ""


def _judge_invokers(out: OwnLanes, view: cs.DeviceView, macro: str, path: str) -> None:
    """Judge each function of ``view`` that invokes ``macro``."""
    toks, seen = view.tokens, set()
    line_of = _line_of(view.text)
    for k in view.ident_indices((macro,)):
        if k + 1 >= len(toks) or toks[k + 1][3] != "(" or (k > 0 and toks[k - 1][0] is Kind.DIRECTIVE):
            continue
        func = view.function_at(toks[k][1])
        if func is None or func.start in seen:
            continue
        seen.add(func.start)
        _judge(out, view, func, line_of, path, macro_at=k)


def _judge(out: OwnLanes, view: cs.DeviceView, func, line_of, path: str, macro_at: int | None = None) -> None:
    """Add what ``func``'s body says of its lanes to ``out``."""
    toks, text = view.tokens, view.text
    a = bisect.bisect_left(view.token_starts, func.body_start)
    b = bisect.bisect_left(view.token_starts, func.body_end)
    name = posixpath.basename(path.replace(os.sep, "/"))
    narrow = wide = 0
    out.users += 1
    for k in range(a, b):
        t = toks[k]
        if t[0] is Kind.IDENT and t[3] in out.amd32:
            place = f"{name}:{line_of(t[1])} ({t[3]} is 32 in the AMD branch, {out.amd32[t[3]]})"
            if not out.narrow or out.narrow[-1][0] != place:
                out.narrow.append((place, _line_text(text, t[1])))
            narrow += 1
            continue
        if t[0] is Kind.IDENT and (t[3] in _WIDE_WORDS or t[3].startswith("__builtin_amdgcn_")
                                   or _WARP_NAME.search(t[3])):
            out.wide.append((f"{name}:{line_of(t[1])}", t[3]))
            wide += 1
            continue
        for seq in _NARROW:
            if _matches(toks, k, b, seq):
                place = f"{name}:{line_of(t[1])}"
                if not out.narrow or out.narrow[-1][0] != place:  # one per line
                    out.narrow.append((place, _line_text(text, t[1])))
                narrow += 1
                break
        else:
            for seq in _WIDE:
                if _matches(toks, k, b, seq):
                    out.wide.append((f"{name}:{line_of(t[1])}", _line_text(text, t[1])))
                    wide += 1
                    break
            if t[0] is Kind.NUMBER and t[3] in ("64", "0xffffffffffffffff", "0xFFFFFFFFFFFFFFFF"):
                out.wide.append((f"{name}:{line_of(t[1])}", t[3]))
                wide += 1
    if macro_at is not None and not narrow and _full32_mask_argument(view, macro_at):
        t = toks[macro_at]
        out.narrow.append((f"{name}:{line_of(t[1])}", _line_text(text, t[1])))
        narrow += 1
    if not narrow and not wide:
        out.silent.append(f"{name}:{line_of(toks[a][1]) if a < len(toks) else 0} {func.name}")


def _full32_mask_argument(view: cs.DeviceView, k: int) -> bool:
    """Whether the macro invocation at token ``k`` passes a 32-bit full mask first (``0xffffffff``, or a name the
    file defines so)."""
    toks, pairs = view.tokens, view.pairs
    if (k + 1) not in pairs:
        return False
    args = cs.split_args(toks, k + 1, pairs[k + 1])
    if not args or args[0][1] - args[0][0] != 1:
        return False
    first = toks[args[0][0]][3]
    if first in _FULL32:
        return True
    return any(m.name == first and len(m.body) == 1 and m.body[0][3] in _FULL32 for m in view.defines)


def _matches(toks, k: int, end: int, seq) -> bool:
    """Whether tokens ``k…`` (before ``end``) spell ``seq``."""
    if k + len(seq) > end:
        return False
    return all(toks[k + n][3] == s for n, s in enumerate(seq))


def _line_of(text: str):
    """offset → 1-based line number of ``text``."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return lambda offset: bisect.bisect_right(starts, offset)


def _line_text(text: str, offset: int) -> str:
    """The source line around ``offset``, without its comment, cut to 80 characters."""
    a = text.rfind("\n", 0, offset) + 1
    b = text.find("\n", offset)
    line = text[a:b if b >= 0 else len(text)].strip()
    line = line.split("//", 1)[0].strip()
    return line if len(line) <= 80 else line[:77] + "..."


def _includer_views(root: str, header: str) -> list[tuple[str, cs.DeviceView]]:
    """The tree's files (paths relative to ``root``) that include ``header`` by a quoted ``#include``, lexed."""
    out = []
    for rel in _includers(root).get(header, ()):
        if rel == header:
            continue
        try:
            st = os.stat(os.path.join(root, rel))
        except OSError:
            continue
        view = _view_of(root, rel, st.st_mtime_ns, st.st_size)  # read again once the file changes
        if view is not None:
            out.append((rel, view))
    return out


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"', re.MULTILINE)


@functools.lru_cache(maxsize=4)
def _includers(root: str) -> dict[str, tuple[str, ...]]:
    """Header path → the files that include it with a quoted ``#include`` (beside them, else through the build's
    include directories: :meth:`vado.scan.project_headers.ProjectHeaders.locate`), for the tree at ``root``
    (regular files of C-family suffixes up to 4 MiB; links are not followed). Read once per tree in a process:
    the include lines of a tree change seldom, and a file the index misses only leaves a call for a person."""
    from vado.scan.project_headers import project_headers

    headers = project_headers(root)

    found: dict[str, list[str]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for fn in filenames:
            if not fn.endswith(_SOURCE_SUFFIXES):
                continue
            full = os.path.join(dirpath, fn)
            data = _read(full)
            if data is None:
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            base = posixpath.dirname(rel)
            for m in _INCLUDE.finditer(data):
                target = headers.locate(base, m.group(1).decode("latin-1"), rel)
                if target is not None:
                    found.setdefault(target, []).append(rel)
    return {k: tuple(v) for k, v in found.items()}


def _read(full: str) -> bytes | None:
    """A regular file's bytes (no link, at most 4 MiB), or None."""
    try:
        if os.path.islink(full) or not os.path.isfile(full) or os.path.getsize(full) > _MAX_FILE:
            return None
        with open(full, "rb") as fh:
            return fh.read(_MAX_FILE + 1)
    except OSError:
        return None


@functools.lru_cache(maxsize=32)
def _view_of(root: str, rel: str, _mtime: int, _size: int) -> cs.DeviceView | None:
    """The lexed file ``rel`` of the tree at ``root`` (``_mtime``/``_size`` key the cache), or None."""
    from vado.scan.lexer import code_tokens, is_native_tokens, lex

    data = _read(os.path.join(root, rel))
    if data is None:
        return None
    text = data.decode("latin-1")
    toks = lex(text)
    code = toks.code() if is_native_tokens(toks) else code_tokens(list(toks))
    return cs.DeviceView(text, code)
