"""A torch extension's macro that expands to the head of a kernel launch, which PyTorch's hipify mangles.

``#define LAUNCH_1D(T,M,V) fused_update_1d_kernel<T,M,V><<<blocks,threads,smem>>>`` used as
``LAUNCH_1D(float,0,8)(param, grad, …)`` (adafactor8bit 0.4.6's kernels.cu): on a ROCm build
``torch.utils.cpp_extension`` hipifies each ``<<<…>>>`` into ``hipLaunchKernelGGL(`` up to the next ``(`` of the
text, which is not on the macro's line: it takes the ``(`` of whatever follows (there the next function's parameter
list), so the TU stops with "variable has incomplete type 'void'". hipcc itself launches ``<<<…>>>``: only
hipify's text rewrite breaks it.

Also ``else kernel<<<…>>>(…);``: hipify takes the kernel's name from the space before it, which it moves into
``hipLaunchKernelGGL((`` and leaves ``elsehipLaunchKernelGGL`` (adafactor8bit's 24 ``else`` launches: "use of
undeclared identifier"), and ``return kernel<<<…>>>(…);`` (torchcompactradius 0.5.5's ``returnhipLaunchKernelGGL``).
The port braces such a launch on ROCm (``else { kernel<<<…>>>(…); }``, ``{ kernel<<<…>>>(…); return; }``).

The torch-extension port adds, right after such a definition, a ROCm-only group whose first line carries the ``(``
hipify stops at (in a comment, so that what it removes is harmless there) and which redefines the macro without
``<<<``: ``vado_launch_later(kernel, grid, block, shmem, stream)`` returns a callable that launches the kernel with
the arguments it is called with (``hipLaunchKernelGGL``), so ``LAUNCH_1D(float,0,8)(args…)`` launches as before.
The CUDA build skips the group and reads the original macro. Plain ports leave the macro alone (hipcc compiles
``<<<>>>``).
"""

from __future__ import annotations

import re

from vado.model import Applicability, Edit, Fix
from vado.rules.cuda_syntax.tokens import split_text_args

#: ``#define NAME`` or ``#define NAME(params)`` and the rest of the definition (continued lines joined later).
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w*)(?P<params>\([^)\n]*\))?[ \t]*", re.M)
#: The helper, once per file.
HELPER = (
    "#ifndef VADO_LAUNCH_LATER\n"
    "#define VADO_LAUNCH_LATER\n"
    "// vado: a kernel launch whose arguments come later: vado_launch_later(k, grid, block, shmem, stream)(args...)\n"
    "template <class VadoKernel>\n"
    "static inline auto vado_launch_later(VadoKernel vado_kernel, dim3 vado_grid, dim3 vado_block,\n"
    "                                     size_t vado_shmem = 0, hipStream_t vado_stream = 0) {\n"
    "  return [=](auto&&... vado_args) {\n"
    "    hipLaunchKernelGGL(vado_kernel, vado_grid, vado_block, vado_shmem, vado_stream, vado_args...);\n"
    "  };\n"
    "}\n"
    "#endif\n"
)
OPEN_LINE = ("#ifdef USE_ROCM  // vado: ( is where PyTorch's hipify ends its rewrite of the <<<>>> above, which names "
             "no arguments; the macro launches through vado_launch_later on ROCm\n")


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside brackets (template brackets too), each piece stripped, blanks left out."""
    return [p.strip() for p in split_text_args(text, "()[]{}<>") if p.strip()]


def _definition_end(text: str, start: int) -> int:
    """The offset past the last line of the ``#define`` at ``start`` (backslash-continued lines included)."""
    at = start
    while True:
        nl = text.find("\n", at)
        if nl < 0:
            return len(text)
        if text[:nl].rstrip("\r").endswith("\\"):
            at = nl + 1
            continue
        return nl + 1


