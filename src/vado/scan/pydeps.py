"""Python dependency declarations and imports, with exact byte spans.

Every parser here reads the latin-1 view of one file (:mod:`vado.model.text`) and
returns plain frozen records whose ``start``/``end`` are byte offsets into that
file, so ``vado port`` can rewrite a pin, an index URL or an import in place.
The parsers never execute anything (``setup.py`` is read with :mod:`ast`),
never open other files (``-r other.txt`` is reported, not followed) and never
raise for bad input: what they cannot read becomes a :class:`Problem`.

Supported inputs: pip requirements/constraints files (options, includes,
markers, URLs, continuations, comments), ``pyproject.toml`` (PEP 621, PEP 735
groups, build-system requires, Poetry, uv/Poetry/PDM index URLs), ``setup.cfg``,
``setup.py``, conda ``environment.yml`` (including ``pip:`` sections) and Python
source imports.
"""

from __future__ import annotations

import ast
import bisect
import posixpath
import re
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import unquote

from vado.model.text import encode_source

# ---------------------------------------------------------------------------
# Records


class DepSource(str, Enum):
    """Where a dependency was declared."""

    REQUIREMENTS = "requirements"
    PYPROJECT = "pyproject"
    POETRY = "poetry"
    SETUP_CFG = "setup-cfg"
    SETUP_PY = "setup-py"
    CONDA = "conda"
    CONDA_PIP = "conda-pip"
    PIP_COMMAND = "pip-command"  # ``pip install …`` on a command line (Dockerfile RUN)


@dataclass(frozen=True)
class Requirement:
    """One declared Python dependency.

    ``start``/``end`` cover the requirement text (no comment, no per-line
    options); ``name_*`` the project name, ``spec_*`` the version specifier
    (an empty span right after the name or extras when there is none).
    ``version`` is the exact pinned version (``==``/``===``, a wheel file name
    or a Poetry exact version), ``local`` its local label (``cu121`` of
    ``2.1.0+cu121``; the first one found in any specifier). ``name`` is empty
    for an unnamed URL or path requirement without ``#egg=``.
    """

    name: str
    key: str
    start: int
    end: int
    name_start: int
    name_end: int
    spec_start: int
    spec_end: int
    extras: tuple[str, ...] = ()
    specifier: str = ""
    marker: str = ""
    url: str = ""
    version: str = ""
    local: str = ""
    source: DepSource = DepSource.REQUIREMENTS
    group: str = ""
    editable: bool = False

    @property
    def text_span(self) -> tuple[int, int]:
        """``(start, end)`` of the whole requirement."""
        return self.start, self.end


@dataclass(frozen=True)
class IndexOption:
    """A package index or find-links location (``--index-url``, a Poetry/uv source …).

    ``option`` is the canonical long option name (``--index-url``,
    ``--extra-index-url``, ``--find-links``) or, for pyproject sources, the TOML
    key (``url``, ``index-url`` …). ``start``/``end`` cover the option and its
    value; ``url_start``/``url_end`` the value alone.
    """

    option: str
    url: str
    start: int
    end: int
    url_start: int
    url_end: int
    source: DepSource = DepSource.REQUIREMENTS


@dataclass(frozen=True)
class Include:
    """``-r``/``-c`` of another requirements file: reported, never followed.

    ``resolved`` is the POSIX path relative to the scanned root when the
    included file lies inside it, else ``None`` (``inside_root`` False).
    """

    option: str  # "--requirement" or "--constraint"
    path: str
    start: int
    end: int
    path_start: int
    path_end: int
    resolved: str | None = None

    @property
    def inside_root(self) -> bool:
        """True when the include names a file inside the scanned root."""
        return self.resolved is not None


@dataclass(frozen=True)
class CondaChannel:
    """A channel in ``channels:`` (or a ``channel::`` prefix of a dependency)."""

    name: str
    start: int
    end: int


@dataclass(frozen=True)
class CondaSpec:
    """A conda (non-pip) dependency: ``[channel::]name[ op version[ build]]``."""

    name: str
    key: str
    start: int
    end: int
    name_start: int
    name_end: int
    spec: str = ""
    channel: str = ""


@dataclass(frozen=True)
class Problem:
    """Something a parser could not read; ``reason`` says what and why."""

    start: int
    end: int
    reason: str
    text: str = ""


@dataclass(frozen=True)
class DependencyFile:
    """All dependency facts of one file."""

    path: str
    source: DepSource
    requirements: tuple[Requirement, ...] = ()
    indexes: tuple[IndexOption, ...] = ()
    includes: tuple[Include, ...] = ()
    channels: tuple[CondaChannel, ...] = ()
    conda: tuple[CondaSpec, ...] = ()
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class PyImport:
    """An import of ``module`` (``from numba import cuda`` gives ``numba.cuda``).

    ``start``/``end`` cover the imported name as written (``numba`` … ``cuda``
    for a from-import: the module and the name); ``approximate`` is True when
    the file did not parse and the import was found by pattern.
    """

    module: str
    start: int
    end: int
    statement_start: int
    statement_end: int
    approximate: bool = False


@dataclass(frozen=True)
class RawKernel:
    """A CuPy ``RawKernel``/``RawModule``/``ElementwiseKernel`` source string.

    ``ptx`` lists the inline-asm snippets found in it (``asm volatile("…")``).
    """

    call: str
    start: int
    end: int
    ptx: tuple[str, ...] = ()


