"""Running the ROCm chroot's clang++ in place of its hipcc, where that is the same compile.

hipcc is a thin driver: it reads its arguments, adds a few of its own (the ``--offload-arch`` options
moved first, ``-O3`` where none is given, ``--driver-mode=g++ --hip-link`` unless it only compiles)
and runs clang++ through ``sh -c``. Each of verify's compiler runs paid that hop (about 40 ms of CPU
a run, beside the compile). For vado's ROCm 7.2.4 chroot wrapper (``scripts/rocm-toolchain.sh``),
whose ``clang++`` link runs the chroot's clang++ with the same view, :func:`direct_command` writes
the clang++ command hipcc would run, and verify runs that.

It is the same compile, not a guess:

- only for the recognised wrapper (:func:`vado.verify.toolchains.chroot_of`) with its ``clang++`` link
  beside it, and only where the environment does not change hipcc (``HIPCC_VERBOSE``; the wrapper
  passes nothing else of it in);
- only for commands whose every word is one of the options verify writes and hipcc passes through
  (no ``-M``, ``-E``, ``-fgpu-rdc``, ``--genco``, ``-stdlib=``, ``--hipcc-*`` …, one ``-x`` before
  every input), spelled in characters hipcc's shell line leaves alone;
- only once the toolchain has shown it (:func:`toolchain_check`, once per toolchain, cached with the
  arch probes): for a set of probe commands like verify's, the jobs clang prints for ``-###`` through
  hipcc and through the direct command are the same, word for word. A toolchain that differs keeps
  hipcc for every run.

Any other hipcc (a ROCm install, Debian's HIP 5.2, a test's fake) always runs as itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Sequence

#: Words hipcc's shell line passes through unchanged (its own quoting leaves these characters alone).
_PLAIN = re.compile(r"[-a-zA-Z0-9_=+,./]+\Z")
#: Options hipcc treats itself (changes, swallows or answers): a command with one of them runs through hipcc.
_HIPCC_OWN = re.compile(r"^(?:-E|-M|-h|--help|--version|--short-version|--cxxflags|--ldflags|-stdlib=libc\+\+|"
                        r"-use-staticlib|-use-sharedlib|-fgpu-rdc|-fno-gpu-rdc|-xc|-xc\+\+|-xhip|--rocm-path=.*|"
                        r"--hip-path=.*|--amdgpu-target=.*|--hipcc.*|.*--genco.*|.*--amdhsa-code-object-version=.*|"
                        r".*-fopenmp-targets=.*)\Z")
_LANGUAGES = {"hip", "c", "c++"}
#: The environment variable that turns the direct runs off (``0``), for a comparison.
SWITCH = "VADO_HIPCC_DIRECT"


def translate(args: Sequence[str]) -> list[str] | None:
    """The clang++ arguments hipcc (ROCm 7.2's hipBin) runs for ``args`` (its own arguments, without
    the program), or None where the command is not one this model covers."""
    if any(not _PLAIN.match(a) for a in args):
        return None
    arches: list[str] = []
    rest: list[str] = []
    language = ""
    opt = compile_only = False
    inputs = 0
    skip_output = False
    prev = ""
    for a in args:
        if skip_output:  # hipcc copies the word after -o as it is
            rest.append(a)
            skip_output = False
            prev = a
            continue
        if a == "-o":
            skip_output = True
        if _HIPCC_OWN.match(a):
            return None
        if a == "-c":
            compile_only = True
        if a.startswith("-O"):
            opt = True
        if a.startswith("--offload-arch="):
            arches.append(a)
            prev = a
            continue
        if a == "-x":
            if language:
                return None  # one -x only
        elif prev == "-x":
            if a not in _LANGUAGES:
                return None
            language = a
        elif not a.startswith("-"):
            if not language:
                return None  # hipcc would guess the language from the name
            inputs += 1
        rest.append(a)
        prev = a
    if not language or not inputs or skip_output:
        return None
    out: list[str] = []
    if language == "hip":
        out += arches
    elif arches:
        return None
    if not opt:
        out.append("-O3")
    if not compile_only:
        out += ["--driver-mode=g++", *([] if opt else ["-O3"]), "--hip-link"]
    return out + rest


def _clang_link(hipcc: str) -> str:
    """The wrapper's ``clang++`` beside ``hipcc`` when it is the same wrapper (a link to it), else ""."""
    cand = os.path.join(os.path.dirname(hipcc), "clang++")
    try:
        return cand if os.path.realpath(cand) == os.path.realpath(hipcc) else ""
    except OSError:
        return ""


