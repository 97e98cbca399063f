"""``vado port`` on inline PTX: fixture pairs, hipcc compile checks, and a CPU proof of the exact rewrites.

Fixtures: ``tests/fixtures/PORT-PTX/<name>.cu`` → ``<name>.fixed.hip`` plus
``<name>.remaining.json`` (what the port leaves for humans: code, line, column,
the applicability of the fix still offered). A ``vado-port:`` comment line holds
the options (``--target hip-5.2 --unsafe-fixes``); ``vado-compile-skip: why``
marks a fixture whose output keeps PTX on purpose (the blockers).

Checks: the port gives the ``.fixed.hip`` exactly; porting that again changes
nothing; every ``.fixed.hip`` compiles with its target's hipcc (ROCm 7.2.4 for
gfx942 and gfx950, or Debian's HIP 5.2 for gfx90a: ``tests/_compile_fixtures.py``); the exact
(safe) rewrites of arithmetic compute what PTX computes on random inputs,
checked by compiling the emitted C++ with the host compiler against a Python
model of the PTX ISA semantics. Regenerate with ``VADO_UPDATE_SNAPSHOTS=1`` and
review the diff.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from _compile_fixtures import compile_all, compiler_for, require_compiler

from vado.knowledge.targets import get_target
from vado.model import Applicability
from vado.port.file import PortOptions, port_bytes
from vado.rules.cuda_syntax import find_asm
from vado.rules.ptx_lower import Lowering, Refusal, lower
from vado.scan.classify import classify
from vado.scan.lexer import code_tokens, tokenize

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "PORT-PTX"
OPTIONS = re.compile(r"//[ \t]*vado-port:[ \t]*([^\n]*)")
SKIP = re.compile(r"vado-compile-skip:[ \t]*([^\n]*)")
NEWER_THAN_HIP52 = re.compile(r"\b__(?:shfl(?:_up|_down|_xor)?|ballot|any|all)_sync\b")
UPDATE = os.environ.get("VADO_UPDATE_SNAPSHOTS") == "1"


INPUTS = sorted(HERE.glob("*.cu"))


def fixed_of(path: Path) -> Path:
    return path.with_name(path.stem + ".fixed.hip")


def options_of(text: str):
    m = OPTIONS.search(text)
    args = shlex.split(m.group(1)) if m else []
    target, unsafe, wave = "rocm-7.2", False, "warp32"
    it = iter(args)
    for a in it:
        if a == "--target":
            target = next(it)
        elif a == "--unsafe-fixes":
            unsafe = True
        elif a == "--wave":
            wave = next(it)
        else:
            raise ValueError(f"unknown fixture option {a!r}")
    return get_target(target), PortOptions(unsafe=unsafe, wave=wave)


def port(path: Path, data: bytes):
    target, options = options_of(data.decode("latin-1"))
    return port_bytes(path.name, classify(path.name), data, target, options)


def remaining_doc(result) -> list[dict]:
    return [{"code": f.code, "line": f.span.line, "column": f.span.column,
             "fix": f.fix.applicability.value if f.fix else None}
            for f in sorted(result.remaining, key=lambda f: (f.span.line, f.span.column, f.code))
            if f.family == "PTX"]


def test_every_required_idiom_has_a_fixture():
    names = {p.stem for p in INPUTS}
    assert {"laneid", "special-regs", "shfl", "shfl-sync", "vote", "loads", "stores", "cvt", "bitfield", "prmt",
            "lop3", "bitcount", "mulhi", "carry", "fences", "nanosleep", "clocks", "barrier", "atomics", "shapes",
            "negative", "blockers", "leftovers", "unsafe-not-applied"} <= names
    for p in INPUTS:
        assert UPDATE or fixed_of(p).is_file(), f"{p.name}: missing {fixed_of(p).name}"


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_port_matches_fixed(path: Path):
    result = port(path, path.read_bytes())
    snap = path.with_name(path.stem + ".remaining.json")
    doc = remaining_doc(result)
    if UPDATE:
        fixed_of(path).write_bytes(result.after)
        snap.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    assert result.after.decode("latin-1") == fixed_of(path).read_text(encoding="latin-1")
    assert doc == json.loads(snap.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_port_is_idempotent(path: Path):
    fixed = fixed_of(path).read_bytes()
    again = port(path, fixed)  # as the input's kind, so the PTX rules run on it again
    assert again.after == fixed, f"porting {fixed_of(path).name} again changed it"
    assert again.applied == {}


def test_negative_cases_are_untouched():
    src = (HERE / "negative.cu").read_text(encoding="latin-1")
    out = fixed_of(HERE / "negative.cu").read_text(encoding="latin-1")
    for keep in ('// asm("mov.u32 %0, %%laneid;" : "=r"(lane));', '"asm(\\"brev.b32 %0, %1;\\")"',
                 'asm volatile("rdtsc" : "=a"(lo), "=d"(hi));', '__asm__ __volatile__("pause");',
                 '#define LANE_ID(out) asm volatile("mov.u32 %0, %%laneid;" : "=r"(out))', 'asm volatile("" ::: "memory");'):
        assert keep in src and keep in out
    remaining = port(HERE / "negative.cu", src.encode("latin-1")).remaining
    (macro,) = [f for f in remaining if f.family == "PTX"]
    assert macro.code == "PTX001" and macro.fix is None and "macro" in macro.data["no_fix"]


def test_blockers_name_the_amd_route():
    src = (HERE / "blockers.cu").read_text(encoding="latin-1")
    result = port(HERE / "blockers.cu", src.encode("latin-1"))
    after = result.after.decode("latin-1")
    for stmt in re.findall(r"asm volatile\(.*?\);", src, re.DOTALL):
        assert stmt in after  # no blocker is rewritten
    routes = {f.data["template"].split()[0].split(".")[0]: f.message for f in result.remaining if f.code == "PTX003"}
    assert set(routes) == {"mma", "wgmma", "cp", "ldmatrix", "mbarrier", "tcgen05"}
    assert "rocWMMA" in routes["mma"] and "MFMA" in routes["mma"]
    assert "Composable Kernel" in routes["wgmma"]
    assert "rocWMMA" in routes["ldmatrix"]
    assert "__syncthreads" in routes["cp"]
    assert "CK Tile" in routes["tcgen05"]


# --- hipcc --------------------------------------------------------------------------------------------


def _compile_skip(path: Path) -> str | None:
    """Why ``path``'s output is not compiled (its own ``vado-compile-skip:``, or a HIP 5.2 gap), or ``None``."""
    m = SKIP.search(path.read_text(encoding="latin-1"))
    if m:
        return m.group(1).strip()
    compiler = compiler_for(_target_name(path))
    fixed = fixed_of(path)
    found = NEWER_THAN_HIP52.search(fixed.read_text(encoding="latin-1")) if fixed.is_file() else None
    if compiler is not None and compiler.is_hip52 and found:
        return f"keeps {found.group(0)} for HIP 6.2+; Debian's hipcc is HIP 5.2"
    return None