@dataclass(frozen=True)
class PythonFacts:
    """Imports and raw-kernel strings of one Python file."""

    path: str
    imports: tuple[PyImport, ...] = ()
    raw_kernels: tuple[RawKernel, ...] = ()
    problems: tuple[Problem, ...] = ()


# ---------------------------------------------------------------------------
# Names and versions


_NORMALIZE = re.compile(r"[-_.]+")


def normalize_name(name: str) -> str:
    """PEP 503 normalised project name: ``Torch_Vision`` → ``torch-vision``."""
    return _NORMALIZE.sub("-", name).lower()


_LOCAL = re.compile(r"\+([A-Za-z0-9][A-Za-z0-9._-]*)")


def local_label(version_text: str) -> str:
    """The local version label in ``version_text`` (``cu121`` of ``==2.1.0+cu121``), or ``""``."""
    m = _LOCAL.search(version_text)
    return m.group(1).lower() if m else ""


_CUDA_LOCAL = re.compile(r"^cu(?:da)?-?(\d{2,3})")


def cuda_local(label: str) -> str | None:
    """``"121"`` for a CUDA local label such as ``cu121`` (``None`` for ``cpu``, ``rocm6.2`` …)."""
    m = _CUDA_LOCAL.match(label.lower())
    return m.group(1) if m else None


# ---------------------------------------------------------------------------
# Logical lines: joined continuations with a map back to file offsets


@dataclass(frozen=True)
class LogicalLine:
    """A line with its backslash continuations removed, and the way back to file offsets.

    ``pieces`` holds ``(logical_offset, file_offset)`` for each physical piece,
    in order; ``text`` is the joined text. ``pos(i)`` maps a logical offset to
    the file; ``end_pos(j)`` maps an exclusive end (so an end at a join point
    stays on the line it ends).
    """

    text: str
    pieces: tuple[tuple[int, int], ...]
    start: int  # file offset of the first byte
    end: int  # file offset after the last byte (before the newline)

    def pos(self, i: int) -> int:
        """File offset of logical offset ``i``."""
        k = bisect.bisect_right(self.pieces, (i, float("inf"))) - 1
        lo, fo = self.pieces[max(k, 0)]
        return fo + (i - lo)

    def end_pos(self, j: int) -> int:
        """File offset just after logical offset ``j - 1``."""
        if j <= 0:
            return self.pos(0)
        return self.pos(j - 1) + 1


def logical_lines(text: str, *, continuation: str = "\\", comment: str | None = None) -> list[LogicalLine]:
    """Split ``text`` into logical lines, joining lines that end in ``continuation``.

    The continuation character and its newline are dropped (pip and make keep
    the text on both sides adjacent; pip has no whitespace there either).
    When ``comment`` is given, whole-line comments *inside* a continued line
    are dropped the way Docker does (``RUN a \\`` / ``# note`` / ``b``).
    """
    out: list[LogicalLine] = []
    n = len(text)
    pos = 0
    while pos < n:
        pieces: list[tuple[int, int]] = []
        parts: list[str] = []
        length = 0
        first = pos
        last_end = pos
        while True:
            nl = text.find("\n", pos)
            line_end = n if nl == -1 else nl
            content_end = line_end - 1 if line_end > pos and text[line_end - 1] == "\r" else line_end
            seg = text[pos:content_end]
            if comment is not None and pieces and seg.lstrip().startswith(comment):
                # A comment line inside a continued instruction is not part of it.
                pos = line_end + 1
                if nl == -1:
                    break
                continue
            continued = seg.endswith(continuation) and nl != -1
            if continued:
                seg = seg[: -len(continuation)]
            pieces.append((length, pos))
            parts.append(seg)
            length += len(seg)
            last_end = pos + len(seg)
            pos = line_end + 1
            if not continued:
                break
        out.append(LogicalLine("".join(parts), tuple(pieces), first, last_end))
    return out


# ---------------------------------------------------------------------------
# PEP 508 requirement text


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


# ---------------------------------------------------------------------------
# requirements.txt / constraints.txt


#: A pip comment, as a regular expression (the reference of ``_comment_start``, which finds
#: the same start without the quadratic backtracking of ``\s+`` over a long blank run).
_COMMENT = re.compile(r"(?:^|\s+)#.*$")
_WORD = re.compile(r"""(?:"[^"]*"|'[^']*'|[^\s"'])+""")

#: pip options that take a value, by every spelling → canonical long name.
_VALUE_OPTIONS = {
    "-r": "--requirement", "--requirement": "--requirement",
    "-c": "--constraint", "--constraint": "--constraint",
    "-i": "--index-url", "--index-url": "--index-url",
    "--extra-index-url": "--extra-index-url",
    "-f": "--find-links", "--find-links": "--find-links",
    "-e": "--editable", "--editable": "--editable",
    "--trusted-host": "--trusted-host",
    "--only-binary": "--only-binary", "--no-binary": "--no-binary",
    "--use-feature": "--use-feature",
    "--config-settings": "--config-settings", "--global-option": "--global-option",
    "--hash": "--hash",
}
_FLAG_OPTIONS = {"--no-index", "--pre", "--prefer-binary", "--require-hashes", "--no-deps"}
_INDEX_OPTIONS = {"--index-url", "--extra-index-url", "--find-links"}


