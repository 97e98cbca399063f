"""Unit tests of the PTX fact table (vado.knowledge.ptx) and the PTX rules."""

from __future__ import annotations

import itertools

import pytest

from vado.knowledge import ptx as facts
from vado.model import Applicability, Target, Verdict
from vado.rules.cuda_syntax import parse_ptx
from vado.rules.engine import check_text
from vado.rules.ptx import (
    InlinePtxTensorCoreOrAsync,
    InlinePtxWithPortableIdiom,
    InlinePtxWithoutKnownReplacement,
    PtxTextLoadedAtRunTime,
)

RULES = [InlinePtxWithPortableIdiom, InlinePtxWithoutKnownReplacement, InlinePtxTensorCoreOrAsync, PtxTextLoadedAtRunTime]
ROCM = Target(name="rocm-7.2", family="rocm", version="7.2", hip_version="7.2", wavefront={"gfx942": 64})
HIP52 = Target(name="hip-5.2", family="rocm", version="5.2", hip_version="5.2", wavefront={"gfx90a": 64})
SCALE = Target(name="scale", family="scale", version="1.7.1", wavefront={"gfx942": 64})
ZLUDA = Target(name="zluda", family="zluda", version="6", wavefront={"gfx1100": 32})
ONEAPI = Target(name="oneapi", family="oneapi", version="2026", wavefront={"pvc": 16})
ALL = (ROCM, ONEAPI, SCALE, ZLUDA)


def one(template: str):
    (ins,) = parse_ptx(template).instructions
    return ins


def run(body: str, targets=ALL):
    return check_text("k.cu", "__device__ void k(unsigned a, unsigned b, unsigned c, unsigned d) {\n" + body + "\n}\n",
                      targets, rules=RULES)


def test_table_loads_with_unique_ids_and_resolved_sources():
    table = facts.ptx_facts()
    assert len(table.idioms) > 100
    assert all(r.source_url.startswith(("http", "Debian")) for r in table.idioms)
    assert set(table.targets) == {"rocm", "oneapi", "scale", "zluda"}


@pytest.mark.parametrize("template, idiom", [
    ("mov.u32 %0, %%laneid;", "laneid"),
    ("mov.u32 %0, %1;", "mov"),
    ("shfl.sync.down.b32 %0, %1, 1, 0x1f, 0xffffffff;", "shfl-sync-down"),
    ("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];", "ld-vector"),
    ("ld.global.cs.f32 %0, [%1];", "ld-stream"),
    ("prmt.b32.f4e %0, %1, %2, %3;", "prmt-mode"),
    ("cp.async.bulk.tensor.2d.shared::cluster.global [%0], [%1, {%2, %3}];", "tma"),
    ("cp.async.ca.shared.global [%0], [%1], 4;", "cp-async"),
    ("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0}, %1, %2;", "wgmma"),
    ("redux.sync.add.u32 %0, %1, 0xffffffff;", "redux"),
])
def test_lookup_picks_the_specific_row(template, idiom):
    assert facts.lookup(one(template)).id == idiom


def test_unknown_instruction_has_no_row():
    assert facts.lookup(one("frobnicate.b32 %0, %1;")) is None


def test_scale_support_follows_its_published_list():
    assert facts.scale_supports(one("brev.b32 %0, %1;")) is True
    assert facts.scale_supports(one("wgmma.fence.sync.aligned;")) is False
    assert facts.scale_supports(one("mbarrier.arrive.shared.b64 %0, [%1];")) is False
    assert facts.scale_supports(one("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;")) is False
    assert facts.scale_supports(one("tanh.approx.f32 %0, %1;")) is None  # not in SCALE's table


def test_lop3_expression_matches_the_truth_table_for_every_lut():
    vals = [0x00000000, 0xFFFFFFFF, 0x12345678, 0x0F0F0F0F, 0xA5A5A5A5]
    for lut in range(256):
        # Python's ~ is two's complement on unbounded ints: masking the result gives the 32-bit value.
        expr = facts.lop3_expression(lut, "a", "b", "c").replace("u", "")
        for a, b, c in itertools.product(vals, repeat=3):
            want = 0
            for bit in range(32):
                idx = ((a >> bit & 1) << 2) | ((b >> bit & 1) << 1) | (c >> bit & 1)
                want |= (lut >> idx & 1) << bit
            got = eval(expr, {}, {"a": a, "b": b, "c": c}) & 0xFFFFFFFF  # noqa: S307 - our own expression
            assert got == want, (hex(lut), expr)


