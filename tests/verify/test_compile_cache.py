"""verify's result cache and parallel compiles, with a small fake hipcc that logs what it compiles.

The fake writes a real dependency file (the source and the headers it includes with quotes), so the
cache sees what a real compiler would tell it. It runs confined like any compiler (it can write only
its scratch directory), so what was compiled is read from the evidence: ``detail["cached"]``.
"""

import json

import pytest

from vado.build.compdb import read_compile_db
from vado.knowledge.targets import get_target
from vado.verify.compile import verify_compile
from vado.verify.toolchains import ArchProbe, HipToolchain

from _verify_helpers import write_tool

FAKE = r"""
src=""; obj=""; dep=""; scan=""
while [ $# -gt 0 ]; do
  case "$1" in
    -c) src="$2"; shift ;;
    -o) obj="$2"; shift ;;
    -MF) dep="$2"; shift ;;
    -M) scan=1 ;;
    -include|-Xclang) shift ;;
    -*) ;;
    *) src="$1" ;;
  esac
  shift
done
dir=$(dirname "$src")
# Quoted includes: found beside the source, or listed as spelled (like -MG) when missing.
hdrs=$(sed -n 's/^#include "\(.*\)"/\1/p' "$src" | while read -r h; do
  if [ -e "$dir/$h" ]; then printf ' %s/%s' "$dir" "$h"; else printf ' %s' "$h"; fi; done)
if [ -n "$scan" ]; then printf 'x.o: %s%s\n' "$src" "$hdrs" > "$dep"; exit 0; fi
for h in $hdrs; do [ -e "$h" ] || { echo "$src:1:10: fatal error: '$h' file not found" >&2; exit 1; }; done
# A failed compile of a NODEP unit writes no dependency file (as clang's HIP driver does).
if ! grep -q NODEP "$src"; then printf '%s: %s%s\n' "$obj" "$src" "$hdrs" > "$dep"; fi
if cat "$src" $hdrs | grep -q BROKEN; then
  echo "$src:2:5: error: broken here" >&2
  echo "$dir/common.h:1:1: error: broken header" >&2
  exit 1
fi
# The front end (-fsyntax-only) writes no object.
[ -z "$obj" ] || : > "$obj"
"""
ARCHS = ["gfx942", "gfx950"]
TARGET = get_target("rocm-7.2")


@pytest.fixture
def tc(tmp_path):
    tool = write_tool(tmp_path / "bin", "hipcc", FAKE)
    return HipToolchain(str(tool), "7.2.0", "22.0.0")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "common.h").write_text("// shared\n")
    entries = []
    for i in range(4):
        (root / f"k{i}.cu").write_text(f'#include "common.h"\nint k{i};\n')
        entries.append({"directory": str(root), "file": f"k{i}.cu", "command": f"hipcc -DN={i} -c k{i}.cu -o k{i}.o"})
    (root / "host.c").write_text("int h;\n")
    entries.append({"directory": str(root), "file": "host.c", "command": "cc -O2 -c host.c -o host.o"})
    (root / "compile_commands.json").write_text(json.dumps(entries))
    return root


def compiled(rep):
    """Subjects compiled in this run (not read from the cache), each once."""
    return sorted({e.subject for e in rep.evidence if not e.detail["cached"]})


def run(project, tc, cache_dir, **kw):
    cfg = read_compile_db(project / "compile_commands.json", project)
    probes = {a: ArchProbe(a, True) for a in ARCHS}
    from vado.verify.compile_cache import CompileCache

    return verify_compile(project, tc, ARCHS, target=TARGET, probes=probes, build=cfg,
                          cache=CompileCache(cache_dir), jobs=2, **kw)


