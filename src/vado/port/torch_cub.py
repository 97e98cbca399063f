"""``namespace cub = hipcub;`` for a torch extension's CUB code, which PyTorch's build-time hipify half-renames.

CUB wrapped in a project namespace (``X::cub::``, torchani 2.9.0's ``-DCUB_NS_QUALIFIER=::cuaev::cub``) gets
``namespace X { namespace cub = ::hipcub; namespace hipcub = ::hipcub; }`` beside it: hipCUB has no such wrapping.

On a ROCm build, ``torch.utils.cpp_extension`` hipifies ``#include <cub/cub.cuh>`` into
``#include <hipcub/hipcub.hpp>`` and renames the ``cub::`` names its table lists
(``cub::DeviceRadixSort`` → ``hipcub::DeviceRadixSort``), but leaves the others as written:
``cub::DoubleBuffer``, ``cub::KeyValuePair``, ``cub::Sum`` … then name a namespace hipCUB does not
declare (gsplat 1.5.3 ``IntersectTile.cu``: "use of undeclared identifier 'cub'"). A torch-extension
port keeps CUDA's spelling and leaves the renames to hipify, so it adds the alias the maintained
extensions write themselves in their ROCm branch: ``namespace cub = hipcub;`` after the file's last
``<cub/…>`` include. The torch-extension port writes it inside ``#if defined(USE_ROCM)``; the CUDA
build reads the original lines. With the alias, both hipify's ``hipcub::`` and the ``cub::`` it left
name hipCUB.
"""

from __future__ import annotations

import re

from vado.model import Applicability, Edit, Fix
from vado.scan.lexer import Kind

_CUB_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]cub/[^>\"\n]+[>\"]", re.M)
_ALIAS = re.compile(r"\bnamespace[ \t]+cub[ \t]*=[ \t]*(?:::)?hipcub[ \t]*;")

#: The line the pass writes.
ALIAS_LINE = ("namespace cub = hipcub;  // vado: PyTorch's hipify renames only the cub:: names its table lists; "
              "the others (cub::DoubleBuffer …) name hipCUB through this alias\n")


def cub_alias_fixes(path: str, text: str, toks) -> list[Fix]:
    """The alias after the last ``#include <cub/…>`` of a file that spells ``cub::`` (none where the file
    has the alias already, includes no CUB header, or names nothing in ``cub::``)."""
    if "cub" not in text or _ALIAS.search(text):
        return []
    includes = list(_CUB_INCLUDE.finditer(text))
    wrapped = _wrapping_namespaces(toks)
    if not includes or not (_qualified_cub(toks) or wrapped):
        return []
    end = text.find("\n", includes[-1].end())
    at = len(text) if end < 0 else end + 1
    content = ALIAS_LINE if _qualified_cub(toks) else ""
    for ns in wrapped:
        content += (f"namespace {ns} {{ namespace cub = ::hipcub; namespace hipcub = ::hipcub; }}  // vado: CUB "
                    f"wrapped in namespace {ns} (CUB_NS_QUALIFIER), which hipCUB does not do\n")
    content = content if end >= 0 else "\n" + content
    return [Fix((Edit(path, at, at, content),), Applicability.SAFE,
                "namespace cub = hipcub; after the CUB include (the cub:: names PyTorch's hipify leaves)",
                ("torch", "cub-alias"))]


def _wrapping_namespaces(toks) -> list[str]:
    """The namespaces ``X`` of ``X::cub::`` uses: CUB wrapped in a project namespace by ``-DCUB_NS_PREFIX=
    namespace X {`` / ``-DCUB_NS_QUALIFIER=::X::cub`` (torchani 2.9.0's ``cuaev::cub::DeviceScan``), which hipCUB
    does not honour: "use of undeclared identifier 'cuaev'". Hipify makes them ``X::hipcub::`` where its table
    names them, so the alias in ``X`` covers both spellings."""
    out: list[str] = []
    n = len(toks)
    for i, tok in enumerate(toks):
        if (tok[0] is Kind.IDENT and tok[3] == "cub" and i >= 2 and i + 1 < n and toks[i + 1][3] == "::"
                and toks[i - 1][3] == "::" and toks[i - 2][0] is Kind.IDENT and toks[i - 2][3] not in ("std", "cub")
                and not (i >= 3 and toks[i - 3][3] in ("::", ".", "->") and i >= 4 and toks[i - 4][0] is Kind.IDENT)):
            if toks[i - 2][3] not in out:
                out.append(toks[i - 2][3])
    return out


def _qualified_cub(toks) -> bool:
    """Whether some code token ``cub`` is followed by ``::`` and not itself qualified (``hipcub``, ``x::cub``)."""
    n = len(toks)
    for i, tok in enumerate(toks):
        if tok[0] is Kind.IDENT and tok[3] == "cub" and i + 1 < n and toks[i + 1][3] == "::":
            if i == 0 or toks[i - 1][3] not in ("::", ".", "->"):
                return True
    return False
