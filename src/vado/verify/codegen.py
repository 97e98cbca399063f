"""Which units verify compiles to machine code, and why: ``--codegen auto|all|none``.

A HIP compile is a front end (preprocessor, parser, semantic analysis, template instantiation, the
host/device checks of CUDA and HIP, which clang defers to the end of the unit and still runs with
``-fsyntax-only``) run once for the host and once per offload arch, then code generation: LLVM IR,
the optimiser at the build's ``-O``, the AMDGPU back end and assembler, and the device link of each
arch's code object. The front end is about half the time of the build's ``-O3`` compile for two
archs; the rest is code generation, which finds little that the front end has not, and only in
known places:

- inline assembly: the AMDGPU assembler reads an ``asm("...")`` string only in the back end; a wrong
  instruction or operand passes the front end;
- target builtins (``__builtin_amdgcn_*``, ``__builtin_ia32_*``) and x86 intrinsics headers or
  ``__attribute__((target(...)))``: whether the arch has the feature a builtin needs is checked in
  clang's code generation, not in the front end;
- ``-Werror`` in the build's flags: the back end's own warnings (a loop not unrolled, a stack frame
  too large) are errors then;
- ``#embed``: clang 22 takes a missing ``#embed`` file as empty on the side that writes the ``-MD``
  dependency file (the host); the full compile's device sides, run first, report it as not found.

``auto`` (the default) runs the front end for every unit (host and each arch) and the build's full
compile, unchanged, for a unit whose own files (the source and the headers of the project it reads:
the front end's dependency list, which is the host side's, and every project file their ``#include``
lines name, followed through, so that a header only a device side includes is read too; the
toolchain's headers are the toolchain's) show one of these, or whose flags hold ``-Werror``. ``all`` runs the build's full compile for every unit; ``none`` runs
the front end only. Each record says which it was (``detail["checked"]``): ``front end`` or
``code generation`` (the whole compile, front end included), and for ``auto`` why.

What ``front end`` leaves unchecked, said in the report: the device link of a unit's code object
(a ``__device__`` function declared but defined in no unit, without ``-fgpu-rdc``), the back end's
resource limits (LDS, registers, scratch) and the back end's warnings.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Iterable, Sequence

MODES = ("auto", "all", "none")

FRONT_END = "front end"
CODE_GENERATION = "code generation"

#: What the front end leaves to code generation: said wherever a record says ``front end``.
UNCHECKED = ("the device link (a __device__ function defined in no unit), the back end's resource limits "
             "(LDS, registers, scratch) and its warnings")

#: (reason, pattern over a project file's bytes viewed as latin-1). Comments are not told apart: a
#: false hit costs one full compile, a missed one a check.
_TEXT_TRIGGERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("inline assembly (read by the back end's assembler)",
     re.compile(r"\b(?:__asm__|__asm|asm)\b(?:\s+(?:volatile|__volatile__|goto|inline))*\s*\(")),
    ("target builtins (their target features are checked in code generation)",
     re.compile(r"\b__builtin_(?:amdgcn|r600|ia32|nvvm)_\w")),
    ("x86 intrinsics (their target features are checked in code generation)",
     re.compile(r"#\s*include\s*[<\"]\w*intrin\.h[>\"]")),
    ("a function target attribute (checked in code generation)",
     re.compile(r"\b__attribute__\s*\(\(\s*(?:__)?target(?:_clones)?(?:__)?\s*\(")),
    # clang 22 takes a missing #embed file as empty on the side that writes the -MD dependency file (the
    # host); the front-end run does the host first and stops at its first error, the full compile runs
    # the device sides first, and they report the file not found.
    ("#embed (clang's host side with -MD takes a missing file as empty)", re.compile(r"#\s*embed\b|__has_embed")),
)


def flag_reasons(flags: Sequence[str]) -> list[str]:
    """Why the flags alone ask for code generation: ``-Werror`` (the back end's warnings are errors)."""
    if any(f == "-Werror" or (f.startswith("-Werror=") and f != "-Werror=") for f in flags):
        return ["-Werror in the build's flags (the back end's warnings are errors)"]
    return []


class TextScan:
    """The code-generation reasons found in files, each file read once per scan (thread-safe)."""

    def __init__(self) -> None:
        self._memo: dict[tuple[str, int, int], tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def of_file(self, path: str) -> tuple[str, ...]:
        """The reasons in one file (empty when it cannot be read)."""
        try:
            st = os.stat(path)
        except OSError:
            return ()
        key = (path, st.st_size, st.st_mtime_ns)
        with self._lock:
            got = self._memo.get(key)
        if got is not None:
            return got
        try:
            with open(path, "rb") as f:
                text = f.read().decode("latin-1")
        except OSError:
            text = ""
        found = tuple(why for why, rx in _TEXT_TRIGGERS if rx.search(text))
        with self._lock:
            self._memo[key] = found
        return found

    def reasons(self, files: Iterable[str]) -> list[str]:
        """The reasons found in ``files``, each once, with the first file that shows it."""
        out: dict[str, str] = {}
        for f in files:
            for why in self.of_file(f):
                out.setdefault(why, f)
        return [f"{why}: {os.path.basename(f)}" for why, f in out.items()]


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


def project_files(deps: Sequence[str], source: str, dirs: Sequence[str],
                  search: Sequence[str] = ()) -> list[str]:
    """The files of the project a unit may read: the source and its dependencies under ``dirs`` (the
    tree, the unit's directory, its include directories; the toolchain's headers are not), and what
    their ``#include`` lines name under ``dirs``, found beside the including file or in ``search``,
    followed through: clang's ``-MD`` lists the host side's headers only, and a header included under
    ``#if __HIP_DEVICE_COMPILE__`` (or an arch) is read by a device side alone."""
    roots = [os.path.join(os.path.normpath(d), "") for d in dirs if d]

    def inside(p: str) -> bool:
        return any(p.startswith(r) for r in roots)

    out = [source]
    for d in deps:
        p = os.path.normpath(d)
        if p != source and inside(p):
            out.append(p)
    seen = set(out)
    todo = list(out)
    while todo and len(seen) < 2000:
        f = todo.pop()
        try:
            with open(f, "rb") as fh:
                text = fh.read(1 << 22).decode("latin-1")
        except OSError:
            continue
        for m in _INCLUDE.finditer(text):
            name = m.group(1) or m.group(2)
            where = ([os.path.dirname(f)] if m.group(1) else []) + list(search)
            for d in where:
                p = os.path.normpath(os.path.join(d, name))
                if p not in seen and inside(p) and os.path.isfile(p):
                    seen.add(p)
                    out.append(p)
                    todo.append(p)
                    break
    return out