def _target_name(path: Path) -> str:
    return options_of(path.read_text(encoding="latin-1"))[0].name


COMPILED = [p for p in INPUTS if not SKIP.search(p.read_text(encoding="latin-1"))]


@pytest.fixture(scope="module")
def hipcc_errors(tmp_path_factory) -> dict[str, str | None]:
    """``{file name: None | stderr}``: every ``.fixed.hip`` compiled once by its target's hipcc, all cores at a time.

    A ``rocm-7.2`` output is compiled with ROCm 7.2.4 for gfx942 and gfx950, a
    ``hip-5.2`` output with Debian's HIP 5.2 for gfx90a (``tests/_compile_fixtures.py``).
    """
    jobs = []
    for p in COMPILED:
        compiler = compiler_for(_target_name(p))
        if compiler is not None and _compile_skip(p) is None:
            jobs.append((fixed_of(p).name, compiler, fixed_of(p), ()))
    return compile_all(jobs, tmp_path_factory.mktemp("hipcc"))


def test_fixtures_that_compile_leave_no_ptx():
    """A fixture is compiled unless it says why not, so its output must hold no PTX (macros aside)."""
    for p in COMPILED:
        left = [f for f in port(p, p.read_bytes()).remaining if f.family == "PTX"]
        assert all("macro" in f.data.get("no_fix", "") for f in left), (p.name, [f.message for f in left])


