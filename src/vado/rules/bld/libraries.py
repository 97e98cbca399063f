"""BLD004: CUDA libraries on link lines (``-lcublas``, ``CUDA::cublas``, ``cudnn`` …) and what the library
table says each becomes per target."""

from __future__ import annotations

from typing import Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity, Target, Verdict
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import (
    AS_IS,
    AUTO,
    BLOCKED,
    MANUAL,
    build_facts,
    builds_just_in_time,
    fact_fix,
    per_family,
    torch_extension,
)
from vado.rules.bld.setup_flags import TORCH_IMPORTED, hip_test, setup_shape, torch_import_edit
from vado.scan.buildfiles import BuildFact, FactKind
from vado.scan.classify import FileKind


class CudaLibraryLink(Rule):
    """A build file links a CUDA library (-lcublas, CUDA::cublas, cudnn …).

    What it does
    ------------
    Finds CUDA libraries in link lines: ``-lcudart -lcublas`` in Makefiles,
    ``CUDA::cublas`` imported targets, bare ``cublas``/``cudnn`` in
    ``target_link_libraries``, FindCUDA's ``${CUDA_CUBLAS_LIBRARIES}``,
    ``find_package(CUDNN|NCCL)`` and ``libraries=[...]`` of a torch extension.

    Why is this bad?
    ----------------
    NVIDIA's libraries do not exist on AMD GPUs. Each has a ROCm counterpart
    with its own link name (``hipblas``/``roc::hipblas``, ``amdhip64``/``hip::host``,
    ``hipfft``, ``rccl``, ``MIOpen`` …) whose API is a drop-in, near drop-in or
    a rework (cuDNN → MIOpen is a rework). SCALE forwards some CUDA libraries
    to ROCm ones and ZLUDA ships shims for some; what the knowledge base says
    about each decides the verdict.

    Example
    -------
    .. code-block:: cmake

        target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublas)

    Use instead
    -----------
    .. code-block:: cmake

        find_package(hipblas REQUIRED)
        target_link_libraries(app PRIVATE hip::host roc::hipblas)

    Fix safety
    ----------
    Unsafe. For libraries whose ROCm API is a drop-in or near drop-in the link
    name changes (the port adds the matching ``find_package``; the source's API
    names change by the LIB/API rules). A library whose ROCm counterpart is a
    rework (cuDNN, NVML, CUPTI, NPP, nvJPEG) or missing is dropped from
    Makefile and CMake link lines: no ROCm library has that name, so the link
    could only fail, and code that calls it is reported by the LIB rules.
    FindCUDA variables and setup.py lists (shared with CUDA builds) get no fix.

    References
    ----------
    - https://rocm.docs.amd.com/en/latest/reference/api-libraries.html
    - https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html
    - https://github.com/ROCm/HIPIFY
    """

    code = "BLD004"
    can_fix = True
    name = "cuda-library-link"
    severity = Severity.MEDIUM
    # A Python module that builds a torch extension just in time (load(..., extra_ldflags=["-lcublas"])) too.
    file_kinds = frozenset({FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY, FileKind.PYTHON})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        from vado.knowledge.libraries import library_for_link

        if ctx.kind is FileKind.PYTHON and not builds_just_in_time(ctx.text):
            return
        facts = build_facts(ctx)
        shape = setup_shape(ctx.text) if ctx.kind in (FileKind.SETUP_PY, FileKind.PYTHON) else None
        for f in facts.of(FactKind.CUDA_LIBRARY, FactKind.FIND_CUDA):
            if shape is not None and shape.guarded(f.start):
                continue  # in a branch only CUDA builds of PyTorch take (`[...] if torch.version.hip else [...]`)
            if f.kind is FactKind.FIND_CUDA:
                pkg = f.data.get("package", "")
                if pkg in ("CUDA", "CUDAToolkit"):
                    continue  # BLD001
                lib_name, form = pkg.lower(), "package"
            else:
                lib_name, form = f.data["library"], f.data.get("form", "name")
            lib = library_for_link(("CUDA::" + lib_name) if form == "CUDA::" else lib_name) or library_for_link(lib_name)
            if lib is None:
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text} links NVIDIA's {lib_name}; vado's library table has no entry for it",
                    per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=MANUAL, zluda=MANUAL),
                    effort=Effort(lines=1, constructs=1, hours=1.0),
                    data={"library": lib_name},
                )
                continue
            yield self._finding(ctx, f, lib, lib_name, form)

    def _finding(self, ctx: FileContext, f: BuildFact, lib, lib_name: str, form: str) -> Finding:
        rocm = lib.on("rocm")
        shape = rocm.api_shape if rocm else "none"
        replacement = _rocm_link(rocm, form, bool(ctx.options.get("roc"))) if rocm else ""
        verdicts: dict[str, Verdict] = {}
        for t in ctx.targets:
            verdicts[t.name] = _library_verdict(t, lib, bool(replacement))
        fix = None
        if replacement and shape in ("drop-in", "near-drop-in") and form in ("-l", "CUDA::", "name"):
            content = ("-l" + replacement) if form == "-l" else replacement
            torch_build = ctx.kind is FileKind.PYTHON or (ctx.kind is FileKind.SETUP_PY and torch_extension(ctx))
            fix = (_setup_link_fix(ctx, f, content) if torch_build else
                   fact_fix(ctx, f, content, Applicability.UNSAFE, f"link {content} instead of {f.text}"))
            if fix is None:  # a torch setup.py where no conditional link can be written: a person's edit
                verdicts = {k: (MANUAL if v is AUTO else v) for k, v in verdicts.items()}
        else:
            verdicts = {k: (MANUAL if v is AUTO else v) for k, v in verdicts.items()}
            if form in ("-l", "CUDA::", "name") and ctx.kind not in (FileKind.SETUP_PY, FileKind.PYTHON):
                # No ROCm library answers to this name: the link can only fail. Code that calls the
                # library fails to compile and is reported by the LIB rules; code that tests for it
                # (`#if __has_include(<nvml.h>)`) builds without it.
                fix = fact_fix(ctx, f, "", Applicability.UNSAFE,
                               f"drop {f.text} (no ROCm library of that name; port its calls by hand)")
        equivalent = _short((rocm.hip_wrapper or rocm.equivalent or replacement) if rocm else "")
        if rocm and replacement and shape in ("drop-in", "near-drop-in"):
            msg = f"{f.text} links {lib.name}; on ROCm link {replacement} ({equivalent}, API {shape})"
        elif rocm and replacement:
            msg = (f"{f.text} links {lib.name}; its ROCm counterpart ({replacement}: {equivalent}) "
                   f"is an API rework, not a rename")
        else:
            msg = f"{f.text} links {lib.name}, which has no ROCm counterpart in vado's table"
        return self.finding(
            ctx, f.start, f.end, msg, verdicts,
            effort=Effort(lines=1, constructs=1, hours=0.0 if fix and fix.edits[0].content else 2.0),
            fix=fix,
            data={"library": lib.id, "link": f.text, "replacement": replacement, "api_shape": shape},
        )


