"""BLD rule about what PyTorch's build-time hipify does to a torch extension's vendored headers (BLD008).

On a ROCm build of PyTorch, ``CUDAExtension(...)`` runs hipify over the extension's sources with
``header_include_dirs=include_dirs`` and ``includes=[<the project>/*]`` (torch/utils/cpp_extension.py):
every header of the project that a source reaches through ``include_dirs`` is rewritten too. A
vendored library is not written for that: hipify renames its CUDA tests (glm's ``CUDA_VERSION`` becomes
``TORCH_HIP_VERSION``: "GLM requires CUDA 7.0 or higher"), and a header under a directory named
``cuda`` it writes to the same path with ``hip`` instead, without the files it does not hipify (glm's
``.inl``: "'type_vec2.inl' file not found"). gsplat 1.5.3 (glm under ``gsplat/cuda/csrc/third_party``)
fails so in every TU. A directory given to the compiler as ``-I`` in ``extra_compile_args`` instead is
searched by the compiler and not by hipify.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator

from vado.model import Applicability, Edit, Effort, Finding, Fix, Severity, Verdict
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import torch_extension
from vado.rules.bld.setup_flags import hip_test
from vado.scan.classify import FileKind

#: Directory names that hold vendored code (a path component, compared lower-case).
VENDOR_DIRS = frozenset({"third_party", "thirdparty", "third-party", "3rdparty", "vendor", "vendored", "external",
                         "extern", "deps", "submodules"})
#: The marker of the fix's inserted lines; a setup.py that holds it is fixed.
MARKER = "vado: keep PyTorch's hipify out of vendored headers"


def _call_name(node: ast.AST) -> str:
    f = node.func if isinstance(node, ast.Call) else None
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _assigned(tree: ast.AST, name: str, before: int) -> ast.AST | None:
    """The value of the last plain ``name = value`` assignment on a line before ``before``."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno < before and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if found is None or node.lineno > found.lineno:
                found = node
    return found.value if found is not None else None


def _path_parts(tree: ast.AST, node: ast.AST, before: int, depth: int = 0) -> list[str]:
    """The string pieces of a path expression: literals, ``os.path.join``/``Path`` arguments, names followed
    to their assignment (a few levels)."""
    if depth > 4:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.split(r"[\\/]", node.value)
    if isinstance(node, ast.Name):
        value = _assigned(tree, node.id, before)
        return _path_parts(tree, value, before, depth + 1) if value is not None else []
    if isinstance(node, ast.Call):
        return [p for a in node.args for p in _path_parts(tree, a, before, depth + 1)]
    if isinstance(node, ast.BinOp):  # Path(a) / "b"
        return _path_parts(tree, node.left, before, depth + 1) + _path_parts(tree, node.right, before, depth + 1)
    if isinstance(node, ast.JoinedStr):
        return [p for v in node.values for p in _path_parts(tree, v, before, depth + 1)]
    return []


def _statement_of(tree: ast.AST, call: ast.Call) -> ast.stmt | None:
    """The statement that holds ``call``."""
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.If, ast.For,
                                                               ast.While, ast.With, ast.Try, ast.AsyncFunctionDef)):
            if node.lineno <= call.lineno and (node.end_lineno or node.lineno) >= (call.end_lineno or call.lineno):
                if best is None or node.lineno >= best.lineno:
                    best = node
    return best


