"""File kinds from names."""

from __future__ import annotations

import pytest

from vado.scan.classify import FileKind, classify


@pytest.mark.parametrize(
    "path, kind",
    [
        ("src/kernel.cu", FileKind.CUDA_SOURCE),
        ("include/ops.cuh", FileKind.CUDA_HEADER),
        ("tf/kernels/relu_op_gpu.cu.cc", FileKind.CUDA_SOURCE),
        ("xla/foo.cu.cpp", FileKind.CUDA_SOURCE),
        ("xla/foo.cu.h", FileKind.CUDA_HEADER),
        ("a/b.CPP", FileKind.CXX_SOURCE),
        ("a/b.c", FileKind.CXX_SOURCE),
        ("a/b.hpp", FileKind.CXX_HEADER),
        ("a/b.inl", FileKind.CXX_HEADER),
        ("a/b.h", FileKind.CXX_HEADER),
        ("port/k.hip", FileKind.HIP_SOURCE),
        ("kernels/gemm.ptx", FileKind.PTX),
        ("setup.py", FileKind.SETUP_PY),
        ("pkg/module.py", FileKind.PYTHON),
        ("ext.pyx", FileKind.PYTHON),
        ("CMakeLists.txt", FileKind.CMAKE),
        ("cmake/FindCUDA.cmake", FileKind.CMAKE),
        ("Makefile", FileKind.MAKEFILE),
        ("GNUmakefile", FileKind.MAKEFILE),
        ("rules.mk", FileKind.MAKEFILE),
        ("pyproject.toml", FileKind.PYPROJECT),
        ("setup.cfg", FileKind.SETUP_CFG),
        ("requirements.txt", FileKind.REQUIREMENTS),
        ("requirements-dev.txt", FileKind.REQUIREMENTS),
        ("ci/constraints.txt", FileKind.REQUIREMENTS),
        ("environment.yml", FileKind.CONDA_ENV),
        ("conda-gpu.yaml", FileKind.CONDA_ENV),
        ("Dockerfile", FileKind.DOCKERFILE),
        ("docker/Dockerfile.cuda12", FileKind.DOCKERFILE),
        ("gpu.dockerfile", FileKind.DOCKERFILE),
        ("build/compile_commands.json", FileKind.COMPILE_COMMANDS),
        ("README.md", FileKind.OTHER),
        ("notes.txt", FileKind.OTHER),
        ("kernel.cubin", FileKind.OTHER),
        ("include/cuda/std/atomic", FileKind.OTHER),  # extension-less: sniffed by discovery
    ],
)
def test_classify(path, kind):
    assert classify(path) is kind


def test_kind_families():
    assert FileKind.CUDA_SOURCE.is_c_family and FileKind.HIP_SOURCE.is_c_family
    assert not FileKind.PTX.is_c_family and not FileKind.PYTHON.is_c_family
    assert FileKind.CMAKE.is_build and not FileKind.REQUIREMENTS.is_build


def test_values_are_stable_strings():
    # Reports store kinds by value; these must not change.
    assert FileKind.CUDA_SOURCE.value == "cuda-source"
    assert FileKind.PTX.value == "ptx"
    assert FileKind("cxx-header") is FileKind.CXX_HEADER
