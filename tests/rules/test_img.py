"""IMG rules: base images, serving images, NVIDIA runtime settings."""

from __future__ import annotations

from vado.model import Verdict

from _fixroundtrip import findings, fix_all

DF = """\
ARG BASE=nvcr.io/nvidia/pytorch:24.01-py3
ARG CUDA=12.1.0
FROM ${BASE} AS train
FROM nvidia/cuda:${CUDA}-cudnn-devel-ubuntu22.04 AS build
FROM nvcr.io/nvidia/tritonserver:24.05-py3
FROM python:3.11-slim
FROM build
ENV NVIDIA_VISIBLE_DEVICES=all PATH=/usr/bin
"""


def test_codes_and_lines():
    got = [(f.span.line, f.code) for f in findings("Dockerfile", DF)]
    assert got == [(3, "IMG001"), (4, "IMG001"), (5, "IMG002"), (8, "IMG003")]


def test_fix_edits_the_arg_default_or_the_from_text():
    fixed = fix_all("Dockerfile", DF)
    lines = fixed.splitlines()
    assert lines[0] == "ARG BASE=rocm/pytorch:rocm7.2_ubuntu24.04_py3.12_pytorch_release_2.9.1"
    assert lines[2] == "FROM ${BASE} AS train"
    assert lines[3] == "FROM rocm/dev-ubuntu-22.04:7.2-complete AS build"
    assert lines[4] == "FROM nvcr.io/nvidia/tritonserver:24.05-py3"  # no fix: a different serving stack
    assert fix_all("Dockerfile", fixed) == fixed


def test_serving_image_is_blocked_everywhere():
    f = next(x for x in findings("Dockerfile", DF) if x.code == "IMG002")
    assert set(f.verdicts.values()) == {Verdict.BLOCKED}
    assert "rocm/vllm" in f.message


def test_runtime_setting_names_device_flags():
    f = next(x for x in findings("Dockerfile", DF) if x.code == "IMG003")
    assert "--device=/dev/kfd --device=/dev/dri --group-add video" in f.message
    assert f.fix is None
