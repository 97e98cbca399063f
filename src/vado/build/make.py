"""Reading a Make build through a dry run: ``make -n -B -k -w`` with the default goal.

A dry run prints the commands the build would run for the branch its Makefile takes on this machine
with the variables the user passes (``NVCC=hipcc``, ``USE_CUDNN=1``), so only that branch counts:
not the union of every ``ifeq``. It still executes the Makefile's own logic: ``$(shell …)`` while
reading it and ``+`` recipes (recursive ``$(MAKE)``), which is why it runs only when asked (the CLI's
``--build make``/``auto`` says so in its output) and only through :func:`vado.verify.sandbox.run_limited`
(time limit, output cap, descendants killed).

The printed commands are split into shell commands (``&&``, ``;``, ``||``, ``|``), ``cd DIR`` is
followed, ``make[N]: Entering directory`` lines keep the directory of recursive makes, and every
compiler command becomes units (:func:`vado.build.cmdline.parse_command`).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Mapping

from vado.build.cmdline import compiler_family, parse_command, split_command
from vado.build.model import BuildConfig, TranslationUnit
from vado.safefs import copy_ignore

MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")
_ENTER = re.compile(r"^\S*make(?:\[\d+\])?: Entering directory ['`\"](.*)['`\"]\s*$")
_LEAVE = re.compile(r"^\S*make(?:\[\d+\])?: Leaving directory ")
_SEPARATORS = {"&&", "||", ";", "|", "&", ";;", "(", ")"}
#: Directories never searched for further Makefiles.
_SKIP_DIRS = {".git", "node_modules", "build", "third_party", "thirdparty", "external", "vendor", "3rdparty"}


def has_makefile(directory: str | os.PathLike) -> bool:
    """Whether ``directory`` holds a Makefile make would read by default."""
    return any((Path(directory) / n).is_file() for n in MAKEFILE_NAMES)


def shell_commands(line: str) -> list[list[str]]:
    """The simple commands of one shell line, split at ``&&``, ``;``, ``||``, ``|`` (quotes respected)."""
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lex.whitespace_split = True
        words = list(lex)
    except ValueError:
        words = line.split()
    out: list[list[str]] = [[]]
    for w in words:
        if w in _SEPARATORS:
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def parse_dry_run(text: str, directory: str, *, origin: str = "") -> list[TranslationUnit]:
    """Units of the compiler commands a ``make -n -w`` output prints (run in ``directory``)."""
    dirs = [directory]
    units: list[TranslationUnit] = []
    logical: list[str] = []
    cont = ""
    for raw in text.splitlines():
        if raw.endswith("\\"):
            cont += raw[:-1] + " "
            continue
        logical.append(cont + raw)
        cont = ""
    if cont:
        logical.append(cont)
    for line in logical:
        m = _ENTER.match(line)
        if m:
            dirs.append(m.group(1))
            continue
        if _LEAVE.match(line):
            if len(dirs) > 1:
                dirs.pop()
            continue
        cwd = dirs[-1]
        for words in shell_commands(line):
            if words[0] == "cd" and len(words) >= 2:
                cwd = os.path.normpath(os.path.join(cwd, words[1]))
                continue
            words = split_command(words)
            if words and compiler_family(words[0]):
                units += parse_command(words, cwd, origin=origin or f"make -n in {directory}")
    return units


def walk_dirs(root: str | os.PathLike):
    """``os.walk(root)`` top-down, without recursion (Python 3.11's os.walk recurses per level: a tree 1,500
    directories deep raised RecursionError), without following links to directories; prune by editing the
    yielded ``subdirs`` list in place, as with os.walk."""
    stack = [os.fspath(root)]
    while stack:
        cur = stack.pop()
        try:
            with os.scandir(cur) as it:
                entries = list(it)
        except OSError:
            continue
        subdirs, files = [], []
        for e in entries:
            try:
                (subdirs if e.is_dir(follow_symlinks=False) else files).append(e.name)
            except OSError:
                continue
        yield cur, subdirs, files
        stack.extend(os.path.join(cur, d) for d in reversed(subdirs))


def makefile_dirs(root: str | os.PathLike, limit: int = 1000) -> list[Path]:
    """Directories under ``root`` holding a Makefile, the root first, shallow before deep."""
    root = Path(root)
    found: list[Path] = []
    for cur, subdirs, _files in walk_dirs(root):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS and not d.startswith("."))
        if has_makefile(cur):
            found.append(Path(cur))
        if len(found) >= limit:
            break
    return sorted(found, key=lambda p: (len(p.relative_to(root).parts), str(p)))


def dry_run(
    root: str | os.PathLike,
    *,
    variables: Mapping[str, str] | None = None,
    make: str = "make",
    tools: Mapping[str, str] | None = None,
    timeout_s: float = 120.0,
    max_makefiles: int = 1000,
    copy: bool = True,
) -> BuildConfig:
    """Dry-run the default goal of the root's Makefile, and of every other Makefile whose directory no
    earlier dry run entered or compiled in; the units their commands compile.

    ``variables`` are passed on make's command line (``NAME=VALUE``). ``tools`` maps a command name
    to an executable (``{"hipcc": "/path/hipcc"}``): a private directory of links to them goes first
    on ``PATH``, so a Makefile's ``$(shell which hipcc)`` finds the target's compiler.

    With ``copy`` (the default) make runs in a scratch copy of the tree (symlinks copied as links,
    ``.git`` left out) and the paths it prints are mapped back: what ``$(shell mkdir -p build)`` or a
    ``+`` recipe writes lands in the copy, not in the user's tree. A tree larger than
    :data:`COPY_LIMIT` bytes is dry-run in place, and the notes say so.
    """
    root = Path(root).resolve()
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="vado-make-") as scratch:
        work = root
        if copy:
            size = _tree_size(root, COPY_LIMIT)
            if size is None:
                notes.append(f"the tree is larger than {COPY_LIMIT >> 20} MiB: make -n ran in it, not in a copy")
            else:
                work = Path(scratch) / "tree" / root.name
                try:
                    shutil.copytree(root, work, symlinks=True, ignore=copy_ignore)
                except shutil.Error as exc:
                    # Unreadable files: the copy holds the rest, and the dry run says what it lacked.
                    errs = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
                    notes.append(f"{len(errs)} files could not be copied for the dry run (unreadable)")
        cfg = _dry_run_in(work, Path(scratch), variables, make, tools, timeout_s, max_makefiles, notes)
    if work != root:
        cfg = remap_config(cfg, str(work), str(root))
    return cfg


#: Trees up to this size are copied for a dry run.
COPY_LIMIT = 512 * 1024 * 1024


def _tree_size(root: Path, limit: int) -> int | None:
    total = 0
    for cur, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for f in files:
            try:
                total += os.lstat(os.path.join(cur, f)).st_size
            except OSError:
                continue
            if total > limit:
                return None
    return total


def _swap(path: str, old: str, new: str) -> str:
    return new + path[len(old):] if path == old or path.startswith(old + os.sep) else path


def remap_config(cfg: BuildConfig, old: str, new: str) -> BuildConfig:
    """``cfg`` with every path under ``old`` moved under ``new`` (a copy's paths mapped back)."""
    from dataclasses import replace

    from vado.build.model import IncludePath

    units = tuple(
        replace(u, source=_swap(u.source, old, new), directory=_swap(u.directory, old, new),
                includes=tuple(IncludePath(_swap(i.path, old, new), i.kind) for i in u.includes),
                forced_includes=tuple(_swap(f, old, new) for f in u.forced_includes),
                options=tuple(_swap(o, old, new) for o in u.options),
                dropped=tuple(_swap(d, old, new) for d in u.dropped))
        for u in cfg.units
    )
    return replace(cfg, root=_swap(cfg.root, old, new), units=units,
                   notes=tuple(n.replace(old, new) for n in cfg.notes))


def _dry_run_in(root: Path, scratch: Path, variables, make, tools, timeout_s, max_makefiles,
                notes: list[str], jobs: int = 0) -> BuildConfig:
    from vado.verify.sandbox import Limits, compiler_confinement, run_limited, toolchain_dirs

    units: list[TranslationUnit] = []
    ran: list[str] = []
    covered: set[Path] = set()
    args = [f"{k}={v}" for k, v in (variables or {}).items()]
    shim = scratch / "tools"
    shim.mkdir()
    env = dict(os.environ)
    for name, exe in (tools or {}).items():
        os.symlink(exe, shim / name)
    if tools:
        env["PATH"] = str(shim) + os.pathsep + env.get("PATH", "")
    env["MAKEFLAGS"] = ""
    env["LC_ALL"] = "C"
    view = compiler_confinement(make, writable=(scratch,),
                                read_only=[d for exe in (tools or {}).values() for d in toolchain_dirs(exe)])
    cmd = [make, "-n", "-B", "-k", "-w", *args]
    limits = Limits(timeout_s=timeout_s, cpu_s=int(timeout_s) * 2, memory_mb=4096, file_mb=64)

    def dry(d: Path):
        # The Makefile's own logic runs ($(shell …), `+` recipes run even under -n): confined to the scratch
        # copy and the toolchains, with no network and no other host file (vado.verify.sandbox).
        return run_limited(cmd, cwd=d, env=env, confine=view, limits=limits)

    order = makefile_dirs(root, max_makefiles)
    listed = set(order)
    workers = max(1, min(jobs or (os.cpu_count() or 1), 16))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # The directories with no Makefile above them run at once (separate subtrees, as HeCBench's
        # programs are); the others when their turn comes, once the Makefiles above them have run.
        # Results are taken in the same order as one directory after another, and a directory that an
        # earlier result entered or compiled in is dropped: the same units and notes.
        early = {d: pool.submit(dry, d) for d in order if not any(a in listed for a in d.parents)}
        for d in order:
            if d in covered:
                continue
            out = early[d].result() if d in early else dry(d)
            rel = os.path.relpath(d, root)
            ran.append(f"make -n -B -k{(' ' + ' '.join(args)) if args else ''} in {rel}")
            got = parse_dry_run(out.stdout, str(d), origin=f"make -n in {rel}")
            if not out.ok:
                tail = (out.stderr.strip().splitlines() or [out.why()])[-1][:300]
                notes.append(f"make -n in {rel}: {out.why()}: {tail}")
            units += got
            covered.add(d)
            for line in out.stdout.splitlines():
                m = _ENTER.match(line)
                if m:
                    covered.add(Path(m.group(1)))
            covered.update(Path(u.source).parent for u in got)
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for u in units:
        key = (u.source, u.directory, " ".join(u.flag_args()))
        if key not in seen:
            seen.add(key)
            unique.append(u)
    return BuildConfig(str(root), tuple(unique), "make", ran=tuple(ran), notes=tuple(notes))
