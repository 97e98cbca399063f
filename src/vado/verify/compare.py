"""Comparing two programs' outputs: exactly, or within a tolerance, NaN-aware.

Three kinds of output:

- **stdout** (or any text): split into whitespace-separated tokens line by
  line; tokens that read as numbers (``1.5``, ``-3e-7``, ``nan``, ``inf``) are
  compared with the tolerance, other tokens exactly.
- **arrays** (``.npy`` files, through numpy): same shape and dtype kind,
  then element by element with the tolerance; NaN equals NaN only at the same
  positions, infinities must match exactly.
- **files**: every file of one output directory against the file of the same
  name in the other (``.npy`` as arrays, text as tokens when a tolerance is
  set, anything else byte for byte); a file on one side only is a mismatch.

A :class:`Tolerance` passes an element when any of its tests does:
``|a - b| <= atol + rtol * |b|`` (``b`` is the reference, the original's
output) or, with ``ulp`` set, the distance in units in the last place of the
element's floating type (float32 for float32 arrays, float64 for text) is at
most ``ulp``. The default tolerance is exact.

**Sentinels.** Before it runs a program vado sets ``VADO_SENTINEL=0xDEADBEEF``;
a harness that honours it fills every output buffer with that 32-bit word
before the kernel runs (``cudaMemset`` cannot write a 32-bit pattern; a fill
kernel or a host buffer copied over can). An output word still equal to the
sentinel was never written. :func:`count_sentinels` counts them (4-byte words in
arrays and binary files; in text the tokens ``0xdeadbeef``/``deadbeef``, the
integers 3735928559 and -559038737 and the float32 value -6.2598534e+18). A
port whose output keeps more sentinels than the original's has a kernel that
wrote nothing somewhere, typically a wave64 bug (a mask or a loop bound sized for
32 lanes).

**Oracle.** With a float64 oracle (a third program computing the same thing in
double precision), :func:`compare_to_oracle` passes the port when, element by
element, it is within the tolerance of the oracle or no further from it than
``factor`` times the original is (plus ``atol``).
"""

from __future__ import annotations

import math
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from vado.errors import ToolchainError, UsageError

SENTINEL_WORD = 0xDEADBEEF
SENTINEL_ENV = "VADO_SENTINEL"
_SENTINEL_F32 = struct.unpack("<f", struct.pack("<I", SENTINEL_WORD))[0]
_NUM = re.compile(r"^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)$", re.IGNORECASE)
#: Most mismatches listed per comparison.
MAX_LISTED = 10


@dataclass(frozen=True)
class Tolerance:
    """When two numbers count as equal: ``rtol``, ``atol``, ``ulp`` (None: not used), NaN handling."""

    rtol: float = 0.0
    atol: float = 0.0
    ulp: int | None = None
    nan_equal: bool = True

    @property
    def exact(self) -> bool:
        """True when nothing but equality passes."""
        return self.rtol == 0 and self.atol == 0 and not self.ulp

    def describe(self) -> str:
        """``exact`` or ``rtol=1e-05 atol=0 ulp=4``."""
        if self.exact:
            return "exact"
        parts = [f"rtol={self.rtol:g}", f"atol={self.atol:g}"]
        if self.ulp:
            parts.append(f"ulp={self.ulp}")
        return " ".join(parts)


