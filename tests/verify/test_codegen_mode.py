"""verify's --codegen modes: which units get the build's full compile and why, the cache key, the wording.

A fake hipcc logs every command it runs (into the scratch directory it may write, read back through
the evidence's commands), so what ran is exact: ``-fsyntax-only`` is the front end, ``-c`` the full
compile.
"""

import json

import pytest

from vado.build.compdb import read_compile_db
from vado.knowledge.targets import get_target
from vado.verify.codegen import (CODE_GENERATION, FRONT_END, UNCHECKED, TextScan, flag_reasons,
                                 project_files)
from vado.verify.compile import verify_compile
from vado.verify.compile_cache import CompileCache
from vado.verify.pch import Prefixes, leading_includes, names_relative_path
from vado.verify.run import VerifyResult, checked_by_unit, describe_checks, render_text
from vado.verify.toolchains import ArchProbe, HipToolchain
from vado.errors import UsageError

from _verify_helpers import write_tool

# Fails a unit whose text holds BROKEN_FE in the front end, BROKEN_CG only when it compiles (-c), as a
# bad asm string does; writes a dependency file with the quoted headers it finds beside the source.
FAKE = r"""
src=""; obj=""; dep=""; full=""
while [ $# -gt 0 ]; do
  case "$1" in
    -c) full=1; src="$2"; shift ;;
    -o) obj="$2"; shift ;;
    -MF) dep="$2"; shift ;;
    -include|-Xclang) shift ;;
    -*) ;;
    *) src="$1" ;;
  esac
  shift
done
dir=$(dirname "$src")
hdrs=$(sed -n 's/^#include "\(.*\)"/\1/p' "$src" | while read -r h; do printf ' %s/%s' "$dir" "$h"; done)
[ -n "$dep" ] && printf 'x.o: %s%s\n' "$src" "$hdrs" > "$dep"
if cat "$src" $hdrs | grep -q BROKEN_FE; then echo "$src:2:1: error: front end error" >&2; exit 1; fi
if [ -n "$full" ] && cat "$src" $hdrs | grep -q BROKEN_CG; then
  echo "<inline asm>:1:2: error: invalid instruction" >&2; exit 1
fi
[ -n "$obj" ] && : > "$obj"
exit 0
"""
ARCHS = ["gfx942", "gfx950"]
TARGET = get_target("rocm-7.2")


@pytest.fixture
def tc(tmp_path):
    return HipToolchain(str(write_tool(tmp_path / "bin", "hipcc", FAKE)), "7.2.0", "22.0.0")


def _project(root, units):
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, (text, flags) in units.items():
        (root / name).write_text(text)
        entries.append({"directory": str(root), "file": name, "command": f"hipcc {flags} -c {name} -o x.o"})
    (root / "compile_commands.json").write_text(json.dumps(entries))
    return read_compile_db(root / "compile_commands.json", root)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "asm.h").write_text('__device__ void f() { asm volatile("v_bogus v0"); }  // BROKEN_CG\n')
    (root / "plain.h").write_text("int h;\n")
    cfg = _project(root, {
        "plain.cu": ("int plain;\n", "-O3"),
        "asm.cu": ('#include "asm.h"\nint a;\n', "-O3"),
        "werror.cu": ("int w;\n", "-O3 -Werror"),
        "fe_bad.cu": ('#include "plain.h"\n// BROKEN_FE\n', "-O3"),
    })
    return root, cfg


def _verify(root, cfg, tc, cache_dir, **kw):
    probes = {a: ArchProbe(a, True) for a in ARCHS}
    return verify_compile(root, tc, ARCHS, target=TARGET, probes=probes, build=cfg,
                          cache=CompileCache(cache_dir), jobs=2, **kw)


def _by_unit(rep):
    out = {}
    for e in rep.evidence:
        out.setdefault(e.subject, []).append(e)
    return out