def test_second_run_compiles_nothing_and_a_one_file_edit_compiles_one(project, tc, tmp_path):
    first = run(project, tc, tmp_path / "cache")
    # Four device units, all archs in one run each, and one host unit.
    assert len(compiled(first)) == 5 and first.passed and first.cache_hits == 0
    assert len(first.evidence) == 9 and {e.detail["compiled_with"] == ARCHS for e in first.evidence if e.arch != "host"} == {True}
    second = run(project, tc, tmp_path / "cache")
    assert compiled(second) == [] and second.cache_hits == 9
    assert [(e.subject, e.arch, e.passed) for e in second.evidence] == [(e.subject, e.arch, e.passed) for e in first.evidence]
    (project / "k2.cu").write_text('#include "common.h"\nint k2 = 2;\n')
    third = run(project, tc, tmp_path / "cache")
    assert compiled(third) == ["k2.cu"] and third.cache_hits == 7  # 3 units x 2 archs + host


def test_a_header_edit_recompiles_the_units_that_read_it(project, tc, tmp_path):
    run(project, tc, tmp_path / "cache")
    (project / "common.h").write_text("// changed\n")
    rep = run(project, tc, tmp_path / "cache")
    assert compiled(rep) == [f"k{i}.cu" for i in range(4)]
    assert rep.cache_hits == 1  # host.c does not include common.h


def test_failures_are_cached_and_grouped(project, tc, tmp_path):
    from vado.verify.grouping import group_errors

    (project / "common.h").write_text("BROKEN\n")
    rep = run(project, tc, tmp_path / "cache")
    # Each device unit fails with both archs, then once per arch to tell the errors by arch.
    assert compiled(rep) == ["host.c", "k0.cu", "k1.cu", "k2.cu", "k3.cu"] and not rep.passed
    assert all("compiled_with" not in e.detail for e in rep.evidence)
    groups = group_errors(rep.evidence)
    header = [g for g in groups if g.file == "common.h"]
    assert len(header) == 1 and header[0].count == 8 and len(set(header[0].subjects)) == 4
    assert header[0].first_subject in {f"k{i}.cu" for i in range(4)}
    again = run(project, tc, tmp_path / "cache")
    assert compiled(again) == [] and again.cache_hits == len(again.evidence)


def test_a_failure_without_a_depfile_is_scanned_and_a_missing_header_appearing_recompiles(project, tc, tmp_path):
    (project / "k1.cu").write_text('#include "common.h"\n#include "gen/missing.h"\n// NODEP\nint k1;\n')
    first = run(project, tc, tmp_path / "cache")
    k1 = [e for e in first.evidence if e.subject == "k1.cu"]
    assert [e.passed for e in k1] == [False, False] and "gen/missing.h' file not found" in k1[0].stderr
    # No dependency file was written: the -M -MG scan's list was kept with the failure.
    again = run(project, tc, tmp_path / "cache")
    assert compiled(again) == [] and again.cache_hits == len(again.evidence)
    (project / "gen").mkdir()
    (project / "gen" / "missing.h").write_text("// now generated\n")
    third = run(project, tc, tmp_path / "cache")
    assert compiled(third) == ["k1.cu"] and all(e.passed for e in third.evidence)


def test_a_disabled_cache_compiles_again(project, tc, tmp_path):
    from vado.verify.compile_cache import CompileCache

    probes = {a: ArchProbe(a, True) for a in ARCHS}
    cfg = read_compile_db(project / "compile_commands.json", project)
    for _ in range(2):
        rep = verify_compile(project, tc, ARCHS, target=TARGET, probes=probes, build=cfg,
                             cache=CompileCache(tmp_path / "cache", enabled=False))
        assert rep.cache_hits == 0
        assert len(compiled(rep)) == 5
    assert not (tmp_path / "cache").exists()


def test_depfile_parsing():
    from vado.verify.compile_cache import parse_depfile

    text = "a.o: a.cu /usr/include/x.h \\\n  my\\ dir/h.h inc/$$v.h\nb.h:\n"
    assert parse_depfile(text) == ["a.cu", "/usr/include/x.h", "my dir/h.h", "inc/$v.h"]
