"""PEP 508 requirement text (names, extras, specifiers, markers, URLs, archives) with byte spans."""

from __future__ import annotations

import re
from urllib.parse import unquote

from vado.scan.pydeps.model import DepSource, Problem, Requirement, local_label, normalize_name


_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_EXTRAS = re.compile(r"\s*\[([^\]]*)\]")
_ONE_SPEC = r"(?:~=|===|==|!=|<=|>=|<|>)\s*[A-Za-z0-9*+!._-]+"
_SPECS = re.compile(rf"\(?\s*{_ONE_SPEC}(?:\s*,\s*{_ONE_SPEC})*\s*,?\s*\)?")
_SPEC_ITEM = re.compile(r"(~=|===|==|!=|<=|>=|<|>)\s*([A-Za-z0-9*+!._-]+)")
_URL_START = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|git\+|hg\+|svn\+|bzr\+|file:|\.{1,2}[/\\]|/)")
#: What ``_archive_name`` finds, as a regular expression (its reference: a ``search`` with it
#: backtracks quadratically on a long file name, so the function finds the same match by hand).
_ARCHIVE = re.compile(r"([A-Za-z0-9_.]+)-(\d[^-/]*?)(?:-[^/]*)?\.(?:whl|tar\.gz|zip|tar\.bz2|tgz)$", re.I)
_ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")
_EGG = re.compile(r"[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)")


def parse_requirement(
    text: str,
    offset: int = 0,
    *,
    source: DepSource = DepSource.REQUIREMENTS,
    group: str = "",
    editable: bool = False,
    pos=None,
    end_pos=None,
) -> Requirement | Problem:
    """Parse one PEP 508 requirement (or a pip URL/path requirement).

    ``offset`` is the file offset of ``text[0]``; ``pos``/``end_pos`` may map
    logical offsets instead (for text joined from continued lines). Returns a
    :class:`Problem` when ``text`` is not a requirement.
    """
    if pos is None:
        pos = lambda i: offset + i  # noqa: E731 - tiny local mapping
    if end_pos is None:
        end_pos = lambda j: offset + j  # noqa: E731
    lead = len(text) - len(text.lstrip())
    body = text.strip()
    if not body:
        return Problem(pos(0), end_pos(len(text)), "empty requirement", text)
    bstart = lead
    bend = lead + len(body)

    def mk_problem(reason: str) -> Problem:
        return Problem(pos(bstart), end_pos(bend), reason, body)

    if _URL_START.match(body) or (body.lower().endswith((".whl", ".tar.gz", ".zip")) and "/" in body):
        return _url_requirement(body, bstart, bend, pos, end_pos, source, group, editable)

    m = _NAME.match(text, bstart)
    if not m:
        return mk_problem("does not start with a project name")
    name = m.group(0)
    i = m.end()
    extras: tuple[str, ...] = ()
    em = _EXTRAS.match(text, i)
    if em:
        extras = tuple(e.strip() for e in em.group(1).split(",") if e.strip())
        if any(not _NAME.fullmatch(e) for e in extras):
            return mk_problem(f"bad extras [{em.group(1)}]")
        i = em.end()
    rest_start = i
    # Marker: the first ';' outside a URL. In ``name @ url ; marker`` PEP 508
    # wants whitespace before ';' so that URLs may contain it.
    url = ""
    marker = ""
    spec_text = ""
    spec_s = spec_e = i
    rest = text[i:bend]
    at = re.match(r"\s*@\s*", rest)
    if at:
        url_s = i + at.end()
        mm = re.search(r"\s;", text[url_s:bend])
        url_e = url_s + mm.start() if mm else bend
        url = text[url_s:url_e].strip()
        if not url:
            return mk_problem("'@' without a URL")
        if mm:
            marker = text[url_s + mm.end() : bend].strip()
        spec_s, spec_e = url_s, url_s + len(url)
        arch = _archive_name(unquote(url.split("#", 1)[0].split("?", 1)[0]))
        version = arch[1] if arch else ""
        return Requirement(
            name, normalize_name(name), pos(bstart), end_pos(bend), pos(m.start()), end_pos(m.end()),
            pos(spec_s), end_pos(spec_e), extras, "", marker, url, version, local_label(version),
            source, group, editable,
        )
    semi = text.find(";", rest_start, bend)
    spec_end_limit = semi if semi != -1 else bend
    if semi != -1:
        marker = text[semi + 1 : bend].strip()
        if not marker:
            return mk_problem("';' without an environment marker")
    raw_spec = text[rest_start:spec_end_limit]
    if raw_spec.strip():
        sm = _SPECS.fullmatch(raw_spec.strip())
        if not sm:
            shown = raw_spec.strip()
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
            return mk_problem(f"bad version specifier {shown!r}")
        spec_s = rest_start + (len(raw_spec) - len(raw_spec.lstrip()))
        spec_text = raw_spec.strip()
        spec_e = spec_s + len(spec_text)
    items = _SPEC_ITEM.findall(spec_text)
    version = items[0][1] if len(items) == 1 and items[0][0] in ("==", "===") else ""
    return Requirement(
        name, normalize_name(name), pos(bstart), end_pos(bend), pos(m.start()), end_pos(m.end()),
        pos(spec_s), end_pos(spec_e) if spec_e > spec_s else pos(spec_s), extras, spec_text, marker, "",
        version, local_label(spec_text), source, group, editable,
    )


