"""The port's fix passes, registered like the rules: what each reads, where it runs, what it overrides.

A round of the port (:func:`vado.port.file.produce_fixes`) takes the rules' fixes, then the fixes
of every registered pass that applies to the file, in the passes' ``order``. Each
:class:`FixPass` declares

- ``kinds``: the file kinds it reads (required: a pass with none is refused);
- ``families``: the target families it runs for (``None``: every target);
- ``order``: where its fixes stand in the round (unique; the applier takes fixes in that order);
- ``needs``: the :class:`~vado.port.file.PortOptions` fields it reads, and ``when``, an optional
  test of those options (``launch_fixes`` only with ``--launch ggl``);
- ``over``: the passes (and :data:`RULES`, the rules' fixes) whose plain renames yield to its
  edits (:func:`vado.port.overloads.yield_to`): an overload or an FP8 rewrite of a call is the
  only fix for that call, whichever the applier would have taken first. Only passes ordered
  before it may be named, so the chain reads in the round's order.

:func:`registered` checks the declarations once and gives the passes in order; :func:`yielders`
derives, for each pass, the passes it yields to.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from vado.knowledge.targets import FAMILIES
from vado.model import Fix, Target
from vado.port.assignments import braced_zero_fixes
from vado.port.build import (
    cmake_hip_fixes,
    cmake_rename_fixes,
    include_rename_fixes,
    makefile_link_fixes,
    makefile_rename_fixes,
)
from vado.port.compat import (
    cg_reduce_fixes,
    cg_shuffle_helper_fixes,
    device_error_string_fixes,
    fast_accum_fixes,
    local_helper_fixes,
    scale_type_fixes,
    solve_buffer_fixes,
)
from vado.port.cub_block_io import block_io_fixes
from vado.port.dependent_templates import dependent_template_fixes
from vado.port.fp8 import fp8_fixes
from vado.port.half_casts import half_cast_fixes
from vado.port.launch import launch_fixes
from vado.port.lt_descriptors import lt_descriptor_fixes
from vado.port.namespaces import namespace_fixes
from vado.port.overloads import dim3_assign_fixes, location_overload_fixes, yield_to
from vado.port.torch_cub import cub_alias_fixes
from vado.port.torch_launch import keyword_launch_fixes, launch_macro_fixes
from vado.port.translate import (
    callback_convention_fixes,
    identifier_fixes,
    implicit_std_include_fixes,
    include_fixes,
    register_keyword_fixes,
    runtime_include_fix,
    sync_downgrade_fixes,
)
from vado.port.wave import warp32_helper_fixes
from vado.scan.classify import FileKind

#: The name under which the rules' own fixes take part in the precedence chain (``over``).
RULES = "rules"

#: Target families a pass may be limited to (:attr:`vado.model.Target.family`).
TARGET_FAMILIES = frozenset(FAMILIES)


@dataclass(frozen=True)
class PassInput:
    """What a pass reads: the file (path, kind, text, tokens when C-family), the target, the options."""

    path: str
    kind: FileKind
    text: str
    toks: Sequence | None
    target: Target
    options: Any  # vado.port.file.PortOptions (not imported: file.py imports this module)


@dataclass(frozen=True)
class FixPass:
    """One registered fix pass (see the module docstring for what each field means)."""

    name: str
    run: Callable[[PassInput], list[Fix]]
    kinds: frozenset[FileKind]
    order: int
    families: frozenset[str] | None = None
    needs: tuple[str, ...] = ()
    when: Callable[[Any], bool] | None = None
    over: tuple[str, ...] = ()

    def applies(self, kind: FileKind, target: Target, options: Any) -> bool:
        """Whether the pass runs on a file of ``kind`` ported for ``target`` with ``options``."""
        return (kind in self.kinds and (self.families is None or target.family in self.families)
                and (self.when is None or self.when(options)))


class RegistryError(ValueError):
    """A pass declared inconsistently (no kinds, a duplicate name or order, an unknown ``over``…)."""


_PASSES: list[FixPass] = []


def register(fix_pass: FixPass) -> FixPass:
    """Add ``fix_pass`` to the registry, refusing declarations :func:`check` rejects."""
    check([*_PASSES, fix_pass])
    _PASSES.append(fix_pass)
    registered.cache_clear()
    yielders.cache_clear()
    return fix_pass


def check(passes: Sequence[FixPass]) -> None:
    """Raise :class:`RegistryError` unless every pass has kinds, a unique name and order, known
    families, and ``over`` names only :data:`RULES` or passes ordered before it."""
    names: dict[str, int] = {}
    orders: set[int] = set()
    for p in passes:
        if not p.kinds:
            raise RegistryError(f"fix pass {p.name!r} declares no file kinds")
        if p.name == RULES or p.name in names:
            raise RegistryError(f"fix pass name {p.name!r} is taken")
        if p.order in orders:
            raise RegistryError(f"fix pass {p.name!r}: order {p.order} is taken")
        if p.families is not None and (not p.families or not p.families <= TARGET_FAMILIES):
            raise RegistryError(f"fix pass {p.name!r}: unknown target families {sorted(p.families)}")
        names[p.name] = p.order
        orders.add(p.order)
    for p in passes:
        for other in p.over:
            if other != RULES and (other not in names or names[other] >= p.order):
                raise RegistryError(f"fix pass {p.name!r} takes precedence over {other!r}, "
                                    "which is not a pass ordered before it")


@functools.cache
def registered() -> tuple[FixPass, ...]:
    """Every registered pass, in order."""
    return tuple(sorted(_PASSES, key=lambda p: p.order))


@functools.cache
def yielders() -> dict[str, tuple[str, ...]]:
    """For :data:`RULES` and each pass: the passes whose edits its plain renames yield to, in order."""
    out: dict[str, tuple[str, ...]] = {}
    for name in (RULES, *(p.name for p in registered())):
        out[name] = tuple(p.name for p in registered() if name in p.over)
    return out


def run_passes(rule_fixes: list[Fix], kind: FileKind, inp: PassInput) -> list[Fix]:
    """``rule_fixes`` and the fixes of every pass that applies, in order, each pass's and the
    rules' renames dropped where a pass taking precedence over them edits the same span."""
    produced: list[tuple[str, list[Fix]]] = [(RULES, rule_fixes)]
    produced += [(p.name, p.run(inp)) for p in registered() if p.applies(kind, inp.target, inp.options)]
    by_name = dict(produced)
    chain = yielders()
    fixes: list[Fix] = []
    for name, out in produced:
        prevailing = [f for q in chain[name] for f in by_name.get(q, ())]
        fixes.extend(yield_to(out, prevailing) if prevailing else out)
    return fixes