@dataclass(frozen=True)
class Comparison:
    """The result of comparing one output of the original (``a``) with the port's (``b``)."""

    subject: str
    kind: str
    passed: bool
    elements: int = 0
    mismatches: int = 0
    max_abs: float = 0.0
    max_rel: float = 0.0
    max_ulp: float = 0.0
    sentinels_a: int = 0
    sentinels_b: int = 0
    problem: str = ""
    first: tuple[dict, ...] = field(default=(), hash=False, compare=False)

    def summary(self) -> str:
        """One line for the terminal."""
        if self.problem:
            return self.problem
        text = f"{self.elements} values, {self.mismatches} differ"
        if self.elements and (self.max_abs or self.max_ulp):
            text += f" (max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g}, max ulp {self.max_ulp:.0f})"
        if self.sentinels_a or self.sentinels_b:
            text += f"; sentinels left: original {self.sentinels_a}, port {self.sentinels_b}"
        return text

    def to_json(self) -> dict:
        """Plain JSON for evidence detail."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _ulp64(a: float, b: float) -> float:
    def ordered(x: float) -> int:
        i = struct.unpack("<q", struct.pack("<d", x))[0]
        return -(i & 0x7FFFFFFFFFFFFFFF) if i < 0 else i

    return float(abs(ordered(a) - ordered(b)))


def _close(a: float, b: float, tol: Tolerance, ulp_fn=_ulp64) -> tuple[bool, float, float, float]:
    """(equal, abs diff, rel diff, ulp distance) for two scalars."""
    if a == b:
        return True, 0.0, 0.0, 0.0
    if math.isnan(a) or math.isnan(b):
        ok = tol.nan_equal and math.isnan(a) and math.isnan(b)
        return ok, (0.0 if ok else math.inf), (0.0 if ok else math.inf), (0.0 if ok else math.inf)
    if math.isinf(a) or math.isinf(b):
        return False, math.inf, math.inf, math.inf
    diff = abs(a - b)
    rel = diff / abs(b) if b else math.inf
    ulps = ulp_fn(a, b)
    ok = diff <= tol.atol + tol.rtol * abs(b) or (tol.ulp is not None and ulps <= tol.ulp)
    return ok, diff, rel, ulps


def _is_sentinel_token(tok: str) -> bool:
    low = tok.lower()
    if low in ("0xdeadbeef", "deadbeef", "3735928559", "-559038737"):
        return True
    if _NUM.match(tok):
        try:
            v = float(tok)
        except ValueError:
            return False
        return math.isfinite(v) and abs(v - _SENTINEL_F32) <= 1e-5 * abs(_SENTINEL_F32)
    return False


def count_sentinels_text(text: str) -> int:
    """Tokens of ``text`` that are the sentinel (see the module docstring)."""
    return sum(1 for tok in text.split() if _is_sentinel_token(tok))


def compare_text(a: str, b: str, tol: Tolerance = Tolerance(), subject: str = "stdout",
                 ignore_lines: str | None = None) -> Comparison:
    """Token-wise comparison of two texts (``a`` is the original's).

    ``ignore_lines`` is a regular expression: lines matching it (timings, dates)
    are left out on both sides before comparing.
    """
    la, lb = a.splitlines(), b.splitlines()
    if ignore_lines:
        pat = re.compile(ignore_lines)
        la = [x for x in la if not pat.search(x)]
        lb = [x for x in lb if not pat.search(x)]
        a, b = "\n".join(la), "\n".join(lb)
    elements = mismatches = 0
    max_abs = max_rel = max_ulp = 0.0
    first: list[dict] = []
    problem = ""
    if len(la) != len(lb):
        problem = f"{len(la)} lines in the original's output, {len(lb)} in the port's"
    for ln, (xa, xb) in enumerate(zip(la, lb), start=1):
        ta, tb = xa.split(), xb.split()
        if len(ta) != len(tb):
            mismatches += 1
            if len(first) < MAX_LISTED:
                first.append({"line": ln, "original": xa[:200], "port": xb[:200]})
            continue
        for col, (u, v) in enumerate(zip(ta, tb), start=1):
            elements += 1
            if u == v:
                continue
            if _NUM.match(u) and _NUM.match(v):
                ok, d, r, ul = _close(float(u), float(v), tol)
                if math.isfinite(d):
                    max_abs = max(max_abs, d)
                    max_rel = max(max_rel, r if math.isfinite(r) else 0.0)
                    max_ulp = max(max_ulp, ul)
                if ok:
                    continue
            mismatches += 1
            if len(first) < MAX_LISTED:
                first.append({"line": ln, "token": col, "original": u, "port": v})
    sa, sb = count_sentinels_text(a), count_sentinels_text(b)
    if not problem and sb > sa:
        problem = f"the port's output keeps {sb - sa} more sentinel values than the original's (a kernel wrote nothing there)"
    passed = not problem and mismatches == 0
    return Comparison(subject, "text", passed, elements, mismatches, max_abs, max_rel, max_ulp, sa, sb, problem, tuple(first))


def _numpy():
    try:
        import numpy
    except ImportError:
        raise ToolchainError("numpy comparison needs numpy", "it is not installed", "pip install numpy") from None
    return numpy


def count_sentinels_array(arr) -> int:
    """Elements of ``arr`` whose bytes are the sentinel word (4-byte dtypes; 8-byte: both halves)."""
    np = _numpy()
    if arr.dtype.itemsize == 4:
        return int(np.count_nonzero(np.ascontiguousarray(arr).view(np.uint32) == SENTINEL_WORD))
    if arr.dtype.itemsize == 8:
        return int(np.count_nonzero(np.ascontiguousarray(arr).view(np.uint64) == (SENTINEL_WORD << 32 | SENTINEL_WORD)))
    return 0


def _ulp_array(a, b):
    np = _numpy()
    ints = {2: np.int16, 4: np.int32, 8: np.int64}
    it = ints[a.dtype.itemsize]
    mask = np.array(np.iinfo(it).max, dtype=it)

    def ordered(x):
        i = np.ascontiguousarray(x).view(it)
        return np.where(i < 0, -(i & mask), i).astype(np.float64)

    return np.abs(ordered(a) - ordered(b))


def compare_arrays(a, b, tol: Tolerance = Tolerance(), subject: str = "array") -> Comparison:
    """Element-wise comparison of two numpy arrays (``a`` is the original's)."""
    np = _numpy()
    a = np.asarray(a)
    b = np.asarray(b)
    sa, sb = count_sentinels_array(a), count_sentinels_array(b)
    if a.shape != b.shape:
        return Comparison(subject, "array", False, int(a.size), 0, sentinels_a=sa, sentinels_b=sb,
                          problem=f"shape {a.shape} in the original's output, {b.shape} in the port's")
    if a.dtype.kind != b.dtype.kind:
        return Comparison(subject, "array", False, int(a.size), 0, sentinels_a=sa, sentinels_b=sb,
                          problem=f"dtype {a.dtype} in the original's output, {b.dtype} in the port's")
    floating = a.dtype.kind in "fc"
    shape = b.shape if a.dtype.kind != "c" else None  # complex values are compared as (real..., imag...)
    if a.dtype.kind == "c":
        a = np.concatenate([a.real.ravel(), a.imag.ravel()])
        b = np.concatenate([b.real.ravel(), b.imag.ravel()])
    fa = a.ravel()
    fb = b.ravel()
    if not floating:
        bad = fa != fb
        diff = np.abs(fa.astype(np.float64) - fb.astype(np.float64))
        ok = ~bad | (diff <= tol.atol + tol.rtol * np.abs(fb.astype(np.float64)))
        ulps = np.zeros(diff.shape)
    else:
        xa = fa.astype(np.float64)
        xb = fb.astype(np.float64)
        nan_a, nan_b = np.isnan(xa), np.isnan(xb)
        both_nan = nan_a & nan_b
        finite = np.isfinite(xa) & np.isfinite(xb)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(finite, np.abs(xa - xb), 0.0)
            ulps = np.where(finite, _ulp_array(fa, fb) if fa.dtype.itemsize in (2, 4, 8) and fa.dtype == fb.dtype else 0.0, 0.0)
            within = diff <= tol.atol + tol.rtol * np.abs(np.where(finite, xb, 0.0))
        if tol.ulp is not None:
            within |= ulps <= tol.ulp
        exact_eq = (xa == xb) | (both_nan & tol.nan_equal)
        ok = exact_eq | (finite & within)
    bad_idx = np.flatnonzero(~ok)
    finite_diff = diff[np.isfinite(diff)] if diff.size else diff
    max_abs = float(finite_diff.max()) if finite_diff.size else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(np.abs(fb.astype(np.float64)) > 0, diff / np.abs(fb.astype(np.float64)), 0.0) if diff.size else diff
    rel = rel[np.isfinite(rel)] if rel.size else rel
    max_rel = float(rel.max()) if rel.size else 0.0
    max_ulp = float(ulps.max()) if getattr(ulps, "size", 0) else 0.0
    first = tuple(
        {"index": [int(x) for x in np.unravel_index(int(i), shape)] if shape else int(i),
         "original": repr(fa[i].item()), "port": repr(fb[i].item())}
        for i in bad_idx[:MAX_LISTED]
    )
    problem = ""
    if sb > sa:
        problem = f"the port's output keeps {sb - sa} more sentinel values than the original's (a kernel wrote nothing there)"
    passed = not problem and bad_idx.size == 0
    return Comparison(subject, "array", passed, int(fa.size), int(bad_idx.size), max_abs, max_rel, max_ulp,
                      sa, sb, problem, first)


def compare_npy_files(pa: str | os.PathLike, pb: str | os.PathLike, tol: Tolerance = Tolerance(),
                      subject: str | None = None) -> Comparison:
    """Load two ``.npy`` files and compare them as arrays."""
    np = _numpy()
    subject = subject or Path(pb).name
    try:
        a = np.load(pa, allow_pickle=False)
        b = np.load(pb, allow_pickle=False)
    except (OSError, ValueError) as exc:
        return Comparison(subject, "array", False, problem=f"cannot read an array: {exc}")
    return compare_arrays(a, b, tol, subject)


def _is_text(data: bytes) -> bool:
    if b"\0" in data[:8192]:
        return False
    try:
        data[:8192].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def compare_bytes(a: bytes, b: bytes, subject: str) -> Comparison:
    """Byte-for-byte comparison, with sentinel words counted in both."""
    def words(d: bytes) -> int:
        n = len(d) // 4
        return sum(1 for k in range(n) if d[4 * k:4 * k + 4] == struct.pack("<I", SENTINEL_WORD))

    sa, sb = words(a), words(b)
    if a == b:
        return Comparison(subject, "bytes", True, len(a), 0, sentinels_a=sa, sentinels_b=sb)
    n = min(len(a), len(b))
    differ = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
    first_at = next((k for k in range(n) if a[k] != b[k]), n)
    problem = f"{len(a)} bytes in the original's file, {len(b)} in the port's" if len(a) != len(b) else ""
    if not problem and sb > sa:
        problem = f"the port's output keeps {sb - sa} more sentinel words than the original's (a kernel wrote nothing there)"
    return Comparison(subject, "bytes", False, max(len(a), len(b)), differ, sentinels_a=sa, sentinels_b=sb,
                      problem=problem, first=({"offset": first_at},))


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def compare_dirs(da: str | os.PathLike, db: str | os.PathLike, tol: Tolerance = Tolerance(),
                 ignore: Sequence[str] = ()) -> list[Comparison]:
    """Compare every file of two output directories (``da`` is the original's)."""
    fa, fb = _files(Path(da)), _files(Path(db))
    out: list[Comparison] = []
    for name in sorted(set(fa) | set(fb)):
        if name in ignore:
            continue
        if name not in fb:
            out.append(Comparison(name, "file", False, problem="written by the original only"))
            continue
        if name not in fa:
            out.append(Comparison(name, "file", False, problem="written by the port only"))
            continue
        if name.endswith(".npy"):
            out.append(compare_npy_files(fa[name], fb[name], tol, name))
            continue
        a, b = fa[name].read_bytes(), fb[name].read_bytes()
        if _is_text(a) and _is_text(b) and (not tol.exact or a != b):
            out.append(compare_text(a.decode("utf-8"), b.decode("utf-8"), tol, name))
        else:
            out.append(compare_bytes(a, b, name))
    return out


def numbers_of(text: str) -> list[float]:
    """The numeric tokens of a text, in order."""
    return [float(t) for t in text.split() if _NUM.match(t)]


def compare_to_oracle(original: Sequence[float], port: Sequence[float], oracle: Sequence[float],
                      tol: Tolerance = Tolerance(), factor: float = 2.0, subject: str = "oracle") -> Comparison:
    """Judge the port against a float64 oracle (see the module docstring)."""
    if not (len(original) == len(port) == len(oracle)):
        return Comparison(subject, "oracle", False, problem=(
            f"value counts differ: original {len(original)}, port {len(port)}, oracle {len(oracle)}"))
    if factor < 0:
        raise UsageError("oracle factor must not be negative", f"got {factor}")
    mismatches = 0
    max_abs = max_rel = 0.0
    first = []
    for i, (o, p, r) in enumerate(zip(original, port, oracle)):
        ok, d, rel, _ = _close(p, r, tol)
        if not ok and math.isfinite(d):
            _, d_orig, _, _ = _close(o, r, tol)
            ok = math.isfinite(d_orig) and d <= factor * d_orig + tol.atol
        if math.isfinite(d):
            max_abs = max(max_abs, d)
            max_rel = max(max_rel, rel if math.isfinite(rel) else 0.0)
        if not ok:
            mismatches += 1
            if len(first) < MAX_LISTED:
                first.append({"index": i, "original": o, "port": p, "oracle": r})
    return Comparison(subject, "oracle", mismatches == 0, len(port), mismatches, max_abs, max_rel, 0.0,
                      problem="", first=tuple(first))
