"""DEP rules: per-target verdicts from the package table, fixes on exact spans."""

from __future__ import annotations

from vado.model import Verdict

from _fixroundtrip import findings, fix_all

REQS = """\
--extra-index-url https://download.pytorch.org/whl/cu121
torch==2.5.1+cu121
jax[cuda12]==0.8.2
nvidia-cudnn-cu12==9.1.0.70
tensorrt==10.0.1
flash-attn==2.6.3
numpy==1.26.4
torch==2.9.1
"""


def codes_by_line(found):
    out = {}
    for f in found:
        out.setdefault(f.span.line, set()).add(f.code)
    return out


def test_requirements_codes_and_clean_lines():
    got = codes_by_line(findings("requirements.txt", REQS))
    assert got == {1: {"DEP004"}, 2: {"DEP002"}, 3: {"DEP002"}, 4: {"DEP001"}, 5: {"DEP001"}, 6: {"DEP003"}}


def test_fixes_rewrite_index_local_and_extra_and_are_idempotent():
    fixed = fix_all("requirements.txt", REQS)
    assert fixed.splitlines() == [
        "--extra-index-url https://download.pytorch.org/whl/rocm7.2",
        # vado's table does not list 2.5.1 on a ROCm index: the ROCm local version makes pip fail
        # there rather than install PyPI's CUDA wheel of 2.5.1.
        "torch==2.5.1+rocm7.2",
        "jax[rocm7-local]==0.8.2",
        "",
        "tensorrt==10.0.1",
        "flash-attn==2.6.3",
        "numpy==1.26.4",
        "torch==2.9.1",
    ]
    assert fix_all("requirements.txt", fixed) == fixed


def test_verdicts_are_honest_per_target():
    found = {f.data.get("package"): f for f in findings("requirements.txt", REQS) if f.data.get("package")}
    trt = found["tensorrt"]
    assert trt.verdicts["rocm-7.2"] is Verdict.BLOCKED and trt.verdicts["scale"] is Verdict.BLOCKED
    torch = found["torch"]
    # SCALE compiles CUDA source; it cannot run a CUDA wheel, and fails PyTorch in its own validation.
    assert torch.verdicts["scale"] is Verdict.BLOCKED
    assert torch.verdicts["zluda"] is Verdict.MANUAL
    assert torch.verdicts["rocm-7.2"] is Verdict.AUTOMATIC


def test_llama_cpp_runs_under_zluda():
    f = findings("requirements.txt", "llama-cpp-python==0.3.2\n", ("DEP003",))[0]
    assert f.verdicts["zluda"] is Verdict.MOVES_AS_IS and f.verdicts["rocm-7.2"] is Verdict.MANUAL


def test_pyproject_and_conda_and_dockerfile_sources():
    pp = '[project]\ndependencies = ["torch==2.4.0+cu124"]\n[tool.uv]\nindex-url = "https://download.pytorch.org/whl/cu124"\n'
    assert {f.code for f in findings("pyproject.toml", pp)} == {"DEP002", "DEP004"}
    env = "channels: [nvidia]\ndependencies:\n  - pytorch-cuda=12.1\n"
    assert [f.code for f in findings("environment.yml", env)] == ["DEP004", "DEP004"]
    df = "FROM ubuntu:22.04\nRUN pip install torch==2.1.0+cu121 --index-url https://download.pytorch.org/whl/cu121\n"
    assert {f.code for f in findings("Dockerfile", df)} == {"DEP002", "DEP004"}
    fixed = fix_all("Dockerfile", df)
    # torch 2.1.0 is published for ROCm on the rocm5.6 index only (PyTorch's previous-versions page).
    assert "torch==2.1.0+rocm5.6 --index-url https://download.pytorch.org/whl/rocm5.6" in fixed


def test_imports_and_raw_kernels():
    py = "import torch\nimport tensorrt\nfrom numba import cuda\nimport numpy\n"
    got = findings("mod.py", py, ("DEP005",))
    assert [(f.span.line, f.data["package"]) for f in got] == [(2, "tensorrt"), (3, "numba")]


def test_bad_input_yields_info_findings_without_verdicts():
    got = findings("requirements.txt", "torch=2.1\n--bogus\n")
    assert [f.code for f in got] == ["DEP006", "DEP006"]
    assert all(f.verdicts == {} for f in got)
    got = findings("setup.py", "setup(install_requires=['tensorrt'\n")
    # BLD007 reports the same syntax error for the build side of setup.py.
    assert {f.code for f in got} == {"DEP006", "DEP001", "BLD007"}


def test_torch_pin_moves_to_an_index_that_has_it():
    reqs = "--extra-index-url https://download.pytorch.org/whl/cu128\ntorch==2.9.1+cu128\ntorchvision==0.24.1+cu128\n"
    fixed = fix_all("requirements.txt", reqs)
    assert fixed == ("--extra-index-url https://download.pytorch.org/whl/rocm6.4\n"
                     "torch==2.9.1+rocm6.4\ntorchvision==0.24.1+rocm6.4\n")
    index = next(f for f in findings("requirements.txt", reqs) if f.data.get("url"))
    assert "torch 2.9.1 is published for ROCm on rocm6.4, not rocm7.2" in index.fix.description
    assert fix_all("requirements.txt", fixed) == fixed


def test_unpinned_torch_keeps_the_targets_index():
    fixed = fix_all("requirements.txt", "--index-url https://download.pytorch.org/whl/cu121\ntorch>=2.3\n")
    assert fixed == "--index-url https://download.pytorch.org/whl/rocm7.2\ntorch>=2.3\n"


def test_a_requirement_on_the_projects_own_distribution_is_no_dependency():
    # detectron2 02b5c4e: projects/DensePose/setup.py requires detectron2, the repository's own package (whose
    # setup.py builds it for ROCm): DEP003 "detectron2: ROCm support is community" decided its ROCm verdict.
    from vado.knowledge.targets import get_target
    from vado.rules.engine import check_text

    text = "from setuptools import setup\nsetup(name='densepose', install_requires=['detectron2', 'flash-attn'])\n"
    rocm = [get_target("rocm-7.2")]
    plain = {f.data.get("package") for f in check_text("setup.py", text, rocm) if f.code.startswith("DEP")}
    assert {"detectron2", "flash-attn"} <= plain
    own = {f.data.get("package") for f in check_text("setup.py", text, rocm, options={"own_packages": ("detectron2",)})
           if f.code.startswith("DEP")}
    assert "detectron2" not in own and "flash-attn" in own
    req = "Detectron_2>=0.6\n"  # compared as PEP 503 names
    assert [f for f in check_text("requirements.txt", req, rocm, options={"own_packages": ("detectron-2",)})
            if f.code.startswith("DEP")] == []


def test_own_packages_are_read_from_setup_py_and_pyproject_without_running_them():
    from vado.scan.scope import own_packages

    texts = {"setup.py": "import os\nsetup(name='Detectron2', version='1')\n",
             "projects/a/setup.py": "setup(name=os.environ['N'])\n",  # computed: not known
             "projects/b/pyproject.toml": "[project]\nname = 'dense_pose'\n",
             "projects/c/pyproject.toml": "[project\nname = 'broken'\n",
             "projects/d/setup.py": "setup(name='bad name!')\n"}
    assert own_packages(texts) == ("dense-pose", "detectron2")