def _setup_link_fix(ctx: FileContext, f: BuildFact, content: str) -> Fix | None:
    """A torch extension's setup.py serves CUDA and ROCm builds: a CUDA library that is one quoted item of a list
    display (``libraries=["cublas"]``, ``extra_link_args=["-lcudart"]``) becomes
    ``*(["hipblas"] if torch.version.hip else ["cublas"])``; None where that cannot be written (no name to test
    bound there, not a whole list item), so the finding stays without a fix rather than break the CUDA build."""
    test, bind = hip_test(ctx.text, f.start), None
    if test is None and TORCH_IMPORTED.search(ctx.text):
        bind = torch_import_edit(ctx.text, f.start)  # `import torch` where it can be bound, as BLD005's flag fixes do
        test = "torch.version.hip" if bind is not None else None
    text, qs, qe = ctx.text, f.start - 1, f.end
    if test is None or qs < 0 or qe >= len(text) or text[qs] not in "\"'" or text[qe] != text[qs]:
        return None
    before, after = text[:qs].rstrip()[-1:], text[qe + 1:].lstrip()[:1]
    if before not in ("[", ",") or after not in ("]", ",", "#"):
        return None
    q = text[qs]
    new = f"*([{q}{content}{q}] if {test} else [{text[qs:qe + 1]}])"
    edits = (ctx.edit(qs, qe + 1, new),)
    if bind is not None:
        edits = (ctx.edit(bind[0], bind[0], bind[1]),) + edits
    return Fix(edits, Applicability.UNSAFE,
               f"link {content} instead of {f.text} on ROCm builds of PyTorch ({test}"
               f"{f', torch imported {bind[2]}' if bind else ''}), {f.text} on CUDA builds", ("build",))


def _short(text: str, limit: int = 90) -> str:
    """The first clause of a knowledge-base description, for one-line messages."""
    text = text.split(";")[0].strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _rocm_link(rocm, form: str, roc: bool) -> str:
    """The ROCm link name in the same form: ``-l``/bare name or a CMake ``ns::target``."""
    names = list(rocm.roc_links if roc and rocm.roc_links else ()) + list(rocm.links)
    want_target = form in ("CUDA::", "variable", "package")
    for n in names:
        if ("::" in n) == want_target:
            return n
    return names[0] if names else ""


def _library_verdict(t: Target, lib, has_replacement: bool) -> Verdict:
    """Verdict of linking ``lib`` on target ``t`` from the library table's vendor sections."""
    fact = lib.on(t.family)
    if t.family == "rocm":
        if fact is None or not has_replacement:
            return BLOCKED
        return {"drop-in": AUTO, "near-drop-in": AUTO, "rework": MANUAL}.get(fact.api_shape, BLOCKED)
    if t.family == "oneapi":
        if fact is None or fact.api_shape == "none" or not (fact.equivalent or "").strip() or fact.equivalent.startswith("none"):
            return BLOCKED
        return MANUAL
    # SCALE and ZLUDA keep the CUDA link line; whether the library works is their table's status.
    status = getattr(fact, "status", "") if fact else ""
    return {"supported": AS_IS, "partial": MANUAL, "failing": BLOCKED, "none": BLOCKED}.get(status, MANUAL)
