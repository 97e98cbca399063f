"""Group shuffles of a vector type or a struct, written into the port as CUDA computes them.

CUDA's ``thread_block_tile::shfl``/``shfl_up``/``shfl_down``/``shfl_xor`` move any trivially copyable value
(``uint4``, a struct), 32 bits at a time; HIP's (ROCm 7.2.4) pass the value to ``__shfl*``, which has overloads for
the scalar types only, so ``tile.shfl_xor(v4, 1)`` does not compile. API009 rewrites such a call (its value's
declared type a vector type or a struct of the file) to ``vado_cg_shfl_xor(tile, v4, 1)``; this module's helpers
move the value word by word through the group's own shuffle of an ``unsigned int``: the same lanes, the same bits.
"""

from __future__ import annotations

from vado.model import Applicability, Fix, Target
from vado.port.compat.cg_members import CG_MEMBERS, MEMBER_HELPER_NAMES, MEMBERS_GUARD
from vado.port.compat.placement import insertion_offsets, line_start_insert
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind

#: The helpers API009's fix calls, by the group member each stands for.
CG_SHUFFLE_HELPERS = {"shfl": "vado_cg_shfl", "shfl_up": "vado_cg_shfl_up", "shfl_down": "vado_cg_shfl_down",
                      "shfl_xor": "vado_cg_shfl_xor"}
#: The guard of the block (a header and its includer both calling a helper get one copy).
GUARD = "VADO_CG_SHFL_WORDS"
_ARG = {"shfl": "int", "shfl_up": "unsigned int", "shfl_down": "unsigned int", "shfl_xor": "unsigned int"}


def _helper(member: str) -> str:
    return (f"template <class G, class T>\n"
            f"static __device__ __forceinline__ T {CG_SHUFFLE_HELPERS[member]}(const G& vado_g, const T& vado_v, "
            f"{_ARG[member]} vado_a) {{\n"
            f"  unsigned int vado_w[(sizeof(T) + 3) / 4] = {{}};\n"
            f"  __builtin_memcpy(vado_w, &vado_v, sizeof(T));\n"
            f"  for (unsigned int vado_i = 0; vado_i < (sizeof(T) + 3) / 4; ++vado_i)\n"
            f"    vado_w[vado_i] = vado_g.{member}(vado_w[vado_i], vado_a);\n"
            f"  T vado_out;\n"
            f"  __builtin_memcpy(&vado_out, vado_w, sizeof(T));\n"
            f"  return vado_out;\n"
            f"}}\n")


#: The block written into a file that calls a helper: all four (a few lines, templates: nothing is emitted unused).
CG_SHUFFLE = (f"#ifndef {GUARD}\n#define {GUARD}\n"
              "// vado: CUDA's group shuffles move any trivially copyable value 32 bits at a time; HIP's take the\n"
              "// scalar types __shfl has. These move a vector or a struct word by word through the group's shuffle.\n"
              + "".join(_helper(m) for m in CG_SHUFFLE_HELPERS) + "#endif\n")


def _block_fix(path: str, text: str, toks: list, index, names: tuple[str, ...], guard: str, block: str,
               why: str) -> list[Fix]:
    """``block`` where the first call of one of ``names`` starts its top-level construct, unless ``guard`` is spelt."""
    if not index.has_any(names) or index.has_any((guard,)):
        return []
    uses = sorted(i for n in names for i in index.where(n)
                  if toks[i][0] is Kind.IDENT and i + 1 < len(toks) and toks[i + 1][3] == "("
                  and not (i > 0 and toks[i - 1][3] in (".", "->", "::")))
    if not uses:
        return []
    edits = tuple(line_start_insert(path, text, off, block) for off in insertion_offsets(text, toks, uses))
    return [Fix(edits, Applicability.SAFE, why, ("cg", "cg-shuffle"))]


def cg_shuffle_helper_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """The helper blocks for a file that calls their helpers and has no copy (its guard unspelt), where the first
    call's top-level construct starts (one copy per ``#if`` branch that needs one): :data:`CG_SHUFFLE` for the
    ``vado_cg_shfl*`` helpers, :data:`vado.port.compat.cg_members.CG_MEMBERS` for the group members HIP lacks
    (``vado_cg_block_rank`` …). Safe: the blocks define ``static`` functions under vado's own guards."""
    if target.family != "rocm":
        return []
    index = spelling_index(toks)
    return (_block_fix(path, text, toks, index, tuple(CG_SHUFFLE_HELPERS.values()), GUARD, CG_SHUFFLE,
                       "define the vado_cg_shfl* helpers this file calls")
            + _block_fix(path, text, toks, index, MEMBER_HELPER_NAMES, MEMBERS_GUARD, CG_MEMBERS,
                         "define the vado_cg_* group members this file calls"))