# --------------------------------------------------------------------------- options read by passes


def offload_archs(target: Target, options: Any) -> tuple[str, ...]:
    """The AMD architectures build files are ported for: ``offload_arch`` of the rule options, else the target's."""
    opt = options.rule_options.get("offload_arch")
    if opt:
        parts = (opt,) if isinstance(opt, str) else tuple(opt)
        return tuple(a for p in parts for a in str(p).replace(",", ";").split(";") if a)
    return tuple(target.default_arch) or ("gfx942",)


def source_links_under(path: str, options: Any) -> list[str]:
    """The libraries of ``options.source_links`` used by sources in the build file's folder tree."""
    here = posixpath.dirname(path)
    return sorted({lib for folder, lib in options.source_links
                   if not here or folder == here or folder.startswith(here + "/")})


# --------------------------------------------------------------------------- the passes

_C_FAMILY = frozenset(k for k in FileKind if k.is_c_family)
_SOURCE_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER})

#: The passes before the overloads, whose renames of a call yield to an overload's rewrite of it.
_BEFORE_OVERLOADS = (RULES, "include_rename", "include", "identifier", "sync_downgrade", "local_helper", "half_cast",
                     "dependent_template", "warp32_helper", "cg_reduce", "cg_shuffle_helper", "solve_buffer", "braced_zero",
                     "scale_type", "fast_accum", "device_error_string")


def _text_toks_target(fn: Callable[..., list[Fix]]) -> Callable[[PassInput], list[Fix]]:
    """A pass of the common shape ``fn(path, text, toks, target)``."""
    return lambda i: fn(i.path, i.text, i.toks, i.target)