def launch_macro_fixes(path: str, text: str) -> list[Fix]:
    """The ROCm redefinition after each ``#define`` whose body ends with a kernel launch's ``<<<…>>>`` (its
    arguments come where the macro is used); none where the file has it already."""
    if ">>>" not in text or "#" not in text:
        return []
    fixes: list[Fix] = []
    helper_done = "VADO_LAUNCH_LATER" in text
    for m in _DEFINE.finditer(text):
        end = _definition_end(text, m.start())
        body = re.sub(r"\\\r?\n", " ", text[m.end():end])
        body = re.sub(r"/\*.*?\*/|//.*$", "", body, flags=re.S | re.M).strip()
        if not body.endswith(">>>") or "<<<" not in body:
            continue
        if text.startswith(OPEN_LINE.split("(", 1)[0], end):
            continue  # redefined already
        head, _, rest = body.partition("<<<")
        config = _top_level_split(rest[:-3])
        kernel = head.strip()
        if not kernel or not 2 <= len(config) <= 4 or "<<<" in rest or not re.match(r"^[\w:]+(?:<.*>)?$", kernel):
            continue
        name = m.group("name")
        params = m.group("params") or ""
        content = (OPEN_LINE + ("" if helper_done else HELPER) + f"#undef {name}\n"
                   f"#define {name}{params} vado_launch_later({kernel}, {', '.join(config)})\n#endif\n")
        helper_done = True
        if end == len(text) and not text.endswith("\n"):
            content = "\n" + content
        fixes.append(Fix((Edit(path, end, end, content),), Applicability.SAFE,
                         f"{name}: a kernel launch macro redefined for ROCm (PyTorch's hipify mangles a <<<>>> whose "
                         "arguments follow the macro)", ("torch", "launch-macro")))
    return fixes


#: A launch's kernel name (qualified, template arguments) and ``<<<`` after a keyword.
#: One blank only: hipify moves the blank next to the name into its rewrite, so a second one still separates them
#: (exllama 0.1.0's `else           half_matmul_small_kernel<...> <<<...>>>` builds as it is).
_KEYWORD_LAUNCH = re.compile(r"\b(?P<kw>else|do|return)[ \t](?=[A-Za-z_][\w:]*[ \t]*(?:<[^;{}<>]*(?:<[^;{}<>]*>[^;{}<>]*)*>)?[ \t]*<<<)")


def _statement_end(text: str, at: int) -> int:
    """The offset past the ``;`` that ends the launch starting at ``at`` (``k<<<…>>>(…);``), or -1."""
    close = text.find(">>>", at)
    if close < 0:
        return -1
    i = close + 3
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text) or text[i] != "(":
        return -1
    depth = 0
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        elif c in ";{}":
            return -1
        i += 1
    j = i + 1
    while j < len(text) and text[j] in " \t":
        j += 1
    return j + 1 if j < len(text) and text[j] == ";" else -1


def keyword_launch_fixes(path: str, text: str, toks) -> list[Fix]:
    """``else k<<<…>>>(…);`` → ``else { k<<<…>>>(…); }``, ``return k<<<…>>>(…);`` → ``{ k<<<…>>>(…); return; }`` (a
    launch a keyword precedes, which hipify glues to it: torchcompactradius 0.5.5's ``returnhipLaunchKernelGGL``)."""
    if "<<<" not in text:
        return []
    code = {t[1] for t in toks if t[3] in ("else", "do", "return")}
    fixes = []
    for m in _KEYWORD_LAUNCH.finditer(text):
        if m.start("kw") not in code:
            continue  # in a comment or a string
        end = _statement_end(text, m.end())
        if end < 0:
            continue
        if m.group("kw") == "return":  # `return k<<<...>>>(...);` returns void: the same as the launch, then return
            edits = (Edit(path, m.start("kw"), m.end(), "{ "), Edit(path, end, end, " return; }"))
        else:
            edits = (Edit(path, m.end(), m.end(), "{ "), Edit(path, end, end, " }"))
        fixes.append(Fix(edits, Applicability.SAFE,
                         f"{m.group('kw')} {{ launch }}: PyTorch's hipify glues a launch to the keyword before it",
                         ("torch", "launch-keyword")))
    return fixes
