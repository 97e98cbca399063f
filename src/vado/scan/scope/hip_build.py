"""Which build is the project's own ROCm build: a CMake HIP build (:mod:`.cmake_hip`), a Makefile's HIP switch,
or a setup.py that builds for ROCm itself (``IS_HIP_EXTENSION``, ``torch.version.hip``), whose ROCm and CUDA
extensions' sources :func:`vado.build.torch_setup.derive` reads (evaluated, never run)."""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from typing import Mapping

from vado.scan.scope.cmake_hip import HIP_CMAKE_SIGN, cmake_hip, is_switch
from vado.scan.scope.model import DIR_WORD, FileScope, HipBuild, unique


_MAKE_COND = re.compile(r"^\s*(?:ifdef|ifndef|ifeq|ifneq)\b[ \t(]*\$?\(?(\w+)", re.MULTILINE)
#: ``ifeq ($(NAME),VALUE)`` / ``ifeq "$(NAME)" "VALUE"`` (either order): the variable and the value it is compared with.
_MAKE_EQ = re.compile(r"""^\s*ifeq\s*(?:\(\s*\$[({](\w+)[)}]\s*,\s*["']?([\w.-]*)["']?\s*\)"""
                      r"""|\(\s*["']?([\w.-]*)["']?\s*,\s*\$[({](\w+)[)}]\s*\)"""
                      r"""|["']\$[({](\w+)[)}]["']\s+["']([\w.-]*)["'])""", re.MULTILINE)
_MAKE_TRUE = frozenset({"1", "TRUE", "ON", "YES", "Y"})
_MAKE_HIP_VALUES = frozenset({"HIP", "ROCM", "AMD"})
_MAKE_HIPCC = re.compile(r"\bhipcc\b|--offload-arch|\bHIP_PLATFORM\b")
_MAKE_TARGET = re.compile(r"^(hip|rocm|amd|hipblas)\s*:", re.MULTILINE | re.IGNORECASE)
_MAKE_DEFINE = re.compile(r"-D(\w+(?:=\w+)?)")


def _make_hip(path: str, text: str) -> HipBuild | None:
    if not _MAKE_HIPCC.search(text):
        return None
    # A comparison first: it says the value that turns the switch on (AMReX 92679ba Make.defs: ifeq ($(USE_HIP),TRUE);
    # a backend string: ifeq ($(GPU_BACKEND),HIP)).
    for m in _MAKE_EQ.finditer(text):
        name = m.group(1) or m.group(4) or m.group(5)
        value = m.group(2) if m.group(1) else (m.group(3) if m.group(4) else m.group(6))
        if value.upper() in _MAKE_HIP_VALUES or (is_switch(name) and value.upper() in _MAKE_TRUE):
            end = text.find("endif", m.end())
            block = text[m.end(): end if end != -1 else len(text)]
            defines = unique(_MAKE_DEFINE.findall(block))
            return HipBuild(f"make {name}={value}", name, defines,
                            evidence=(f"{path}: {name}={value} builds with hipcc",))
    for m in _MAKE_COND.finditer(text):
        if is_switch(m.group(1)):
            # The block of that conditional, up to its endif: the macros it adds.
            end = text.find("endif", m.end())
            block = text[m.end(): end if end != -1 else len(text)]
            defines = unique(_MAKE_DEFINE.findall(block))
            return HipBuild(f"make {m.group(1)}=1", m.group(1), defines, evidence=(f"{path}: {m.group(1)} builds with hipcc",))
    t = _MAKE_TARGET.search(text)
    if t:
        return HipBuild(f"make {t.group(1)}", t.group(1), evidence=(f"{path}: target {t.group(1)} builds with hipcc",))
    return None


def _setup_hip(path: str, text: str) -> HipBuild | None:
    if "IS_HIP_EXTENSION" in text or "torch.version.hip" in text:
        # torch.utils.cpp_extension hipifies the CUDA sources and adds -DUSE_ROCM=1 for a ROCm PyTorch.
        # Either spelling is the extension's HIP switch (torch_scatter tests torch.version.hip).
        switch = "IS_HIP_EXTENSION" if "IS_HIP_EXTENSION" in text else "torch.version.hip"
        return HipBuild("pip install . (with a ROCm build of PyTorch)", switch, ("USE_ROCM=1",),
                        evidence=(f"{path}: {switch}",))
    m = re.search(r"""environ(?:\.get)?\s*[\[(]\s*["'](USE_ROCM|\w*_HIP|\w*_ROCM)["']""", text)
    if m:
        return HipBuild(f"{m.group(1)}=1 pip install .", m.group(1), evidence=(f"{path}: reads {m.group(1)}",))
    return None


#: The extensions of a source a setup.py may copy to another extension before it compiles it.
_SOURCE_TWINS = (".cpp", ".cc", ".cxx", ".cu", ".hip")


