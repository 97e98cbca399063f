"""BLD008: a vendored library among a CUDAExtension's include_dirs goes to -I flags on ROCm builds (out of
PyTorch's build-time hipify's reach); gsplat 1.5.3's glm is the case measured (docs/torch-extensions.md)."""

from __future__ import annotations

import ast
from pathlib import Path

from vado.knowledge.targets import get_target
from vado.port.file import PortOptions, port_bytes
from vado.scan.classify import FileKind

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "BLD" / "BLD008.setup.py"
ROCM = get_target("rocm-7.2")


def _port(data: bytes) -> bytes:
    return port_bytes("setup.py", FileKind.SETUP_PY, data, ROCM, PortOptions(unsafe=True)).after


def test_the_fix_moves_the_vendored_dirs_to_flags_on_rocm_only():
    out = _port(FIXTURE.read_bytes()).decode()
    ast.parse(out)
    block = ('if torch.version.hip:  # vado: keep PyTorch\'s hipify out of vendored headers (BLD008): hipify searches '
             'include_dirs, the compilers -I too\n'
             '    include_dirs = [d for d in include_dirs if d not in (glm_path, "extern/eigen")]\n'
             '    extra_compile_args = {k: [*v, *[f"-I{d}" for d in (glm_path, "extern/eigen")]] '
             'for k, v in extra_compile_args.items()}\nextension = CUDAExtension(')
    assert block in out
    assert _port(out.encode()).decode() == out  # fixed once: the marker stops the rule


def test_a_shape_the_fix_cannot_hold_is_reported_without_a_fix():
    from vado.rules.engine import check_bytes

    src = (b"import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
           b"e = CUDAExtension('m', ['k.cu'], include_dirs=['third_party/cutlass/include'],\n"
           b"                  extra_compile_args={'nvcc': ['-O3']})\n")
    (f,) = [f for f in check_bytes("setup.py", src, (ROCM,)) if f.code == "BLD008"]
    assert f.fix is None and f.verdicts["rocm-7.2"].value == "needs-manual-work"
