"""One question, every table: the knowledge-base facts about a name, as plain data with sources.

:func:`facts_for` is the function behind the MCP "facts" tool: given a CUDA
library (``cudnn``, ``cuDNN``, ``cudnn.h``, ``-lcudnn``, ``cudnnCreate``), a Python
package (``flash_attn``, ``cupy-cuda12x``), a target (``rocm``) or an image
reference, it returns every matching entry as JSON-ready dicts, each carrying its
``source``.
"""

from __future__ import annotations

from typing import Any

from vado.errors import KnowledgeError


def facts_for(name: str) -> dict[str, Any]:
    """All knowledge-base entries that ``name`` refers to.

    Returns ``{"query": name, "matches": [{"kind": ..., "id": ..., "matched_by": ..., "facts": {...}}]}``
    where ``kind`` is ``library``, ``package``, ``target`` or ``image``. Raises
    :class:`KnowledgeError` with close matches when nothing matches.
    """
    from vado.knowledge import images, libraries, packages, targets
    from vado.model import to_json

    query = name.strip()
    if not query:
        raise KnowledgeError("no name given", "facts_for needs a library, package, target or image name")
    matches: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: str, ident: str, how: str, data: dict[str, Any]) -> None:
        if (kind, ident) not in seen:
            seen.add((kind, ident))
            matches.append({"kind": kind, "id": ident, "matched_by": how, "facts": data})

    lib = libraries.find_library(query)
    if lib is not None:
        add("library", lib.id, "name", lib.to_dict())
    for how, finder in (("header", libraries.library_for_header), ("link", libraries.library_for_link),
                        ("identifier", libraries.library_for_identifier)):
        # Headers and link names have a shape; plain words go to the identifier index only.
        if how == "header" and not any(c in query for c in "./<"):
            continue
        if how == "link" and not (query.startswith("-l") or "::" in query or ".so" in query or query.startswith("lib")):
            continue
        found = finder(query)
        if found is not None:
            add("library", found.id, how, found.to_dict())

    pkg = packages.match_package(query)
    if pkg is not None:
        data = pkg.fact.to_dict()
        if pkg.cuda_variant:
            data["matched_cuda_variant"] = pkg.cuda_variant
        if pkg.library:
            data["matched_library"] = pkg.library
        add("package", pkg.fact.name, "pattern" if pkg.pattern else "name", data)
        if pkg.library and libraries.find_library(pkg.library) is not None:
            add("library", pkg.library, f"package {pkg.fact.name}", libraries.library(pkg.library).to_dict())
    imp = packages.package_for_import(query)
    if imp is not None:
        add("package", imp.name, "import", imp.to_dict())

    try:
        target = targets.get_target(query)
    except KnowledgeError:
        target = None
    if target is not None:
        data = to_json(target)
        data.update(targets.target_provenance(target.name))
        add("target", target.name, "name", data)

    if ":" in query or "/" in query:
        image = images.match_image(query)
        if image is not None:
            add("image", image.kind, "reference", image.to_dict())

    if not matches:
        raise KnowledgeError(f"no knowledge-base entry for {query!r}", "it is not a known library, package, target or image",
                             _suggestions(query))
    return {"query": query, "matches": matches}


def _suggestions(query: str) -> str:
    from vado.knowledge import _data, libraries, packages, targets

    pool: list[str] = list(libraries.library_ids()) + [p.name for p in packages.all_packages()] + list(targets.target_names())
    return _data.did_you_mean(_data.suggest(query.lower(), pool))
