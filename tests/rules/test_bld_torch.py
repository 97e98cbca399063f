"""BLD005 on torch extensions: nvcc-only flags become conditional on a ROCm build of PyTorch
(the upstream idiom: one setup.py serves CUDA and ROCm), flags already behind that test are
left alone, and files without the name to test keep the ROCm-only spelling fix."""

from __future__ import annotations

from _fixroundtrip import findings, fix_all

from vado.model import Verdict

HEAD = "import torch\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
BODY = ("NVCC = [\n    '-O3',\n    '--expt-relaxed-constexpr',\n"
        "    '-gencode=arch=compute_90,code=sm_90', '--use_fast_math'\n]\n"
        "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': NVCC + ['-lineinfo']})\n")


def _nvcc_list(setup_py: str, hip: str | None, test: str = "torch.version.hip") -> list[str]:
    """Run a fixed setup.py's flag logic with a stand-in torch (CUDA build: hip None)."""
    stub = (f"class torch:\n    class version:\n        hip = {hip!r}\nIS_HIP_EXTENSION = {bool(hip)!r}\n"
            "def CUDAExtension(*a, **k):\n    return k\n")
    code = "\n".join(line for line in setup_py.splitlines()
                     if not line.startswith(("import torch", "from torch")))
    ns: dict = {}
    exec(compile(stub + code, "setup.py", "exec"), ns)  # our own fixture text, not a project's
    return ns["e"]["extra_compile_args"]["nvcc"]


def test_flags_become_conditional_on_torch_version_hip():
    before = HEAD + BODY
    after = fix_all("setup.py", before)
    assert "*([] if torch.version.hip else ['--expt-relaxed-constexpr'])," in after
    assert "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])" in after
    assert "NVCC + [*(['-gline-tables-only'] if torch.version.hip else ['-lineinfo'])]" in after
    # The CUDA build is what it was; the ROCm build gets only flags hipcc takes.
    assert _nvcc_list(after, None) == _nvcc_list(before, None) == [
        "-O3", "--expt-relaxed-constexpr", "-gencode=arch=compute_90,code=sm_90", "--use_fast_math", "-lineinfo"]
    assert _nvcc_list(after, "7.2.4") == ["-O3", "-ffast-math", "-gline-tables-only"]
    # Fixed once: the guarded flags are no findings any more, and a second pass changes nothing.
    assert [f for f in findings("setup.py", after, ("BLD005",)) if f.data.get("flag")] == []
    assert fix_all("setup.py", after) == after


def test_is_hip_extension_is_the_test_when_it_is_imported():
    head = "from torch.utils.cpp_extension import CUDAExtension, IS_HIP_EXTENSION\n"
    after = fix_all("setup.py", head + BODY)
    assert "*([] if IS_HIP_EXTENSION else ['--expt-relaxed-constexpr'])" in after
    assert _nvcc_list(after, "7.2.4", "IS_HIP_EXTENSION") == ["-O3", "-ffast-math", "-gline-tables-only"]


