"""A torch extension's configuration derived from its ``setup.py``, on ROCm and on CUDA, without running it.

:func:`derive` evaluates the project's ``setup.py`` twice with :mod:`vado.build.setup_eval` (``ast`` only;
nothing of the project is imported or run): once as a ROCm build of PyTorch sees it (``torch.version.hip``
set, ``IS_HIP_EXTENSION`` true, ``CUDA_HOME`` None, ``ROCM_HOME`` set) and once as a CUDA build does. Each
``CUDAExtension``/``CppExtension``/``Extension`` that reaches ``setup(ext_modules=…)`` gives a
:class:`DerivedExtension`: its name, sources (literal lists, ``os.path.join``, ``glob.glob``/``Path.glob``
evaluated against the tree, comprehensions over those, ``+``), ``include_dirs``, ``define_macros``,
``undef_macros`` and ``extra_compile_args`` (``cxx``/``nvcc``). What could not be decided is listed as
:class:`~vado.build.setup_eval.Undecidable` items naming ``file:line``, never filled in by a guess; what
was assumed of the build machine (Linux, x86_64, a GPU visible, the environment variables setup.py reads
unset, the torch version) is listed in ``assumptions``.

:func:`torch_config` turns a derivation into the extension description ``vado verify --run torch:`` and
``benchmarks/torch_ext`` read (one entry of ``benchmarks/torch_ext/packages.json``'s schema), with the
``derived`` block beside it. A ``pyproject.toml``/``setup.cfg`` without a ``setup.py`` cannot declare a
``CUDAExtension`` (setuptools' ``ext-modules`` table makes plain ``Extension``\\ s): such a project is a
typed skip, as is a file too large, too deep or not Python.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field


from vado.build.setup_eval import EvalLimit, Evaluator, ExtCall, PathV, Platform, Undecidable, Unknown, inside

#: setup.py files larger than this are not read.
MAX_SETUP_BYTES = 2 * 1024 * 1024
PLATFORMS = ("rocm", "cuda")


@dataclass(frozen=True)
class DerivedExtension:
    """One extension as setup.py makes it on one platform (paths relative to the project when inside it)."""

    platform: str
    kind: str  # CUDAExtension | CppExtension | Extension
    name: str
    line: int
    sources: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    define_macros: tuple[tuple[str, str | None], ...] = ()
    undef_macros: tuple[str, ...] = ()
    cxx: tuple[str, ...] = ()
    nvcc: tuple[str, ...] = ()

    @property
    def short_name(self) -> str:
        """The last component of the dotted name (``TORCH_EXTENSION_NAME``)."""
        return self.name.rsplit(".", 1)[-1]

    def as_dict(self) -> dict:
        """JSON form."""
        return {"platform": self.platform, "kind": self.kind, "name": self.name, "line": self.line,
                "sources": list(self.sources), "include_dirs": list(self.include_dirs),
                "define_macros": [list(m) for m in self.define_macros], "undef_macros": list(self.undef_macros),
                "cxx": list(self.cxx), "nvcc": list(self.nvcc)}


@dataclass(frozen=True)
class SetupDerivation:
    """What :func:`derive` found: the extensions per platform, what it could not decide, what it assumed.

    ``skipped`` is the reason nothing was derived ('' when something was); ``undecidable`` items name
    ``file:line`` and the platforms they hold on.
    """

    root: str
    setup: str = "setup.py"
    extensions: dict[str, tuple[DerivedExtension, ...]] = field(default_factory=dict)
    undecidable: tuple[Undecidable, ...] = ()
    assumptions: tuple[str, ...] = ()
    skipped: str = ""

    def cuda_extensions(self, platform: str) -> tuple[DerivedExtension, ...]:
        """The ``CUDAExtension``\\ s of ``platform``."""
        return tuple(e for e in self.extensions.get(platform, ()) if e.kind == "CUDAExtension")

    def as_dict(self) -> dict:
        """JSON form."""
        return {"root": self.root, "setup": self.setup, "skipped": self.skipped,
                "extensions": {p: [e.as_dict() for e in xs] for p, xs in self.extensions.items()},
                "undecidable": [u.as_dict() for u in self.undecidable], "assumptions": list(self.assumptions)}


def derive(project: str | os.PathLike, *, env: dict | None = None, torch_version: str = "2.13.0",
           gpu_visible: bool = True) -> SetupDerivation:
    """Derive the extensions of ``project``'s ``setup.py`` on ROCm and on CUDA (see the module docstring); where
    setup.py makes no CUDAExtension (or there is none), those the package builds at run time with
    ``torch.utils.cpp_extension.load()`` (:mod:`vado.build.torch_jit`; ``setup`` then names that file).

    ``env`` holds the environment variables to assume set (the others are taken as unset: their
    defaults); ``torch_version`` is ``torch.__version__``; ``gpu_visible`` is ``torch.cuda.is_available()``.
    """
    d = _derive_setup(project, env=env, torch_version=torch_version, gpu_visible=gpu_visible)
    if d.cuda_extensions("rocm") or d.cuda_extensions("cuda") or not os.path.isdir(d.root) or \
            d.skipped and os.path.lexists(os.path.join(d.root, "setup.py")):
        return d  # a setup.py that is there but not read (bad input) is said so, not passed over
    return _derive_jit(d.root, env, torch_version, gpu_visible) or d


def _platform_assumptions(torch_version: str, gpu_visible: bool) -> list[str]:
    return ["Linux (sys.platform 'linux', os.name 'posix'), x86_64",
            f"torch.__version__ {torch_version!r}",
            f"torch.cuda.is_available() {gpu_visible}",
            "ROCm: torch.version.hip set, IS_HIP_EXTENSION True, CUDA_HOME None, ROCM_HOME set; "
            "CUDA: torch.version.cuda set, CUDA_HOME set, ROCM_HOME None"]


def _derive_jit(root: str, env: dict | None, torch_version: str, gpu_visible: bool) -> SetupDerivation | None:
    """The extensions ``load()`` builds at run time (None where no Python file of the project reaches one)."""
    from types import SimpleNamespace

    from vado.build.torch_jit import derive_loads

    platforms = {name: Platform(name, torch_version, dict(env or {}), gpu_visible) for name in PLATFORMS}
    got = derive_loads(root, platforms)
    if got is None:
        return None
    rel, calls, undecidable = got
    found: dict[str, tuple[DerivedExtension, ...]] = {}
    for name, plat in platforms.items():
        view = SimpleNamespace(platform=plat, root=root)

        def note(line: int, kind: str, what: str, _p=name) -> None:
            undecidable.append(Undecidable(rel, line, kind, what, (_p,)))

        found[name] = tuple(e for e in (_extension(view, c, note) for c in calls[name]) if e is not None)
    assumptions = _platform_assumptions(torch_version, gpu_visible) + [
        f"built at run time by torch.utils.cpp_extension.load() in {rel} (each load() the reader reaches on any path; "
        "setup.py builds no CUDAExtension)"]
    return SetupDerivation(root, rel, found, _merge_platforms(undecidable), tuple(assumptions))


def _derive_setup(project: str | os.PathLike, *, env: dict | None, torch_version: str,
                  gpu_visible: bool) -> SetupDerivation:
    """:func:`derive` from setup.py alone."""
    root = os.path.realpath(os.fspath(project))
    if not os.path.isdir(root):
        return SetupDerivation(root, skipped=f"{project} is not a directory")
    setup = os.path.join(root, "setup.py")
    if not os.path.lexists(setup):
        others = [n for n in ("pyproject.toml", "setup.cfg") if os.path.isfile(os.path.join(root, n))]
        why = (f"no setup.py (only {', '.join(others)}): a CUDAExtension is made by setup.py code; "
               "pyproject.toml/setup.cfg declare none" if others else "no setup.py")
        return SetupDerivation(root, skipped=why)
    if os.path.islink(setup) and not inside(root, os.path.realpath(setup)):
        return SetupDerivation(root, skipped="setup.py is a link out of the project: not read")
    if not os.path.isfile(setup):
        return SetupDerivation(root, skipped="setup.py is not a regular file")
    try:
        size = os.path.getsize(setup)
        if size > MAX_SETUP_BYTES:
            return SetupDerivation(root, skipped=f"setup.py is {size} bytes (more than {MAX_SETUP_BYTES}): not read")
        with open(setup, "rb") as fh:
            data = fh.read(MAX_SETUP_BYTES + 1)
    except OSError as exc:
        return SetupDerivation(root, skipped=f"setup.py cannot be read: {exc.strerror or exc}")
    try:
        import ast

        tree = ast.parse(data, filename="setup.py")
    except SyntaxError as exc:
        return SetupDerivation(root, skipped=f"setup.py does not parse: {exc.msg} (line {exc.lineno})")
    except (ValueError, UnicodeDecodeError) as exc:
        return SetupDerivation(root, skipped=f"setup.py is not Python source: {exc}")
    except (RecursionError, MemoryError):
        return SetupDerivation(root, skipped="setup.py is nested too deeply to parse")
    found: dict[str, tuple[DerivedExtension, ...]] = {}
    undecidable: list[Undecidable] = []
    env_read: dict[str, object] = {}
    argv_read = which_read = False
    for name in PLATFORMS:
        ev = Evaluator(tree, root, "setup.py", Platform(name, torch_version, dict(env or {}), gpu_visible))
        try:
            ev.run()
        except EvalLimit as exc:
            return SetupDerivation(root, skipped=f"setup.py is beyond what the reader evaluates ({exc}) on {name}")
        except (RecursionError, MemoryError):
            return SetupDerivation(root, skipped=f"setup.py is nested too deeply to evaluate on {name}")
        undecidable += ev.undecidable
        if ev.stopped is not None:
            undecidable.append(ev.stopped)
        env_read.update(ev.env_read)
        argv_read = argv_read or ev.argv is not None
        which_read = which_read or ev.which_read
        exts, notes = _built_extensions(ev)
        undecidable += notes
        found[name] = tuple(exts)
    assumptions = _platform_assumptions(torch_version, gpu_visible)
    if which_read:
        assumptions.append("shutil.which: hipcc found and nvcc not on ROCm, nvcc found and hipcc not on CUDA")
    if argv_read:
        assumptions.append(f"sys.argv {list(Platform('').argv)!r}: setup.py taken as run to build the extensions; "
                           "pip's wheel build runs it as ['setup.py', 'bdist_wheel', …], where a test of sys.argv "
                           "may decide otherwise")
    for k, v in sorted(env_read.items()):
        assumptions.append(f"environment {k}={v!r}" if env and k in env else
                           f"environment {k} unset (setup.py's default {v!r})")
    return SetupDerivation(root, "setup.py", found, _merge_platforms(undecidable), tuple(assumptions))


def _merge_platforms(items: list[Undecidable]) -> tuple[Undecidable, ...]:
    """One item per (line, kind, sentence), naming every platform it holds on."""
    out: dict[tuple, list[str]] = {}
    first: dict[tuple, Undecidable] = {}
    for u in items:
        key = (u.file, u.line, u.kind, u.what)
        first.setdefault(key, u)
        out.setdefault(key, [])
        out[key] += [p for p in u.platforms if p not in out[key]]
    return tuple(sorted((Undecidable(k[0], k[1], k[2], k[3], tuple(sorted(ps))) for k, ps in out.items()),
                        key=lambda u: (u.line, u.what)))


def _built_extensions(ev: Evaluator) -> tuple[list[DerivedExtension], list[Undecidable]]:
    notes: list[Undecidable] = []
    plat = ev.platform.name

    def note(line: int, kind: str, what: str) -> None:
        notes.append(Undecidable(ev.file, line, kind, what, (plat,)))

    chosen: list = []
    if ev.setup_calls:
        line, kwargs = ev.setup_calls[-1]
        mods = kwargs.get("ext_modules", [])
        if isinstance(mods, (list, tuple)):
            chosen = list(mods)
        else:
            note(line, "value", f"setup(ext_modules=…) is not known here ({_why(mods)}); every extension "
                                "setup.py makes is listed")
            chosen = list(ev.extensions)
    else:
        chosen = list(ev.extensions)
        if chosen:
            note(0, "call", "setup() is not called where the reader sees it; every extension setup.py makes is listed")
    out: list[DerivedExtension] = []
    for ext in chosen:
        if isinstance(ext, Unknown):
            note(ext.line, "value", f"an item of ext_modules is not known here ({_why(ext)})")
            continue
        if not isinstance(ext, ExtCall):
            continue
        d = _extension(ev, ext, note)
        if d is not None:
            out.append(d)
    return out, notes


def _why(v) -> str:
    if isinstance(v, Unknown):
        return f"{v.why}, line {v.line}" if v.line else v.why
    return type(v).__name__


def _extension(ev: Evaluator, ext: ExtCall, note) -> DerivedExtension | None:
    args, kw = list(ext.args), dict(ext.kwargs)
    name = args[0] if args else kw.get("name")
    sources = args[1] if len(args) > 1 else kw.get("sources", [])
    if not isinstance(name, str):
        note(ext.line, "value", f"{ext.kind}(…)'s name is not known here ({_why(name)}): the extension is left out")
        return None
    label = f"{ext.kind} {name!r}"

    def strings(field_name: str, value, paths: bool) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, (str, PathV)):
            value = [value]
        if not isinstance(value, (list, tuple)):
            note(ext.line, "value", f"{label}: {field_name} is not known here ({_why(value)}): left empty")
            return ()
        out = []
        for v in value:
            if isinstance(v, PathV):
                v = v.path
            if not isinstance(v, str):
                note(ext.line, "value", f"{label}: an item of {field_name} is not known here ({_why(v)}): left out")
                continue
            out.append(_rel(ev.root, v) if paths else v)
        return tuple(out)

    macros = []
    dm = kw.get("define_macros", [])
    for m in dm if isinstance(dm, (list, tuple)) else []:
        if isinstance(m, (list, tuple)) and len(m) == 2 and isinstance(m[0], str) and \
                (m[1] is None or isinstance(m[1], (str, int))):
            macros.append((m[0], None if m[1] is None else str(m[1])))
        else:
            note(ext.line, "value", f"{label}: an item of define_macros is not known here ({_why(m)}): left out")
    if not isinstance(dm, (list, tuple)):
        note(ext.line, "value", f"{label}: define_macros is not known here ({_why(dm)}): left empty")
    extra = kw.get("extra_compile_args", [])
    if isinstance(extra, dict):
        cxx = strings("extra_compile_args['cxx']", extra.get("cxx", []), False)
        nvcc = strings("extra_compile_args['nvcc']", extra.get("nvcc", []), False)
    else:
        cxx = nvcc = strings("extra_compile_args", extra, False)
    return DerivedExtension(ev.platform.name, ext.kind, name, ext.line,
                            strings("sources", sources, True), strings("include_dirs", kw.get("include_dirs"), True),
                            tuple(macros), strings("undef_macros", kw.get("undef_macros"), False), cxx, nvcc)


def _rel(root: str, path: str) -> str:
    """A path of the project relative to its root (absolute when outside it)."""
    full = posixpath.normpath(path if path.startswith("/") else posixpath.join(root, path))
    return posixpath.relpath(full, root) if inside(root, full) else full


# -- the extension description of vado verify --run torch: and benchmarks/torch_ext ---------------

_PYBIND = re.compile(rb"\bPYBIND11_MODULE\s*\(")
_OPS = re.compile(rb"""\bTORCH_LIBRARY(?:_FRAGMENT)?\s*\(\s*(\w+)|RegisterOperators\s*\(\s*\)\s*\.op\s*\(\s*"(\w+)::""")


#: ``#define GLUE_LIBRARY(...) TORCH_LIBRARY(__VA_ARGS__, m)``: a macro that registers the ops of its argument.
_OPS_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]*\([^)]*\)[ \t]*TORCH_LIBRARY(?:_FRAGMENT)?[ \t]*\(", re.M)


def _ops_namespace(data: bytes, extension: str) -> str | None:
    """The namespace ``data`` registers ops in: ``TORCH_LIBRARY(ns, m)`` outside a macro definition, or the argument
    of a macro that expands to one (torchcompactradius 0.5.5: ``GLUE_LIBRARY(TORCH_EXTENSION_NAME)`` with
    ``#define GLUE_LIBRARY(...) TORCH_LIBRARY(__VA_ARGS__, m)``); ``TORCH_EXTENSION_NAME`` is the extension's
    name, which cpp_extension defines."""
    names = []
    for m in _OPS.finditer(data):
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if re.match(rb"[ \t]*#[ \t]*define\b", data[line_start:m.start()]):
            continue  # the body of a macro: its parameter, not a namespace
        names.append((m.group(1) or m.group(2)).decode("latin-1"))
    for m in _OPS_MACRO.finditer(data):
        use = re.compile(rb"(?<![\w#])" + re.escape(m.group(1)) + rb"\s*\(\s*(\w+)\s*\)")
        names += [u.group(1).decode("latin-1") for u in use.finditer(data, m.end())]
    names = [extension if n == "TORCH_EXTENSION_NAME" else n for n in names if n != "__VA_ARGS__"]
    return names[0] if names and names[0] else None


def module_kind(root: str, sources, extension: str = "") -> tuple[str, str | None]:
    """``("pybind", None)`` where a source defines ``PYBIND11_MODULE``, ``("ops", namespace)`` where one
    registers ``TORCH_LIBRARY(ns, …)``/``RegisterOperators().op("ns::…")`` ops (``extension``: the name
    ``TORCH_EXTENSION_NAME`` stands for), else ``("", None)``."""
    ns = None
    for s in sources:
        path = os.path.join(root, s)
        if not inside(os.path.realpath(root), os.path.realpath(path)):
            continue  # a source outside the project is not read
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > 8 * 1024 * 1024:
                continue
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if _PYBIND.search(data):
            return "pybind", None
        if ns is None:
            ns = _ops_namespace(data, extension)
    return ("ops", ns) if ns else ("", None)


def _defines(macros) -> list[str]:
    return [n if v is None else f"{n}={v}" for n, v in macros]


def arch_free(flags) -> list[str]:
    """``flags`` without the GPU architecture choice (``--offload-arch=…``, ``-gencode …``, ``-arch …``,
    ``--gpu-architecture …``, ``--cuda-gpu-arch=…``): the harness that compiles picks the architecture."""
    out: list[str] = []
    skip = False
    for f in flags:
        if skip:
            skip = False
            continue
        if f in ("-gencode", "-arch", "--gpu-architecture", "--generate-code", "--offload-arch"):
            skip = True
            continue
        if f.startswith(("--offload-arch=", "-gencode=", "-arch=", "--gpu-architecture=", "--generate-code=",
                         "--cuda-gpu-arch=", "-march=sm_", "--amdgpu-target=")):
            continue
        out.append(f)
    return out


def _split_includes(root: str, flags) -> tuple[list[str], list[str]]:
    """(flags without ``-I`` of project directories, those directories relative to the root)."""
    rest, dirs = [], []
    for f in flags:
        if f.startswith("-I") and len(f) > 2:
            full = posixpath.normpath(f[2:] if f[2:].startswith("/") else posixpath.join(root, f[2:]))
            if inside(root, full):
                dirs.append(_rel(root, full))
                continue
        rest.append(f)
    return rest, dirs


def torch_config(d: SetupDerivation) -> dict:
    """The extension description of the project's ``CUDAExtension``\\ s (see :mod:`vado.verify.torch_ext_device`),
    with ``rocm``/``cuda`` blocks and a ``derived`` block (undecidable items, assumptions).

    Package level: ``include_dirs`` and ``defines`` every CUDAExtension shares on both platforms. Each
    platform block: its extra ``defines``, ``undefines`` (``undef_macros``), ``cxx`` and ``nvcc`` (host and
    device compiler flags, project ``-I`` flags moved to ``flag_include_dirs``, relative), ``include_dirs``
    where they differ from the package's; ROCm's also ``flags`` (``nvcc`` plus the ``-U`` undefines, the
    hand-written files' one list). An extension whose blocks differ from the others' carries its own.
    """
    root = d.root
    cuda, rocm = d.cuda_extensions("cuda"), d.cuda_extensions("rocm")
    names = list(dict.fromkeys([e.name for e in cuda] + [e.name for e in rocm]))
    by = {p: {e.name: e for e in xs} for p, xs in (("cuda", cuda), ("rocm", rocm))}
    notes = [u.as_dict() for u in d.undecidable]
    for n in names:
        for p in PLATFORMS:
            if n not in by[p]:
                other = "cuda" if p == "rocm" else "rocm"
                notes.append({"at": f"{d.setup}:{by[other][n].line}", "kind": "platform",
                              "what": f"CUDAExtension {n!r} is not built on {p}", "platforms": [p]})
    pairs = [(n, by["cuda"].get(n), by["rocm"].get(n)) for n in names]
    built = [e for _, c, r in pairs for e in (c, r) if e is not None]
    shared_defs = [x for x in (_defines(built[0].define_macros) if built else [])
                   if all(x in _defines(e.define_macros) for e in built)]
    # The include dirs every extension has on both platforms, else the CUDA build's (the blocks say the rest).
    shared_inc = list(built[0].include_dirs) if built else []

    def block(e: DerivedExtension) -> dict:
        cxx, inc_c = _split_includes(root, e.cxx)
        nvcc, inc_n = _split_includes(root, e.nvcc)
        b = {"defines": [x for x in _defines(e.define_macros) if x not in shared_defs],
             "undefines": list(e.undef_macros), "cxx": cxx, "nvcc": nvcc}
        if list(e.include_dirs) != shared_inc:
            b["include_dirs"] = list(e.include_dirs)
        fid = list(dict.fromkeys(inc_n + inc_c))
        if fid:
            b["flag_include_dirs"] = fid
        if e.platform == "rocm":
            b["flags"] = [*nvcc, *(f"-U{u}" for u in e.undef_macros)]
        return b

    exts = []
    blocks: dict[str, list] = {"cuda": [], "rocm": []}
    for n, c, r in pairs:
        base = c or r
        if c and r and set(c.sources) != set(r.sources):
            notes.append({"at": f"{d.setup}:{base.line}", "kind": "platform",
                          "what": f"{n!r}: the sources differ between ROCm and CUDA (CUDA's are listed; ROCm's: "
                                  f"{', '.join(r.sources)})", "platforms": ["cuda", "rocm"]})
        exts.append({"name": base.short_name, "full_name": n, "line": base.line, "sources": list(base.sources)})
        for p, e in (("cuda", c), ("rocm", r)):
            blocks[p].append(block(e) if e is not None else None)
    kind, ns = module_kind(root, [s for e in exts for s in e["sources"]], exts[0]["name"] if exts else "")
    if not kind:
        notes.append({"at": f"{d.setup}:0", "kind": "value", "what": "no source defines PYBIND11_MODULE or registers "
                      "TORCH_LIBRARY ops: kind taken as 'pybind'", "platforms": []})
        kind = "pybind"
    module = ns if kind == "ops" else (names[0] if names else "")
    out: dict = {"dir": os.path.basename(root), "module": module, "kind": kind, "include_dirs": shared_inc,
                 "defines": shared_defs}
    for p in PLATFORMS:
        present = [b for b in blocks[p] if b is not None]
        same = bool(present) and all(b == present[0] for b in present)
        out[p] = present[0] if same else {"defines": [], "undefines": [], "cxx": [], "nvcc": []}
        if not same:
            for e, b in zip(exts, blocks[p]):
                if b is not None:
                    e[p] = b
    out["extensions"] = exts
    out["derived"] = {"from": d.setup, "undecidable": notes, "assumptions": list(d.assumptions),
                      "not_cuda_extensions": sorted({f"{e.kind} {e.name}" for p in PLATFORMS
                                                     for e in d.extensions.get(p, ()) if e.kind != "CUDAExtension"})}
    return out


def extension_settings(pkg: dict, ext: dict, platform: str) -> dict:
    """One extension's settings on ``platform`` (``rocm``/``cuda``) from a description, derived or written by
    hand: its own block where it carries one, else the package's. Returns ``{include_dirs, defines, cxx,
    nvcc, flag_include_dirs}``: ``defines`` the package's and the platform's; ``cxx``/``nvcc`` the host and
    device compilers' flags with ``-U`` for each undefine (a hand-written ROCm block's single ``flags``
    list serves both)."""
    block = dict(ext.get(platform) or pkg.get(platform) or {})
    undef = [f"-U{u}" for u in block.get("undefines", [])]
    if "cxx" in block or "nvcc" in block:
        cxx, nvcc = [*block.get("cxx", []), *undef], [*block.get("nvcc", []), *undef]
    else:
        cxx = nvcc = [*block.get("flags", []), *undef]
    return {"include_dirs": list(block.get("include_dirs", ext.get("include_dirs", pkg.get("include_dirs", [])))),
            "defines": [*pkg.get("defines", []), *block.get("defines", [])], "cxx": list(cxx), "nvcc": list(nvcc),
            "flag_include_dirs": list(block.get("flag_include_dirs", []))}


def derive_config(project: str | os.PathLike, **kw) -> tuple[dict | None, SetupDerivation]:
    """:func:`derive` then :func:`torch_config`: ``(config, derivation)``; config None where nothing was derived
    or the project makes no CUDAExtension."""
    d = derive(project, **kw)
    if d.skipped or not (d.cuda_extensions("cuda") or d.cuda_extensions("rocm")):
        return None, d
    return torch_config(d), d


