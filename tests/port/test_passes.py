"""vado.port.passes: the fix passes' registry reproduces the hand-kept order and precedence of
produce_fixes it replaced, and refuses inconsistent declarations."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.port import passes
from vado.port.file import PortOptions, produce_fixes
from vado.port.passes import RULES, FixPass, RegistryError, register, registered, yielders
from vado.scan.classify import FileKind, classify
from vado.scan.lexer import lex

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: produce_fixes' order before the registry (its hand-kept list), build files first.
TODAY = ("cmake_hip", "cmake_rename", "makefile_rename", "makefile_link", "include_rename", "include", "identifier",
         "sync_downgrade", "local_helper", "half_cast", "dependent_template", "warp32_helper", "cg_reduce",
         "cg_shuffle_helper", "solve_buffer", "braced_zero", "scale_type", "fast_accum", "device_error_string", "location_overload",
         "lt_descriptor", "fp8", "dim3_assign", "block_io", "register_keyword", "callback_convention", "namespace", "launch",
         "runtime_include", "torch_cub_alias", "torch_launch_macro", "torch_launch_keyword", "implicit_std_include")
BEFORE_OVERLOADS = (RULES, *TODAY[4:19])


def test_registry_keeps_todays_order():
    assert tuple(p.name for p in registered()) == TODAY


def test_registry_derives_todays_yield_chain():
    chain = yielders()
    # The rules' and the first C-family passes' renames yield to the overloads, the cuBLASLt descriptor
    # rewrites and FP8; those two yield to FP8; nothing after FP8 yields to anything.
    for name in BEFORE_OVERLOADS:
        assert chain[name] == ("location_overload", "lt_descriptor", "fp8"), name
    assert chain["location_overload"] == chain["lt_descriptor"] == ("fp8",)
    for name in ("cmake_hip", "cmake_rename", "makefile_rename", "makefile_link", *TODAY[21:]):
        assert chain[name] == (), name


def test_registry_keeps_todays_gates():
    by = {p.name: p for p in registered()}
    rocm, hip52, sycl = get_target("rocm-7.2"), get_target("hip-5.2"), get_target("oneapi")
    chevron, ggl = PortOptions(), PortOptions(launch="ggl")
    assert by["dependent_template"].applies(FileKind.CUDA_SOURCE, rocm, chevron)
    assert by["dependent_template"].applies(FileKind.CUDA_SOURCE, hip52, chevron) is (hip52.family == "rocm")
    assert not by["dependent_template"].applies(FileKind.CUDA_SOURCE, sycl, chevron)
    assert not by["launch"].applies(FileKind.CUDA_SOURCE, rocm, chevron)
    assert by["launch"].applies(FileKind.CUDA_SOURCE, rocm, ggl)
    assert not by["makefile_link"].applies(FileKind.MAKEFILE, rocm, chevron)
    assert by["makefile_link"].applies(FileKind.MAKEFILE, rocm, PortOptions(source_links=(("", "nvtx3"),)))
    assert by["runtime_include"].kinds == {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER}
    assert by["implicit_std_include"].kinds == {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_HEADER}
    assert by["cmake_hip"].kinds == {FileKind.CMAKE} and by["makefile_rename"].kinds == {FileKind.MAKEFILE}
    assert by["identifier"].kinds == {k for k in FileKind if k.is_c_family}
    assert not any(p.applies(FileKind.PYTHON, rocm, ggl) for p in registered())


def test_every_declared_option_is_a_port_option():
    fields = {f.name for f in dataclasses.fields(PortOptions)}
    for p in registered():
        assert set(p.needs) <= fields, p.name


def _noop(_inp):
    return []


@pytest.mark.parametrize("bad, message", [
    (FixPass("no_kinds", _noop, frozenset(), 9001), "declares no file kinds"),
    (FixPass("include", _noop, frozenset({FileKind.CMAKE}), 9001), "is taken"),
    (FixPass(RULES, _noop, frozenset({FileKind.CMAKE}), 9001), "is taken"),
    (FixPass("same_order", _noop, frozenset({FileKind.CMAKE}), 110), "order 110 is taken"),
    (FixPass("later", _noop, frozenset({FileKind.CMAKE}), 5, over=("fp8",)), "not a pass ordered before it"),
    (FixPass("unknown", _noop, frozenset({FileKind.CMAKE}), 9001, over=("no_such_pass",)), "not a pass ordered"),
    (FixPass("fam", _noop, frozenset({FileKind.CMAKE}), 9001, families=frozenset({"cuda"})), "unknown target families"),
])
def test_inconsistent_declarations_are_refused(bad, message):
    before = registered()
    with pytest.raises(RegistryError, match=message):
        register(bad)
    assert registered() == before and bad not in passes._PASSES


# --------------------------------------------------------------------------- the old hand-kept produce_fixes


def _old_produce_fixes(path, kind, text, target, options, findings):
    """produce_fixes as it was before the registry (commit c68b787), for the equivalence test below."""
    from vado.port.assignments import braced_zero_fixes
    from vado.port.build import (cmake_hip_fixes, cmake_rename_fixes, include_rename_fixes, makefile_link_fixes,
                                 makefile_rename_fixes)
    from vado.port.compat import (cg_reduce_fixes, device_error_string_fixes, fast_accum_fixes, local_helper_fixes,
                                  scale_type_fixes, solve_buffer_fixes)
    from vado.port.cub_block_io import block_io_fixes
    from vado.port.dependent_templates import dependent_template_fixes
    from vado.port.fp8 import fp8_fixes
    from vado.port.half_casts import half_cast_fixes
    from vado.port.launch import launch_fixes
    from vado.port.lt_descriptors import lt_descriptor_fixes
    from vado.port.namespaces import namespace_fixes
    from vado.port.overloads import dim3_assign_fixes, location_overload_fixes, yield_to
    from vado.port.passes import offload_archs, source_links_under
    from vado.port.translate import (callback_convention_fixes, identifier_fixes, implicit_std_include_fixes, include_fixes,
                                     register_keyword_fixes, runtime_include_fix, sync_downgrade_fixes)
    from vado.port.wave import warp32_helper_fixes

    source_kinds = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER})
    fixes = [f.fix for f in findings if f.fix is not None]
    if kind is FileKind.CMAKE:
        fixes.extend(cmake_hip_fixes(path, text, options.renamed, offload_archs(target, options),
                                     source_links_under(path, options)))
        fixes.extend(cmake_rename_fixes(path, text, options.renamed))
    elif kind is FileKind.MAKEFILE:
        fixes.extend(makefile_rename_fixes(path, text, options.renamed))
        if options.source_links:
            fixes.extend(makefile_link_fixes(path, text, source_links_under(path, options)))
    if kind.is_c_family:
        toks = lex(text)
        fixes.extend(include_rename_fixes(path, toks, options.renamed))
        fixes.extend(include_fixes(path, toks, target, roc=options.roc))
        fixes.extend(identifier_fixes(path, toks, target, roc=options.roc))
        fixes.extend(sync_downgrade_fixes(path, text, toks, target))
        fixes.extend(local_helper_fixes(path, text, toks, target))
        fixes.extend(half_cast_fixes(path, text, toks, target))
        if target.family == "rocm":
            fixes.extend(dependent_template_fixes(path, text, toks))
        fixes.extend(warp32_helper_fixes(path, text, toks, target, options.wave))
        fixes.extend(cg_reduce_fixes(path, text, toks, target))
        fixes.extend(solve_buffer_fixes(path, text, toks, target))
        fixes.extend(braced_zero_fixes(path, toks, target))
        fixes.extend(scale_type_fixes(path, text, toks, target))
        fixes.extend(fast_accum_fixes(path, text, toks, target))
        fixes.extend(device_error_string_fixes(path, text, toks, target))
        overloads = location_overload_fixes(path, text, toks, target) + lt_descriptor_fixes(path, text, toks, target)
        fixes = yield_to(fixes, overloads) + overloads
        fp8 = fp8_fixes(path, text, toks, target)
        fixes = yield_to(fixes, fp8) + fp8
        fixes.extend(dim3_assign_fixes(path, text, toks, target))
        fixes.extend(block_io_fixes(path, text, toks, target))
        fixes.extend(register_keyword_fixes(path, toks))
        if target.family == "rocm":
            fixes.extend(callback_convention_fixes(path, text, toks))
        fixes.extend(namespace_fixes(path, toks, text))
        if options.launch == "ggl":
            fixes.extend(launch_fixes(path, text, toks))
        if kind in source_kinds:
            fix = runtime_include_fix(path, text, toks)
            if fix is not None:
                fixes.append(fix)
        if kind in source_kinds or kind is FileKind.CXX_HEADER:
            fixes.extend(implicit_std_include_fixes(path, text, toks, cuda_file=kind in source_kinds))
    return fixes


def _inputs():
    """The PORT fixtures' sources (the FP8, overload and cuBLASLt ones among them) and the PROJECTS' build files."""
    files = sorted(p for p in (FIXTURES / "PORT").iterdir() if p.suffix in (".cu", ".cuh", ".h", ".cpp"))
    files += sorted(p for p in (FIXTURES / "PROJECTS").rglob("*") if p.name in ("CMakeLists.txt", "Makefile"))
    return files


@pytest.mark.parametrize("target_name, options", [
    ("rocm-7.2", PortOptions(renamed=("main.cu",), source_links=(("", "nvtx3"),))),
    ("hip-5.2", PortOptions(launch="ggl")),
])
def test_registry_produces_the_same_fixes_as_the_hand_kept_list(target_name, options):
    from vado.port.file import _check

    target = get_target(target_name)
    compared = 0
    for p in _inputs():
        kind = classify(str(p))
        text = p.read_bytes().decode("latin-1")
        path = p.name
        findings = _check(path, kind, text, target, options)
        assert produce_fixes(path, kind, text, target, options, findings) == \
            _old_produce_fixes(path, kind, text, target, options, findings), p
        compared += 1
    assert compared > 50