def _identity(hipcc: str, chroot: str) -> str:
    parts = [os.path.realpath(hipcc)]
    for p in (hipcc, os.path.join(chroot, "usr/bin/hipcc")):
        try:
            st = os.stat(p)
            parts.append(f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}")
        except OSError:
            parts.append("?")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def _probes(d: str) -> list[list[str]]:
    """Commands shaped like verify's (front end, full compile, C and C++ units, a precompiled prefix)."""
    src, c, h, dep = f"{d}/p.cu", f"{d}/p.c", f"{d}/p.h", f"{d}/p.d"
    two = ["--offload-arch=gfx942", "--offload-arch=gfx950"]
    return [
        [*two, "-x", "hip", "-std=c++17", "-Wall", "-O3", "-DX=1", f"-I{d}", "-MD", "-MF", dep, "-fsyntax-only", src],
        ["--offload-arch=gfx942", "-x", "hip", "-fsyntax-only", src],
        ["--offload-arch=gfx942", "-x", "hip", "-O2", "-c", src, "-o", f"{d}/p.o"],
        ["--offload-arch=gfx950", "-x", "hip", "-MD", "-MF", dep, "-c", src, "-o", f"{d}/p.o"],
        ["-x", "c", "-O2", "-fsyntax-only", c],
        ["-x", "c++", "-std=c++17", "-c", src, "-o", f"{d}/p.o"],
        [*two, "--offload-host-only", "-x", "hip", "-O3", "-MD", "-MF", dep, "-fsyntax-only", "-Xclang", "-emit-pch",
         "-Xclang", "-o", "-Xclang", f"{d}/p.pch", h],
        ["--offload-arch=gfx942", "-x", "hip", "-O3", "-include", h, "-fsyntax-only", src],
    ]


_CHECKED: dict[str, tuple[bool, str]] = {}
_LOCK = threading.Lock()


def toolchain_check(hipcc: str, chroot: str, *, use_cache: bool = True) -> tuple[bool, str]:
    """Whether this wrapper's clang++ runs what its hipcc runs, for commands like verify's (the jobs of
    ``-###`` compared word for word), and why not; asked once per toolchain (kept on disk with the
    arch probes)."""
    from vado.verify.sandbox import PROBE_LIMITS, run_limited
    from vado.verify.toolchains import _cache_dir, hip_env

    clang = _clang_link(hipcc)
    if not chroot or not clang:
        return False, "not vado's ROCm chroot wrapper with its clang++ link"
    key = _identity(hipcc, chroot)
    with _LOCK:
        if key in _CHECKED:
            return _CHECKED[key]
        cache_file = _cache_dir() / "hipcc-direct.json"
        stored: dict = {}
        if use_cache:
            try:
                stored = json.loads(cache_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stored = {}
        entry = stored.get(key) if isinstance(stored, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("ok"), bool):
            _CHECKED[key] = (entry["ok"], str(entry.get("why", "")))
            return _CHECKED[key]
        why = ""
        with tempfile.TemporaryDirectory(prefix="vado-hipcc-direct-") as d:
            for name, text in (("p.cu", "int x;\n"), ("p.c", "int x;\n"), ("p.h", "int y;\n")):
                Path(d, name).write_text(text, encoding="utf-8")
            env = {k: v for k, v in hip_env().items() if k != "HIPCC_VERBOSE"}
            for args in _probes(d):
                direct = translate(args)
                if direct is None:
                    why = f"the model does not cover {' '.join(args)}"
                    break
                via = run_limited([hipcc, *args, "-###"], cwd=d, env=env, limits=PROBE_LIMITS)
                own = run_limited([clang, *direct, "-###"], cwd=d, env=env, limits=PROBE_LIMITS)
                if not via.ok or not own.ok or _jobs(via.stderr) != _jobs(own.stderr) or not _jobs(own.stderr):
                    why = f"hipcc and clang++ differ for {' '.join(args)}"
                    break
        _CHECKED[key] = (not why, why)
        if use_cache:
            stored = stored if isinstance(stored, dict) else {}
            stored[key] = {"ok": not why, "why": why}
            try:
                cache_file.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(stored, indent=1, sort_keys=True), encoding="utf-8")
                os.replace(tmp, cache_file)
            except OSError:
                pass
        return _CHECKED[key]


#: clang's temporary files (``/tmp/p-gfx942-5c8f82.o``): a random name each run.
_TEMP = re.compile(r'(/tmp/[^"/=]*-)[0-9a-f]{6}(\.[A-Za-z0-9]+")')


def _jobs(stderr: str) -> list[str]:
    """The job lines of clang's ``-###`` output (the commands it would run), temporary names blanked."""
    return [_TEMP.sub(r"\1XXXXXX\2", line.strip()) for line in stderr.splitlines() if line.startswith(' "')]


def direct_command(hipcc: str, chroot: str, command: Sequence[str], *, env: dict | None = None) -> list[str] | None:
    """The clang++ command that is ``command`` (a hipcc command of this wrapper) without hipcc, or None
    where hipcc must run itself (see the module docstring)."""
    environ = os.environ if env is None else env
    if environ.get(SWITCH, "1") == "0" or environ.get("HIPCC_VERBOSE") or not command or command[0] != hipcc:
        return None
    args = translate(command[1:])
    if args is None:
        return None
    ok, _ = toolchain_check(hipcc, chroot)
    return [_clang_link(hipcc), *args] if ok else None
