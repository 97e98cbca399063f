"""Shallow CUDA/C++ structure over the token stream, shared by the device-code rules.

vado does not parse C++; the rules need only a few shapes, found with bracket
matching over the lexer's tokens (:mod:`vado.scan.lexer`):

- brackets and call arguments (:func:`bracket_map`, :func:`split_args`);
- inline ``asm`` statements with their template strings decoded and their PTX
  split into instructions (:func:`find_asm`, :func:`parse_ptx`);
- function definitions with their CUDA execution-space qualifiers
  (:func:`find_functions`);
- ``__shared__`` declarations (:func:`find_shared_decls`);
- object-like ``#define`` macros (:func:`find_defines`);
- a per-file cache of all of these (:func:`device_view`) and the verdict helpers
  the device-code rule families share (:func:`warp_verdict`, :func:`hip_at_least`).

Every function takes *code tokens* (comments removed, see
:func:`vado.scan.lexer.code_tokens`) unless it says otherwise, never raises on
malformed input, and returns plain frozen dataclasses with byte offsets.

Layout, one module per kind of shape: :mod:`.tokens` (brackets, spelling index, arguments, chevrons,
directive ranges, integer literals), :mod:`.asm` (string literals, inline asm and PTX),
:mod:`.declarations` (functions, ``__shared__`` declarations, macros), :mod:`.view` (the per-file
:class:`DeviceView`) and :mod:`.verdicts` (the shared verdict helpers). This package re-exports their
names, so ``from vado.rules.cuda_syntax import X`` keeps working; a few private names (``_ASM_KEYWORDS``,
``_ID_CHAR``, ``_plain_above``, ``_ptx_statements``) are re-exported for the modules and tests that read them.
"""

from __future__ import annotations

from vado.rules.cuda_syntax.asm import (
    AsmOperand,
    AsmStatement,
    PtxInstruction,
    PtxProgram,
    _ASM_KEYWORDS,
    _ptx_statements,
    decode_string,
    find_asm,
    parse_ptx,
)
from vado.rules.cuda_syntax.declarations import (
    FUNCTION_QUALIFIERS,
    FunctionDef,
    MacroDef,
    SharedDecl,
    enclosing_function,
    find_defines,
    find_functions,
    find_shared_decls,
    python_find_functions,
)
from vado.rules.cuda_syntax.tokens import (
    CLOSE,
    EXPRESSION_WORDS,
    OPEN,
    OPERATOR_WORDS,
    SpellingIndex,
    _ID_CHAR,
    _plain_above,
    bracket_map,
    chevron_run,
    directive_ranges,
    enclosing_paren,
    ident_pattern,
    in_directive_mask,
    int_value,
    matching,
    python_bracket_map,
    spaced_launches,
    spelling_index,
    split_args,
    statement_start,
    text_of,
)
from vado.rules.cuda_syntax.verdicts import (
    HIP_WARP_SOURCE,
    SCALE_WARP_NOTE,
    SCALE_WARP_SOURCE,
    has_wave64,
    hip_at_least,
    version_tuple,
    warp_verdict,
)
from vado.rules.cuda_syntax.view import (
    CUDA_CXX_KINDS,
    DeviceView,
    device_view,
)

__all__ = [
    "AsmOperand",
    "AsmStatement",
    "CLOSE",
    "EXPRESSION_WORDS",
    "OPERATOR_WORDS",
    "CUDA_CXX_KINDS",
    "DeviceView",
    "FUNCTION_QUALIFIERS",
    "FunctionDef",
    "HIP_WARP_SOURCE",
    "MacroDef",
    "OPEN",
    "PtxInstruction",
    "PtxProgram",
    "SCALE_WARP_NOTE",
    "SCALE_WARP_SOURCE",
    "SharedDecl",
    "SpellingIndex",
    "_ASM_KEYWORDS",
    "_ID_CHAR",
    "_plain_above",
    "_ptx_statements",
    "bracket_map",
    "chevron_run",
    "decode_string",
    "device_view",
    "directive_ranges",
    "enclosing_function",
    "enclosing_paren",
    "find_asm",
    "find_defines",
    "find_functions",
    "find_shared_decls",
    "has_wave64",
    "hip_at_least",
    "ident_pattern",
    "in_directive_mask",
    "int_value",
    "matching",
    "parse_ptx",
    "python_bracket_map",
    "python_find_functions",
    "spaced_launches",
    "spelling_index",
    "split_args",
    "statement_start",
    "text_of",
    "version_tuple",
    "warp_verdict",
]
