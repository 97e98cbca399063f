"""Dockerfile parser: FROM with ARG substitution, stages, ENV/LABEL, pip installs, exact spans."""

from __future__ import annotations

from vado.scan.dockerfile import ImageRef, parse_dockerfile, substitute

DOCKERFILE = """\
# syntax=docker/dockerfile:1
ARG CUDA_VERSION=12.1.0
ARG BASE="nvcr.io/nvidia/pytorch:24.01-py3"
FROM --platform=linux/amd64 nvidia/cuda:${CUDA_VERSION}-devel-ubuntu22.04 AS build
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES="compute,utility"
ENV LEGACY some value
LABEL com.nvidia.volumes.needed="nvidia_driver"
RUN apt-get update && \\
    # comment inside
    pip install --no-cache-dir torch==2.1.0+cu121 torchvision \\
      --extra-index-url https://download.pytorch.org/whl/cu121 && echo ok
RUN <<EOF
python -m pip install cupy-cuda12x
conda install -c nvidia pytorch-cuda=12.1
EOF
FROM ${BASE}
FROM build AS final
FROM ${UNDEF}:latest
"""


def test_froms_with_args_platform_and_stages():
    d = parse_dockerfile(DOCKERFILE)
    got = [(f.image, f.resolved, f.platform, f.stage, f.base_stage, f.variables) for f in d.froms]
    assert got == [
        ("nvidia/cuda:${CUDA_VERSION}-devel-ubuntu22.04", "nvidia/cuda:12.1.0-devel-ubuntu22.04", "linux/amd64",
         "build", "", ("CUDA_VERSION",)),
        ("${BASE}", "nvcr.io/nvidia/pytorch:24.01-py3", "", "", "", ("BASE",)),
        ("build", "build", "", "final", "build", ()),
        ("${UNDEF}:latest", None, "", "", "", ("UNDEF",)),
    ]
    assert all(DOCKERFILE[f.start:f.end] == f.image for f in d.froms)
    assert d.froms[0].ref == ImageRef("nvidia/cuda:12.1.0-devel-ubuntu22.04", "", "nvidia/cuda", "12.1.0-devel-ubuntu22.04")
    assert d.froms[1].ref.registry == "nvcr.io" and d.froms[1].ref.repository == "nvidia/pytorch"
    assert d.froms[2].ref is None and d.froms[3].ref is None
    base = next(a for a in d.args if a.name == "BASE")
    assert DOCKERFILE[base.value_start:base.value_end] == "nvcr.io/nvidia/pytorch:24.01-py3" and base.global_


def test_env_label_pairs():
    d = parse_dockerfile(DOCKERFILE)
    assert [(e.name, e.value) for e in d.env] == [
        ("NVIDIA_VISIBLE_DEVICES", "all"), ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"), ("LEGACY", "some value")]
    assert [DOCKERFILE[e.start:e.end] for e in d.env][:2] == [
        "NVIDIA_VISIBLE_DEVICES=all", 'NVIDIA_DRIVER_CAPABILITIES="compute,utility"']
    assert d.labels[0].name == "com.nvidia.volumes.needed"


def test_pip_and_conda_installs_across_continuations_and_heredocs():
    d = parse_dockerfile(DOCKERFILE)
    pips = d.pip_installs
    assert [p.command for p in pips] == ["pip", "python"]
    assert [(r.name, r.local) for r in pips[0].requirements] == [("torch", "cu121"), ("torchvision", "")]
    torch = pips[0].requirements[0]
    assert DOCKERFILE[torch.start:torch.end] == "torch==2.1.0+cu121"
    ix = pips[0].indexes[0]
    assert DOCKERFILE[ix.url_start:ix.url_end] == "https://download.pytorch.org/whl/cu121"
    assert [r.name for r in pips[1].requirements] == ["cupy-cuda12x"]
    conda = d.conda_installs[0]
    assert [(s.name, s.spec) for s in conda.specs] == [("pytorch-cuda", "=12.1")]
    assert conda.channels[0][0] == "nvidia"


def test_escape_directive_and_exec_form():
    text = "# escape=`\nFROM ubuntu:22.04\nRUN pip install `\n    torch==2.0+cu118\nRUN [\"pip\", \"install\", \"x\"]\n"
    d = parse_dockerfile(text)
    assert [r.name for p in d.pip_installs for r in p.requirements] == ["torch"]


def test_substitute_forms():
    values = {"A": "1", "E": ""}
    assert substitute("x${A}y$A", values) == ("x1y1", ("A",))
    assert substitute("${B:-d}", values) == ("d", ("B",))
    assert substitute("${E:-d}", values) == ("d", ("E",))
    assert substitute("${A:+alt}", values) == ("alt", ("A",))
    assert substitute("${B}", values) == (None, ("B",))


def test_bad_input_does_not_crash():
    d = parse_dockerfile("FROM\nRUN pip install 'unterminated\n\x00\xff garbage\nENV\n" + "RUN " + "a" * 200000 + "\n")
    assert d.problems and "FROM without an image" in d.problems[0].reason
    assert d.froms == ()
