"""Target profiles: loading, aliases, errors with suggestions, wavefronts, features."""

from __future__ import annotations

import pytest

from vado.errors import KnowledgeError
from vado.knowledge import targets
from vado.model import Target, from_json, to_json


def test_nothing_is_loaded_at_import_time():
    # A fresh interpreter: importing the module must not parse targets.yaml.
    import subprocess
    import sys

    code = (
        "import vado.knowledge.targets as t, sys;"
        "assert t.cache_info().currsize == 0;"
        "assert 'yaml' not in sys.modules, 'yaml imported at import time';"
        "t.get_target('rocm');"
        "assert t.cache_info().currsize == 1"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_all_profiles_parse_and_name_a_source():
    names = [t.name for t in targets.all_targets()]
    assert names == ["rocm-7.2", "rocm-6.4", "hip-5.2", "oneapi", "scale", "zluda"]
    for t in targets.all_targets():
        assert isinstance(t, Target)
        assert t.source.startswith("https://")
        assert t.wavefront and set(t.wavefront) == set(t.lane_widths)
        assert all(t.wavefront[a] in t.lane_widths[a] for a in t.wavefront)
        assert targets.target_provenance(t.name)["as_of"]


def test_default_target_and_audit_order():
    assert targets.DEFAULT_TARGET == "rocm-7.2"
    assert targets.get_target().name == "rocm-7.2"
    assert [t.name for t in targets.default_audit_targets()] == ["rocm-7.2", "oneapi", "scale", "zluda"]


@pytest.mark.parametrize(
    "alias,name",
    [("rocm", "rocm-7.2"), ("ROCm", "rocm-7.2"), ("sycl", "oneapi"), ("intel", "oneapi"), ("hip-5.2", "hip-5.2"),
     ("debian", "hip-5.2"), ("rocm6", "rocm-6.4"), (" scale ", "scale"), ("zluda", "zluda")],
)
def test_aliases(alias, name):
    assert targets.get_target(alias).name == name


@pytest.mark.parametrize("typo,suggestion", [("rocm-7.3", "rocm-7.2"), ("zlda", "zluda"), ("onapi", "oneapi"), ("scal", "scale")])
def test_unknown_name_suggests_close_matches(typo, suggestion):
    with pytest.raises(KnowledgeError) as info:
        targets.get_target(typo)
    err = info.value
    assert repr(typo) in err.what
    assert repr(suggestion) in err.tip
    assert "rocm-7.2" in err.why  # lists the known targets


def test_unknown_name_without_close_match_still_has_a_tip():
    with pytest.raises(KnowledgeError) as info:
        targets.get_target("metal")
    assert info.value.tip


@pytest.mark.parametrize("arch,width", [("gfx90a", 64), ("gfx940", 64), ("gfx942", 64), ("gfx950", 64), ("gfx908", 64),
                                        ("gfx1100", 32), ("gfx1201", 32), ("gfx1030", 32)])
def test_wavefront_per_arch(arch, width):
    info = targets.arch_info(arch)
    assert info is not None and info.wavefront == width
    for t in targets.all_targets():
        if arch in t.wavefront:
            assert t.wavefront_of(arch) == width


def test_rdna_can_run_wave64_cdna_cannot_run_wave32():
    assert targets.arch_info("gfx1100").lane_widths == (32, 64)
    assert targets.arch_info("gfx942").lane_widths == (64,)


def test_rocm_72_profile():
    t = targets.get_target("rocm-7.2")
    assert t.family == "rocm" and t.hip_version == "7.2"
    # MI300X and MI355X: what vado verify builds a rocm-7.2 port for by default.
    assert t.default_arch == ("gfx942", "gfx950")
    assert set(t.wavefront) == {"gfx950", "gfx942", "gfx90a", "gfx908", "gfx1201", "gfx1200", "gfx1100", "gfx1101", "gfx1030"}
    assert t.libraries["hipBLAS"] == "3.2.0" and t.libraries["MIOpen"] == "3.5.1" and t.libraries["RCCL"] == "2.27.7"
    f = t.features
    assert f["warp_sync_builtins"] and f["warp_sync_builtins_default"]
    assert f["warpsize_constexpr"] is False
    assert f["inline_ptx"] is False and f["dynamic_parallelism"] is False and f["cuda_binary_compat"] is False


def test_rocm_64_warp_sync_is_opt_in():
    t = targets.get_target("rocm-6.4")
    assert t.features["warp_sync_builtins"] is True
    assert t.features["warp_sync_builtins_default"] is False
    assert "HIP_ENABLE_WARP_SYNC_BUILTINS" in t.notes["warp_sync_builtins"]
    assert t.features["warpsize_constexpr"] is True


def test_debian_hip_52_cannot_build_gfx942():
    t = targets.get_target("hip-5.2")
    assert t.hip_version == "5.2" and t.family == "rocm"
    assert t.default_arch == ("gfx90a",)
    assert "gfx942" not in t.wavefront
    assert t.wavefront == {"gfx90a": 64, "gfx908": 64, "gfx940": 64, "gfx1030": 32}
    assert t.features["warp_sync_builtins"] is False


def test_oneapi_sub_groups():
    t = targets.get_target("oneapi")
    assert t.family == "oneapi" and t.hip_version is None
    assert t.lane_widths["intel_gpu_pvc"] == (16, 32)
    assert 8 in t.lane_widths["intel_gpu_acm_g10"]
    assert t.features["subgroup_size_per_kernel"] is True
    assert "reqd_sub_group_size" in t.notes["subgroup_size_per_kernel"]


def test_scale_ptx_is_partial():
    t = targets.get_target("scale")
    assert t.version == "1.7.1"
    assert t.features["inline_ptx"] is True and t.features["hopper_ptx"] is False
    assert t.attributes["ptx_support"] == "partial"
    assert "wgmma" in t.attributes["ptx_unsupported"]
    assert t.wavefront_of("gfx942") == 64 and t.wavefront_of("gfx1100") == 32


def test_zluda_is_rdna_only():
    t = targets.get_target("zluda")
    assert t.features["cuda_binary_compat"] is True
    assert t.max_wavefront == 32
    assert not any(a.startswith("gfx9") for a in t.wavefront)


def test_targets_round_trip_through_json():
    for t in targets.all_targets():
        assert from_json(Target, to_json(t)) == t