def resolve_include(path: str, target: str) -> str | None:
    """Root-relative POSIX path of ``target`` included from ``path``; None when outside the root.

    URLs, absolute paths and paths that climb above the root are outside.
    """
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", target) or target.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:", target):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target.replace("\\", "/")))
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return joined


def _words(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, str]]:
    """Shell-like words of ``text[start:end]`` as ``(start, end, unquoted text)``."""
    end = len(text) if end is None else end
    out = []
    for m in _WORD.finditer(text, start, end):
        w = m.group(0)
        out.append((m.start(), m.end(), re.sub(r"""["']""", "", w)))
    return out


def parse_pip_args(
    line: LogicalLine | str,
    path: str,
    source: DepSource,
    *,
    group: str = "",
    begin: int = 0,
    end: int | None = None,
    offset: int = 0,
) -> tuple[list[Requirement], list[IndexOption], list[Include], list[Problem]]:
    """Requirements and options in ``line.text[begin:end]`` read as one requirements-file line.

    Used for requirements files, conda ``pip:`` items and, with ``source``
    ``PIP_COMMAND``, for the arguments of ``pip install`` on a command line
    (where every word that is not an option is one requirement).
    """
    if isinstance(line, str):
        text = line
        pos = lambda i: offset + i  # noqa: E731
        end_pos = lambda j: offset + j  # noqa: E731
    else:
        text = line.text
        pos, end_pos = line.pos, line.end_pos
    end = len(text) if end is None else end
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    incs: list[Include] = []
    probs: list[Problem] = []
    words = _words(text, begin, end)
    if not words:
        return reqs, idx, incs, probs

    def handle_option(k: int) -> int:
        ws, we, w = words[k]
        opt, eq, val = w.partition("=")
        vs = ve = None
        if opt in _VALUE_OPTIONS:
            if eq:
                vs, ve = ws + len(opt) + 1, we
            elif k + 1 < len(words):
                k += 1
                vs, ve, val = words[k]
            else:
                probs.append(Problem(pos(ws), end_pos(we), f"option {opt} needs a value", w))
                return k + 1
        elif len(opt) > 2 and opt[:2] in ("-r", "-c", "-i", "-f", "-e") and not opt.startswith("--"):
            # pip accepts the short forms glued to their value (``-rbase.txt``).
            vs, ve, val, opt = ws + 2, we, w[2:], opt[:2]
        elif opt in _FLAG_OPTIONS:
            return k + 1
        else:
            probs.append(Problem(pos(ws), end_pos(we), f"unknown pip option {opt}", w))
            return k + 1
        canon = _VALUE_OPTIONS[opt]
        raw_val = text[vs:ve]
        if raw_val[:1] in "\"'" and raw_val[-1:] == raw_val[:1] and len(raw_val) >= 2:
            vs, ve = vs + 1, ve - 1
        if canon in _INDEX_OPTIONS:
            idx.append(IndexOption(canon, val, pos(ws), end_pos(ve), pos(vs), end_pos(ve), source))
        elif canon in ("--requirement", "--constraint"):
            incs.append(Include(canon, val, pos(ws), end_pos(ve), pos(vs), end_pos(ve), resolve_include(path, val)))
        elif canon == "--editable":
            r = parse_requirement(text[vs:ve], source=source, group=group, editable=True,
                                  pos=lambda i: pos(vs + i), end_pos=lambda j: end_pos(vs + j))
            (reqs if isinstance(r, Requirement) else probs).append(r)
        return k + 1

    if source is DepSource.PIP_COMMAND:
        k = 0
        while k < len(words):
            ws, we, w = words[k]
            if w.startswith("-"):
                opt = w.partition("=")[0]
                if opt in _VALUE_OPTIONS or opt in _FLAG_OPTIONS or (len(opt) > 2 and opt[:2] in ("-r", "-c", "-i", "-f", "-e") and not opt.startswith("--")):
                    k = handle_option(k)
                else:
                    # Other pip install flags (-U, --no-cache-dir, --upgrade …) and
                    # their values are not dependencies.
                    k += 1
                continue
            s, e = ws, we
            if text[s] in "\"'" and text[e - 1] == text[s] and e - s >= 2:
                s, e = s + 1, e - 1
            if not re.match(r"[A-Za-z0-9./]", text[s:e] or " ") or "$" in text[s:e]:
                k += 1
                continue
            r = parse_requirement(text[s:e], source=source, group=group,
                                  pos=lambda i, s=s: pos(s + i), end_pos=lambda j, s=s: end_pos(s + j))
            (reqs if isinstance(r, Requirement) else probs).append(r)
            k += 1
        return reqs, idx, incs, probs

    first = words[0]
    if first[2].startswith("-"):
        k = 0
        while k < len(words):
            if words[k][2].startswith("-"):
                k = handle_option(k)
            else:
                ws, we, w = words[k]
                probs.append(Problem(pos(ws), end_pos(we), "value without an option", w))
                k += 1
        return reqs, idx, incs, probs
    # A requirement, possibly followed by per-requirement options (--hash …):
    # they begin at the first word that starts with '-' after whitespace.
    opt_at = end
    for ws, we, w in words[1:]:
        if w.startswith("-") and re.match(r"--?[A-Za-z]", w):
            opt_at = ws
            break
    r = parse_requirement(text[begin:opt_at], source=source, group=group,
                          pos=lambda i: pos(begin + i), end_pos=lambda j: end_pos(begin + j))
    (reqs if isinstance(r, Requirement) else probs).append(r)
    return reqs, idx, incs, probs


