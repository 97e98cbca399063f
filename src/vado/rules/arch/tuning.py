"""Exact-architecture conditionals that only pick a tuning constant (ARCH007).

``#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900`` / ``#define MAX_BLOCKS 2`` / ``#else`` /
``#define MAX_BLOCKS 1`` (karpathy/llm.c's ``MAX_1024_THREADS_BLOCKS``) selects no code: every branch
defines the same names, and they differ only in numbers. No AMD GPU is an sm_80, and hipcc leaves
``__CUDA_ARCH__`` undefined, so the port compiles the branch that test leaves for other GPUs; that is a
tuning choice to measure again on AMD, not a correctness question. Conditionals whose branches differ in
anything else (code, intrinsics, PTX, another algorithm, a branch that defines nothing) are not one.
"""

from __future__ import annotations

from dataclasses import dataclass

from vado.rules.arch.directives import CUDA_ARCH_FLOOR, CUDA_ARCH_HOPPER, _CMP, Branch, _directive_name
from vado.scan.lexer import Kind
from vado.scan.preprocessor import evaluate_expression


@dataclass(frozen=True)
class TuningChoice:
    """A conditional group whose branches only give the same names different numbers.

    ``names``: the macros/constants it sets, in order; ``values``: per branch, each name's value text;
    ``amd``: the index of the branch the port compiles (None: it depends on a name vado cannot decide,
    or on the compile pass)."""

    names: tuple[str, ...]
    values: tuple[tuple[str, ...], ...]
    amd: int | None


def _value_slot(toks, body: range, k: int) -> str | None:
    """The name whose value the number at ``k`` is, where ``k`` lies in ``#define NAME <number>`` (the value
    only numbers, parentheses and signs) or in a ``const``/``constexpr`` declaration ``NAME = <number>;``;
    None for a number anywhere else (an argument, an array index, a shuffle offset)."""
    start = body.start
    j = k - 1
    while j >= start and toks[j][3] in ("(", "-", "+"):
        j -= 1
    if j < start:
        return None
    if toks[j][0] is Kind.IDENT and j - 1 >= start and toks[j - 1][0] is Kind.DIRECTIVE:
        if _directive_name(toks[j - 1]) != "#define":
            return None
        if j + 1 < body.stop and toks[j + 1][3] == "(" and toks[j + 1][1] == toks[j][2]:
            return None  # a function-like macro: `#define F() 2`
        e = j + 1
        while e < body.stop and toks[e][0] is not Kind.EOD:
            if toks[e][0] is not Kind.NUMBER and toks[e][3] not in ("(", ")", "-", "+"):
                return None
            e += 1
        return toks[j][3]
    if toks[j][3] != "=" or j - 1 < start or toks[j - 1][0] is not Kind.IDENT:
        return None
    name = toks[j - 1][3]
    s = j - 2
    while s >= start and toks[s][3] not in (";", "{", "}") and toks[s][0] not in (Kind.EOD, Kind.DIRECTIVE):
        s -= 1
    if not any(toks[x][3] in ("const", "constexpr") for x in range(s + 1, j - 1)):
        return None
    e = k + 1
    while e < body.stop and toks[e][3] in (")",):
        e += 1
    return name if e < body.stop and toks[e][3] in (";", ",") else None


def tuning_choice(toks, branches: list[Branch]) -> TuningChoice | None:
    """The :class:`TuningChoice` of ``branches`` (:func:`group_branches`), or None where they are not one:
    fewer than two branches, no ``#else``, a branch without code, or branches whose tokens differ other
    than in the numbers of ``#define NAME N`` / ``const … NAME = N;``."""
    if len(branches) < 2 or _directive_name(toks[branches[-1].directive]) != "#else":
        return None
    first = branches[0].body
    if not any(toks[k][0] is not Kind.EOD for k in first):
        return None
    names: list[str] = []
    slots: list[int] = []
    for off in range(len(first)):
        a = toks[first.start + off]
        for b in branches[1:]:
            if len(b.body) != len(first):
                return None
            t = toks[b.body.start + off]
            if t[0] is not a[0]:
                return None
            if t[3] != a[3]:
                if a[0] is not Kind.NUMBER:
                    return None
                if not slots or slots[-1] != off:
                    slots.append(off)
    if not slots:
        return None  # the same text in every branch: nothing is chosen
    for off in slots:
        for b in branches:
            name = _value_slot(toks, b.body, b.body.start + off)
            if name is None:
                return None
        if name not in names:
            names.append(name)
    values = tuple(tuple(_values_of(toks, b.body, names)) for b in branches)
    return TuningChoice(tuple(names), values, _amd_branch(toks, branches))


