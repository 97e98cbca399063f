"""Errors grouped by cause, and the text report's build and error sections."""

from vado.build.model import BuildConfig
from vado.model import Evidence
from vado.verify.compile import CompileReport, Unit
from vado.verify.grouping import group_errors, render_groups
from vado.verify.run import VerifyResult, render_text


def _fail(subject, arch, diags=(), reason=""):
    detail = {"status": "fail", "diagnostics": list(diags)}
    if reason:
        detail["reason"] = reason
    return Evidence(kind="compile", subject=subject, passed=False, arch=arch, detail=detail)


HDR = {"file": "llmc/cuda_common.h", "line": 12, "col": 5, "message": "use of undeclared identifier 'cudaFoo'"}
API = {"file": "k.cu", "line": 7, "col": 1, "message": "no matching function", "code": "API003",
       "original_file": "k.cu", "original_line": 7, "exact": True}


def test_same_error_at_same_line_counted_once_with_first_unit():
    ev = [_fail(f"u{i}.cu", a, [HDR]) for i in range(15) for a in ("gfx942", "gfx950")] + [_fail("k.cu", "gfx942", [API])]
    groups = group_errors(ev)
    assert [(g.file, g.line, g.count, g.first_subject, g.first_arch) for g in groups] == [
        ("llmc/cuda_common.h", 12, 30, "u0.cu", "gfx942"), ("k.cu", 7, 1, "k.cu", "gfx942")]
    assert render_groups(groups) == [
        "  llmc/cuda_common.h:12:5 [30x in 15 units, first u0.cu gfx942] use of undeclared identifier 'cudaFoo'",
        "      -> `vado lookup cudaFoo`: a CUDA name with no counterpart on the target, or a missing include",
        "  k.cu:7:1 [gfx942] (original k.cu:7) API003: no matching function",
        "      -> API003 at that line: `vado explain API003`",
    ]


def test_failures_without_diagnostics_say_what_failed():
    ev = [_fail("big.cu", "gfx942", reason="killed by SIGKILL (out of memory? the CPU-time limit?)"),
          _fail("big.cu", "gfx950", reason="killed by SIGKILL (out of memory? the CPU-time limit?)")]
    (g,) = group_errors(ev)
    assert g.count == 2 and g.line == 0 and "SIGKILL" in render_groups([g])[0]


def test_failure_reason_names_the_cause():
    from vado.verify.compile import failure_reason
    from vado.verify.sandbox import COMPILE_LIMITS, Outcome

    hipcc = Outcome(("hipcc",), 1, "", "failed to execute:/usr/lib/llvm-22/bin/clang++ -O3 -x c -c a.c\n", 1.0)
    assert failure_reason(hipcc, COMPILE_LIMITS) == (
        "exit code 1: hipcc ran /usr/lib/llvm-22/bin/clang++, which failed without a file:line diagnostic")
    crash = Outcome(("hipcc",), 1, "", "clang: error: unable to execute command: Killed\nfailed to execute:x\n", 1.0)
    assert "could not run a sub-command: Killed" in failure_reason(crash, COMPILE_LIMITS)
    assert failure_reason(Outcome(("hipcc",), -9, "", "", 1.0), COMPILE_LIMITS).startswith("killed by SIGKILL (out of memory?")
    assert failure_reason(Outcome(("hipcc",), -9, "", "", 300.0, timed_out=True), COMPILE_LIMITS).startswith("timed out after 300s")


def test_render_text_says_how_the_build_was_read():
    cfg = BuildConfig("/p", (), "make", ran=("make -n -B -k in .",), notes=("make -n in dev/test: exit code 2: oops",))
    ev = (_fail("k.cu", "gfx942", [API]), Evidence(kind="compile", subject="a.c", passed=True, arch="host",
                                                  detail={"status": "pass", "cached": True}))
    from pathlib import Path

    comp = CompileReport(ev, (Unit("a.c", Path("/p/a.c"), False), Unit("k.cu", Path("/p/k.cu"), True)), ("gfx942",),
                         skipped=(("dev/x.cu", "not compiled by the build (make)"),), build=cfg, cache_hits=1)
    text = render_text(VerifyResult("/p", "rocm-7.2", "", comp, build=cfg))
    assert "build: ran `make -n -B -k in .`: executes the project's Makefile logic" in text
    assert "build note: make -n in dev/test: exit code 2: oops" in text
    assert "records: 1 from compiler runs, 1 from the result cache" in text
    assert "not compiled (1 sources the build does not compile): dev/x.cu" in text
    assert "errors (1 distinct, 1 in all" in text
    guess = BuildConfig("/p", (), "guess", guessed=True, notes=("no build read (x): units and flags are guessed from the files",))
    assert "build: GUESSED: 0 units" in render_text(VerifyResult("/p", "rocm-7.2", build=guess))


def test_many_makefiles_are_one_line():
    from vado.verify.run import render_build

    cfg = BuildConfig("/p", (), "make", ran=tuple(f"make -n -B -k in prog{i}-cuda" for i in range(175)))
    assert render_build(cfg)[0] == ("build: ran `make -n -B -k` in 175 directories (prog0-cuda, prog1-cuda, prog2-cuda, "
                                    "prog3-cuda, prog4-cuda, … 170 more): executes the project's Makefile logic")