def _comment_start(text: str) -> int:
    """Where ``_COMMENT.search(text)`` starts (``len(text)`` when it finds nothing): the blank run
    before the first ``#`` that starts the text or follows a blank, with no line break after it
    but a final one."""
    last = len(text) - 1
    inner_nl = text.rfind("\n", 0, last) if last > 0 else -1  # a "\n" that is not the final character
    i = text.find("#", inner_nl + 1)
    while i != -1:
        if i == 0 or text[i - 1].isspace():
            j = i
            while j > 0 and text[j - 1].isspace():
                j -= 1
            return j
        i = text.find("#", i + 1)
    return len(text)


def parse_requirements_txt(text: str, path: str = "requirements.txt") -> DependencyFile:
    """Requirements, index options and includes of a pip requirements or constraints file."""
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    incs: list[Include] = []
    probs: list[Problem] = []
    for line in logical_lines(text):
        end = _comment_start(line.text)
        if not line.text[:end].strip():
            continue
        r, i, c, p = parse_pip_args(line, path, DepSource.REQUIREMENTS, end=end)
        reqs += r
        idx += i
        incs += c
        probs += p
    return DependencyFile(path, DepSource.REQUIREMENTS, tuple(reqs), tuple(idx), tuple(incs), (), (), tuple(probs))


# ---------------------------------------------------------------------------
# pyproject.toml


@dataclass(frozen=True)
class TomlString:
    """A string value in a TOML file: its key path, raw content and content span."""

    path: tuple[str, ...]
    value: str
    start: int
    end: int
    key_start: int = -1
    key_end: int = -1


_TOML_TOKEN = re.compile(
    r'''
    (?P<ws>[ \t]+)
  | (?P<nl>\r?\n)
  | (?P<comment>\#[^\n]*)
  | (?P<mlbasic>"""(?:[^\\]|\\.)*?"""(?:""?)?)
  | (?P<mllit>\'\'\'.*?\'\'\'\'?\'?)
  | (?P<basic>"(?:[^"\\\n]|\\.)*")
  | (?P<lit>'[^'\n]*')
  | (?P<punct>\[\[|\]\]|[\[\]{}=,.])
  | (?P<bare>[A-Za-z0-9_+:\-]+)
  | (?P<bad>.)
    ''',
    re.VERBOSE | re.DOTALL,
)


#: How deeply :func:`toml_strings` follows nested arrays and inline tables.
_TOML_MAX_DEPTH = 64


def toml_strings(text: str) -> list[TomlString]:
    """Every string value in ``text`` with the key path that leads to it.

    A small tolerant walker over TOML tokens: table headers set the path, keys
    (dotted, quoted) extend it, arrays add nothing, inline tables nest. It
    keeps going after errors (tomllib decides validity), so a broken file still
    yields the strings it can find. Keys are returned unquoted.
    """
    toks = [(m.lastgroup, m.start(), m.end(), m.group()) for m in _TOML_TOKEN.finditer(text)
            if m.lastgroup not in ("ws", "comment")]
    out: list[TomlString] = []
    n = len(toks)
    i = 0
    table: tuple[str, ...] = ()

    def key_text(tok) -> str:
        kind, _, _, t = tok
        return t[1:-1] if kind in ("basic", "lit") else t

    def read_key(i: int) -> tuple[list[str], int, tuple[int, int]]:
        parts: list[str] = []
        last = (-1, -1)
        while i < n and toks[i][0] in ("bare", "basic", "lit"):
            parts.append(key_text(toks[i]))
            last = (toks[i][1] + (1 if toks[i][0] != "bare" else 0), toks[i][2] - (1 if toks[i][0] != "bare" else 0))
            i += 1
            if i < n and toks[i][3] == ".":
                i += 1
                continue
            break
        return parts, i, last

    def skip_nested(i: int) -> int:
        # Past the array or inline table opening at ``i``, without recursion.
        depth = 0
        while i < n:
            t = toks[i][3]
            if t in ("[", "{", "[["):
                depth += len(t)
            elif t in ("]", "}", "]]"):
                depth -= len(t)
                if depth <= 0:
                    return i + 1
            i += 1
        return i

    def value(i: int, path: tuple[str, ...], key_span: tuple[int, int], depth: int = 0) -> int:
        if i >= n:
            return i
        kind, s, e, t = toks[i]
        if depth >= _TOML_MAX_DEPTH and t in ("[", "{"):
            return skip_nested(i)  # no dependency list nests this deep; the recursion would overflow
        if kind in ("basic", "lit"):
            out.append(TomlString(path, t[1:-1], s + 1, e - 1, *key_span))
            return i + 1
        if kind in ("mlbasic", "mllit"):
            body_s = s + 3
            if text.startswith("\n", body_s):
                body_s += 1
            elif text.startswith("\r\n", body_s):
                body_s += 2
            out.append(TomlString(path, text[body_s : e - 3], body_s, e - 3, *key_span))
            return i + 1
        if t == "[":
            i += 1
            while i < n and toks[i][3] != "]":
                if toks[i][0] == "nl" or toks[i][3] == ",":
                    i += 1
                    continue
                j = value(i, path, key_span, depth + 1)
                i = j if j > i else i + 1
            return i + 1
        if t == "{":
            i += 1
            while i < n and toks[i][3] != "}" and toks[i][0] != "nl":
                if toks[i][3] == ",":
                    i += 1
                    continue
                parts, j, kspan = read_key(i)
                if not parts or j >= n or toks[j][3] != "=":
                    i = max(j, i + 1)
                    continue
                i = value(j + 1, path + tuple(parts), kspan, depth + 1)
            return i + 1
        return i + 1  # number, bool, date

    while i < n:
        kind, s, e, t = toks[i]
        if kind == "nl":
            i += 1
            continue
        if t in ("[", "[["):
            close = "]" if t == "[" else "]]"
            parts, j, _ = read_key(i + 1)
            if j < n and toks[j][3] == close:
                table = tuple(parts)
                i = j + 1
            else:
                i = j + 1
            continue
        parts, j, kspan = read_key(i)
        if parts and j < n and toks[j][3] == "=":
            i = value(j + 1, table + tuple(parts), kspan)
            continue
        # Not a key: skip to the end of the line.
        while i < n and toks[i][0] != "nl":
            i += 1
    return out