@pytest.mark.hipcc
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: fixed_of(p).name)
def test_fixed_hip_compiles(path: Path, hipcc_errors):
    compiler = require_compiler(_target_name(path))
    reason = _compile_skip(path)
    if reason:
        pytest.skip(reason)
    err = hipcc_errors[fixed_of(path).name]
    assert err is None, f"{compiler.label} failed on {fixed_of(path).name} for {', '.join(compiler.archs)}:\n{err}"


# --- applicability per idiom --------------------------------------------------------------------------

HIP52 = get_target("hip-5.2")
ROCM72 = get_target("rocm-7.2")


def lowered(stmt: str, target=HIP52, decl: str = "unsigned a, b, c, d; float f, g; unsigned long long q; "
                                                "unsigned short h; float* p;", wave: str = "native") -> Lowering | Refusal:
    """``stmt`` lowered for ``target``; ``wave`` is native here (the wave64 rewrites), warp32 where a test says."""
    text = "__device__ void k() { " + decl + "\n  " + stmt + "\n}\n"
    (asm,) = find_asm(text, code_tokens(tokenize(text)))
    return lower(asm, target, text, wave)


SAFE, UNSAFE, DISPLAY = Applicability.SAFE, Applicability.UNSAFE, Applicability.DISPLAY_ONLY


