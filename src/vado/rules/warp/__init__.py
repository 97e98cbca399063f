"""WARP rules: code that assumes a warp is 32 lanes wide.

AMD CDNA GPUs (gfx90a, gfx942, gfx950) run 64-wide wavefronts; RDNA runs 32;
SYCL sub-groups are 8, 16 or 32 wide depending on the GPU and the kernel.
Verdicts come from :func:`vado.rules.cuda_syntax.warp_verdict`: manual work (or
automatic edits where a safe rewrite exists) on targets with wave64, as is on
ZLUDA (RDNA only) and on SCALE (which emulates 32-wide warps by default), manual
on oneAPI. The wave mode of the run (``ctx.options["wave"]``, see below) decides
what ROCm targets get: under warp32 emulation (the default) the 32-lane patterns
move as is and WARP009 rewrites the warp functions; under ``native`` the rules
offer the wave64 rewrites.
"""

# The family's modules by topic (vado.rules.registry lists those that define rules); every name
# the single module had is still importable from here.
from __future__ import annotations

from vado.rules.warp.common import (  # noqa: F401
    _LANEISH,
    _WARPISH,
    _SYNC_MASKED,
    _BALLOTS,
    _NARROW_TYPES,
    _FULL32,
    _WARP_NOTE,
    _operand_left,
    _operand_right,
    _idents,
    _is_laneish,
    _is_narrow_literal,
    _is_full_mask,
    _callee,
    _DECL_PREV,
    _in_directive,
    _DECL_SPECIFIERS,
    _TYPE_WORDS,
    _NOT_DECL_PREV,
    declares_warp_size,
    _own_warp_size_scopes,
    _in_scopes,
)
from vado.rules.warp.modes import (  # noqa: F401
    WAVE_MODES,
    WARP32_CALLS,
    wave_mode,
    warp32_helper,
    uses_sync_builtins,
    warp32_renames,
    port_target,
    emulated,
    _HIP_CONDITION,
    _WIDE_WORDS,
    _WARP_NAME,
    WideWarps,
    _is_wide,
    hip_regions,
    _calls_warp_function,
    wide_warps,
    _find_wide_warps,
    _platform_width,
    _SHUFFLE_ARITY,
    _width_names,
    _fallback_names,
    _quoted_includes,
    _header_wide_warps,
    wave_verdicts,
)
from vado.rules.warp.width import (  # noqa: F401
    LiteralWarpWidthArithmetic,
    _lane_or_warp_index,
    _warp_size_macros,
    SharedArrayOfWarpWidth,
    HardCodedWarpSize,
    _GRID_NAMES,
    HostWarpWidthArithmetic,
)
from vado.rules.warp.masks import (  # noqa: F401
    ThirtyTwoBitLaneMask,
    BitCountOfLaneMask,
    _UNSIGNED_OR_WIDE,
    _held_mask,
)
from vado.rules.warp.reductions import (  # noqa: F401
    ShuffleReductionFrom16,
    ImplicitWarpSynchronousReduction,
)
from vado.rules.warp.functions import (  # noqa: F401
    SYNC_LOWERING,
    _SYNC_SHUFFLES,
    LOWERED_SYNC_NAMES,
    ACTIVEMASK_LOWERED,
    FULL_MASK_NAMES,
    _ASSIGN_OPS,
    _PURE_MASK_CALLS,
    mask_side_effects,
    _MASK_READERS,
    lacks_sync_builtins,
    _full_literal,
    WarpSyncIntrinsicWithoutSyncBuiltins,
    WarpFunctionOnWavefront,
)