def _values_of(toks, body: range, names: list[str]):
    for name in names:
        for k in body:
            if toks[k][3] == name and toks[k][0] is Kind.IDENT:
                e = k + 1
                if e < body.stop and toks[e][3] == "=":
                    e += 1
                v = []
                while e < body.stop and toks[e][0] is not Kind.EOD and toks[e][3] not in (";", ","):
                    v.append(toks[e][3])
                    e += 1
                yield "".join(v)
                break
        else:
            yield "?"


def _amd_branch(toks, branches: list[Branch]) -> int | None:
    """The branch the port compiles: each condition read with ``__CUDA_ARCH__`` undefined, as hipcc reads it,
    provided every comparison of it in the conditions has that one answer in both passes of the port (the
    port rewrites a comparison whose answer differs between the host pass and the device pass of an
    sm_75–sm_89-class GPU into ``defined(__HIP_DEVICE_COMPILE__)``, which would make the branch per pass)."""
    for i, b in enumerate(branches):
        d = b.directive
        name = _directive_name(toks[d])
        if name == "#else":
            return i
        if name not in ("#if", "#elif"):
            return None
        cond = range(d + 1, b.body.start - 1)
        for k in cond:
            if toks[k][3] == "__CUDA_ARCH__" and not _one_answer(toks, k, cond.stop):
                return None
        value = evaluate_expression([toks[k][3] for k in cond], {}, undefined=("__CUDA_ARCH__",))
        if value is None:
            return None
        if value:
            return i
    return None


def _one_answer(toks, k: int, stop: int) -> bool:
    """Whether the ``__CUDA_ARCH__`` at ``k`` is a comparison ``__CUDA_ARCH__ OP N`` whose answer in the port's
    device pass (an sm_75–sm_89-class GPU, or ``==``/``!=``, which the port answers as hipcc does) is the
    host pass's."""
    if k + 2 >= stop or toks[k + 1][3] not in _CMP or toks[k + 2][0] is not Kind.NUMBER:
        return False  # `defined(__CUDA_ARCH__)`, a bare test: the device pass answers otherwise
    op = toks[k + 1][3]
    if op in ("==", "!="):
        return True
    try:
        level = int(toks[k + 2][3].rstrip("uUlL"), 0)
    except ValueError:
        return False
    host = _CMP[op](0, level)
    return _CMP[op](CUDA_ARCH_FLOOR, level) == host and _CMP[op](CUDA_ARCH_HOPPER - 1, level) == host


def uses(toks, names: tuple[str, ...], group: range, indices) -> list[tuple[int, str]]:
    """``(token index, what it is)`` of each use of ``names`` outside the group's tokens ``group``, at most
    three: ``__launch_bounds__`` arguments are named for what they set (CUDA's minimum resident blocks per
    multiprocessor, which ROCm's HIP
    passes as ``amdgpu_waves_per_eu``), others as a plain use."""
    out: list[tuple[int, str]] = []
    for i in indices:
        if i in group or toks[i][3] not in names:
            continue
        if i >= 1 and toks[i - 1][0] is Kind.DIRECTIVE:
            continue  # an #ifdef / #undef of it
        what = f"{toks[i][3]} is used"
        k, depth, commas = i - 1, 0, 0
        while k >= 0 and depth >= 0 and k > i - 64:
            t = toks[k][3]
            if t == ")":
                depth += 1
            elif t == "(":
                if depth == 0:
                    if k >= 1 and toks[k - 1][3] == "__launch_bounds__":
                        what = ("__launch_bounds__'s minimum blocks per multiprocessor (ROCm 7.2.4's hip/amd_detail/"
                                "amd_hip_runtime.h passes it as amdgpu_waves_per_eu, a minimum of waves per execution "
                                "unit)" if commas else "__launch_bounds__'s maximum threads per block")
                    break
                depth -= 1
            elif t == "," and depth == 0:
                commas += 1
            elif t in (";", "{", "}"):
                break
            k -= 1
        out.append((i, what))
        if len(out) == 3:
            break
    return out