for _p in (
    # Build files.
    FixPass("cmake_hip", lambda i: cmake_hip_fixes(i.path, i.text, i.options.renamed, offload_archs(i.target, i.options),
                                                   source_links_under(i.path, i.options), i.options.cmake_cuda_dirs),
            frozenset({FileKind.CMAKE}), 10, needs=("renamed", "rule_options", "source_links", "cmake_cuda_dirs")),
    FixPass("cmake_rename", lambda i: cmake_rename_fixes(i.path, i.text, i.options.renamed),
            frozenset({FileKind.CMAKE}), 20, needs=("renamed",)),
    FixPass("makefile_rename", lambda i: makefile_rename_fixes(i.path, i.text, i.options.renamed),
            frozenset({FileKind.MAKEFILE}), 30, needs=("renamed",)),
    FixPass("makefile_link", lambda i: makefile_link_fixes(i.path, i.text, source_links_under(i.path, i.options)),
            frozenset({FileKind.MAKEFILE}), 40, needs=("source_links",), when=lambda o: bool(o.source_links)),
    # C, C++, CUDA and HIP sources and headers.
    FixPass("include_rename", lambda i: include_rename_fixes(i.path, i.toks, i.options.renamed),
            _C_FAMILY, 100, needs=("renamed",)),
    FixPass("include", lambda i: include_fixes(i.path, i.toks, i.target, roc=i.options.roc), _C_FAMILY, 110,
            needs=("roc",)),
    FixPass("identifier", lambda i: identifier_fixes(i.path, i.toks, i.target, roc=i.options.roc), _C_FAMILY, 120,
            needs=("roc",)),
    FixPass("sync_downgrade", _text_toks_target(sync_downgrade_fixes), _C_FAMILY, 130),
    FixPass("local_helper", _text_toks_target(local_helper_fixes), _C_FAMILY, 140),
    FixPass("half_cast", _text_toks_target(half_cast_fixes), _C_FAMILY, 150),
    FixPass("dependent_template", lambda i: dependent_template_fixes(i.path, i.text, i.toks), _C_FAMILY, 160,
            families=frozenset({"rocm"})),
    FixPass("warp32_helper", lambda i: warp32_helper_fixes(i.path, i.text, i.toks, i.target, i.options.wave),
            _C_FAMILY, 170, needs=("wave",)),
    FixPass("cg_reduce", _text_toks_target(cg_reduce_fixes), _C_FAMILY, 180),
    FixPass("cg_shuffle_helper", _text_toks_target(cg_shuffle_helper_fixes), _C_FAMILY, 185),
    FixPass("solve_buffer", _text_toks_target(solve_buffer_fixes), _C_FAMILY, 190),
    FixPass("braced_zero", lambda i: braced_zero_fixes(i.path, i.toks, i.target), _C_FAMILY, 200),
    FixPass("scale_type", _text_toks_target(scale_type_fixes), _C_FAMILY, 210),
    FixPass("fast_accum", _text_toks_target(fast_accum_fixes), _C_FAMILY, 220),
    FixPass("device_error_string", _text_toks_target(device_error_string_fixes), _C_FAMILY, 230),
    # An overload (or a cuBLASLt descriptor rewrite) of a call is its only fix; an FP8 rewrite prevails over both.
    FixPass("location_overload", _text_toks_target(location_overload_fixes), _C_FAMILY, 240, over=_BEFORE_OVERLOADS),
    FixPass("lt_descriptor", _text_toks_target(lt_descriptor_fixes), _C_FAMILY, 250, over=_BEFORE_OVERLOADS),
    FixPass("fp8", _text_toks_target(fp8_fixes), _C_FAMILY, 260,
            over=(*_BEFORE_OVERLOADS, "location_overload", "lt_descriptor")),
    FixPass("dim3_assign", _text_toks_target(dim3_assign_fixes), _C_FAMILY, 270),
    FixPass("block_io", _text_toks_target(block_io_fixes), _C_FAMILY, 280),
    FixPass("register_keyword", lambda i: register_keyword_fixes(i.path, i.toks), _C_FAMILY, 290),
    FixPass("callback_convention", lambda i: callback_convention_fixes(i.path, i.text, i.toks), _C_FAMILY, 295,
            families=frozenset({"rocm"})),
    FixPass("namespace", lambda i: namespace_fixes(i.path, i.toks, i.text), _C_FAMILY, 300),
    FixPass("launch", lambda i: launch_fixes(i.path, i.text, i.toks), _C_FAMILY, 310, needs=("launch",),
            when=lambda o: o.launch == "ggl"),
    FixPass("runtime_include", lambda i: [f for f in (runtime_include_fix(i.path, i.text, i.toks),) if f is not None],
            _SOURCE_KINDS, 320),
    # A torch extension's port: what PyTorch's build-time hipify gets wrong, written for USE_ROCM.
    FixPass("torch_cub_alias", lambda i: cub_alias_fixes(i.path, i.text, i.toks), _C_FAMILY, 325,
            families=frozenset({"rocm"}), needs=("torch_extension",), when=lambda o: o.torch_extension == "on"),
    FixPass("torch_launch_macro", lambda i: launch_macro_fixes(i.path, i.text), _C_FAMILY, 326,
            families=frozenset({"rocm"}), needs=("torch_extension",), when=lambda o: o.torch_extension == "on"),
    FixPass("torch_launch_keyword", lambda i: keyword_launch_fixes(i.path, i.text, i.toks), _C_FAMILY, 327,
            families=frozenset({"rocm"}), needs=("torch_extension",), when=lambda o: o.torch_extension == "on"),
    FixPass("implicit_std_include",
            lambda i: implicit_std_include_fixes(i.path, i.text, i.toks, cuda_file=i.kind in _SOURCE_KINDS),
            _SOURCE_KINDS | {FileKind.CXX_HEADER}, 330),
):
    register(_p)
del _p