_POETRY_DEP_TABLES = (("tool", "poetry", "dependencies"), ("tool", "poetry", "dev-dependencies"))
_TOOL_INDEX_KEYS = {"url", "index-url", "extra-index-url", "find-links", "index_url", "extra_index_url"}


def _poetry_group(path: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """``(group, rest)`` when ``path`` is under a Poetry dependency table."""
    for base in _POETRY_DEP_TABLES:
        if path[: len(base)] == base and len(path) > len(base):
            return ("" if base[-1] == "dependencies" else "dev"), path[len(base):]
    if path[:3] == ("tool", "poetry", "group") and len(path) > 5 and path[4] == "dependencies":
        return path[3], path[5:]
    return None


def parse_pyproject(text: str, path: str = "pyproject.toml") -> DependencyFile:
    """Dependencies and index URLs declared in ``pyproject.toml``."""
    import tomllib

    probs: list[Problem] = []
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        probs.append(Problem(0, 0, f"pyproject.toml is not valid TOML ({exc}); dependencies read best-effort"))
    except RecursionError:  # tomllib recurses once per nested array or inline table
        probs.append(Problem(0, 0, "pyproject.toml nests arrays or tables too deeply to parse; dependencies read best-effort"))
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    for s in toml_strings(text):
        p = s.path
        group: str | None = None
        source = DepSource.PYPROJECT
        if p == ("project", "dependencies"):
            group = ""
        elif len(p) == 3 and p[:2] == ("project", "optional-dependencies"):
            group = p[2]
        elif len(p) == 2 and p[0] == "dependency-groups":
            group = p[1]
        elif p == ("build-system", "requires"):
            group = "build-system"
        if group is not None:
            r = parse_requirement(s.value, s.start, source=source, group=group)
            (reqs if isinstance(r, Requirement) else probs).append(r)
            continue
        pg = _poetry_group(p)
        if pg is not None:
            grp, rest = pg
            name = rest[0]
            if name.lower() == "python":
                continue
            if len(rest) == 1 or rest[1:] == ("version",):
                # ``torch = "2.1.0+cu121"`` or ``torch = {version = "…"}``: the
                # name is the key; for the table form the key span is the
                # ``version`` key, so find the name token on its own.
                ks, ke = (s.key_start, s.key_end) if len(rest) == 1 else (s.start, s.start)
                spec = s.value.strip()
                exact = spec if re.fullmatch(r"=?=?\s*[0-9][A-Za-z0-9.+!_-]*", spec) else ""
                reqs.append(Requirement(
                    name, normalize_name(name), s.start, s.end, ks, ke, s.start, s.end, (), spec, "", "",
                    exact.lstrip("= "), local_label(spec), DepSource.POETRY, grp,
                ))
            elif rest[1:] in (("url",), ("git",), ("path",)):
                arch = _archive_name(unquote(s.value.split("#", 1)[0]))
                version = arch[1] if arch and rest[1] == "url" else ""
                reqs.append(Requirement(
                    name, normalize_name(name), s.start, s.end, s.start, s.start, s.start, s.end, (), "", "",
                    s.value, version, local_label(version), DepSource.POETRY, grp,
                ))
            continue
        if p and p[0] == "tool" and p[-1] in _TOOL_INDEX_KEYS and re.match(r"^(?:https?|file)://", s.value):
            idx.append(IndexOption(p[-1], s.value, s.start, s.end, s.start, s.end, DepSource.PYPROJECT))
    return DependencyFile(path, DepSource.PYPROJECT, tuple(reqs), tuple(idx), (), (), (), tuple(probs))


# ---------------------------------------------------------------------------
# setup.cfg


_CFG_SECTION = re.compile(r"^\[([^\]]+)\]\s*$")
# The key keeps its trailing blanks (stripped by the caller): a lazy key followed by \s*
# backtracked quadratically over a long line without "=".
_CFG_KEY = re.compile(r"^([^\s=:][^=:]*)[=:][ \t]*")
_CFG_REQ_KEYS = {"install_requires", "setup_requires", "tests_require"}


def parse_setup_cfg(text: str, path: str = "setup.cfg") -> DependencyFile:
    """``install_requires``/``setup_requires``/``extras_require`` of a ``setup.cfg``."""
    reqs: list[Requirement] = []
    probs: list[Problem] = []
    section = ""
    group: str | None = None
    offset = 0
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        start = offset
        offset += len(raw)
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        sm = _CFG_SECTION.match(line)
        if sm:
            section = sm.group(1).strip()
            group = None
            continue
        if not line[0].isspace():
            km = _CFG_KEY.match(line)
            group = None
            if not km:
                continue
            key = km.group(1).strip()
            if section == "options" and key in _CFG_REQ_KEYS:
                group = "" if key == "install_requires" else key
            elif section == "options.extras_require":
                group = key
            if group is None:
                continue
            value_s = km.end()
        elif group is not None:
            value_s = len(line) - len(line.lstrip())
        else:
            continue
        value = line[value_s:]
        if not value.strip():
            continue
        r = parse_requirement(value, start + value_s, source=DepSource.SETUP_CFG, group=group)
        (reqs if isinstance(r, Requirement) else probs).append(r)
    return DependencyFile(path, DepSource.SETUP_CFG, tuple(reqs), (), (), (), (), tuple(probs))


# ---------------------------------------------------------------------------
# setup.py (read with ast, never executed)


_SETUP_KEYS = {"install_requires": "", "setup_requires": "setup_requires", "tests_require": "tests_require"}


def source_bytes_offsets(text: str) -> list[int]:
    """Line start offsets of ``text`` (1-based line ``k`` starts at ``[k-1]``), for ast positions.

    Python ends a line at ``\r\n``, ``\n`` or a lone ``\r`` (even inside a string or a
    comment), and numbers ast lines so.
    """
    if "\r" in text:
        return [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def parse_python(text: str) -> ast.Module | SyntaxError:
    """``ast`` of a file's latin-1 view, parsed from its bytes so columns are byte offsets.

    Returns the ``SyntaxError`` (or a ``ValueError`` wrapped as one) instead of raising.
    """
    try:
        return ast.parse(encode_source(text))
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return SyntaxError(f"{type(exc).__name__}: {exc}")


def node_span(node: ast.AST, starts: list[int]) -> tuple[int, int] | None:
    """Byte span of ``node`` from its ``lineno``/``col_offset`` (None when it has none)."""
    ln = getattr(node, "lineno", None)
    eln = getattr(node, "end_lineno", None)
    if ln is None or eln is None or ln > len(starts) or eln > len(starts):
        return None
    return starts[ln - 1] + node.col_offset, starts[eln - 1] + node.end_col_offset


def string_content_span(text: str, span: tuple[int, int]) -> tuple[int, int] | None:
    """Span of a single string literal's content (quotes and prefix removed), or None."""
    s, e = span
    lit = text[s:e]
    m = re.match(r"(?i)[rbuf]{0,2}('''|\"\"\"|'|\")", lit)
    if not m:
        return None
    q = m.group(1)
    if not lit.endswith(q) or len(lit) < m.end() + len(q):
        return None
    return s + m.end(), e - len(q)


def _string_items(node: ast.AST, names: dict[str, ast.AST], depth: int = 0) -> list[ast.Constant]:
    """String constants of a list/tuple expression, following simple names and ``+``."""
    if depth > 8:
        return []
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.Name) and node.id in names:
        return _string_items(names[node.id], names, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string_items(node.left, names, depth + 1) + _string_items(node.right, names, depth + 1)
    return []


def _module_assignments(tree: ast.Module) -> dict[str, ast.AST]:
    names: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            names[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            names[stmt.target.id] = stmt.value
    return names


def call_name(node: ast.AST) -> str:
    """Dotted name of a call's function (``setuptools.setup``), ``""`` when not a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def parse_setup_py(text: str, path: str = "setup.py") -> DependencyFile:
    """``install_requires``/``extras_require``/``setup_requires`` of a ``setup.py``.

    The file is parsed with :mod:`ast` and never executed. Literal lists, simple
    module-level names and ``+`` of those are followed; anything computed
    (``open('requirements.txt').read()``) is out of reach and not reported.
    When the file does not parse, the lists are read by pattern and a
    :class:`Problem` says so.
    """
    tree = parse_python(text)
    if isinstance(tree, SyntaxError):
        reqs, probs = _setup_py_by_pattern(text)
        line = tree.lineno or 0
        starts = source_bytes_offsets(text)
        at = starts[line - 1] if 0 < line <= len(starts) else 0
        probs.insert(0, Problem(at, at, f"setup.py does not parse ({tree.msg}, line {line}); "
                                       "dependency lists read by pattern", ""))
        return DependencyFile(path, DepSource.SETUP_PY, tuple(reqs), (), (), (), (), tuple(probs))
    starts = source_bytes_offsets(text)
    names = _module_assignments(tree)
    reqs: list[Requirement] = []
    probs: list[Problem] = []

    def add(const: ast.Constant, group: str) -> None:
        sp = node_span(const, starts)
        content = string_content_span(text, sp) if sp else None
        if content is None:
            return
        r = parse_requirement(text[content[0] : content[1]], content[0], source=DepSource.SETUP_PY, group=group)
        (reqs if isinstance(r, Requirement) else probs).append(r)

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or call_name(node.func).rsplit(".", 1)[-1] != "setup":
            continue
        for kw in node.keywords:
            if kw.arg in _SETUP_KEYS:
                for c in _string_items(kw.value, names):
                    add(c, _SETUP_KEYS[kw.arg])
            elif kw.arg == "extras_require":
                value = kw.value
                if isinstance(value, ast.Name) and value.id in names:
                    value = names[value.id]
                if isinstance(value, ast.Dict):
                    for k, v in zip(value.keys, value.values):
                        if isinstance(k, ast.Constant) and isinstance(k.value, str):
                            for c in _string_items(v, names):
                                add(c, k.value)
    reqs.sort(key=lambda r: r.start)
    return DependencyFile(path, DepSource.SETUP_PY, tuple(reqs), (), (), (), (), tuple(probs))


_PY_STRING = re.compile(r"""(?P<q>'''|\"\"\"|'|")(?P<body>(?:\\.|(?!(?P=q)).)*?)(?P=q)""", re.S)
_SETUP_KW = re.compile(r"\b(install_requires|setup_requires|tests_require|extras_require)\s*=\s*([\[({])")


def _setup_py_by_pattern(text: str) -> tuple[list[Requirement], list[Problem]]:
    """Requirement strings inside ``install_requires=[…]``-style brackets, for unparsable files."""
    reqs: list[Requirement] = []
    probs: list[Problem] = []
    pairs = {"[": "]", "(": ")", "{": "}"}
    for m in _SETUP_KW.finditer(text):
        kw = m.group(1)
        i = m.end()
        stack = [pairs[m.group(2)]]
        key = ""
        limit = min(len(text), i + 200_000)
        while i < limit and stack:
            ch = text[i]
            if ch in "'\"":
                sm = _PY_STRING.match(text, i)
                if not sm:
                    break
                s, e = sm.start("body"), sm.end("body")
                after = text[sm.end() : sm.end() + 40].lstrip()
                if kw == "extras_require" and after.startswith(":") and len(stack) == 1:
                    key = sm.group("body")
                else:
                    group = key if kw == "extras_require" else _SETUP_KEYS.get(kw, "")
                    r = parse_requirement(text[s:e], s, source=DepSource.SETUP_PY, group=group)
                    (reqs if isinstance(r, Requirement) else probs).append(r)
                i = sm.end()
                continue
            if ch == "#":
                nl = text.find("\n", i)
                i = len(text) if nl == -1 else nl
                continue
            if ch in pairs:
                stack.append(pairs[ch])
            elif stack and ch == stack[-1]:
                stack.pop()
            i += 1
    return reqs, probs


# ---------------------------------------------------------------------------
# conda environment.yml


# Values keep their trailing blanks (the caller strips them): ".*?" before "[ \t]*$"
# backtracked quadratically over a long blank run inside a line.
_YAML_ITEM = re.compile(r"^(?P<indent>[ \t]*)-[ \t]+(?P<value>.*)$")
_YAML_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:[ \t]*(?P<value>.*)$")
_CONDA_SPEC = re.compile(r"^(?:(?P<chan>[^\s:]+)::)?(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*)(?P<spec>.*)$")


def _yaml_comment_strip(line: str) -> str:
    """``line`` without a trailing ``# comment`` (a ``#`` at the start or after whitespace)."""
    m = re.search(r"(?:^|[ \t])#", line)
    return line[: m.start()] if m else line


def parse_conda_env(text: str, path: str = "environment.yml") -> DependencyFile:
    """Channels, conda dependencies and ``pip:`` requirements of a conda environment file.

    Read line by line so every item keeps its span (block lists and one-line
    ``[a, b]`` flow lists); PyYAML only checks that the file is valid YAML.
    """
    import yaml

    probs: list[Problem] = []
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as exc:
        probs.append(Problem(0, 0, f"not valid YAML ({str(exc).splitlines()[0]}); read best-effort"))
    except RecursionError:  # PyYAML composes nested flow collections recursively
        probs.append(Problem(0, 0, "nests lists or mappings too deeply to parse as YAML; read best-effort"))
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    incs: list[Include] = []
    chans: list[CondaChannel] = []
    conda: list[CondaSpec] = []
    section = ""
    pip_indent: int | None = None
    offset = 0
    for raw in text.splitlines(keepends=True):
        line_start = offset
        offset += len(raw)
        line = _yaml_comment_strip(raw.rstrip("\r\n"))
        if not line.strip():
            continue
        km = _YAML_KEY.match(line)
        if km:
            section = km.group("key")
            pip_indent = None
            flow = km.group("value").rstrip(" \t")
            if flow.startswith("[") and flow.endswith("]"):
                base = line_start + km.start("value") + 1
                for m in re.finditer(r"[^,\s\[\]][^,\[\]]*", flow[1:-1]):
                    item = m.group(0).rstrip()
                    _conda_item(section, item, base + m.start(), chans, conda)
            continue
        im = _YAML_ITEM.match(line)
        if not im:
            continue
        indent = len(im.group("indent"))
        value = im.group("value").rstrip(" \t")
        vstart = line_start + im.start("value")
        if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
            value, vstart = value[1:-1], vstart + 1
        if section == "dependencies" and pip_indent is not None and indent > pip_indent:
            ll = LogicalLine(value, ((0, vstart),), vstart, vstart + len(value))
            r, i, c, p = parse_pip_args(ll, path, DepSource.CONDA_PIP, group="pip")
            reqs += r
            idx += i
            incs += c
            probs += p
            continue
        pip_indent = None
        if section == "dependencies" and re.fullmatch(r"pip[ \t]*:", value):
            pip_indent = indent
            continue
        _conda_item(section, value, vstart, chans, conda)
    return DependencyFile(path, DepSource.CONDA, tuple(reqs), tuple(idx), tuple(incs), tuple(chans),
                          tuple(conda), tuple(probs))


def _conda_item(section: str, item: str, start: int, chans: list, conda: list) -> None:
    if section == "channels":
        chans.append(CondaChannel(item, start, start + len(item)))
    elif section == "dependencies":
        m = _CONDA_SPEC.match(item)
        if not m:
            return
        chan = m.group("chan") or ""
        if chan:
            chans.append(CondaChannel(chan, start, start + len(chan)))
        name = m.group("name")
        conda.append(CondaSpec(name, normalize_name(name), start, start + len(item), start + m.start("name"),
                               start + m.end("name"), m.group("spec").strip(), chan))


# ---------------------------------------------------------------------------
# Dispatch


def parse_dependency_file(path: str, text: str, kind: str) -> DependencyFile:
    """The parser for ``kind`` (a :class:`vado.scan.classify.FileKind` value) applied to ``text``."""
    parsers = {
        "requirements": parse_requirements_txt,
        "pyproject": parse_pyproject,
        "setup-cfg": parse_setup_cfg,
        "setup-py": parse_setup_py,
        "conda-env": parse_conda_env,
    }
    parser = parsers.get(str(getattr(kind, "value", kind)))
    if parser is None:
        return DependencyFile(path, DepSource.REQUIREMENTS, problems=(Problem(0, 0, f"no dependency parser for {kind}"),))
    return parser(text, path)


# ---------------------------------------------------------------------------
# Python imports


_RAW_KERNEL_CALLS = {"RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel"}
_ASM = re.compile(r"\basm\s*(?:volatile\s*)?\(\s*\"([^\"]*)\"")
_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>[A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?(?P<names>[\w, \t]+)"
    r"|import[ \t]+(?P<mods>[A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?)*))",
    re.M,
)


def scan_python_imports(text: str, path: str = "") -> PythonFacts:
    """Absolute imports and CuPy raw-kernel strings of a Python file.

    Parsed with :mod:`ast` from the file's bytes; a file that does not parse is
    read by pattern (imports only, ``approximate=True``) and a :class:`Problem`
    records the syntax error.
    """
    tree = parse_python(text)
    if isinstance(tree, SyntaxError):
        starts = source_bytes_offsets(text)
        line = tree.lineno or 0
        at = starts[line - 1] if 0 < line <= len(starts) else 0
        return PythonFacts(path, tuple(_imports_by_pattern(text)), (),
                           (Problem(at, at, f"does not parse ({tree.msg}, line {line}); imports read by pattern"),))
    starts = source_bytes_offsets(text)
    imports: list[PyImport] = []
    kernels: list[RawKernel] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            st = node_span(node, starts)
            if st is None:
                continue
            for alias in node.names:
                sp = node_span(alias, starts)
                s = sp[0] if sp else st[0]
                imports.append(PyImport(alias.name, s, s + len(alias.name), *st))
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                continue
            st = node_span(node, starts)
            if st is None:
                continue
            mod_at = text.find(node.module.split(".")[0], st[0], st[1])
            mod_at = st[0] if mod_at == -1 else mod_at
            for alias in node.names:
                sp = node_span(alias, starts)
                if alias.name == "*" or sp is None:
                    imports.append(PyImport(node.module, mod_at, mod_at + len(node.module), *st))
                else:
                    imports.append(PyImport(f"{node.module}.{alias.name}", mod_at, sp[0] + len(alias.name), *st))
        elif isinstance(node, ast.Call):
            name = call_name(node.func)
            if name.rsplit(".", 1)[-1] not in _RAW_KERNEL_CALLS:
                continue
            code = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "code"), None)
            if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
                continue
            sp = node_span(code, starts)
            if sp is None:
                continue
            ptx = tuple(m.group(1) for m in _ASM.finditer(code.value))
            kernels.append(RawKernel(name, sp[0], sp[1], ptx))
    imports.sort(key=lambda i: (i.start, i.end, i.module))
    kernels.sort(key=lambda k: k.start)
    return PythonFacts(path, tuple(imports), tuple(kernels), ())


def _imports_by_pattern(text: str) -> list[PyImport]:
    out: list[PyImport] = []
    for m in _IMPORT_LINE.finditer(text):
        st = (m.start(), m.end())
        if m.group("from"):
            base = m.group("from")
            if base.startswith("."):
                continue
            for nm in re.finditer(r"[A-Za-z_]\w*", m.group("names")):
                if nm.group(0) == "as":
                    continue
                out.append(PyImport(f"{base}.{nm.group(0)}", m.start("from"), m.start("names") + nm.end(), *st, True))
        else:
            for mm in re.finditer(r"([A-Za-z_][\w.]*)(?:[ \t]+as[ \t]+\w+)?", m.group("mods")):
                s = m.start("mods") + mm.start(1)
                out.append(PyImport(mm.group(1), s, s + len(mm.group(1)), *st, True))
    return out


__all__ = [
    "CondaChannel",
    "CondaSpec",
    "DepSource",
    "DependencyFile",
    "Include",
    "IndexOption",
    "LogicalLine",
    "Problem",
    "PyImport",
    "PythonFacts",
    "RawKernel",
    "Requirement",
    "TomlString",
    "cuda_local",
    "local_label",
    "logical_lines",
    "normalize_name",
    "parse_conda_env",
    "parse_dependency_file",
    "parse_pip_args",
    "parse_pyproject",
    "parse_requirement",
    "parse_requirements_txt",
    "parse_setup_cfg",
    "parse_setup_py",
    "resolve_include",
    "scan_python_imports",
    "toml_strings",
]