def test_flags_behind_the_test_are_not_findings():
    text = HEAD + ("NVCC = ['-O3']\n"
                   "if torch.version.hip:\n    NVCC += ['-DUSE_ROCM']\nelse:\n    NVCC += ['--expt-relaxed-constexpr']\n"
                   "NVCC += [] if torch.version.hip else ['-lineinfo']\n"
                   "HIP_BUILD = bool(torch.version.hip)\n"
                   "if not HIP_BUILD:\n    NVCC.append('--use_fast_math')\n"
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': NVCC})\n")
    assert [f.data["flag"] for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")] == []
    assert fix_all("setup.py", text) == text


def test_a_test_on_something_else_does_not_guard():
    text = HEAD + ("import os\nNVCC = ['-O3']\nif os.name == 'nt':\n    NVCC += ['-DWIN']\nelse:\n"
                   "    NVCC += ['--use_fast_math']\n"
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': NVCC})\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert [f.data["flag"] for f in got] == ["fast-math"]
    assert "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])" in fix_all("setup.py", text)


def test_a_from_import_of_torch_lets_the_fix_import_torch_after_it():
    # clic-inference-extensions 0.1.0 imports only `from torch.utils.cpp_extension import ...`: torch is importable
    # there, so `import torch` after that import gives the flags their ROCm test and the CUDA build stays as it was.
    before = "from torch.utils.cpp_extension import CUDAExtension\n" + BODY
    after = _fixpoint("setup.py", before)
    assert after.startswith("from torch.utils.cpp_extension import CUDAExtension\n"
                            "import torch  # vado: the ROCm test of the flags below\nNVCC = [")
    assert after.count("import torch  #") == 1  # one import for all the flags
    assert _nvcc_list(after, None) == _nvcc_list(before, None)
    assert _nvcc_list(after, "7.2.4") == ["-O3", "-ffast-math", "-gline-tables-only"]
    assert fix_all("setup.py", after) == after


def test_a_from_import_in_a_try_block_binds_torch_in_that_block():
    # fpscan 0.1.2: the import and the flags in one `try:`; the import goes into the block, indented as it is.
    before = ("try:\n    from torch.utils.cpp_extension import CUDAExtension\n"
              "    e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': ['-O3', '--threads',\n"
              "                                                             '2', '--use_fast_math']})\n"
              "except ImportError:\n    pass\n")
    after = _fixpoint("setup.py", before)
    assert "    from torch.utils.cpp_extension import CUDAExtension\n    import torch  # vado" in after
    # A flag and its value in two items on two lines go together.
    assert "*([] if torch.version.hip else ['--threads',\n" in after
    run = after.replace("    from torch.utils.cpp_extension import CUDAExtension\n", "").replace("    import torch  #", "    pass  #")
    assert _nvcc_list(run, None) == ["-O3", "--threads", "2", "--use_fast_math"]
    assert _nvcc_list(run, "7.2.4") == ["-O3", "-ffast-math"]


def test_an_import_under_the_same_test_lets_a_later_block_import_torch():
    # fussim 0.3.1: `if not _building_sdist:` imports from torch.utils.cpp_extension and a later block under the same
    # test builds the flags at the module's level: that block runs only where the import ran, so `import torch` opens
    # it and the CUDA build keeps its flags (the port had made them hipcc's for CUDA too: nvcc rejects -ffast-math).
    before = ("import sys\n_building_sdist = 'sdist' in sys.argv\n"
              "if not _building_sdist:\n    from torch.utils.cpp_extension import CUDAExtension\n"
              "if not _building_sdist:\n    NVCC = ['-O3', '--use_fast_math']\n"
              "    e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': NVCC})\n")
    after = _fixpoint("setup.py", before)
    assert "if not _building_sdist:\n    import torch  # vado: the ROCm test of the flags below\n    NVCC = [" in after
    assert "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])" in after
    # Under another test the later block may run where the import did not: no import, the hipcc spelling as before.
    other = before.replace("if not _building_sdist:\n    NVCC", "if True:\n    NVCC")
    after = _fixpoint("setup.py", other)
    assert "import torch  #" not in after and "'-ffast-math'" in after


def test_without_the_name_to_test_the_rocm_spelling_fix_stays():
    # torch is imported only inside another function: nothing binds it where the flags are.
    text = ("def CUDAExtension(*a, **k):\n    from torch.utils.cpp_extension import CUDAExtension as E\n"
            "    return E(*a, **k)\n") + BODY
    after = fix_all("setup.py", text)
    assert "torch.version.hip" not in after and "IS_HIP_EXTENSION" not in after
    assert "'-ffast-math'" in after and "--expt-relaxed-constexpr" not in after


def test_nvcc_only_switches_and_maxrregcount_are_kept_for_cuda_only():
    # biwkv4-cuda 0.3.2 (--maxrregcount=60, --compiler-options=-fPIC), clic-inference-extensions 0.1.0
    # (--extra-device-vectorization): hipcc rejects each as an unknown argument.
    flags = ["-O3", "--maxrregcount=60", "--extra-device-vectorization", "-ftz=true", "-prec-div=false",
             "--compiler-options=-fPIC", "-Xfatbin=-compress-all"]
    before = HEAD + f"e = CUDAExtension('x', ['x.cu'], extra_compile_args={{'nvcc': {flags!r}}})\n"
    got = [f for f in findings("setup.py", before, ("BLD005",)) if f.data.get("flag")]
    assert sorted(f.data["flag"] for f in got) == ["maxrregcount", "nvcc-only", "nvcc-only", "nvcc-only",
                                                   "nvcc-only", "xcompiler"]
    assert all(f.fix is not None for f in got)
    after = fix_all("setup.py", before)
    assert _nvcc_list(after, None) == flags
    assert _nvcc_list(after, "7.2.4") == ["-O3", "-fgpu-flush-denormals-to-zero", "-fPIC"]
    # -O3 and host flags are no nvcc flags: no finding.
    assert not [f for f in findings("setup.py", HEAD + "e = CUDAExtension('x', ['x.cu'], extra_compile_args="
                                    "{'nvcc': ['-O3', '-fPIC', '-keepx']})\n", ("BLD005",)) if f.data.get("flag")]


def test_gcc_only_host_flags_through_xcompiler_do_not_reach_hipcc():
    # polygon-iou 1.0.7: nvcc hands -fno-gnu-unique to GCC; ROCm 7.2.4's hipcc (clang) stops on it
    # ("clang++: error: unknown argument: '-fno-gnu-unique'"). Flags clang takes (-Wall, -fPIC) stay.
    flags = ["-O2", "-Xcompiler", "-Wall,-fno-gnu-unique", "-Xcompiler", "-fabi-version=11"]
    before = HEAD + f"e = CUDAExtension('x', ['x.cu'], extra_compile_args={{'nvcc': {flags!r}}})\n"
    after = fix_all("setup.py", before)
    assert _nvcc_list(after, None) == flags
    assert _nvcc_list(after, "7.2.4") == ["-O2", "-Wall"]
    # ok: a host flag clang takes is passed on as it is
    kept = HEAD + "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': ['-Xcompiler', '-fPIC,-fno-gcse']})\n"
    assert _nvcc_list(fix_all("setup.py", kept), "7.2.4") == ["-fPIC", "-fno-gcse"]


def test_a_flag_outside_a_list_display_keeps_the_spelling_fix():
    # append() takes one argument: a starred, maybe empty, expression would break it.
    text = HEAD + ("NVCC = ['-O3']\nNVCC.append('--use_fast_math')\n"
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': NVCC})\n")
    after = fix_all("setup.py", text)
    assert "NVCC.append('-ffast-math')" in after


def test_unparsable_setup_py_still_gets_findings():
    text = HEAD + "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': ['--use_fast_math']})\nif (:\n"
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert [f.data["flag"] for f in got] == ["fast-math"]
    assert got[0].fix.edits[0].content == "-ffast-math"  # read by pattern: the ROCm spelling, not a guess at syntax


def test_flags_grown_by_append_extend_and_subscript_are_followed():
    text = HEAD + ("def exts():\n    args = {'cxx': ['-O3']}\n    nvcc = ['-O3']\n    nvcc.append('--use_fast_math')\n"
                   "    nvcc.extend(['-lineinfo'])\n    nvcc += ['--expt-extended-lambda']\n    args['nvcc'] = nvcc\n"
                   "    Ext = CppExtension if False else CUDAExtension\n"
                   "    return [Ext('x', ['x.cu'], extra_compile_args=args)]\n")
    got = findings("setup.py", text, ("BLD005",))
    assert sorted(f.data["flag"] for f in got if f.data.get("flag")) == ["expt", "fast-math", "lineinfo"]
    assert [f.data["call"] for f in got if f.data.get("call")] == ["Ext"]  # found through its CUDAExtension alias
    after = fix_all("setup.py", text)
    assert "nvcc.extend([*(['-gline-tables-only'] if torch.version.hip else ['-lineinfo'])])" in after
    assert "nvcc += [*([] if torch.version.hip else ['--expt-extended-lambda'])]" in after
    assert "nvcc.append('-ffast-math')" in after  # not a list display: the ROCm spelling


def test_a_flag_pair_across_two_statements_gets_no_edit():
    text = HEAD + ("cc = ['-O3']\ncc.append('-gencode')\ncc.append('arch=compute_80,code=sm_80')\n"
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': cc})\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert [f.data["flag"] for f in got] == ["gencode"] and got[0].fix is None
    assert fix_all("setup.py", text) == text


def test_nvcc_diagnostic_numbers_are_nvcc_only():
    # gsplat 1.5.3's setup.py; ROCm 7.2.4's hipcc reads 20012,186 as an input file.
    text = HEAD + ("nvcc_flags = ['-O3']\nnvcc_flags += ['-diag-suppress', '20012,186']\n"
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': nvcc_flags})\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert [(f.data["flag"], f.data["breaks_hipcc"]) for f in got] == [("diag", True)]
    after = fix_all("setup.py", text)
    assert "nvcc_flags += [*([] if torch.version.hip else ['-diag-suppress', '20012,186'])]" in after
    assert _nvcc_list(after, "7.2.4") == ["-O3"]
    assert _nvcc_list(after, None) == ["-O3", "-diag-suppress", "20012,186"]
    assert fix_all("Makefile", "NVCCFLAGS = -O3 -diag-suppress 177 --diag_suppress=550\n") == "NVCCFLAGS = -O3\n"


def test_torch_cuda_arch_list_stays_in_a_torch_extension():
    """A CUDAExtension's setup.py (or a CMake file that finds Torch) keeps TORCH_CUDA_ARCH_LIST: its CUDA
    build reads it; the finding is a note that names PYTORCH_ROCM_ARCH, with no fix."""
    from vado.model import Severity, Verdict
    from vado.rules.engine import check_text
    from vado.knowledge.targets import get_target
    from vado.scan.classify import FileKind

    rocm = get_target("rocm-7.2")
    setup = ('import os\nfrom torch.utils.cpp_extension import CUDAExtension\n'
             'os.environ["TORCH_CUDA_ARCH_LIST"] = "8.0;9.0"\n')
    cmake = 'find_package(Torch REQUIRED)\nset(TORCH_CUDA_ARCH_LIST "8.0 9.0")\n'
    for path, kind, text in (("setup.py", FileKind.SETUP_PY, setup), ("CMakeLists.txt", FileKind.CMAKE, cmake)):
        got = [f for f in check_text(path, text, [rocm], kind=kind) if f.code == "BLD002"]
        assert len(got) == 1, path
        f = got[0]
        assert f.fix is None and f.severity is Severity.INFO and f.verdicts[rocm.name] is Verdict.MOVES_AS_IS
        assert "PYTORCH_ROCM_ARCH=gfx942" in f.message and "leave it" in f.message
    # Told by the port (rule option), a CMake file without find_package(Torch) keeps it too.
    plain = 'set(TORCH_CUDA_ARCH_LIST "8.0")\n'
    told = [f for f in check_text("CMakeLists.txt", plain, [rocm], kind=FileKind.CMAKE, options={"torch_extension": True})
            if f.code == "BLD002"]
    assert told and told[0].fix is None
    untold = [f for f in check_text("CMakeLists.txt", plain, [rocm], kind=FileKind.CMAKE) if f.code == "BLD002"]
    assert untold and untold[0].fix is not None


def test_cuda_home_gate_builds_the_extension_on_rocm_too():
    # torch-points-kernels 0.7.0: on a ROCm build of PyTorch CUDA_HOME is None (no nvcc), so the
    # CUDA extension was silently left out; torch_scatter's setup.py already tests torch.version.hip.
    text = ("import torch\nfrom torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\n"
            "WITH_CUDA = torch.cuda.is_available() and CUDA_HOME is not None\n"
            "def exts():\n    if CUDA_HOME is not None:\n        return [CUDAExtension('a', ['a.cu'])]\n"
            "    return []\n"
            "def check():\n    if CUDA_HOME is not None:\n        return\n    print('no nvcc')\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("gate")]
    assert [text.count("\n", 0, f.span.start) + 1 for f in got] == [3, 5]  # not check()'s warning
    fixed = fix_all("setup.py", text)
    assert "WITH_CUDA = torch.cuda.is_available() and (CUDA_HOME is not None or torch.version.hip)\n" in fixed
    assert "    if (CUDA_HOME is not None or torch.version.hip):\n" in fixed
    assert "def check():\n    if CUDA_HOME is not None:\n" in fixed
    assert [f for f in findings("setup.py", fixed, ("BLD005",)) if f.data.get("gate")] == []
    # Already ROCm-aware (torch_scatter, torch_cluster, torch_spline_conv), or no CUDAExtension: nothing.
    pyg = text.replace("and CUDA_HOME is not None\n", "and (CUDA_HOME is not None or torch.version.hip)\n")
    assert [pyg.count("\n", 0, f.span.start) + 1 for f in findings("setup.py", pyg, ("BLD005",)) if f.data.get("gate")] == [5]
    plain = "from torch.utils.cpp_extension import CUDA_HOME\nWITH_CUDA = CUDA_HOME is not None\n"
    assert [f for f in findings("setup.py", plain, ("BLD005",)) if f.data.get("gate")] == []
    # Without `import torch` or IS_HIP_EXTENSION to test, the finding has no fix.
    bare = text.replace("import torch\n", "").replace("torch.cuda.is_available() and ", "")
    got = [f for f in findings("setup.py", bare, ("BLD005",)) if f.data.get("gate")]
    assert got and all(f.fix is None for f in got)


def test_a_gate_that_tests_a_name_assigned_from_a_rocm_test_is_rocm_aware():
    # detectron2 02b5c4e: is_rocm_pytorch = (torch.version.hip is not None) and (ROCM_HOME is not None), then
    # `if (torch.cuda.is_available() and ((CUDA_HOME is not None) or is_rocm_pytorch)) or FORCE_CUDA`: BLD005 said
    # the extension is left out on ROCm (medium, an unsafe fix) where that build builds it.
    text = ("import os, torch\nfrom torch.utils.cpp_extension import CUDA_HOME, ROCM_HOME, CppExtension, CUDAExtension\n"
            "def exts():\n    extension = CppExtension\n"
            "    is_rocm_pytorch = True if ((torch.version.hip is not None) and (ROCM_HOME is not None)) else False\n"
            "    rocm = is_rocm_pytorch\n"
            "    if (torch.cuda.is_available() and ((CUDA_HOME is not None) or rocm)) or os.getenv('F') == '1':\n"
            "        extension = CUDAExtension\n    return [extension('a', ['a.cu'])]\n")
    assert [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("gate")] == []
    # a name assigned from something else is no ROCm test: the gate stays
    other = text.replace("rocm = is_rocm_pytorch", "rocm = os.getenv('R') == '1'")
    assert [f.data["gate"] for f in findings("setup.py", other, ("BLD005",)) if f.data.get("gate")] == ["CUDA_HOME"]


def test_gate_of_an_if_that_picks_the_extension_class():
    # chamferdist 1.0.3: the `if` assigns `extension = CUDAExtension` and goes on; the gate was missed when
    # the body's statements were read run together ("CUDAExtensionsources").
    text = ("import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n"
            "def exts():\n    extension = CppExtension\n    sources = ['a.cpp']\n"
            "    if (torch.cuda.is_available() and CUDA_HOME is not None) or force_cuda:\n"
            "        extension = CUDAExtension\n        sources += ['a.cu']\n"
            "    return [extension('a', sources)]\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("gate")]
    assert [(text.count("\n", 0, f.span.start) + 1, f.data["gate"]) for f in got] == [(6, "CUDA_HOME")]
    fixed = fix_all("setup.py", text)
    assert "    if (torch.cuda.is_available() and (CUDA_HOME is not None or torch.version.hip)) or force_cuda:\n" in fixed
    # `extension = CUDAExtensionFactory` is another name: no gate.
    other = text.replace("extension = CUDAExtension\n", "extension = CUDAExtensionFactory\n")
    assert [f for f in findings("setup.py", other, ("BLD005",)) if f.data.get("gate")] == []


def test_nvcc_probe_deciding_the_extension_is_a_gate():
    # torchsort 0.1.10: cuda_toolkit_available() runs `nvcc`; a ROCm build of PyTorch has none, so the
    # CUDA extension was silently left out.
    probe = ("import torch\nfrom subprocess import DEVNULL, call\nfrom torch.utils import cpp_extension\n"
             "def cuda_toolkit_available():\n    try:\n        call(['nvcc'], stdout=DEVNULL)\n        return True\n"
             "    except FileNotFoundError:\n        return False\n"
             "def ext_modules():\n    exts = []\n    if cuda_toolkit_available():\n"
             "        exts.append(cpp_extension.CUDAExtension('t.c', sources=['t.cu']))\n    return exts\n")
    got = [f for f in findings("setup.py", probe, ("BLD005",)) if f.data.get("gate")]
    assert [(probe.count("\n", 0, f.span.start) + 1, f.data["gate"]) for f in got] == [(12, "nvcc")]
    assert "looks for nvcc" in got[0].message
    fixed = fix_all("setup.py", probe)
    assert "    if (cuda_toolkit_available() or torch.version.hip):\n" in fixed
    assert [f for f in findings("setup.py", fixed, ("BLD005",)) if f.data.get("gate")] == []
    which = probe.replace("if cuda_toolkit_available():", "if shutil.which('nvcc') is not None:")
    assert [f.data["gate"] for f in findings("setup.py", which, ("BLD005",)) if f.data.get("gate")] == ["nvcc"]
    # Not gates: a probe whose `if` makes no CUDAExtension; a test that asks for a ROCm build already; a
    # function that only names the "nvcc" flags of extra_compile_args.
    report = probe.replace("        exts.append(cpp_extension.CUDAExtension('t.c', sources=['t.cu']))\n",
                           "        print('nvcc found')\n")
    assert [f for f in findings("setup.py", report, ("BLD005",)) if f.data.get("gate")] == []
    hip = probe.replace("if cuda_toolkit_available():", "if cuda_toolkit_available() or torch.version.hip:")
    assert [f for f in findings("setup.py", hip, ("BLD005",)) if f.data.get("gate")] == []
    args = ("import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "def args():\n    return {'cxx': ['-O3'], 'nvcc': ['-O3']}\n"
            "def want(a):\n    a['nvcc'] += ['-lineinfo']\n    return True\n"
            "if want(args()):\n    e = CUDAExtension('a', ['a.cu'], extra_compile_args=args())\n")
    assert [f for f in findings("setup.py", args, ("BLD005",)) if f.data.get("gate")] == []


def test_extra_compile_args_as_a_list_reaches_hipcc():
    # pytorch-fast-transformers 0.4.0: extra_compile_args=["-arch=compute_50"] is every compiler's list, so
    # cpp_extension gives it to hipcc on ROCm, which rejects -arch= ("unknown argument", ROCm 7.2.4 hipcc).
    text = (HEAD + "e = CUDAExtension('h', sources=['h.cu'], extra_compile_args=['-arch=compute_50'])\n"
            "c = CppExtension('c', sources=['c.cpp'], extra_compile_args=['-arch=compute_50'])\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert [(text.count("\n", 0, f.span.start) + 1, f.data["flag"], f.data["breaks_hipcc"]) for f in got] == [
        (3, "arch", True)]  # not the CppExtension's: it compiles no CUDA
    fixed = fix_all("setup.py", text)
    assert "extra_compile_args=[*([] if torch.version.hip else ['-arch=compute_50'])])\n" in fixed
    assert [f for f in findings("setup.py", fixed, ("BLD005",)) if f.data.get("flag")] == []
    # A list without nvcc flags: nothing.
    plain = HEAD + "e = CUDAExtension('h', sources=['h.cu'], extra_compile_args=['-O3'])\n"
    assert [f for f in findings("setup.py", plain, ("BLD005",)) if f.data.get("flag")] == []


_APEX_HELPERS = (
    "import subprocess, warnings\n" + HEAD + "from torch.utils.cpp_extension import CUDA_HOME\n"
    "def get_cuda_bare_metal_version(cuda_dir):\n"
    "    raw = subprocess.check_output([cuda_dir + '/bin/nvcc', '-V'], universal_newlines=True)\n"
    "    return raw, raw.split()[-1]\n"
    "def raise_if_cuda_home_none(option):\n    if CUDA_HOME is not None:\n        return\n"
    "    raise RuntimeError(f'{option} was requested, but nvcc was not found.')\n"
    "def append_nvcc_threads(args):\n    _, v = get_cuda_bare_metal_version(CUDA_HOME)\n"
    "    return args + ['--threads', '4'] if v >= '11.2' else args\n"
    "def warn_if_cuda_home_none(option):\n    if CUDA_HOME is None:\n"
    "        warnings.warn(f'{option}: nvcc was not found')\n"
    "def nvcc_works():\n    try:\n        subprocess.check_output(['nvcc', '--version'])\n        return True\n"
    "    except (OSError, subprocess.CalledProcessError):\n        return False\n")


def _stops(text: str) -> list[tuple[int, str]]:
    return [(text.count("\n", 0, f.span.start) + 1, f.data["stop"])
            for f in findings("setup.py", text, ("BLD005",)) if f.data.get("stop")]


def test_toolkit_calls_that_run_on_every_run_of_setup_py_stop_it_on_rocm():
    # rotary-emb 0.5.2 (apex's helpers): raise_if_cuda_home_none() and get_cuda_bare_metal_version(CUDA_HOME) at
    # the top level, append_nvcc_threads() (which runs nvcc through the other) in the CUDAExtension call: a ROCm
    # build of PyTorch has CUDA_HOME None, so setup.py raised before it built anything, and the port said only
    # "-gencode" remained.
    n = _APEX_HELPERS.count("\n")
    text = _APEX_HELPERS + (
        "raise_if_cuda_home_none('ext')\n"
        "_, bare_metal_version = get_cuda_bare_metal_version(CUDA_HOME)\n"
        "if bare_metal_version >= '11.0':\n    flags = append_nvcc_threads(['-O3'])\n"
        "e = CUDAExtension('e', ['e.cu'], extra_compile_args={'nvcc': append_nvcc_threads(['-O3'])})\n")
    assert _stops(text) == [(n + 1, "raise_if_cuda_home_none"), (n + 2, "get_cuda_bare_metal_version"),
                            (n + 4, "append_nvcc_threads"), (n + 5, "append_nvcc_threads")]
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("stop")]
    assert all(f.verdicts["rocm-7.2"] is Verdict.MANUAL and f.fix is None for f in got)
    assert "raises when CUDA_HOME is None" in got[0].message and "runs nvcc" in got[1].message
    assert "ROCm build of PyTorch has no nvcc" in got[0].message


def test_toolkit_calls_that_a_rocm_build_does_not_reach_are_no_stops():
    # In a branch that asks for a CUDA_HOME or a ROCm build (causal-conv1d's `if HIP_BUILD: ... else:`), in a
    # function body, a helper that only warns (mamba's check_if_cuda_home_none) or catches the failed run,
    # a probe in an `if` test (a gate: the other BLD005 finding), a function that builds the extension list
    # (its CUDA_HOME test is the gate's)
    text = _APEX_HELPERS + (
        "HIP_BUILD = bool(torch.version.hip)\n"
        "if HIP_BUILD:\n    flags = ['-O3']\nelse:\n    raise_if_cuda_home_none('ext')\n"
        "if CUDA_HOME is not None:\n    _, v = get_cuda_bare_metal_version(CUDA_HOME)\n"
        "if torch.version.hip is None:\n    _, v = get_cuda_bare_metal_version(CUDA_HOME)\n"
        "def later():\n    raise_if_cuda_home_none('later')\n"
        "warn_if_cuda_home_none('ext')\nok = nvcc_works()\n"
        "if nvcc_works():\n    e = CUDAExtension('e', ['e.cu'])\n"
        "def get_extensions():\n    if CUDA_HOME is not None:\n        return [CUDAExtension('g', ['g.cu'])]\n"
        "    raise NotImplementedError('CUDA is not available')\n"
        "exts = get_extensions()\n")
    assert _stops(text) == []
    # a ROCm test inside the helper (the fixed gate) clears it
    fixed = _APEX_HELPERS.replace("    if CUDA_HOME is not None:\n        return\n",
                                  "    if CUDA_HOME is not None or torch.version.hip:\n        return\n")
    assert _stops(fixed + "raise_if_cuda_home_none('ext')\n") == []


def test_docstrings_and_callers_that_tell_the_builds_apart_are_no_stops():
    # pytorch3d 9381c40: get_existing_ccbin's docstring says "Given a list of nvcc arguments" (it runs nothing) and
    # get_extensions() calls it only under `if not is_rocm` (is_rocm = torch.version.hip is not None) beside its
    # CUDAExtension: BLD005 said setup.py "runs nvcc" on every run and stops on ROCm; its ROCm build builds.
    text = ("import os, torch\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
            "def get_existing_ccbin(nvcc_args):\n    \"\"\"Given a list of nvcc arguments, return the compiler.\"\"\"\n"
            "    for arg in reversed(nvcc_args):\n        if arg.startswith('-ccbin'):\n            return arg\n"
            "    return None\n"
            "def get_extensions():\n    is_rocm = torch.version.hip is not None\n    nvcc_args = ['-O3']\n"
            "    if not is_rocm:\n        get_existing_ccbin(nvcc_args)\n"
            "    return [CUDAExtension('k._C', ['k.cu'], extra_compile_args={'nvcc': nvcc_args})]\n"
            "exts = get_extensions()\n")
    assert _stops(text) == []
    # a helper that runs nvcc stays one, and so does a caller that does not tell the builds apart
    runs = text.replace('    for arg in reversed(nvcc_args):\n', '    subprocess.check_output(["nvcc", "-V"])\n'
                        '    for arg in reversed(nvcc_args):\n').replace("get_existing_ccbin(nvcc_args)\n    return [CUD",
                                                                      "pass\n    return [CUD")
    runs += "def probe():\n    return get_existing_ccbin([])\nv = probe()\n"
    assert [name for _, name in _stops(runs)] == ["probe"]


def _fixpoint(name: str, text: str) -> str:
    """Fixes applied round after round until none applies, as ``vado port`` does (a fix that binds torch in a
    function and one for a later flag there share the inserted line: the later one applies the next round)."""
    for _ in range(6):
        fixed = fix_all(name, text)
        if fixed == text:
            return fixed
        text = fixed
    return text


def test_nvcc_flags_of_kwargs_built_by_a_function_reach_hipcc():
    # torchani 2.9.0: CUDAExtension(**cuaev_kwargs) with cuaev_kwargs = cuaev_extension_kwargs(...), which returns
    # dict(..., extra_compile_args={"nvcc": nvcc_args}); hipcc rejected --expt-extended-lambda ("unknown argument",
    # ROCm 7.2.4) while the port left setup.py alone. torch is imported inside setup_kwargs() only, so
    # torch.version.hip in the helper would be a NameError: the fix imports torch at the top of the helper and keeps
    # the CUDA flags for a CUDA build (one setup.py for both).
    text = ("import os\n"
            "def cuaev_kwargs(opt):\n    nvcc_args = ['--expt-extended-lambda']\n"
            "    if opt:\n        nvcc_args.extend(['-DOPT', '-use_fast_math'])\n"
            "    return dict(name='a.cuaev', sources=['aev.cu'], extra_compile_args={'cxx': ['-O2'], 'nvcc': nvcc_args})\n"
            "def mnp_kwargs():\n    return {'name': 'a.mnp', 'sources': ['mnp.cpp'], 'extra_compile_args': {'cxx': ['-fopenmp']}}\n"
            "def setup_kwargs():\n    import torch\n    from torch.utils.cpp_extension import CUDAExtension\n"
            "    kw = cuaev_kwargs(True)\n"
            "    return {'ext_modules': [CUDAExtension(**kw), CUDAExtension(**mnp_kwargs())]}\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert [(text.count("\n", 0, f.span.start) + 1, f.data["flag"]) for f in got] == [(3, "expt"), (5, "fast-math")]
    fixed = _fixpoint("setup.py", text)
    assert fixed.count("import torch  # vado: the ROCm test of the flags below") == 1
    assert "def cuaev_kwargs(opt):\n    import torch  # vado: the ROCm test of the flags below\n" in fixed
    assert "nvcc_args = [*([] if torch.version.hip else ['--expt-extended-lambda'])]" in fixed
    assert "nvcc_args.extend(['-DOPT', *(['-ffast-math'] if torch.version.hip else ['-use_fast_math'])])" in fixed
    compile(fixed, "setup.py", "exec")
    # imported at the module's level (also inside a try), the fix keeps the CUDA flags for a CUDA build
    glob = "try:\n    import torch\nexcept ImportError:\n    torch = None\n" + text
    fixed = fix_all("setup.py", glob)
    assert "nvcc_args = [*([] if torch.version.hip else ['--expt-extended-lambda'])]" in fixed


def test_torch_imported_in_the_function_that_holds_the_flags_keeps_them_conditional():
    # gsplat 1.5.3: `import torch` inside get_extensions(), where its nvcc flags are: torch.version.hip is bound
    # there, so the port keeps the CUDA flags for a CUDA build of the same setup.py (an unconditional -ffast-math
    # would reach nvcc, which rejects it). A flag in another function, before or without such an import, is not.
    text = ("from setuptools import setup\n"
            "def get_extensions():\n    import torch\n    from torch.utils.cpp_extension import CUDAExtension\n"
            "    nvcc_flags = ['-O3', '--use_fast_math']\n"
            "    return [CUDAExtension('g', ['g.cu'], extra_compile_args={'nvcc': nvcc_flags})]\n"
            "def other():\n    flags = ['--use_fast_math']\n    import torch\n"
            "    return CUDAExtension('h', ['h.cu'], extra_compile_args={'nvcc': flags})\n"
            "setup(ext_modules=get_extensions() + [other()])\n")
    fixed = _fixpoint("setup.py", text)
    assert "nvcc_flags = ['-O3', *(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])]" in fixed
    # the import comes after the flag there: the fix binds torch at the top of that function
    assert "def other():\n    import torch  # vado: the ROCm test of the flags below\n" in fixed
    assert "flags = [*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])]" in fixed


def test_a_setup_py_that_never_imports_torch_gets_no_torch_import():
    # no torch anywhere in setup.py (a plain nvcc list at the module's level): the flag is rewritten for ROCm, as
    # before, and nothing imports torch on its behalf.
    text = ("from setuptools import setup\nfrom torch_like import CUDAExtension\n"
            "def ext():\n    return CUDAExtension('g', ['g.cu'], extra_compile_args={'nvcc': ['--use_fast_math']})\n"
            "setup(ext_modules=[ext()])\n")
    assert "import torch  # vado" not in _fixpoint("setup.py", text)


def test_a_torch_version_cuda_gate_builds_the_extension_on_rocm_too():
    # dbscan-torch 0.2.0: `_torch_has_cuda = torch.version.cuda is not None` feeds WITH_CUDA, which picks
    # CUDAExtension over CppExtension: None on ROCm, so the port built the CPU extension only ("nothing remains").
    text = (HEAD + "import os\nfrom torch.utils.cpp_extension import CUDA_HOME\n"
            "_force = os.environ.get('FORCE_CUDA', '0') == '1'\n"
            "_torch_has_cuda = torch.version.cuda is not None\n"
            "WITH_CUDA = _force or (_torch_has_cuda and CUDA_HOME is not None)\n"
            "tag = 'cu' if torch.version.cuda is not None else 'cpu'\n"  # a name that decides nothing: no finding
            "srcs = ['a.cpp'] + (['a.cu'] if WITH_CUDA else [])\n"
            "Ext = CUDAExtension if WITH_CUDA else CppExtension\n"
            "e = Ext('x', srcs)\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("gate")]
    assert sorted(f.data["gate"] for f in got) == ["CUDA_HOME", "torch.version.cuda"]
    fixed = _fixpoint("setup.py", text)
    assert "_torch_has_cuda = (torch.version.cuda is not None or torch.version.hip)\n" in fixed
    assert "tag = 'cu' if torch.version.cuda is not None else 'cpu'\n" in fixed
    ns: dict = {}
    stub = ("class torch:\n    class version:\n        cuda = None\n        hip = '7.2.4'\n"
            "CUDA_HOME = None\nCUDAExtension, CppExtension = 'cuda', 'cpp'\n")
    code = "\n".join(l for l in fixed.splitlines() if not l.startswith(("import torch", "from torch")))
    exec(compile(stub + code.replace("e = Ext('x', srcs)", "e = Ext"), "setup.py", "exec"), ns)
    assert ns["e"] == "cuda" and ns["srcs"] == ["a.cpp", "a.cu"]
    # already asks for ROCm: no finding
    ok = text.replace("torch.version.cuda is not None\n", "torch.version.cuda is not None or torch.version.hip is not None\n", 1)
    assert not [f for f in findings("setup.py", ok, ("BLD005",)) if f.data.get("gate") == "torch.version.cuda"]


def test_torch_version_cuda_used_as_a_string_at_the_top_level_stops_setup_py_on_rocm():
    # ramnet-ops 0.1.0rc2: `cuda_tag = torch.version.cuda.replace('.', '')` at the top level (AttributeError on ROCm).
    text = HEAD + ("import os\nif os.getenv('SKIP', '0') != '1':\n"
                   "    e = CUDAExtension('x', ['x.cu'])\n    cuda_tag = torch.version.cuda.replace('.', '')\n"
                   "    major = float(torch.version.cuda)\n"
                   "    ok1 = torch.version.cuda.split('.') if torch.version.cuda else []\n"  # guarded
                   "    ok2 = str(torch.version.cuda)\n"  # str(None) is 'None'
                   "def helper():\n    return torch.version.cuda.split('.')\n")  # not run by the file itself
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("stop")]
    assert [f.data["stop"] for f in got] == ["torch.version.cuda.replace", "float(torch.version.cuda)"]
    assert all(f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MANUAL for f in got)


def test_architecture_flags_built_at_run_time_are_reported_and_kept_for_cuda():
    # torchani 2.9.0: nvcc_args.extend([f"-gencode=arch=compute_{sm},code=sm_{sm}" for sm in sms]) was no finding,
    # and hipcc rejects -gencode ("unknown argument").
    text = HEAD + ("sms = ['80', '90']\nnvcc = ['-O3']\n"
                   "nvcc.extend([f'-gencode=arch=compute_{sm},code=sm_{sm}' for sm in sms])\n"
                   "nvcc += ['-DX', f'-arch=sm_{sms[0]}']\n"
                   "nvcc += list(f'--generate-code=arch=compute_{s},code=sm_{s}' for s in sms)\n"
                   "nvcc += [f'-DSM={s}' for s in sms]\n"  # no nvcc flag: no finding
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': nvcc})\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert sorted((f.data["flag"], f.data["formatted"], f.fix is not None) for f in got) == [
        ("arch", "f-string", True), ("gencode", "comprehension", False), ("gencode", "comprehension", True)]
    from vado.scan.buildfiles import parse_setup_py_build
    assert [f.data["sm"] for f in parse_setup_py_build(text).facts if f.data.get("formatted")] == [[], [], []]
    fixed = _fixpoint("setup.py", text)
    assert "nvcc.extend(([] if torch.version.hip else [f'-gencode=arch=compute_{sm},code=sm_{sm}' for sm in sms]))" in fixed
    assert "nvcc += ['-DX', *([] if torch.version.hip else [f'-arch=sm_{sms[0]}'])]" in fixed
    # the generator in list(...) is left for a person (its parentheses are the call's)
    assert "nvcc += list(f'--generate-code" in fixed
    assert _nvcc_list(fixed, None) == ["-O3", "-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90",
                                      "-DX", "-arch=sm_80", "--generate-code=arch=compute_80,code=sm_80",
                                      "--generate-code=arch=compute_90,code=sm_90", "-DSM=80", "-DSM=90"]
    assert _nvcc_list(fixed, "7.2.4")[:3] == ["-O3", "-DX", "--generate-code=arch=compute_80,code=sm_80"]


def test_a_rocm_extension_class_pytorch_does_not_have_is_reported():
    # torch-ans 0.4.0: `from torch.utils.cpp_extension import ROCMExtension` (ImportError -> CppExtension): on ROCm
    # the .cu sources are then neither hipified nor linked with the HIP libraries.
    text = ("import torch\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension\n"
            "try:\n    from torch.utils.cpp_extension import ROCMExtension\nexcept ImportError:\n    ROCMExtension = None\n"
            "e = CUDAExtension('x', ['x.cu'])\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("missing")]
    assert [(f.data["missing"], f.span.line, f.verdicts["rocm-7.2"]) for f in got] == [("ROCMExtension", 4, Verdict.MANUAL)]
    ok = text.replace("ROCMExtension", "SyclExtension")
    assert not [f for f in findings("setup.py", ok, ("BLD005",)) if f.data.get("missing")]


def test_a_stop_behind_an_environment_opt_in_does_not_run_on_every_run():
    # torch-ans 0.4.0: get_stable_abi_extension_config() (it names nvcc) runs only under WITH_STABLE_ABI=1.
    helper = ("import os\nfrom torch.utils.cpp_extension import CUDAExtension\ne = CUDAExtension('x', ['x.cu'])\n"
              "def probe():\n    return os.popen('nvcc -V').read()\n")
    opt_in = helper + "WITH_X = os.getenv('WITH_X', '0') == '1'\nif WITH_X:\n    probe()\nelse:\n    pass\n"
    assert _stops(opt_in) == []
    direct = helper + "if os.environ.get('WITH_X'):\n    probe()\n"
    assert _stops(direct) == []
    # on unless the user turns it off: it runs by default
    default_on = helper + "if os.getenv('BUILD_X', '1') == '1':\n    probe()\n"
    assert [s[1] for s in _stops(default_on)] == ["probe"]
    # the else of an opt-in is what runs by default
    in_else = helper + "if os.getenv('SKIP', '0') == '1':\n    pass\nelse:\n    probe()\n"
    assert [s[1] for s in _stops(in_else)] == ["probe"]


def test_undoing_pytorchs_cuda_half_defines_undoes_the_hip_ones_on_rocm():
    # fpscan 0.1.2: -U__CUDA_NO_HALF_CONVERSIONS__/-U__CUDA_NO_HALF_OPERATORS__ undo PyTorch's CUDA defines; a ROCm
    # build of PyTorch defines __HIP_NO_HALF_CONVERSIONS__/__HIP_NO_HALF_OPERATORS__ instead, which stayed on:
    # "no viable conversion from 'double' to '__half'", "use of overloaded operator '*' is ambiguous" (20 errors).
    flags = ["-O3", "-U__CUDA_NO_HALF_CONVERSIONS__", "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF2_OPERATORS__",
             "-U__CUDA_NO_BFLOAT16_CONVERSIONS__"]
    before = HEAD + f"e = CUDAExtension('x', ['x.cu'], extra_compile_args={{'nvcc': {flags!r}}})\n"
    got = [f for f in findings("setup.py", before, ("BLD005",)) if f.data.get("flag")]
    assert [f.data["flag"] for f in got] == ["cuda-half-undef"] * 3
    after = _fixpoint("setup.py", before)
    assert _nvcc_list(after, None) == flags
    assert _nvcc_list(after, "7.2.4") == ["-O3", "-U__HIP_NO_HALF_CONVERSIONS__", "-U__HIP_NO_HALF_OPERATORS__",
                                         "-U__HIP_NO_HALF_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__"]
    # in a Makefile or CMake file (no PyTorch defines) it is no finding
    make = findings("Makefile", "NVCCFLAGS = -O3 -U__CUDA_NO_HALF_OPERATORS__\n")
    assert not [f for f in make if f.data.get("flag") == "cuda-half-undef"]


def test_the_projects_own_rocm_flags_keep_their_half_undefines():
    # causal-conv1d 1.7.0, mamba-ssm 2.3.2: `if HIP_BUILD:` gives hipcc its own list, -U__CUDA_NO_HALF_OPERATORS__
    # included; that build compiles as it is (gfx942, measured before), so the project's ROCm list is left alone.
    text = HEAD + ("HIP_BUILD = bool(torch.version.hip)\n"
                   "if HIP_BUILD:\n    nvcc = ['-O3', '-U__CUDA_NO_HALF_OPERATORS__']\n"
                   "else:\n    nvcc = ['-O3', '-U__CUDA_NO_HALF_OPERATORS__', '--use_fast_math']\n"
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': nvcc})\n")
    assert [f.data["flag"] for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")] == []
    assert fix_all("setup.py", text) == text


_XFORMERS_LIKE = ("import os, torch\nfrom setuptools import setup\n"
                  "from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n"
                  "extension, args = CppExtension, {'cxx': ['-O3']}\n"
                  "if (torch.cuda.is_available() and (CUDA_HOME is not None) and (torch.version.cuda is not None))"
                  " or os.getenv('FORCE_CUDA', '0') == '1':\n"
                  "    extension = CUDAExtension\n    args['nvcc'] = ['--use_fast_math', '--extended-lambda', '-O3']\n"
                  "elif torch.version.hip and torch.cuda.is_available():\n"
                  "    extension = CUDAExtension\n    args['nvcc'] = ['-O3']\n"
                  "setup(name='x', ext_modules=[extension('x._C', ['a.cu'], extra_compile_args=args)])\n")


def test_a_setup_py_whose_rocm_build_is_derived_has_no_gate_and_its_cuda_only_flags_no_findings(tmp_path):
    # xformers ca6d2aa: its CUDA branch tests `torch.version.cuda is not None` (and CUDA_HOME) and holds nvcc's flags;
    # an elif on torch.version.hip builds the CK extension. BLD005 said "left out on ROCm" and 7 flags "reach hipcc".
    from vado.knowledge.targets import get_target
    from vado.rules.engine import check_text

    rocm = [get_target("rocm-7.2")]
    plain = [f for f in check_text("setup.py", _XFORMERS_LIKE, rocm) if f.code == "BLD005" and f.severity.value != "info"]
    gates = {f.data.get("gate") for f in plain if f.data.get("gate")}
    assert "CUDA_HOME" in gates and [f.data.get("flag") for f in plain if f.data.get("flag")] == ["fast-math", "expt"]
    derived = {"rocm_setups": (("setup.py", ("-O3",)),)}
    left = [f for f in check_text("setup.py", _XFORMERS_LIKE, rocm, options=derived)
            if f.code == "BLD005" and f.severity.value != "info"]
    assert left == []
    # a flag its ROCm extension does get still reaches hipcc
    rocm_too = {"rocm_setups": (("setup.py", ("-O3", "--use_fast_math")),)}
    got = [f.data.get("flag") for f in check_text("setup.py", _XFORMERS_LIKE, rocm, options=rocm_too) if f.data.get("flag")]
    assert got == ["fast-math"]
    # the options name another setup.py: this one is judged as before
    other = {"rocm_setups": (("sub/setup.py", ("-O3",)),)}
    assert len([f for f in check_text("setup.py", _XFORMERS_LIKE, rocm, options=other)
                if f.code == "BLD005" and f.severity.value != "info"]) == len(plain)

    # end to end: the scope derives it from the tree and the audit passes it on
    from vado.audit import audit

    (tmp_path / "setup.py").write_text(_XFORMERS_LIKE)
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    result = audit(tmp_path, rocm)
    assert [f for f in result.findings if f.code == "BLD005" and f.severity.value != "info"] == []


def test_an_extension_class_picked_inline_is_a_cuda_extension_and_its_gates_build_it_on_rocm():
    # torch-ms-deform-attn 0.1.1: `(CUDAExtension if with_cuda else CppExtension)(...)`, with_cuda testing
    # CUDA_HOME and torch.version.cuda in one parenthesised `and` chain: no finding, so the port built the
    # CPU-only extension on ROCm and said "nothing remains".
    text = ("import os\nimport torch\nfrom setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension\n"
            "force_cpu = os.getenv('FORCE_CPU', '0') == '1'\n"
            "with_cuda = (\n    not force_cpu\n    and CUDA_HOME is not None\n    and torch.version.cuda is not None\n"
            "    and torch.cuda.is_available()\n)\n"
            "sources = ['csrc/vision.cpp']\nif with_cuda:\n    sources.append('csrc/cuda/attn.cu')\n"
            "setup(ext_modules=[(CUDAExtension if with_cuda else CppExtension)('m._C', sources=sources)],\n"
            "      cmdclass={'build_ext': BuildExtension})\n")
    got = findings("setup.py", text, ("BLD005",))
    assert sorted(f.data["gate"] for f in got if f.data.get("gate")) == ["CUDA_HOME", "torch.version.cuda"]
    assert any(f.data.get("call") for f in got)  # the extension itself is reported
    fixed = _fixpoint("setup.py", text)
    assert "    and (CUDA_HOME is not None or torch.version.hip)\n" in fixed
    assert "    and (torch.version.cuda is not None or torch.version.hip)\n" in fixed
    stub = ("class torch:\n    class version:\n        cuda = None\n        hip = '7.2.4'\n"
            "    class cuda:\n        is_available = staticmethod(lambda: True)\n"
            "CUDA_HOME = None\nCUDAExtension, CppExtension = 'cuda', 'cpp'\n")
    code = "\n".join(l for l in fixed.splitlines() if not l.startswith(("import torch", "from torch", "from setuptools")))
    ns: dict = {}
    exec(compile(stub + code.split("setup(")[0], "setup.py", "exec"), ns)  # our own fixture text
    assert ns["with_cuda"] and ns["sources"] == ["csrc/vision.cpp", "csrc/cuda/attn.cu"]
    assert fix_all("setup.py", fixed) == fixed


def test_a_package_module_that_builds_its_extension_just_in_time_gets_its_nvcc_flags_fixed():
    # adafactor8bit 0.4.6: optimizer.py calls torch.utils.cpp_extension.load(sources=[kernels.cu],
    # extra_cuda_cflags=flags) at run time; '--use_fast_math' reached hipcc ("unknown argument") and vado said
    # nothing (only setup.py was read for flags).
    text = ("import sys\nimport torch\nfrom torch.utils.cpp_extension import load\n\n"
            "def _load(cu_path):\n"
            "    extra_cuda_cflags = ['-O3', '--use_fast_math']\n"
            "    if sys.platform == 'win32':\n        extra_cuda_cflags.extend(['-Xcompiler', '/Zc:preprocessor'])\n"
            "    return load(name='k', sources=[cu_path], extra_cuda_cflags=extra_cuda_cflags)\n")
    got = findings("pkg/optimizer.py", text, ("BLD005",))
    assert {f.data.get("flag") for f in got if f.data.get("flag")} >= {"fast-math"}
    fixed = _fixpoint("pkg/optimizer.py", text)
    assert "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])" in fixed
    assert fix_all("pkg/optimizer.py", fixed) == fixed
    # a module that only imports the name, or a load() that is not cpp_extension's, is no build
    assert findings("pkg/util.py", "import json\ndef load(p):\n    return json.load(open(p))\n", ("BLD005",)) == []


def test_nvcc_flags_a_method_returns_from_a_class_attribute_reach_hipcc():
    # stainx 0.1.6: CUDAExtension(..., extra_compile_args={"nvcc": nvcc_flags}) in a method, nvcc_flags =
    # self.flags_manager.get_architecture_flags(cc), which returns self.BASE_FLAGS.copy() grown by extend();
    # BASE_FLAGS: ClassVar[list[str]] = ["--expt-relaxed-constexpr", "--use_fast_math", ...]: none was found,
    # and hipcc stopped at '--expt-relaxed-constexpr'.
    text = ("from typing import ClassVar\nimport torch\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
            "class Flags:\n"
            "    BASE_FLAGS: ClassVar[list[str]] = ['--expt-relaxed-constexpr', '--use_fast_math', '-O3']\n\n"
            "    def get_architecture_flags(self, cc):\n"
            "        flags = self.BASE_FLAGS.copy()\n"
            "        flags.extend(['-gencode', f'arch=compute_{cc},code=sm_{cc}'])\n"
            "        return flags\n\n"
            "class Builder:\n"
            "    def __init__(self):\n        self.flags_manager = Flags()\n\n"
            "    def build(self):\n"
            "        nvcc_flags = self.flags_manager.get_architecture_flags(75)\n"
            "        return [CUDAExtension(name='s', sources=['a.cu'], extra_compile_args={'cxx': ['-O3'], 'nvcc': nvcc_flags})]\n")
    got = {f.data.get("flag") for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")}
    assert {"expt", "fast-math", "gencode"} <= got
    fixed = _fixpoint("setup.py", text)
    assert "*([] if torch.version.hip else ['-gencode', f'arch=compute_{cc},code=sm_{cc}'])" in fixed
    assert "*([] if torch.version.hip else ['--expt-relaxed-constexpr'])" in fixed
    assert "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])" in fixed
    assert fix_all("setup.py", fixed) == fixed


def test_a_function_that_gives_up_when_nvcc_is_not_found_is_a_gate():
    # stainx 0.1.6: the builder method looks for nvcc and returns no extension without it; a ROCm build of
    # PyTorch has no nvcc, so nothing was built there.
    text = ("import shutil\nimport torch\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
            "def build():\n"
            "    nvcc_path = shutil.which('nvcc')\n"
            "    if not nvcc_path:\n        print('no toolkit')\n        return []\n"
            "    return [CUDAExtension('s', ['a.cu'])]\n\n"
            "def version():\n"  # a probe that decides nothing about the extension: no gate
            "    nvcc = shutil.which('nvcc')\n    return nvcc or 'none'\n")
    gates = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("gate")]
    assert [f.data["gate"] for f in gates] == ["nvcc"]
    fixed = _fixpoint("setup.py", text)
    assert "    nvcc_path = (shutil.which('nvcc') or torch.version.hip)\n" in fixed
    assert "    nvcc = shutil.which('nvcc')\n" in fixed


def test_nvccs_short_spellings_and_a_value_in_the_next_word_are_nvcc_flags():
    # torchcompactradius 0.5.5: nvcc_flags += ['-extended-lambda'] (hipcc: "unknown argument: '-extended-lambda'");
    # accelerated-scan 0.3.1: load_inline(extra_cuda_cflags=[..., "--fmad", "false"]).
    text = (HEAD + "NVCC = ['-O2', '-extended-lambda', '-expt-relaxed-constexpr', '--fmad', 'false']\n"
            "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': NVCC})\n")
    got = [(f.data["flag"], f.data["option"]) for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert got == [("expt", "-extended-lambda"), ("expt", "-expt-relaxed-constexpr"), ("nvcc-only", "--fmad")]
    fixed = _fixpoint("setup.py", text)
    assert _nvcc_list(fixed, None) == _nvcc_list(text, None)
    assert _nvcc_list(fixed, "7.2.4") == ["-O2", "-ffp-contract=off"]  # nvcc's --fmad false: no FMA contraction


def test_a_flag_written_as_an_f_string_that_the_derived_rocm_build_gets_is_still_a_finding():
    # torchcompactradius 0.5.5 (its setup.py builds on ROCm itself): nvcc_flags += [f'-extended-lambda'] reaches
    # hipcc, which stops at it; the f-string prefix hid it from the derived ROCm flags, so no finding was left.
    from vado.knowledge.targets import get_target
    from vado.rules.engine import check_text

    text = HEAD + "nvcc = ['-O2']\nnvcc += [f'-extended-lambda']\ne = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': nvcc})\n"
    derived = {"rocm_setups": (("setup.py", ("-O2", "-extended-lambda")),)}
    got = [f.data.get("flag") for f in check_text("setup.py", text, [get_target("rocm-7.2")], options=derived)
           if f.data.get("flag")]
    assert got == ["expt"]


def test_a_torch_setup_py_links_the_rocm_library_on_rocm_and_keeps_the_cuda_one_for_cuda():
    # stainx 0.1.6: extra_link_args=["-lcudart"] (not read before: a ROCm link stops at 'cannot find -lcudart');
    # libraries=["cublas"] became ["hipblas"] for both builds, which broke the CUDA build the same setup.py serves.
    text = (HEAD + "e = CUDAExtension('x', ['x.cu'], libraries=['cublas'], extra_link_args=['-lcudart', '-O2'])\n")
    got = {f.data["link"] for f in findings("setup.py", text, ("BLD004",))}
    assert got == {"cublas", "-lcudart"}
    fixed = _fixpoint("setup.py", text)
    assert "libraries=[*(['hipblas'] if torch.version.hip else ['cublas'])]" in fixed
    assert "extra_link_args=[*(['-lamdhip64'] if torch.version.hip else ['-lcudart']), '-O2']" in fixed
    assert findings("setup.py", fixed, ("BLD004",)) == []
    stub = ("class torch:\n    class version:\n        hip = {hip!r}\n"
            "def CUDAExtension(*a, **k):\n    return k\n")
    code = "\n".join(l for l in fixed.splitlines() if not l.startswith(("import torch", "from torch")))
    for hip, libs, link in ((None, ["cublas"], ["-lcudart", "-O2"]), ("7.2.4", ["hipblas"], ["-lamdhip64", "-O2"])):
        ns: dict = {}
        exec(compile(stub.format(hip=hip) + code, "setup.py", "exec"), ns)  # our own fixture text
        assert ns["e"]["libraries"] == libs and ns["e"]["extra_link_args"] == link


def test_a_just_in_time_build_links_the_rocm_library_on_rocm():
    text = ("import torch\nfrom torch.utils.cpp_extension import load\n\n"
            "def build(path):\n"
            "    return load(name='k', sources=[path], extra_ldflags=['-lcublas'], extra_cuda_cflags=['-O3'])\n")
    got = [f for f in findings("pkg/ops.py", text, ("BLD004",))]
    assert [f.data["link"] for f in got] == ["-lcublas"]
    fixed = _fixpoint("pkg/ops.py", text)
    assert "extra_ldflags=[*(['-lhipblas'] if torch.version.hip else ['-lcublas'])]" in fixed
    assert findings("pkg/ops.py", fixed, ("BLD004",)) == []
    assert findings("pkg/io.py", "import json\nx = json.load(open('a'))\nlibs = ['-lcublas']\n", ("BLD004",)) == []


# Regressions found by the 2026-12-05 before/after review (main d917b27 vs e38f944; benchmarks/results/
# regression_2026-12-05.json), fixed in scan/buildfiles/setup_py.py.
def test_flags_given_to_a_helper_that_returns_them_grown_are_still_read():
    # flash-attention csrc/layer_norm/setup.py, rotary_emb 0.5.2: 'nvcc': append_nvcc_threads([...] + cc_flag),
    # the helper returning nvcc_extra_args + ["--threads", "4"]. Since the helper's return is followed (43d3c62),
    # the list it is given was no longer read: --use_fast_math and --expt-extended-lambda got no finding or fix.
    text = HEAD + ("def append_nvcc_threads(nvcc_extra_args):\n"
                   "    return nvcc_extra_args + ['--threads', '4']\n"
                   "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': append_nvcc_threads(\n"
                   "    ['-O3', '--use_fast_math', '--expt-extended-lambda'])})\n")
    flags = [f.data["flag"] for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag")]
    assert {"threads", "fast-math", "expt"} <= set(flags)  # --threads, --use_fast_math, --expt-extended-lambda


def test_another_modules_load_is_no_build_where_cpp_extension_load_is_imported():
    # nerfacc 0.5.3's cuda/_backend.py imports load from torch.utils.cpp_extension and also calls
    # json.load(f): that call was reported as 'json.load builds a PyTorch CUDA extension'.
    text = ("import json\nfrom torch.utils.cpp_extension import load\n"
            "v = json.load(open('a'))\n_C = load(name='k', sources=['k.cu'])\n")
    lines = [f.span.line for f in findings("pkg/_backend.py", text, ("BLD005",))]
    assert lines == [4]


def test_a_function_that_gives_up_when_cuda_home_is_none_is_a_gate():
    # qgemm 0.0.2: build_extensions() copies CUDA_HOME into a local and returns no extension when it is None,
    # which it always is on a ROCm build of PyTorch: the extension was silently left out there.
    text = ("import os\n\n"
            "def build_extensions():\n"
            "    try:\n        import torch\n"
            "        from torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\n"
            "        cuda_home = CUDA_HOME\n"
            "    except Exception:\n        cuda_home = None\n"
            "    if cuda_home is None:\n        return []\n"
            "    if CUDA_HOME is None and os.environ.get('STRICT'):\n        raise RuntimeError('no nvcc')\n"
            "    return [CUDAExtension('q._C', ['a.cu'])]\n\n"
            "def info(CUDA_HOME=None):\n"  # ok: a function that makes no extension decides nothing about it
            "    if CUDA_HOME is None:\n        return 'cpu'\n    return 'cuda'\n")
    gates = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("gate")]
    assert sorted(f.data["gate"] for f in gates) == ["CUDA_HOME is None", "CUDA_HOME is None"]
    assert all(f.fix is not None for f in gates)
    fixed = _fixpoint("setup.py", text)
    assert "    if (cuda_home is None and not torch.version.hip):\n" in fixed
    assert "    if (CUDA_HOME is None and not torch.version.hip) and os.environ.get('STRICT'):\n" in fixed
    assert "def info(CUDA_HOME=None):\n    if CUDA_HOME is None:\n" in fixed
    # ok: a bail-out that asks for a ROCm build already is no gate
    rocm_aware = text.replace("    if cuda_home is None:\n", "    if cuda_home is None and not torch.version.hip:\n")
    assert len([f for f in findings("setup.py", rocm_aware, ("BLD005",)) if f.data.get("gate")]) == 1


def test_the_cuda_home_bailout_fix_lets_the_derived_rocm_build_make_the_extension(tmp_path):
    text = ("from torch.utils.cpp_extension import CUDAExtension, BuildExtension, CUDA_HOME\n"
            "from setuptools import setup\n\n"
            "def exts():\n    import torch\n    cuda_home = CUDA_HOME\n"
            "    if cuda_home is None:\n        return []\n"
            "    return [CUDAExtension('q._C', ['a.cu'])]\n\n"
            "setup(name='q', ext_modules=exts(), cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "setup.py").write_text(text)
    assert _rocm_exts(tmp_path) == []  # CUDA_HOME is None on ROCm: no extension
    (tmp_path / "setup.py").write_text(_fixpoint("setup.py", text))
    assert _rocm_exts(tmp_path) == [["a.cu"]]


def _rocm_exts(root):
    from vado.build.torch_setup import derive

    d = derive(root)
    return [list(x.sources) for x in d.extensions["rocm"]]


def test_a_top_level_raise_when_an_nvcc_probe_finds_nothing_stops_setup_py_on_rocm():
    # fussim 0.3.1: check_cuda_available() runs `nvcc --version` in a try (and looks for a CUDA home); setup.py
    # raises RuntimeError at its top level when it finds neither, which it never does on a ROCm build.
    probe = ("import subprocess, sys\n\n"
             "def get_cuda_version():\n    try:\n"
             "        return subprocess.check_output(['nvcc', '--version'])\n"
             "    except OSError:\n        return None\n\n"
             "def check_cuda_available():\n    return get_cuda_version() is not None\n\n")
    tail = "from torch.utils.cpp_extension import CUDAExtension\ne = CUDAExtension('x', ['x.cu'])\n"
    stop = probe + ("if 'sdist' not in sys.argv:\n"
                    "    if not check_cuda_available():\n        raise RuntimeError('CUDA is required')\n") + tail
    got = [f for f in findings("setup.py", stop, ("BLD005",)) if f.data.get("stop")]
    assert [f.data["stop"] for f in got] == ["check_cuda_available"]
    assert all(f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MANUAL for f in got)
    # ok: the same test with a ROCm build asked for first, a probe whose if only warns, a raise in a function
    for text in (
            probe + "import torch\nif not torch.version.hip and not check_cuda_available():\n    raise RuntimeError('x')\n"
            + tail,
            probe + "if not check_cuda_available():\n    print('no toolkit: CPU only')\n" + tail,
            probe + "def build():\n    if not check_cuda_available():\n        raise RuntimeError('x')\n" + tail):
        assert not [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("stop")], text


def test_a_cxx_standard_older_than_cxx17_is_a_finding_and_rocm_gets_cxx17():
    # polygon-iou 1.0.7: '-std=c++14' in its cxx and nvcc flags; torch 2.13.0's headers stop every TU ("C++17 or
    # later compatible compiler is required to use PyTorch"), on CUDA too.
    text = HEAD + ("e = CUDAExtension('x', ['x.cu'], extra_compile_args={'cxx': ['-std=c++14', '-O2'],\n"
                   "                  'nvcc': ['-std=c++14', '-O2']})\n")
    got = [f for f in findings("setup.py", text, ("BLD005",)) if f.data.get("flag") == "old-std"]
    assert [f.span.line for f in got] == [3, 4] and all(f.fix is not None for f in got)
    fixed = _fixpoint("setup.py", text)
    assert _nvcc_list(fixed, "7.2.4") == ["-std=c++17", "-O2"]
    assert _nvcc_list(fixed, None) == ["-std=c++14", "-O2"]  # the CUDA build keeps the project's flags
    # polygon-iou imports only from torch.utils.cpp_extension: torch is bound for the test, as for the flag fixes
    bare = text.replace(HEAD, "from torch.utils.cpp_extension import CUDAExtension\n")
    assert all(f.fix is not None for f in findings("setup.py", bare, ("BLD005",)) if f.data.get("flag") == "old-std")
    fixed = _fixpoint("setup.py", bare)
    assert "import torch  # vado" in fixed and _nvcc_list(fixed, "7.2.4") == ["-std=c++17", "-O2"]
    # ok: C++17 and later, a standard in a branch only CUDA builds take, and a setup.py that builds no extension
    for ok in (HEAD + "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': ['-std=c++17', '-std=c++20']})\n",
               HEAD + "F = ['-O2'] if torch.version.hip else ['-std=c++14']\n"
                      "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': F})\n",
               "from setuptools import Extension\ne = Extension('x', ['x.c'], extra_compile_args=['-std=c++14'])\n"):
        assert not [f for f in findings("setup.py", ok, ("BLD005",)) if f.data.get("flag") == "old-std"], ok