def test_auto_runs_code_generation_only_where_the_front_end_cannot_vouch(project, tc, tmp_path):
    root, cfg = project
    rep = _verify(root, cfg, tc, tmp_path / "c")
    units = _by_unit(rep)
    plain = units["plain.cu"]
    assert [(e.arch, e.passed, e.detail["checked"]) for e in plain] == [("gfx942", True, FRONT_END), ("gfx950", True, FRONT_END)]
    assert "-fsyntax-only" in plain[0].command and "-c" not in plain[0].command
    assert plain[0].detail["codegen_reason"].startswith("not needed") and plain[0].detail["unchecked"] == UNCHECKED
    # Inline assembly in a header of the project the unit reads: the full compile, which fails.
    asm = units["asm.cu"]
    assert [(e.passed, e.detail["checked"]) for e in asm] == [(False, CODE_GENERATION)] * 2
    assert "-c" in asm[0].command and "-fsyntax-only" not in asm[0].command
    assert asm[0].detail["codegen_reason"].startswith("inline assembly") and "asm.h" in asm[0].detail["codegen_reason"]
    assert "invalid instruction" in asm[0].stderr
    # -Werror: the back end's warnings are errors, so the full compile, and no front-end run.
    werror = units["werror.cu"]
    assert [(e.passed, e.detail["checked"]) for e in werror] == [(True, CODE_GENERATION)] * 2
    assert "-Werror" in werror[0].detail["codegen_reason"]
    # A front-end failure is the record: code generation is not run after it.
    bad = units["fe_bad.cu"]
    assert [(e.passed, e.detail["checked"]) for e in bad] == [(False, FRONT_END)] * 2
    assert bad[0].detail["codegen_reason"] == "the front end failed"
    assert "front end error" in bad[0].stderr


def test_all_and_none(project, tc, tmp_path):
    root, cfg = project
    rep = _verify(root, cfg, tc, tmp_path / "c", codegen="all")
    assert {e.detail["checked"] for e in rep.evidence} == {CODE_GENERATION}
    assert all("-c" in e.command for e in rep.evidence)
    assert {e.detail["codegen_reason"] for e in rep.evidence} == {"--codegen all"}
    rep = _verify(root, cfg, tc, tmp_path / "c2", codegen="none")
    units = _by_unit(rep)
    # -Werror units too: none is the front end only, and says so.
    assert {e.detail["checked"] for e in rep.evidence} == {FRONT_END}
    assert all(e.passed for e in units["asm.cu"]) and units["asm.cu"][0].detail["codegen_reason"] == "--codegen none"
    with pytest.raises(UsageError):
        _verify(root, cfg, tc, tmp_path / "c3", codegen="some")


def test_the_cache_key_holds_the_mode(project, tc, tmp_path):
    root, cfg = project
    cache = tmp_path / "c"
    _verify(root, cfg, tc, cache, codegen="none")
    again = _verify(root, cfg, tc, cache, codegen="none")
    assert all(e.detail["cached"] for e in again.evidence)
    # A front-end result never answers for a full compile.
    full = _verify(root, cfg, tc, cache, codegen="all")
    assert not any(e.detail["cached"] for e in full.evidence if e.subject != "werror.cu")
    auto = _verify(root, cfg, tc, cache)
    assert all(e.detail["cached"] for e in auto.evidence)


def test_a_one_file_edit_runs_one_unit(project, tc, tmp_path):
    root, cfg = project
    cache = tmp_path / "c"
    _verify(root, cfg, tc, cache)
    (root / "plain.cu").write_text("int plain2;\n")
    rep = _verify(root, cfg, tc, cache)
    assert sorted({e.subject for e in rep.evidence if not e.detail["cached"]}) == ["plain.cu"]


def test_flag_reasons():
    assert flag_reasons(["-O3", "-Werror"]) and flag_reasons(["-Werror=unused-variable"])
    assert flag_reasons(["-O3", "-Wall", "-Wno-error", "-Werror="]) == []


@pytest.mark.parametrize("text", [
    'asm("s_nop 0");', '__asm__ __volatile__ ("v_mov_b32 %0, 0" : "=v"(x));', "asm volatile (\"\");",
    "int y = __builtin_amdgcn_ds_swizzle(x, 0);", "#include <immintrin.h>\n", "# include \"x86intrin.h\"\n",
    "__attribute__((target(\"avx2\"))) void f();", "const char d[] = {\n#embed \"data.bin\"\n};",
])
def test_text_triggers(tmp_path, text):
    f = tmp_path / "a.cu"
    f.write_text(text)
    assert TextScan().reasons([str(f)])


