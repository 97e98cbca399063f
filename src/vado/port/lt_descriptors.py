"""cuBLASLt descriptors kept on the stack (``cublasLtMatmulDescOpaque_t`` + ``cublasLtMatmulDescInit``).

cuBLASLt lets a program hold a descriptor in its own memory: an opaque struct
declared as a local variable, set up by ``cublasLt…Init(&desc, …)`` and passed as
``&desc`` wherever a descriptor handle is taken (NVIDIA's LtSgemm samples, apex's
fused MLP, HeCBench ``mlp``). hipBLASLt has the opaque struct types but no ``Init``
functions: its descriptors live on the heap (``hipblasLt…Create``/``…Destroy``),
and the struct is too small to hold one, so a plain rename cannot work.

:func:`lt_descriptor_fixes` turns each such variable into a small owner of a
hipBLASLt handle (``vado_LtMatmulDesc`` …, written into the port once): it
converts to the handle type, so ``&desc`` becomes ``desc``; ``Init`` becomes a
helper that creates the handle (destroying one made by an earlier ``Init`` of the
same variable), and the destructor destroys it where the variable goes out of
scope, as the stack descriptor went. Safe: every call gets the same descriptor it
got on CUDA. A variable the file also declares as another type, or an ``Init``
whose descriptor is not ``&variable``, is left alone (the rules' finding stays).
"""

from __future__ import annotations

from dataclasses import dataclass

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat import guarded_block, insertion_offsets, line_start_insert
from vado.port.overloads import _next_code, _prev_code, declarators, declared_types
from vado.port.translate import split_call_args
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind

SOURCE = ("CUDA 12/13 cublasLt.h: cublasLtMatmulDescOpaque_t, cublasLtMatrixLayoutOpaque_t, "
          "cublasLtMatmulPreferenceOpaque_t, cublasLtMatrixTransformDescOpaque_t and their *Init functions; "
          "ROCm 7.2.4 hipblaslt/hipblaslt.h: the *Opaque_t structs (uint64_t data[4..8]), hipblasLt*Create/*Destroy, "
          "no *Init")


@dataclass(frozen=True)
class StackDescriptor:
    """One cuBLASLt descriptor kind that a program may keep on the stack."""

    kind: str  # MatmulDesc, MatrixLayout, …
    #: The parameters of ``Init`` after the descriptor, as hipBLASLt's ``Create`` takes them.
    params: str
    args: str

    @property
    def cuda_type(self) -> str:
        return f"cublasLt{self.kind}Opaque_t"

    @property
    def hip_type(self) -> str:
        return f"hipblasLt{self.kind}Opaque_t"

    @property
    def cuda_init(self) -> str:
        return f"cublasLt{self.kind}Init"

    @property
    def handle(self) -> str:
        return f"hipblasLt{self.kind}_t"

    @property
    def owner(self) -> str:
        return f"vado_Lt{self.kind}"

    @property
    def init(self) -> str:
        return f"vado_hipblasLt{self.kind}Init"

    def code(self) -> str:
        create, destroy = f"hipblasLt{self.kind}Create", f"hipblasLt{self.kind}Destroy"
        extra_params = f", {self.params}" if self.params else ""
        extra_args = f", {self.args}" if self.args else ""
        return (
            f"struct {self.owner} {{\n"
            f"  {self.handle} handle = nullptr;\n"
            f"  {self.owner}() = default;\n"
            f"  {self.owner}(const {self.owner}&) = delete;\n"
            f"  {self.owner}& operator=(const {self.owner}&) = delete;\n"
            f"  ~{self.owner}() {{\n    if (handle) {destroy}(handle);\n  }}\n"
            f"  operator {self.handle}() const {{ return handle; }}\n"
            f"}};\n"
            f"static inline hipblasStatus_t {self.init}({self.owner}& desc{extra_params}) {{\n"
            f"  if (desc.handle) {{\n    {destroy}(desc.handle);\n    desc.handle = nullptr;\n  }}\n"
            f"  return {create}(&desc.handle{extra_args});\n"
            f"}}\n")

    def block(self) -> str:
        why = (f"{self.cuda_type} + {self.cuda_init} keep a cuBLASLt descriptor on the stack; hipBLASLt's live on "
               f"the heap: {self.owner} holds one ({self.kind}Create) and destroys it at the end of its scope")
        return guarded_block(why, self.owner.upper() + "_DEFINED", self.code())