def _archive_name(path: str) -> tuple[str, str] | None:
    """``(name, version)`` of a wheel or sdist file name at the end of ``path``: the groups of
    ``_ARCHIVE.search(path)``, found in one pass.

    The match lies after the last ``/``, ends with a suffix, and starts where a run of name
    characters starts (a start inside the run matches less of the same run); the name is that
    whole run, followed by ``-`` and a digit; the version runs to the next ``-`` or to the suffix.
    """
    base = path[path.rfind("/") + 1 :]
    if base.endswith("\n"):
        base = base[:-1]  # $ matches before a final newline
    lower = base.lower()
    suffix = next((x for x in _ARCHIVE_SUFFIXES if lower.endswith(x)), None)
    if suffix is None:
        return None
    stop = len(base) - len(suffix)  # where "\.suffix" starts
    i, n = 0, len(base)
    while i < n:
        if base[i] not in _NAME_CHARS:
            i += 1
            continue
        j = i
        while j < n and base[j] in _NAME_CHARS:
            j += 1
        if j + 1 < stop and base[j] == "-" and base[j + 1].isdecimal():
            dash = base.find("-", j + 1, stop)
            return base[i:j], base[j + 1 : stop if dash == -1 else dash]
        i = j
    return None


def _url_requirement(body, bstart, bend, pos, end_pos, source, group, editable) -> Requirement:
    """A requirement given as a URL, VCS reference or local path."""
    url = body
    marker = ""
    mm = re.search(r"\s;", body)
    if mm:
        url = body[: mm.start()].rstrip()
        marker = body[mm.end() :].strip()
    name = ""
    version = ""
    egg = _EGG.search(url)
    path_part = unquote(url.split("#", 1)[0].split("?", 1)[0])
    arch = _archive_name(path_part)
    if egg:
        name = egg.group(1)
    elif arch:
        name, version = arch
    # The name span of an unnamed requirement is empty at its start.
    ns = ne = pos(bstart)
    if egg:
        ns, ne = pos(bstart + egg.start(1)), end_pos(bstart + egg.end(1))
    elif arch:
        idx = body.find(arch[0])
        if idx != -1:
            ns, ne = pos(bstart + idx), end_pos(bstart + idx + len(arch[0]))
    return Requirement(
        name, normalize_name(name) if name else "", pos(bstart), end_pos(bend), ns, ne,
        pos(bstart), end_pos(bstart + len(url)), (), "", marker, url, version, local_label(version),
        source, group, editable,
    )