@pytest.mark.parametrize("text", [
    "int plasma(int x);", "int asm_count = 0;", "// assembly\n", "__builtin_expect(x, 1);", "#include <cmath>\n",
])
def test_text_that_needs_no_code_generation(tmp_path, text):
    f = tmp_path / "a.cu"
    f.write_text(text)
    assert TextScan().reasons([str(f)]) == []


def test_project_files_leave_the_toolchain_out(tmp_path):
    src = str(tmp_path / "p" / "a.cu")
    deps = [src, str(tmp_path / "p" / "inc" / "k.h"), "/usr/include/hip/amd_detail/amd_device_functions.h",
            str(tmp_path / "pother" / "x.h")]
    assert project_files(deps, src, [str(tmp_path / "p")]) == [src, str(tmp_path / "p" / "inc" / "k.h")]


def test_project_files_follow_includes_a_device_side_alone_reads(tmp_path):
    p = tmp_path / "p"
    (p / "inc").mkdir(parents=True)
    (p / "a.cu").write_text('#include <hip/hip_runtime.h>\n#ifdef __HIP_DEVICE_COMPILE__\n#include "dev.h"\n#endif\n'
                            '#include <lib.h>\n')
    (p / "dev.h").write_text('#include "asm_impl.h"\n')
    (p / "asm_impl.h").write_text('__device__ void f() { asm volatile("s_nop 0"); }\n')
    (p / "inc" / "lib.h").write_text("int lib;\n")
    src = str(p / "a.cu")
    # -MD (the host side) listed only the source: the includes are followed through the project's files.
    got = project_files([src], src, [str(p)], [str(p / "inc")])
    assert sorted(got) == sorted([src, str(p / "dev.h"), str(p / "inc" / "lib.h"), str(p / "asm_impl.h")])
    assert TextScan().reasons(got)[0].startswith("inline assembly") and "asm_impl.h" in TextScan().reasons(got)[0]


def test_report_says_what_was_checked(project, tc, tmp_path):
    root, cfg = project
    rep = _verify(root, cfg, tc, tmp_path / "c")
    assert checked_by_unit(rep.evidence) == {"plain.cu": "front end", "asm.cu": "codegen", "werror.cu": "codegen",
                                             "fe_bad.cu": "front end"}
    lines = describe_checks(rep.evidence)
    assert lines[0].startswith("checked: front end only (host and gfx942, gfx950: ") and "on 2 units" in lines[0]
    assert UNCHECKED in lines[0]
    assert lines[1].startswith("checked: code generation (the build's full compile, per arch) on 2 units")
    assert "inline assembly: 1" in lines[1] and "-Werror in the build's flags: 1" in lines[1]
    text = render_text(VerifyResult(str(root), "rocm-7.2", "hipcc", rep, None, (), None, "", False, (), cfg))
    assert any(line.split()[:2] == ["unit", "checked"] for line in text.splitlines() if line.strip())
    plain_row = next(line for line in text.splitlines() if line.strip().startswith("plain.cu"))
    assert plain_row.split()[1:3] == ["front", "end"]
    assert "compiled" not in plain_row


def test_leading_includes_and_relative_paths():
    text = "/* licence */\n// c\n#include <stdio.h>\n\n#include <hip/hip_runtime.h> // rt\n#include \"k.h\"\n#include <vector>\n"
    assert leading_includes(text) == ("stdio.h", "hip/hip_runtime.h")
    assert leading_includes("#define X 1\n#include <stdio.h>\n") == ()
    assert names_relative_path(["-I.", "-O3"]) and names_relative_path(["-isystem", "inc"])
    assert not names_relative_path(["-I/abs", "-isystem", "/abs2", "-O3", "-DX=a/b"])