class VendoredHeadersHipifyRewrites(Rule):
    """A vendored library's directory among a ``CUDAExtension``'s ``include_dirs``, which PyTorch's ROCm hipify rewrites.

    What it does
    ------------
    In a setup.py that builds a PyTorch ``CUDAExtension``, finds the
    ``include_dirs`` entries that name a vendored directory (a path with a
    component ``third_party``, ``3rdparty``, ``vendor``, ``external``,
    ``deps`` …, written as a literal, an ``os.path.join`` or a name assigned one).

    Why is this bad?
    ----------------
    On a ROCm build of PyTorch, ``CUDAExtension`` hipifies the sources with
    ``header_include_dirs=include_dirs`` over the whole project: each header a
    source reaches through those directories is rewritten as well. A vendored
    library is not written for that. hipify renames its CUDA tests (glm's
    ``CUDA_VERSION`` becomes ``TORCH_HIP_VERSION``, and "GLM requires CUDA 7.0
    or higher"), and writes a header found under a directory named ``cuda`` to
    the same path with ``hip`` instead, without the files it does not hipify
    (glm's ``.inl``: "'type_vec2.inl' file not found"). gsplat 1.5.3 keeps glm
    under ``gsplat/cuda/csrc/third_party/glm``: none of its TUs compiles on
    ROCm. glm (like most header libraries that know CUDA) has its own HIP path
    (``__HIP__``), which the compiler takes when it reads the headers as written.

    Example
    -------
    .. code-block:: python

        glm_path = osp.join(current_dir, "gsplat", "cuda", "csrc", "third_party", "glm")
        include_dirs = [glm_path, osp.join(current_dir, "gsplat", "cuda", "include")]
        extension = CUDAExtension("gsplat.csrc", sources, include_dirs=include_dirs,
                                  extra_compile_args=extra_compile_args)

    Use instead
    -----------
    .. code-block:: python

        if torch.version.hip:  # hipify searches include_dirs, the compiler -I as well
            include_dirs = [d for d in include_dirs if d not in (glm_path,)]
            extra_compile_args = {k: [*v, *[f"-I{d}" for d in (glm_path,)]]
                                  for k, v in extra_compile_args.items()}
        extension = CUDAExtension("gsplat.csrc", sources, include_dirs=include_dirs,
                                  extra_compile_args=extra_compile_args)

    Fix safety
    ----------
    Unsafe. Where ``include_dirs=`` and ``extra_compile_args=`` are names and
    ``extra_compile_args`` is a dict, the fix moves the vendored directories,
    on ROCm builds only, from ``include_dirs`` to ``-I`` flags of every
    compiler (``cxx`` and ``nvcc``, which hipcc reads on ROCm): hipify then
    leaves those headers as written, and the compiler still finds them. It is
    right for a library that compiles under hipcc as written (glm, Eigen, a
    C++ header library); one that needs hipify's renames to build for HIP
    would fail to compile instead, which verify shows. The CUDA build is
    unchanged. Otherwise the finding has no fix.

    References
    ----------
    - PyTorch ``torch/utils/cpp_extension.py`` (``CUDAExtension``: ``hipify(…, header_include_dirs=include_dirs, includes=[build_dir/*], is_pytorch_extension=True, hipify_extra_files_only=True)``): https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py
    - PyTorch ``torch/utils/hipify/hipify_python.py`` (``get_hip_file_path``: ``cuda`` → ``hip`` in the directory of a rewritten header; the extensions it processes): https://github.com/pytorch/pytorch/blob/main/torch/utils/hipify/hipify_python.py
    - glm ``glm/simd/platform.h`` (``GLM_COMPILER_HIP`` on ``__HIP__``; the ``CUDA_VERSION`` test): https://github.com/g-truc/glm/blob/master/glm/simd/platform.h
    """

    code = "BLD008"
    name = "vendored-headers-hipify-rewrites"
    severity = Severity.HIGH
    can_fix = True
    file_kinds = frozenset({FileKind.SETUP_PY})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        rocm = [t for t in ctx.targets if t.family == "rocm"]
        if not rocm or MARKER in ctx.text or "include_dirs" not in ctx.text or not torch_extension(ctx):
            return
        try:
            tree = ast.parse(ctx.text)
        except (SyntaxError, ValueError):
            return  # BLD007 reports a setup.py that does not parse
        offsets = _line_offsets(ctx.text)
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and _call_name(n) == "CUDAExtension"):
            kw = {k.arg: k.value for k in call.keywords if k.arg}
            inc = kw.get("include_dirs")
            if inc is None:
                continue
            listed = _assigned(tree, inc.id, call.lineno) if isinstance(inc, ast.Name) else inc
            if not isinstance(listed, (ast.List, ast.Tuple)):
                continue
            vendored = [e for e in listed.elts
                        if {p.lower() for p in _path_parts(tree, e, call.lineno)} & VENDOR_DIRS]
            if not vendored:
                continue
            fix = self._fix(ctx, tree, call, kw, vendored, offsets)
            for k, e in enumerate(vendored):
                start = offsets[e.lineno - 1] + e.col_offset
                end = offsets[(e.end_lineno or e.lineno) - 1] + (e.end_col_offset or e.col_offset)
                verdict = Verdict.AUTOMATIC if fix is not None else Verdict.MANUAL
                yield self.finding(
                    ctx, start, end,
                    f"{ctx.text[start:end]} (vendored) is among the CUDAExtension's include_dirs: on a ROCm build "
                    "PyTorch's hipify rewrites every header it finds there (a library's CUDA tests become HIP ones, "
                    "a header under a 'cuda' directory moves to 'hip' without its .inl files); pass it to the "
                    "compilers as -I on ROCm instead",
                    {t.name: verdict for t in rocm}, fix=fix if k == 0 else None,
                    effort=Effort(lines=3, constructs=1, hours=0.0 if fix else 0.5))

    def _fix(self, ctx: FileContext, tree, call: ast.Call, kw: dict, vendored: list, offsets) -> Fix | None:
        inc, eca = kw.get("include_dirs"), kw.get("extra_compile_args")
        if not (isinstance(inc, ast.Name) and isinstance(eca, ast.Name)):
            return None
        test = hip_test(ctx.text, offsets[call.lineno - 1] + call.col_offset)
        if test is None:
            return None
        if not isinstance(_assigned(tree, eca.id, call.lineno), ast.Dict):
            return None
        stmt = _statement_of(tree, call)
        if stmt is None:
            return None
        names = [ast.get_source_segment(ctx.text, e) for e in vendored]
        if any(not n or "\n" in n for n in names):
            return None
        line = offsets[stmt.lineno - 1]
        indent = " " * stmt.col_offset
        group = ", ".join(names) + ("," if len(names) == 1 else "")
        block = (f"{indent}if {test}:  # {MARKER} (BLD008): hipify searches include_dirs, the compilers -I too\n"
                 f"{indent}    {inc.id} = [d for d in {inc.id} if d not in ({group})]\n"
                 f"{indent}    {eca.id} = {{k: [*v, *[f\"-I{{d}}\" for d in ({group})]] "
                 f"for k, v in {eca.id}.items()}}\n")
        return Fix((Edit(ctx.path, line, line, block),), Applicability.UNSAFE,
                   f"on ROCm, {', '.join(names)} as -I flags instead of include_dirs (out of hipify's reach)",
                   ("build", "torch-vendored-include"))


def _line_offsets(text: str) -> list[int]:
    out, pos = [0], 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        out.append(pos)
    return out