def _setup_rocm_sources(root: str, path: str, text: str, files: frozenset[str]):
    """What the ROCm-aware setup.py at ``path`` (relative to ``root``) builds on each platform, read by
    :func:`vado.build.torch_setup.derive` (evaluated, never run): ``(defines, rocm_sources, cuda_only, evidence,
    flags)`` with the macros every ROCm extension gets, the planned sources the ROCm extensions compile, those only
    the CUDA extensions compile, and the compiler flags of the ROCm extensions; None where it derives no ROCm
    extension (a setup.py that stops on ROCm, one it cannot read: nothing is then said of its sources)."""
    from vado.build.torch_setup import derive

    from vado.rules.bld_setup_stops import toolkit_stops

    if toolkit_stops(text):
        return None  # it stops on ROCm before it builds (hopper/setup.py runs CUDA_HOME + "/bin/nvcc" -V)
    here = posixpath.dirname(path)
    d = derive(os.path.join(root, here) if here else root)
    rocm, cuda = d.extensions.get("rocm", ()), d.extensions.get("cuda", ())
    if d.skipped or not any(e.kind == "CUDAExtension" for e in rocm):
        return None

    def planned(exts) -> list[str]:
        out = []
        for e in exts:
            for src in e.sources:
                rel = posixpath.normpath(posixpath.join(here, src)) if here else posixpath.normpath(src)
                if rel not in files:
                    # A source setup.py writes before it compiles: flash-attention's rename_cpp_to_cu copies
                    # csrc/flash_attn_ck/X.cpp to X.cu and names the copy. The tree's source of that name is it.
                    stem = posixpath.splitext(rel)[0]
                    rel = next((stem + x for x in _SOURCE_TWINS if stem + x in files), rel)
                if rel in files:
                    out.append(rel)
        return out

    spelled = [[m if v is None else f"{m}={v}" for m, v in e.define_macros] for e in rocm]
    common = set.intersection(*map(set, spelled))  # a header sees only what every unit agrees on
    defines = [m for m in dict.fromkeys(m for ms in spelled for m in ms) if m in common]
    srcs = planned(rocm)
    only = sorted(set(planned(cuda)) - set(srcs))
    line = min(e.line for e in rocm if e.kind == "CUDAExtension")
    n = len(set(srcs))
    said = (f"{path}:{line}: its ROCm build compiles {n} source{'' if n == 1 else 's'}"
            + (f"; {len(only)} more only its CUDA build" if only else ""))
    flags = tuple(dict.fromkeys(str(x) for e in rocm for x in (*e.cxx, *e.nvcc)))
    return defines, srcs, only, said, flags


def hip_build(build_texts: Mapping[str, str], scopes: Mapping[str, FileScope], arches: tuple[str, ...],
              files: frozenset[str] = frozenset(), root: str | None = None) -> HipBuild | None:
    """The project's own ROCm build from its build files (those not scoped as something else): its CMake HIP build,
    unless a ROCm-aware setup.py sits above it, else a Makefile's HIP switch, else the top-most ROCm-aware setup.py,
    with the sources every such setup.py's ROCm and CUDA extensions compile (read below ``root``); None without."""
    arch_list = ";".join(arches) or "gfx942"
    if ";" in arch_list:
        arch_list = f'"{arch_list}"'
    own = {p: t for p, t in build_texts.items() if scopes.get(p) is None}
    cmake = {p: t for p, t in own.items() if p.lower().endswith(("cmakelists.txt", ".cmake"))}
    hip_dirs = {posixpath.dirname(p) for p in cmake
                if any(w in ("hip", "rocm") for w in DIR_WORD.split(posixpath.basename(posixpath.dirname(p)).lower()))}
    found = cmake_hip(cmake, hip_dirs, arch_list, files) if cmake else None
    if found is not None and not _setup_above(own, cmake, hip_dirs):
        return found
    setups = []
    for path, text in sorted(own.items(), key=lambda kv: (kv[0].count("/"), kv[0])):
        name = posixpath.basename(path).lower()
        if name in ("makefile", "gnumakefile") or name.endswith((".mk", ".make")):
            got = _make_hip(path, text)
            if got is not None:
                return got
        elif name == "setup.py":
            got = _setup_hip(path, text)
            if got is not None:
                setups.append((path, got))
    if not setups:
        return None
    # The top-most setup.py's switch names the build; every setup.py that builds for ROCm itself says which
    # sources its ROCm and CUDA extensions compile (flash-attention: the root's CK build and hopper/'s).
    path, hip = setups[0]
    if root is None:
        return hip
    defines, rocm, cuda_only, evidence = list(hip.defines), [], [], list(hip.evidence)
    derived: list[tuple[str, tuple[str, ...]]] = []
    for at, _ in setups:
        got = _setup_rocm_sources(root, at, own[at], files)
        if got is None:
            continue
        macros, srcs, only, said, flags = got
        derived.append((at, flags))
        if at == path:
            defines.extend(macros)
        rocm.extend(srcs)
        cuda_only.extend(only)
        evidence.append(said)
    if not rocm:
        return hip
    return dataclasses.replace(hip, defines=unique(defines), evidence=tuple(evidence), rocm_sources=unique(rocm),
                               cuda_only=tuple(sorted(set(cuda_only) - set(rocm))), rocm_setups=tuple(derived))


def _setup_above(own: Mapping[str, str], cmake: Mapping[str, str], hip_dirs: set[str]) -> bool:
    """Whether a setup.py that builds for ROCm itself sits above every CMake file that builds with HIP: the
    project's ROCm build is that setup.py's (xformers: its setup.py builds the CK kernels; a CMakeLists.txt deep
    in xformers/csrc/attention/hip_decoder/ builds one directory's kernels on its own, for their developers)."""
    setups = [p.count("/") for p, t in own.items() if posixpath.basename(p).lower() == "setup.py"
              and ("IS_HIP_EXTENSION" in t or "torch.version.hip" in t)]
    hips = [p.count("/") for p, t in cmake.items() if HIP_CMAKE_SIGN.search(t) or posixpath.dirname(p) in hip_dirs]
    return bool(setups) and (not hips or min(setups) < min(hips))