def test_prefixes_are_shared_where_enough_units_open_alike(tmp_path):
    p = Prefixes(tmp_path)
    flags, sides = ["-O3"], ("gfx942",)
    rt = ("stdio.h", "hip/hip_runtime.h")
    for i in range(4):
        p.plan((*rt, f"extra{i}"), flags, sides, f"/d{i}")
    p.plan(("chrono",), flags, sides, "/d9")
    for i in range(3):
        p.plan(("chrono",), ["-O2"], sides, f"/e{i}")
    # Four units open with <stdio.h> <hip/hip_runtime.h>: that prefix; the fifth -O3 unit the implicit
    # header alone (five share the flags); three -O2 units are too few for a header of their own.
    assert p.prefix((*rt, "vector"), flags, sides, "/d1") == rt
    assert p.prefix(("chrono",), flags, sides, "/d9") == ()
    assert p.prefix(("chrono",), ["-O2"], sides, "/e0") is None
    built = []

    def build(header):
        built.append(header.read_text())
        return True, ["/usr/include/stdio.h"]

    # The first unit of a prefix pays nothing; the second builds it once; later ones reuse it.
    assert p.use(("stdio.h",), flags, sides, "/d1", build) is None
    got = p.use(("stdio.h",), flags, sides, "/d2", build)
    assert got is not None and got[0].endswith("prefix.h") and got[1] == ("/usr/include/stdio.h",)
    assert p.use(("stdio.h",), flags, sides, "/d3", build) == got
    assert built == ["#include <stdio.h>\n"] and p.built == 1
    # One clang refused (a run with it failed where the plain run passed): not used again.
    p.refuse(got[0])
    assert p.use(("stdio.h",), flags, sides, "/d4", build) is None and p.built == 0
    # A prefix that cannot be made is not used.
    assert p.use((), ["-O1"], sides, "/x", lambda h: (False, [])) is None
    assert p.use((), ["-O1"], sides, "/x", lambda h: (False, [])) is None


def test_a_prefix_is_built_for_the_first_unit_that_runs_and_never_for_a_one_file_edit(tmp_path, tc):
    """verify plans the precompiled prefixes with the units whose front end will run (cache misses): a
    cold run builds a shared prefix for its first unit, so every unit uses it; a re-verify after a
    one-file edit runs that unit plain and builds nothing."""
    opening = "#include <stdio.h>\n#include <hip/hip_runtime.h>\n"
    root = tmp_path / "p"
    cfg = _project(root, {f"u{i}.cu": (f"{opening}int u{i};\n", "-O3") for i in range(5)})
    cache = tmp_path / "c"
    cold = _verify(root, cfg, tc, cache, codegen="none")
    assert len(cold.evidence) == 10 and all(e.passed for e in cold.evidence)
    assert all(e.detail["precompiled_prefix"] and "-include" in e.command for e in cold.evidence)
    (root / "u3.cu").write_text(f"{opening}int u3_edited;\n")
    again = _verify(root, cfg, tc, cache, codegen="none")
    ran = [e for e in again.evidence if not e.detail["cached"]]
    assert sorted({e.subject for e in ran}) == ["u3.cu"]
    assert not any(e.detail["precompiled_prefix"] or "-include" in e.command for e in ran)


def test_prefixes_wait_for_a_second_unit_unless_the_plan_counts_runs(tmp_path):
    flags, sides = ["-O3"], ("gfx942",)
    built = []

    def build(header):
        built.append(header)
        return True, []

    eager = Prefixes(tmp_path / "a", planned_runs=True)
    for i in range(4):
        eager.plan(("hip/hip_runtime.h",), flags, sides, f"/d{i}")
    assert eager.use(("hip/hip_runtime.h",), flags, sides, "/d0", build) is not None and len(built) == 1


def test_a_header_only_a_device_side_reads_invalidates_the_cached_result(tmp_path, tc):
    """clang's -MD lists the host side's headers only (the fake lists only column-0 includes, as the
    host would not read one under __HIP_DEVICE_COMPILE__): the cache also keeps the digests of the
    project files the unit's includes name, so an edit there is never answered from the cache."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "dev.h").write_text("__device__ int d() { return 1; }\n")
    cfg = _project(root, {"dev.cu": ('#if defined(__HIP_DEVICE_COMPILE__)\n  #include "dev.h"\n#endif\nint u;\n',
                                     "-O3")})
    cache = tmp_path / "c"
    _verify(root, cfg, tc, cache, codegen="none")
    assert all(e.detail["cached"] for e in _verify(root, cfg, tc, cache, codegen="none").evidence)
    (root / "dev.h").write_text("__device__ int d() { return 2; }\n")
    assert not any(e.detail["cached"] for e in _verify(root, cfg, tc, cache, codegen="none").evidence)