@pytest.mark.parametrize("stmt, level, contains", [
    ('asm("mov.u32 %0, %%laneid;" : "=r"(a));', SAFE, "a = __lane_id()"),
    ('asm("mov.u32 %0, %%warpid;" : "=r"(a));', UNSAFE, "/ warpSize"),
    ('asm("mov.u32 %0, %%nwarpid;" : "=r"(a));', DISPLAY, "blockDim.x * blockDim.y * blockDim.z"),
    ('asm("mov.u32 %0, %%smid;" : "=r"(a));', UNSAFE, "__smid()"),
    ('asm("mov.u32 %0, %%clock;" : "=r"(a));', SAFE, "clock()"),
    ('asm("mov.u64 %0, %%clock64;" : "=l"(q));', SAFE, "clock64()"),
    ('asm("mov.u64 %0, %%globaltimer;" : "=l"(q));', UNSAFE, "__builtin_amdgcn_s_memrealtime()"),
    ('asm("shfl.sync.down.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(a) : "r"(b));', UNSAFE, "__shfl_down(b, 1, 32)"),
    ('asm("shfl.sync.down.b32 %0, %1, 1, 0x1f, %2;" : "=r"(a) : "r"(b), "r"(c));', DISPLAY, "__shfl_down(b, 1, 32)"),
    ('asm("activemask.b32 %0;" : "=r"(a));', UNSAFE, "__ballot(1)"),
    ('asm("ld.global.nc.f32 %0, [%1];" : "=f"(f) : "l"(p));', SAFE, "__ldg((const float*)p)"),
    ('asm("ld.global.cs.f32 %0, [%1];" : "=f"(f) : "l"(p));', SAFE, "__builtin_nontemporal_load((const float*)p)"),
    ('asm("ld.global.cg.f32 %0, [%1];" : "=f"(f) : "l"(p));', UNSAFE, "*(const float*)p"),
    ('asm("st.global.cs.f32 [%0], %1;" :: "l"(p), "f"(f));', SAFE, "__builtin_nontemporal_store(f, (float*)p)"),
    ('asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));', SAFE, "(_Float16)f"),
    ('asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(a) : "f"(f));', UNSAFE, "__float2int_rz(f)"),
    ('asm("bfe.u32 %0, %1, 8, 4;" : "=r"(a) : "r"(b));', SAFE, ">> 8) & 0xfu"),
    ('asm("bfe.u32 %0, %1, %2, %3;" : "=r"(a) : "r"(b), "r"(c), "r"(d));', UNSAFE, "__bitextract_u32(b, c, d)"),
    ('asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(a) : "r"(b), "r"(c), "r"(d), "r"(d));', UNSAFE, "__bitinsert_u32(c, b, d, d)"),
    ('asm("prmt.b32 %0, %1, %2, 0x5410;" : "=r"(a) : "r"(b), "r"(c));', SAFE, "__byte_perm(b, c, 0x5410u)"),
    ('asm("prmt.b32 %0, %1, %2, %3;" : "=r"(a) : "r"(b), "r"(c), "r"(d));', UNSAFE, "__byte_perm(b, c, d)"),
    ('asm("popc.b64 %0, %1;" : "=r"(a) : "l"(q));', SAFE, "a = __popcll(q)"),
    ('asm("clz.b32 %0, %1;" : "=r"(a) : "r"(b));', SAFE, "a = __clz(b)"),
    ('asm("brev.b64 %0, %1;" : "=l"(q) : "l"(q));', SAFE, "q = __brevll(q)"),
    ('asm("mul.hi.u64 %0, %1, %2;" : "=l"(q) : "l"(q), "l"(q));', SAFE, "__umul64hi(q, q)"),
    ('asm("membar.sys;");', SAFE, "__threadfence_system()"),
    ('asm("fence.acq_rel.cta;");', SAFE, "__threadfence_block()"),
    ('asm("nanosleep.u32 1000;");', SAFE, "__builtin_amdgcn_s_sleep(23)"),
    ('asm("bar.sync 0;");', SAFE, "__syncthreads()"),
    ('asm("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(f));', SAFE, "atomicAdd((float*)p, f)"),
    ('asm("add.rn.f32 %0, %1, %2;" : "=f"(f) : "f"(f), "f"(f));', UNSAFE, "f = __ocml_add_rte_f32(f, f)"),
    ('asm("div.rn.f32 %0, %1, %2;" : "=f"(f) : "f"(f), "f"(f));', UNSAFE, "f = f / f"),
    ('asm("sqrt.rn.f64 %0, %1;" : "=d"(x) : "d"(x));', UNSAFE, "x = __builtin_sqrt(x)"),
])
def test_applicability_of_each_idiom(stmt, level, contains):
    got = lowered(stmt)
    assert isinstance(got, Lowering), got
    assert got.applicability is level
    assert contains in got.code
    if level is not SAFE:
        assert got.notes, "a rewrite that is not safe says why"