def test_ptx001_rewrites_a_self_contained_statement():
    (f,) = run('asm("brev.b32 %0, %1;" : "=r"(d) : "r"(a));')
    assert f.code == "PTX001" and f.fix.applicability is Applicability.SAFE
    assert f.fix.edits[0].content == "d = __brev(a)"
    assert f.verdicts == {"rocm-7.2": Verdict.AUTOMATIC, "oneapi": Verdict.MANUAL, "scale": Verdict.MOVES_AS_IS,
                          "zluda": Verdict.MOVES_AS_IS}
    assert f.data["instructions"][0]["hip"] == "__brev"


def test_ptx001_multi_instruction_rewrite_is_a_block_and_as_safe_as_its_weakest_instruction():
    (f,) = run('asm("bfe.u32 %0, %2, %3, 4;\\n\\tpopc.b32 %1, %3;" : "=r"(d), "=r"(c) : "r"(a), "r"(b));')
    assert f.fix.edits[0].content == (
        "{\n  unsigned int _ptx0;\n  unsigned int _ptx1;\n  _ptx0 = __bitextract_u32(a, b, 4);\n"
        "  _ptx1 = __popc(b);\n  d = _ptx0;\n  c = _ptx1;\n}")
    assert f.fix.applicability is Applicability.UNSAFE  # a variable bfe position: HIP masks it to 5 bits
    assert f.data["applicability"] == "unsafe"


def test_ptx001_block_replaces_the_semicolon_so_if_else_stays_valid():
    (f,) = run('if (a) asm("{ .reg .u32 t; mov.u32 t, %1; mov.u32 %0, t; }" : "=r"(d) : "r"(a)); else d = 0;')
    edit = f.fix.edits[0]
    assert edit.content.startswith("{") and edit.content.endswith("}")
    assert "_ptx_t = (unsigned int)a;" in edit.content and "_ptx0 = _ptx_t;" in edit.content
    assert edit.end == f.span.end + 1  # the ";" is part of the replaced span


def test_ptx001_macro_asm_gets_no_fix():
    src = '#define LANE(x) asm("mov.u32 %0, %%laneid;" : "=r"(x))\n__device__ unsigned f() { unsigned l; LANE(l); return l; }\n'
    (f,) = check_text("m.cu", src, ALL, rules=RULES)
    assert f.code == "PTX001" and f.fix is None and "macro" in f.data["no_fix"]


def test_ptx001_without_rewrite_is_manual_on_rocm():
    (f,) = run('asm("bfind.u32 %0, %1;" : "=r"(d) : "r"(a));')
    assert f.code == "PTX001" and f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MANUAL
    assert "no automatic rewrite" in f.data["no_fix"]


def test_min_hip_keeps_older_rocm_targets_manual():
    (f,) = run('asm("redux.sync.add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));', targets=(ROCM, HIP52))
    assert f.code == "PTX001"
    assert f.verdicts["hip-5.2"] is Verdict.MANUAL


def test_ptx003_names_the_route_and_blocks_rocm():
    (f,) = run('asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')
    assert f.code == "PTX003" and f.verdicts["rocm-7.2"] is Verdict.BLOCKED and f.verdicts["scale"] is Verdict.BLOCKED
    assert "Composable Kernel" in f.message


def test_host_assembly_and_compiler_barriers_are_not_ptx():
    src = 'void f(){ unsigned lo, hi; asm volatile("rdtsc" : "=a"(lo), "=d"(hi)); asm volatile("" ::: "memory"); __asm__("pause"); }'
    assert check_text("h.cpp", src, ALL, rules=RULES) == []


def test_ptx_in_host_code_is_still_recognised():
    src = 'static inline unsigned lane() { unsigned l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }'
    (f,) = check_text("h.cuh", src, ALL, rules=RULES)
    assert f.code == "PTX001"


def test_ptx004_embedded_module_and_ptx_files():
    src = ('const char* p = ".version 8.0\\n.target sm_90\\n.visible .entry k() { ret; }";\n'
           'void f(CUmodule* m){ cuModuleLoad(m, "a.ptx"); cuModuleLoad(m, "a.cubin"); }\n')
    found = check_text("h.cpp", src, ALL, rules=RULES)
    assert [f.data["what"] for f in found] == ["embedded-ptx", "ptx-file"]
    assert found[0].verdicts["zluda"] is Verdict.MOVES_AS_IS and found[0].verdicts["rocm-7.2"] is Verdict.MANUAL
