"""`vado verify` compiles Triton kernels without running a line of the tree's Python.

Each attack puts code where the old extraction copied it into the module it executed
(imports, decorators, tl.constexpr(<expr>) constants, default values, annotations) or
where Triton's code generator calls it (a kernel naming builtins.exec through
triton.language.core). Each would write a marker file; none may, the kernel is refused
with the reason, and a plain kernel in the same file still compiles."""

from __future__ import annotations

import pytest

from vado.verify.triton_kernels import compile_kernels
from vado.verify.triton_module import build_module

from _verify_helpers import requires_triton

PLAIN = '''
# vado-triton: x_ptr=*fp32, n=i32, B=64
@triton.jit
def plain(x_ptr, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
'''

HEAD = "import triton\nimport triton.language as tl\nimport os\n"


def _attacks(mark: str) -> dict[str, str]:
    run = f'__import__("os").system("touch {mark}")'
    sig = "# vado-triton: x_ptr=*fp32, n=i32, B=64\n"
    body = "    offs = tl.arange(0, B)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs))\n"
    return {
        "decorator": f"{sig}@triton.jit\n@({run} and None or (lambda f: f))\ndef bad(x_ptr, n, B: tl.constexpr):\n{body}",
        "constexpr": f"BAD = tl.constexpr({run} + 64)\n{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr):\n"
                     "    offs = tl.arange(0, BAD)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs))\n",
        "default": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr = {run} + 64):\n{body}",
        "annotation": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: ({run}, tl.constexpr)[1]):\n{body}",
        "codegen-call": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr):\n"
                        f"    tl.core.builtins.exec('import os; os.system(\"touch {mark}\")')\n{body}",
        "module-as-value": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr):\n    m = tl.core\n"
                           f"    m.builtins.exec('import os; os.system(\"touch {mark}\")')\n{body}",
        "import-use": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr):\n    os.system('touch {mark}')\n{body}",
        "getattr": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr):\n"
                   f"    getattr(tl, 'core').builtins.exec('open(\"{mark}\", \"w\")')\n{body}",
        "kernel-attribute": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr):\n"
                            f"    plain.fn(x_ptr, n, B)\n{body}",
        "dunder": f"{sig}@triton.jit\ndef bad(x_ptr, n, B: tl.constexpr):\n"
                  f"    tl.load.__globals__['builtins'].exec('open(\"{mark}\", \"w\")')\n{body}",
    }


@pytest.mark.parametrize("name", list(_attacks("M")))
def test_the_built_module_holds_none_of_the_attack(tmp_path, name):
    mark = tmp_path / "pwned"
    text = HEAD + _attacks(str(mark))[name] + PLAIN + f'\n__import__("os").system("touch {mark}")\n'
    built = build_module(text)
    assert "plain" not in built.refused and "def plain" in built.source
    assert "system" not in built.source or name in ("codegen-call", "module-as-value")
    if name in ("codegen-call", "module-as-value"):
        # Statically a triton.language chain: the driver's resolution refuses it (below).
        assert "bad" in built.refused or "triton.language.core" in " ".join(built.chains.get("bad", []))
    else:
        assert "bad" in built.refused and "def bad" not in built.source
    assert "import os" not in built.source.splitlines()  # the tree's own imports are not copied


@requires_triton
@pytest.mark.parametrize("name", list(_attacks("M")))
def test_no_attack_runs_during_verify(tmp_path, name):
    tree = tmp_path / "tree"
    tree.mkdir()
    mark = tmp_path / "pwned"
    (tree / "k.py").write_text(HEAD + _attacks(str(mark))[name] + PLAIN + f'\n__import__("os").system("touch {mark}")\n')
    rep = compile_kernels(tree, ["gfx942"])
    assert not mark.exists(), f"tree code ran ({name})"
    reasons = dict(rep.skipped)
    assert "refused" in reasons.get("k.py::bad", ""), reasons
    (ev,) = rep.evidence
    assert ev.subject == "k.py::plain" and ev.passed, ev.stderr