@pytest.mark.parametrize("target", [HIP52, ROCM72], ids=lambda t: t.name)
@pytest.mark.parametrize("stmt, contains", [
    ('asm("mov.u32 %0, %%laneid;" : "=r"(a));', "a = vado_lane32()"),
    ('asm("mov.u32 %0, %%lanemask_lt;" : "=r"(a));', "a = ((1u << vado_lane32()) - 1u)"),
    ('asm("mov.u32 %0, %%lanemask_gt;" : "=r"(a));', "a = (~((2u << vado_lane32()) - 1u))"),
    ('asm("shfl.sync.down.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(a) : "r"(b));', "a = vado_shfl_down_sync32(0xffffffff, b, 1, 32)"),
    ('asm("shfl.sync.bfly.b32 %0, %1, 4, 0x1f, %2;" : "=r"(a) : "r"(b), "r"(c));', "a = vado_shfl_xor_sync32(c, b, 4, 32)"),
    ('asm("shfl.idx.b32 %0, %1, %2, 0x1f;" : "=r"(a) : "r"(b), "r"(c));', "a = vado_shfl32(b, c, 32)"),
    ('asm("activemask.b32 %0;" : "=r"(a));', "a = vado_activemask32()"),
    ('asm("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }" : "=r"(a) : "r"(b), "r"(c));',
     "vado_ballot_sync32(c, _ptx_p)"),
    ('asm("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; vote.sync.any.pred q, p, 0xffffffff; selp.u32 %0, 1, 0, q; }" '
     ': "=r"(a) : "r"(b));', "vado_any_sync32(0xffffffff, _ptx_p)"),
])
def test_warp32_lowering_is_exact(stmt, contains, target):
    """Under warp32 emulation (the default wave mode) the lane, mask, shuffle and vote idioms become the
    vado_*32 helpers of vado.port.wave: CUDA's 32-lane warp, exactly, on every HIP (safe)."""
    got = lowered(stmt, target, wave="warp32")
    assert isinstance(got, Lowering), got
    assert got.applicability is SAFE, got.notes
    assert contains in got.code


def test_sync_builtins_follow_the_target_feature():
    stmt = 'asm("vote.sync.ballot.b32 %0, %1, 0xffffffff;" : "=r"(a) : "r"(b));'
    assert isinstance(lowered(stmt), Refusal)  # %1 cannot be a predicate operand
    stmt = 'asm("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" : "=r"(a) : "r"(b));'
    assert "__ballot(_ptx_p)" in lowered(stmt, HIP52).code
    assert "__ballot_sync(0xffffffffffffffffull, _ptx_p)" in lowered(stmt, ROCM72).code
    shfl = 'asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "=r"(a) : "r"(b));'
    assert lowered(shfl, ROCM72).code == "a = __shfl_sync(0xffffffffffffffffull, b, 0, 32)"


@pytest.mark.parametrize("stmt, why", [
    ('asm("addc.u32 %0, %1, %2;" : "=r"(a) : "r"(b), "r"(c));', "reads a carry"),
    ('asm("mov.u32 %0, %%nsmid;" : "=r"(a));', "no portable idiom"),
    ('asm("shfl.sync.down.b32 %0|p, %1, 1, 0x1f, 0xffffffff;" : "=r"(a) : "r"(b));', "predicate destination"),
    ('asm("L1: bra L1;");', "labels"),
    ('asm("add.u32 %0, %1, 1;" : "=r"(a) : "r"(b), "r"(c));', "never used"),
    ('asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(f) : "f"(f), "f"(g));', "no automatic rewrite"),  # flushes subnormals
])
def test_refusals_say_why(stmt, why):
    got = lowered(stmt)
    assert isinstance(got, Refusal) and why in got.reason


# --- CPU proof: the exact rewrites compute what PTX computes -----------------------------------------

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def _ptx_bfe(a, pos, length, signed, w=32):
    pos, length = pos & 0xFF, length & 0xFF
    sbit = 0 if not signed or length == 0 else (a >> min(pos + length - 1, w - 1)) & 1
    d = 0
    for i in range(w):
        bit = (a >> (pos + i)) & 1 if i < length and pos + i <= w - 1 else sbit
        d |= bit << i
    return d


def _ptx_bfi(a, b, pos, length, w=32):
    pos, length = pos & 0xFF, length & 0xFF
    f = b
    for i in range(length):
        if pos + i > w - 1:
            break
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return f


def _ptx_prmt(a, b, sel):
    pair = (b << 32) | a
    d = 0
    for k in range(4):
        nib = sel >> (4 * k) & 0xF
        byte = (pair >> (8 * (nib & 7))) & 0xFF
        if nib & 8:
            byte = 0xFF if byte & 0x80 else 0
        d |= byte << (8 * k)
    return d