#: The descriptor kinds, by their CUDA ``Init`` name.
DESCRIPTORS = {
    d.cuda_init: d
    for d in (
        StackDescriptor("MatmulDesc", "hipblasComputeType_t compute_type, hipDataType scale_type",
                        "compute_type, scale_type"),
        StackDescriptor("MatrixLayout", "hipDataType type, uint64_t rows, uint64_t cols, int64_t ld",
                        "type, rows, cols, ld"),
        StackDescriptor("MatmulPreference", "", ""),
        StackDescriptor("MatrixTransformDesc", "hipDataType scale_type", "scale_type"),
    )
}
_TYPES = frozenset(t for d in DESCRIPTORS.values() for t in (d.cuda_type, d.hip_type))
#: Tokens after which ``&`` takes an address (otherwise it is a bitwise and, or a reference declarator).
_UNARY_BEFORE = frozenset({"(", ",", "=", "{", "?", ":", "return", "!"})


def _variables(toks, index, d: StackDescriptor) -> set[str]:
    """Names the file declares as ``d``'s opaque type, never as a pointer to it, and as no other type."""
    found = declarators(toks, index, d.cuda_type) | declarators(toks, index, d.hip_type)
    pointers = {name for name, indirect in found if indirect}
    # declared_types adds "" for ``&name`` and ``T* name``: only the type names it finds matter here.
    return {name for name, indirect in found if not indirect and name not in pointers
            and {t for t in declared_types(toks, index, name) if t} <= {d.cuda_type, d.hip_type}}


def lt_descriptor_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """One fix per file that keeps cuBLASLt descriptors on the stack (see the module docstring)."""
    if target.family != "rocm":
        return []
    index = spelling_index(toks)
    if not index.has_any(DESCRIPTORS) or not index.has_any(_TYPES):
        return []
    edits: list[Edit] = []
    blocks: dict[int, str] = {}  # offset → helper definitions (one insertion per place)
    notes: list[str] = []
    for d in DESCRIPTORS.values():
        names = _variables(toks, index, d)
        inits: list[int] = []
        for i in index.where(d.cuda_init):
            j = _next_code(toks, i)
            if toks[i][0] is not Kind.IDENT or j >= len(toks) or toks[j][3] != "(":
                continue
            split = split_call_args(toks, j)
            if split is None or not split[1]:
                continue
            first = [t for t in toks[split[1][0][0]:split[1][0][1] + 1] if t[0] is not Kind.COMMENT]
            if len(first) == 2 and first[0][3] == "&" and first[1][3] in names:
                inits.append(i)
        if not inits:
            continue
        types = [i for t in (d.cuda_type, d.hip_type) for i in index.where(t)
                 if toks[i][0] is Kind.IDENT and _next_code(toks, i) < len(toks)
                 and toks[_next_code(toks, i)][3] in names]
        for off in insertion_offsets(text, toks, sorted(types + inits)):
            blocks[off] = blocks.get(off, "") + d.block()
        edits += [Edit(path, toks[i][1], toks[i][2], d.owner) for i in types]
        edits += [Edit(path, toks[i][1], toks[i][2], d.init) for i in inits]
        for name in sorted(names):
            for i in index.where(name):
                k = _prev_code(toks, i)
                if k < 0 or toks[k][3] != "&":
                    continue
                before = _prev_code(toks, k)
                if before < 0 or toks[before][3] in _UNARY_BEFORE or toks[before][0] is Kind.DIRECTIVE:
                    edits.append(Edit(path, toks[k][1], toks[k][2], ""))
        notes.append(f"{d.cuda_type} {', '.join(sorted(names))} → {d.owner} (a hipBLASLt handle, "
                     f"{d.cuda_init} → {d.init}, &desc → desc)")
    if not edits:
        return []
    inserts = [line_start_insert(path, text, off, block) for off, block in sorted(blocks.items())]
    return [Fix((*inserts, *edits), Applicability.SAFE, "; ".join(notes), ("overload",))]