def _bf16_rn(bits):
    if (bits & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FFF
    sign, mag = bits >> 31, bits & 0x7FFFFFFF
    # Exact round-to-nearest-even of the magnitude to 16 bits (overflow rounds to inf, which is the bit pattern).
    q, r = divmod(mag, 1 << 16)
    if r > 0x8000 or (r == 0x8000 and q & 1):
        q += 1
    return (sign << 15) | q


def _carry_chain(ops, regs):
    """PTX add.cc/addc/sub.cc/subc/mad.lo.cc/madc.hi semantics on u32/u64 words; returns the destinations."""
    cf = 0
    out = {}
    for op, w, dst, args in ops:
        mask = (1 << w) - 1
        v = [regs[x] if isinstance(x, str) else x for x in args]
        if op in ("add.cc", "addc", "addc.cc"):
            s = v[0] + v[1] + (cf if op.startswith("addc") else 0)
            res, cout = s & mask, s >> w
        elif op in ("sub.cc", "subc", "subc.cc"):
            s = v[0] - v[1] - (cf if op.startswith("subc") else 0)
            res, cout = s & mask, 1 if s < 0 else 0
        elif op in ("mad.lo.cc", "madc.lo", "madc.lo.cc"):
            s = ((v[0] * v[1]) & mask) + v[2] + (cf if op.startswith("madc") else 0)
            res, cout = s & mask, s >> w
        elif op in ("madc.hi", "madc.hi.cc", "mad.hi.cc"):
            s = ((v[0] * v[1]) >> w) + v[2] + (cf if op.startswith("madc") else 0)
            res, cout = s & mask, s >> w
        else:
            raise AssertionError(op)
        regs[dst] = res
        out[dst] = res
        if op.endswith(".cc"):
            cf = cout & 1
    return out


R32 = lambda rnd: rnd.choice([0, 1, M32, M32 - 1, 0x80000000, 0x7FFFFFFF, rnd.getrandbits(32), rnd.getrandbits(32)])
R64 = lambda rnd: rnd.choice([0, 1, M64, 1 << 63, rnd.getrandbits(64), rnd.getrandbits(64)])
RPOS = lambda rnd: rnd.choice([0, 1, 7, 16, 31, 32, 33, 40, 255, 256 + 3, rnd.getrandbits(8)])

#: (asm statement over o0..oN, operand C types, input generators, reference: inputs -> outputs)
CASES = [
    ('asm("add.cc.u32 %0, %3, %5;\\n\\taddc.cc.u32 %1, %4, %6;\\n\\taddc.u32 %2, 0, 0;" : "=r"(o0), "=r"(o1), "=r"(o2) : "r"(o3), "r"(o4), "r"(o5), "r"(o6));',
     ["u32"] * 7, [None] * 3 + [R32] * 4,
     lambda i: list(_carry_chain([("add.cc", 32, "o0", ["a0", "b0"]), ("addc.cc", 32, "o1", ["a1", "b1"]),
                                  ("addc", 32, "o2", [0, 0])], dict(a0=i[3], a1=i[4], b0=i[5], b1=i[6])).values())),
    ('asm("sub.cc.u32 %0, %0, %3;\\n\\tsubc.cc.u32 %1, %1, %4;\\n\\tsubc.u32 %2, 0, 0;" : "+r"(o0), "+r"(o1), "=r"(o2) : "r"(o3), "r"(o4));',
     ["u32"] * 5, [R32, R32, None, R32, R32],
     lambda i: list(_carry_chain([("sub.cc", 32, "o0", ["lo", "b0"]), ("subc.cc", 32, "o1", ["hi", "b1"]),
                                  ("subc", 32, "o2", [0, 0])], dict(lo=i[0], hi=i[1], b0=i[3], b1=i[4])).values())),
    ('asm("add.cc.u32 %0, %4, %8;\\n\\taddc.cc.u32 %1, %5, %9;\\n\\taddc.cc.u32 %2, %6, %10;\\n\\taddc.u32 %3, %7, %11;" : "=r"(o0), "=r"(o1), "=r"(o2), "=r"(o3) : "r"(o4), "r"(o5), "r"(o6), "r"(o7), "r"(o8), "r"(o9), "r"(o10), "r"(o11));',
     ["u32"] * 12, [None] * 4 + [R32] * 8,
     lambda i: list(_carry_chain([("add.cc", 32, "d0", ["a0", "b0"]), ("addc.cc", 32, "d1", ["a1", "b1"]),
                                  ("addc.cc", 32, "d2", ["a2", "b2"]), ("addc", 32, "d3", ["a3", "b3"])],
                                 {**{f"a{j}": i[4 + j] for j in range(4)}, **{f"b{j}": i[8 + j] for j in range(4)}}).values())),
    ('asm("mad.lo.cc.u32 %0, %3, %4, %0;\\n\\tmadc.hi.cc.u32 %1, %3, %4, %1;\\n\\taddc.u32 %2, 0, 0;" : "+r"(o0), "+r"(o1), "=r"(o2) : "r"(o3), "r"(o4));',
     ["u32"] * 5, [R32, R32, None, R32, R32],
     lambda i: list(_carry_chain([("mad.lo.cc", 32, "o0", ["x", "y", "lo"]), ("madc.hi.cc", 32, "o1", ["x", "y", "hi"]),
                                  ("addc", 32, "o2", [0, 0])], dict(x=i[3], y=i[4], lo=i[0], hi=i[1])).values())),
    ('asm("add.cc.u64 %0, %2, %3;\\n\\taddc.u32 %1, 0, 0;" : "=l"(o0), "=r"(o1) : "l"(o2), "l"(o3));',
     ["u64", "u32", "u64", "u64"], [None, None, R64, R64],
     lambda i: list(_carry_chain([("add.cc", 64, "s", ["a", "b"]), ("addc", 32, "c", [0, 0])], dict(a=i[2], b=i[3])).values())),
    ('asm("bfe.s32 %0, %1, %2, %3;" : "=r"(o0) : "r"(o1), "r"(o2), "r"(o3));',
     ["u32"] * 4, [None, R32, RPOS, RPOS], lambda i: [_ptx_bfe(i[1], i[2], i[3], True)]),
    ('asm("bfe.s32 %0, %1, 20, 16;" : "=r"(o0) : "r"(o1));', ["u32"] * 2, [None, R32],
     lambda i: [_ptx_bfe(i[1], 20, 16, True)]),
    ('asm("bfe.u32 %0, %1, 24, 12;" : "=r"(o0) : "r"(o1));', ["u32"] * 2, [None, R32],
     lambda i: [_ptx_bfe(i[1], 24, 12, False)]),
    ('asm("bfe.s32 %0, %1, 3, 0;" : "=r"(o0) : "r"(o1));', ["u32"] * 2, [None, R32], lambda i: [0]),
    ('asm("bfi.b32 %0, %1, %2, 28, 8;" : "=r"(o0) : "r"(o1), "r"(o2));', ["u32"] * 3, [None, R32, R32],
     lambda i: [_ptx_bfi(i[1], i[2], 28, 8)]),
    ('asm("prmt.b32 %0, %1, %2, 0x8b1f;" : "=r"(o0) : "r"(o1), "r"(o2));', ["u32"] * 3, [None, R32, R32],
     lambda i: [_ptx_prmt(i[1], i[2], 0x8B1F)]),
    ('asm("prmt.b32 %0, %1, %2, 0x7531;" : "=r"(o0) : "r"(o1), "r"(o2));', ["u32"] * 3, [None, R32, R32],
     lambda i: [_ptx_prmt(i[1], i[2], 0x7531)]),
    ('asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(o0) : "r"(o1), "r"(o2), "r"(o3));', ["u32"] * 4, [None, R32, R32, R32],
     lambda i: [((i[1] * i[2] >> 32) + i[3]) & M32]),
    ('asm("mul.wide.s32 %0, %1, %2;" : "=l"(o0) : "r"(o1), "r"(o2));', ["u64", "u32", "u32"], [None, R32, R32],
     lambda i: [(_s32(i[1]) * _s32(i[2])) & M64]),
    ('asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(o0) : "f"(o1));', ["u16", "f32"], [None, R32],
     lambda i: [_bf16_rn(i[1])]),
]


def _s32(x):
    return x - (1 << 32) if x & 0x80000000 else x


_HOST_SHIMS = r"""
#include <cstdio>
#include <cstring>
static unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
static unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
// HIP 5.2's __byte_perm (amd_device_functions.h): each selector nibble's low 3 bits pick a byte.
static unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x; unsigned r = 0;
  for (int k = 0; k < 4; ++k) r |= (unsigned)((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r; }
"""
_CTYPE = {"u16": "unsigned short", "u32": "unsigned int", "u64": "unsigned long long", "f32": "float"}


def _host_compiler() -> str | None:
    return shutil.which("g++") or shutil.which("clang++")


@pytest.mark.skipif(_host_compiler() is None, reason="no host C++ compiler")
def test_exact_rewrites_match_ptx_semantics_on_random_inputs(tmp_path: Path):
    rnd = random.Random(20240611)
    funcs, calls = [], []
    for k, (stmt, types, gens, _ref) in enumerate(CASES):
        decl = " ".join(f"{_CTYPE[t]} o{n};" for n, t in enumerate(types))
        got = lowered(stmt, HIP52, decl="")
        assert isinstance(got, Lowering), (stmt, got)
        assert got.applicability is SAFE, (stmt, got.notes)
        loads = " ".join(f"std::memcpy(&o{n}, &in[{n}], sizeof o{n});" for n in range(len(types)))
        stores = " ".join(f"out[{n}] = 0; std::memcpy(&out[{n}], &o{n}, sizeof o{n});" for n in range(len(types)))
        body = got.code if got.code.startswith("{") else got.code + ";"
        funcs.append(f"static void case{k}(const unsigned long long* in, unsigned long long* out) {{ {decl} {loads}\n"
                     f"  {body}\n  {stores} }}")
        calls.append(f"case{k}")
    main = ("int main() { int k; unsigned long long in[16], out[16];\n"
            "  static void (*fns[])(const unsigned long long*, unsigned long long*) = {" + ", ".join(calls) + "};\n"
            "  while (std::scanf(\"%d\", &k) == 1) { for (int i = 0; i < 16; ++i) std::scanf(\"%llu\", &in[i]);\n"
            "    fns[k](in, out); for (int i = 0; i < 16; ++i) std::printf(\"%llu \", out[i]); std::printf(\"\\n\"); } }\n")
    src = tmp_path / "cases.cpp"
    src.write_text(_HOST_SHIMS + "\n".join(funcs) + "\n" + main)
    exe = tmp_path / "cases"
    proc = subprocess.run([_host_compiler(), "-O1", "-w", str(src), "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:] + "\n" + src.read_text()[-3000:]
    lines, expected = [], []
    for k, (stmt, types, gens, ref) in enumerate(CASES):
        for _ in range(300):
            ins = [g(rnd) if g else 0 for g in gens] + [0] * (16 - len(gens))
            lines.append(f"{k} " + " ".join(map(str, ins)))
            expected.append((k, stmt, ins, ref(ins)))
    run = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    outs = run.stdout.splitlines()
    assert len(outs) == len(expected)
    for line, (k, stmt, ins, want) in zip(outs, expected):
        types = CASES[k][1]
        outputs = [n for n in range(len(types)) if f"(o{n})" in stmt.split(":", 1)[1].split(":")[0]]
        got = [int(v) for v in line.split()]
        assert [got[n] for n in outputs] == want, (stmt, ins[:len(types)], [hex(got[n]) for n in outputs], [hex(w) for w in want])
