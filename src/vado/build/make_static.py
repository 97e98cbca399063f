"""Reading a Make build without running make: the commands ``make -n -B`` would print for a Makefile's default
goal, worked out from the text (:func:`read_makefiles`), for the modes that execute nothing (``compile-db``).

A Makefile is read as make reads it, for the plain constructs: variables of each flavour (``=`` expanded on use,
``:=``/``::=`` at once, ``+=``, ``?=``; an undefined name is the environment's value or empty, as make takes it),
``ifeq``/``ifneq``/``ifdef``/``ifndef`` decided with those values (one branch, never the union of all), ``include``
of a file in the tree, explicit and pattern rules with their recipes (``$@``, ``$<``, ``$^``, ``$*``), the functions
``wildcard``, ``patsubst``, ``subst``, ``addprefix``, ``addsuffix``, ``notdir``, ``dir``, ``basename``, ``suffix``,
``filter``, ``filter-out``, ``sort``, ``strip``, ``firstword``, ``words``, ``word``, ``foreach``, ``if`` and
substitution references (``$(SRCS:.cu=.o)``), and recursive makes (``$(MAKE) -C dir``, ``cd dir && $(MAKE)``).
What needs make itself to run (``$(shell …)``, ``$(eval …)``, a function not listed) is not run: the Makefile is
then not read, and the notes say why, so the caller keeps what it had rather than a wrong command.

The result is the text ``make -n -w`` prints, for :func:`vado.build.make.parse_dry_run`: one parser of compile
commands for both ways of reading a Make build. Bounded: at most :data:`MAX_STEPS` expansions and
:data:`MAX_DEPTH` nested makes or goals.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from vado.build.model import BuildConfig

MAX_STEPS = 200_000
MAX_DEPTH = 24
_MAX_TEXT = 4 << 20

_ASSIGN = re.compile(r"^(?:(export|override)\s+)?([A-Za-z_][\w.-]*)\s*(\?=|:::?=|::=|:=|\+=|!=|=)(.*)$")
_RULE = re.compile(r"^([^:=#\t][^:=]*?)\s*(::?)(?!=)\s*(.*)$")
_CONDITIONAL = re.compile(r"^(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)$")
_MAKE_WORDS = {"make", "gmake", "$(MAKE)", "${MAKE}"}


class Unreadable(Exception):
    """Something in the Makefile needs make itself (``$(shell …)``, ``$(eval …)``): it is not read."""


@dataclass
class _Rule:
    targets: list[str]
    prereqs: list[str]
    recipe: list[str] = field(default_factory=list)
    pattern: bool = False


class _Makefile:
    """One Makefile read in its directory: its variables, rules and default goal."""

    def __init__(self, path: Path, files: frozenset[str], env: Mapping[str, str], overrides: Mapping[str, str]):
        self.path = path
        self.dir = path.parent
        self.files = files
        self.env = env
        self.vars: dict[str, tuple[str, bool]] = {}  # name -> (value, recursive)
        for k, v in overrides.items():
            self.vars[k] = (v, False)
        self.overrides = set(overrides)
        self.rules: list[_Rule] = []
        self.explicit: dict[str, _Rule] = {}
        self.default = ""
        self.steps = 0
        self.vars.setdefault("MAKE", ("make", False))
        self.vars["CURDIR"] = (str(self.dir), False)

    # ---------------------------------------------------------------- expansion
    def value(self, name: str) -> str:
        got = self.vars.get(name)
        if got is None:
            return self.env.get(name, "")
        v, recursive = got
        return self.expand(v) if recursive else v

    def expand(self, text: str, auto: Mapping[str, str] | None = None) -> str:
        """``text`` with every ``$(…)``, ``${…}`` and ``$x`` reference expanded."""
        if "$" not in text:
            return text
        out: list[str] = []
        i, n = 0, len(text)
        while i < n:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise Unreadable("too many expansions")
            c = text[i]
            if c != "$" or i + 1 >= n:
                out.append(c)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt in "({":
                close = ")" if nxt == "(" else "}"
                j, depth = i + 2, 1
                while j < n and depth:
                    if text[j] == nxt:
                        depth += 1
                    elif text[j] == close:
                        depth -= 1
                    j += 1
                if depth:
                    raise Unreadable("an unclosed variable reference")
                out.append(self._reference(text[i + 2:j - 1], auto))
                i = j
                continue
            out.append(self._reference(nxt, auto))
            i += 2
        return "".join(out)

    def _reference(self, inner: str, auto: Mapping[str, str] | None) -> str:
        if auto is not None and inner in ("@", "<", "^", "*", "+", "?"):
            return auto.get(inner, "")
        if auto is not None and len(inner) == 2 and inner[0] in "@<^*" and inner[1] in "DF":
            v = auto.get(inner[0], "")
            return " ".join((os.path.dirname(w) or ".") if inner[1] == "D" else os.path.basename(w) for w in v.split())
        m = re.match(r"([a-z-]+)[ \t]+(.*)$", inner, re.S)
        if m and m.group(1) in _FUNCTIONS:
            return _FUNCTIONS[m.group(1)](self, _split_args(m.group(2), _ARITY.get(m.group(1), 1)), auto)
        if m and m.group(1) in ("shell", "eval", "call", "value", "origin", "file", "guile", "error", "info",
                                "warning", "flavor", "let", "intcmp", "realpath", "abspath", "join", "or", "and"):
            raise Unreadable(f"$({m.group(1)} …)")
        name = self.expand(inner, auto)
        sub = re.match(r"^([^:]+):([^=]*)=(.*)$", name)
        if sub:  # $(VAR:.cu=.o)
            a, b = sub.group(2), sub.group(3)
            pa, pb = (a, b) if "%" in a else ("%" + a, "%" + b)
            return " ".join(_patsubst(pa, pb, w) for w in self.value(sub.group(1)).split())
        return self.value(name)

    # ---------------------------------------------------------------- reading
    def read(self, path: Path, depth: int = 0) -> None:
        from vado.scan.reading import read_regular

        if depth > MAX_DEPTH:
            raise Unreadable("includes nest too deep")
        text = read_regular(path, _MAX_TEXT).decode("latin-1")
        lines = _logical_lines(text)
        stack: list[tuple[bool, bool]] = []  # (this branch taken, an earlier branch taken)
        rule: _Rule | None = None
        for line in lines:
            if line.startswith("\t") and rule is not None:
                if all(s[0] for s in stack):
                    rule.recipe.append(line[1:])
                continue
            stripped = _uncomment(line).strip()
            if not stripped:
                continue
            word = stripped.split(None, 1)[0]
            cm = _CONDITIONAL.match(stripped)
            if cm:
                live = all(s[0] for s in stack)
                held = self._condition(cm.group(1), cm.group(2)) if live else False
                stack.append((held, held))
                continue
            if word == "else":
                if not stack:
                    raise Unreadable("else without if")
                _taken, earlier = stack.pop()
                outer = all(s[0] for s in stack)
                cm = _CONDITIONAL.match(stripped[4:].strip())
                if cm:  # else ifeq (…): tried only where no earlier branch was taken
                    held = self._condition(cm.group(1), cm.group(2)) if outer and not earlier else False
                    stack.append((held, earlier or held))
                else:
                    stack.append((outer and not earlier, True))
                continue
            if word == "endif":
                if stack:
                    stack.pop()
                continue
            if not all(s[0] for s in stack):
                continue
            if word in ("include", "-include", "sinclude"):
                for name in self.expand(stripped.split(None, 1)[1] if " " in stripped else "").split():
                    p = (self.dir / name).resolve()
                    if str(p) in self.files:
                        self.read(p, depth + 1)
                    elif word == "include":
                        raise Unreadable(f"include {name}: not a file of the tree")
                rule = None
                continue
            if word in ("define", "endef"):
                raise Unreadable("a multi-line define")
            if word in ("export", "unexport", "vpath", ".PHONY") and not _ASSIGN.match(stripped):
                rule = None
                continue
            am = _ASSIGN.match(stripped)
            if am:
                self._assign(am.group(2), am.group(3), am.group(4).strip())
                rule = None
                continue
            rm = _RULE.match(stripped)
            if rm:
                rule = self._rule(rm.group(1), rm.group(3))
                continue
            if "$(" in stripped or "${" in stripped:
                raise Unreadable(f"a line make evaluates itself: {stripped[:60]}")
        if stack:
            raise Unreadable("an unclosed conditional")

    def _assign(self, name: str, op: str, raw: str) -> None:
        name = self.expand(name)
        if name in self.overrides:
            return
        if op == "!=":
            raise Unreadable(f"{name} != runs a shell command")
        if op in (":=", "::=", ":::="):
            self.vars[name] = (self.expand(raw), False)
        elif op == "?=":
            if name not in self.vars and name not in self.env:
                self.vars[name] = (raw, True)
        elif op == "+=":
            old = self.vars.get(name)
            if old is None:
                self.vars[name] = (raw, True)
            elif old[1]:
                self.vars[name] = ((old[0] + " " + raw).strip(), True)
            else:
                self.vars[name] = ((old[0] + " " + self.expand(raw)).strip(), False)
        else:
            self.vars[name] = (raw, True)

    def _rule(self, targets: str, rest: str) -> _Rule:
        recipe_inline = ""
        if ";" in rest:
            rest, recipe_inline = rest.split(";", 1)
        names = self.expand(targets).split()
        prereqs = self.expand(rest.split("|", 1)[0]).split()
        if ":" in rest:
            raise Unreadable("a static pattern rule")
        r = _Rule(names, prereqs, [recipe_inline.strip()] if recipe_inline.strip() else [],
                  pattern=any("%" in t for t in names))
        self.rules.append(r)
        for t in names:
            if not r.pattern:
                old = self.explicit.get(t)
                if old is not None and not r.recipe and old.recipe:
                    old.prereqs.extend(prereqs)  # a prerequisite line without a recipe adds to the rule
                    continue
                if old is not None and old.recipe and not r.recipe:
                    continue
                if old is not None and not old.recipe:
                    r.prereqs = old.prereqs + r.prereqs
                self.explicit[t] = r
            if not self.default and not r.pattern and not t.startswith("."):
                self.default = t
        return r

    def _condition(self, kind: str, arg: str) -> bool:
        arg = _uncomment(arg).strip()
        if kind in ("ifdef", "ifndef"):
            name = self.expand(arg).strip()
            got = self.vars.get(name)
            defined = bool(self.expand(got[0]) if got and got[1] else (got[0] if got else self.env.get(name, "")))
            return defined if kind == "ifdef" else not defined
        a, b = _two_args(arg)
        same = self.expand(a).strip() == self.expand(b).strip()
        return same if kind == "ifeq" else not same


def _logical_lines(text: str) -> list[str]:
    out, cur = [], ""
    for raw in text.splitlines():
        if raw.endswith("\\") and not raw.endswith("\\\\"):
            cur += raw[:-1].rstrip() + " " if not raw.startswith("\t") or not cur else raw[:-1] + " "
            continue
        out.append(cur + raw if cur else raw)
        cur = ""
    if cur:
        out.append(cur)
    return out


def _uncomment(line: str) -> str:
    i = 0
    while True:
        j = line.find("#", i)
        if j < 0:
            return line
        if j > 0 and line[j - 1] == "\\":
            i = j + 1
            continue
        return line[:j]


def _two_args(arg: str) -> tuple[str, str]:
    arg = arg.strip()
    if arg.startswith("(") and arg.endswith(")"):
        parts = _split_args(arg[1:-1])
        if len(parts) == 2:
            return parts[0], parts[1]
    m = re.match(r"""^(["'])(.*?)\1\s+(["'])(.*?)\3$""", arg)
    if m:
        return m.group(2), m.group(4)
    raise Unreadable(f"a condition vado cannot read: {arg[:60]}")


def _split_args(text: str, most: int = 0) -> list[str]:
    """A function's arguments, split at the commas outside parentheses; with ``most``, the last of that many
    arguments keeps the rest of the text, commas included (``$(foreach a,$(L),x,y)``: the body is ``x,y``)."""
    from vado.model.text import split_text_args

    return split_text_args(text, "(){}", most)


def _patsubst(pattern: str, replacement: str, word: str) -> str:
    if "%" not in pattern:
        return replacement if word == pattern else word
    head, _, tail = pattern.partition("%")
    if word.startswith(head) and word.endswith(tail) and len(word) >= len(head) + len(tail):
        stem = word[len(head):len(word) - len(tail)]
        return replacement.replace("%", stem, 1) if "%" in replacement else replacement
    return word


def _words(mk: _Makefile, arg: str, auto) -> list[str]:
    return mk.expand(arg, auto).split()


def _wildcard(mk: _Makefile, args, auto) -> str:
    out = []
    for pat in _words(mk, args[0], auto):
        full = os.path.normpath(os.path.join(str(mk.dir), pat))
        hits = sorted(f for f in mk.files if fnmatch.fnmatchcase(f, full) and f.count("/") == full.count("/"))
        out += [os.path.relpath(h, str(mk.dir)) if not os.path.isabs(pat) else h for h in hits]
    return " ".join(out)


def _fn_patsubst(mk, args, auto):
    if len(args) != 3:
        raise Unreadable("patsubst takes three arguments")
    a, b = mk.expand(args[0], auto).strip(), mk.expand(args[1], auto).strip()
    return " ".join(_patsubst(a, b, w) for w in _words(mk, args[2], auto))


def _fn_filter(keep: bool):
    def run(mk, args, auto):
        pats = _words(mk, args[0], auto)
        hit = lambda w: any(_patsubst(p, "\0", w) == "\0" or w == p for p in pats)  # noqa: E731
        return " ".join(w for w in _words(mk, args[1], auto) if hit(w) == keep)
    return run


def _fn_foreach(mk, args, auto):
    if len(args) != 3:
        raise Unreadable("foreach takes three arguments")
    name = mk.expand(args[0], auto).strip()
    saved = mk.vars.get(name)
    out = []
    for w in _words(mk, args[1], auto):
        mk.vars[name] = (w, False)
        out.append(mk.expand(args[2], auto))
    if saved is None:
        mk.vars.pop(name, None)
    else:
        mk.vars[name] = saved
    return " ".join(x for x in out if x)


def _fn_if(mk, args, auto):
    cond = mk.expand(args[0], auto).strip()
    if cond:
        return mk.expand(args[1], auto) if len(args) > 1 else ""
    return mk.expand(args[2], auto) if len(args) > 2 else ""


#: How many arguments each function takes (the last keeps any further commas); one where not listed.
_ARITY = {"patsubst": 3, "subst": 3, "foreach": 3, "if": 3, "addprefix": 2, "addsuffix": 2, "filter": 2,
          "filter-out": 2, "word": 2}

_FUNCTIONS = {
    "wildcard": _wildcard,
    "patsubst": _fn_patsubst,
    "subst": lambda mk, a, au: mk.expand(a[2] if len(a) > 2 else "", au).replace(mk.expand(a[0], au), mk.expand(a[1], au)),
    "addprefix": lambda mk, a, au: " ".join(mk.expand(a[0], au).strip() + w for w in _words(mk, a[1], au)),
    "addsuffix": lambda mk, a, au: " ".join(w + mk.expand(a[0], au).strip() for w in _words(mk, a[1], au)),
    "notdir": lambda mk, a, au: " ".join(os.path.basename(w) for w in _words(mk, a[0], au)),
    "dir": lambda mk, a, au: " ".join((os.path.dirname(w) or ".") + "/" for w in _words(mk, a[0], au)),
    "basename": lambda mk, a, au: " ".join(os.path.splitext(w)[0] for w in _words(mk, a[0], au)),
    "suffix": lambda mk, a, au: " ".join(os.path.splitext(w)[1] for w in _words(mk, a[0], au) if os.path.splitext(w)[1]),
    "filter": _fn_filter(True),
    "filter-out": _fn_filter(False),
    "sort": lambda mk, a, au: " ".join(sorted(set(_words(mk, a[0], au)))),
    "strip": lambda mk, a, au: " ".join(_words(mk, a[0], au)),
    "firstword": lambda mk, a, au: (_words(mk, a[0], au) or [""])[0],
    "lastword": lambda mk, a, au: (_words(mk, a[0], au) or [""])[-1],
    "words": lambda mk, a, au: str(len(_words(mk, a[0], au))),
    "word": lambda mk, a, au: (lambda n, ws: ws[n - 1] if 0 < n <= len(ws) else "")(
        int(mk.expand(a[0], au).strip() or 0), _words(mk, a[1], au)),
    "foreach": _fn_foreach,
    "if": _fn_if,
}


class _Run:
    """Works out what ``make -n -B -w`` prints for a goal: recipes of every rule on the way, sub-makes entered."""

    def __init__(self, files: frozenset[str], env: Mapping[str, str], overrides: Mapping[str, str]):
        self.files, self.env, self.overrides = files, env, overrides
        self.out: list[str] = []
        self.read: list[str] = []
        self._by_dir: dict[str, list[str]] | None = None  # directory → names of the tree's files in it

    def make(self, directory: Path, goals: list[str], depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise Unreadable("sub-makes nest too deep")
        path = next((directory / n for n in ("GNUmakefile", "makefile", "Makefile")
                     if str(directory / n) in self.files), None)
        if path is None:
            return
        mk = _Makefile(path, self.files, self.env, self.overrides)
        mk.read(path)
        self.read.append(str(path))
        self.out.append(f"make[{depth}]: Entering directory '{directory}'")
        done: set[str] = set()
        for g in goals or [mk.default]:
            if g:
                self._build(mk, g, done, depth, 0)
        self.out.append(f"make[{depth}]: Leaving directory '{directory}'")

    def _build(self, mk: _Makefile, target: str, done: set[str], depth: int, level: int) -> None:
        if target in done or level > 200:
            return
        done.add(target)
        rule = mk.explicit.get(target)
        auto: dict[str, str] = {"@": target}
        if rule is not None and rule.recipe:
            prereqs = self._globbed(mk, rule.prereqs)
            for p in prereqs:
                self._build(mk, p, done, depth, level + 1)
            auto.update({"<": prereqs[0] if prereqs else "", "^": " ".join(dict.fromkeys(prereqs)),
                         "+": " ".join(prereqs), "?": " ".join(prereqs), "*": ""})
            self._recipe(mk, rule.recipe, auto, depth)
            return
        extra = rule.prereqs if rule is not None else []
        for p in extra:
            self._build(mk, p, done, depth, level + 1)
        for r in mk.rules:
            if not r.pattern or not r.recipe:
                continue
            for t in r.targets:
                stem = _stem(t, target)
                if stem is None:
                    continue
                prereqs = self._globbed(mk, [p.replace("%", stem) for p in r.prereqs])
                if all(str((mk.dir / p).resolve()) in self.files or p in mk.explicit for p in prereqs):
                    for p in prereqs:
                        self._build(mk, p, done, depth, level + 1)
                    allp = prereqs + extra
                    auto.update({"<": prereqs[0] if prereqs else "", "^": " ".join(dict.fromkeys(allp)),
                                 "+": " ".join(allp), "?": " ".join(allp), "*": stem})
                    self._recipe(mk, r.recipe, auto, depth)
                    return
        if rule is not None and not rule.recipe and extra:
            return

    def _globbed(self, mk: _Makefile, prereqs: list[str]) -> list[str]:
        """Prerequisites with make's wildcard expansion of file names (``%.o: %.cu *.h *.cuh Makefile``,
        HeCBench's Makefiles): a word with ``*``, ``?`` or ``[`` becomes the tree's files it matches, sorted; a
        word that matches none stays as written (make keeps it, and then has no such file)."""
        if not any(c in p for p in prereqs for c in "*?["):
            return prereqs
        out: list[str] = []
        for p in prereqs:
            if not any(c in p for c in "*?["):
                out.append(p)
                continue
            head, _, name = p.rpartition("/")
            names = self._names_in((mk.dir / head).resolve() if head else mk.dir.resolve())
            hits = sorted(n for n in names if fnmatch.fnmatchcase(n, name) and not (n.startswith(".") and
                                                                                  not name.startswith(".")))
            if hits:
                out.extend(f"{head}/{n}" if head else n for n in hits)
            else:
                out.append(p)
        return out

    def _names_in(self, directory: Path) -> list[str]:
        """The names of the tree's files directly in ``directory`` (from the walk's list)."""
        index = self._by_dir
        if index is None:
            index = self._by_dir = {}
            for f in self.files:
                d, _, n = f.rpartition(os.sep)
                index.setdefault(d, []).append(n)
        return index.get(str(directory), [])

    def _recipe(self, mk: _Makefile, recipe: list[str], auto: Mapping[str, str], depth: int) -> None:
        for raw in recipe:
            line = mk.expand(raw, auto).strip()
            while line[:1] in ("@", "-", "+"):
                line = line[1:].lstrip()
            if not line:
                continue
            self.out.append(line)
            sub = _sub_make(line, mk.dir)
            if sub is not None:
                d, goals = sub
                self.make(d, goals, depth + 1)


def _stem(pattern: str, target: str) -> str | None:
    head, _, tail = pattern.partition("%")
    if target.startswith(head) and target.endswith(tail) and len(target) >= len(head) + len(tail):
        return target[len(head):len(target) - len(tail)]
    return None


def _sub_make(line: str, here: Path) -> tuple[Path, list[str]] | None:
    """The directory and goals of a recursive make on a recipe line (``make -C dir goal``, ``cd dir && make``)."""
    from vado.build.make import shell_commands

    cwd = here
    for words in shell_commands(line):
        if words[0] == "cd" and len(words) > 1:
            cwd = (cwd / words[1]).resolve()
            continue
        if os.path.basename(words[0]) in _MAKE_WORDS:
            d, goals, i = cwd, [], 1
            while i < len(words):
                w = words[i]
                if w == "-C" and i + 1 < len(words):
                    d = (d / words[i + 1]).resolve()
                    i += 2
                    continue
                if w.startswith("-C") and len(w) > 2:
                    d = (d / w[2:]).resolve()
                elif not w.startswith("-") and "=" not in w:
                    goals.append(w)
                i += 1
            return d, goals
    return None


def _origin(unit, root: Path, rel: str):
    """``unit`` with the Makefile that compiles it as its origin (``src/ge-spmm/Makefile``): the one in the
    directory its command runs in."""
    from dataclasses import replace

    here = Path(unit.directory)
    mk = next((here / n for n in ("GNUmakefile", "makefile", "Makefile") if (here / n).is_file()), None)
    if mk is None:
        return unit
    try:
        return replace(unit, origin=mk.resolve().relative_to(root).as_posix())
    except ValueError:
        return unit


def read_makefiles(root: str | os.PathLike, files: frozenset[str] | None = None,
                   env: Mapping[str, str] | None = None, variables: Mapping[str, str] | None = None,
                   max_makefiles: int = 200) -> BuildConfig:
    """The compile units of the default goals of the tree's Makefiles, read without running make: the root's and
    every other Makefile whose directory no earlier reading entered (as :func:`vado.build.make.dry_run` does).
    ``files``: the absolute paths of the tree's files (a walk's); ``env``: the environment make would see."""
    from vado.build.make import makefile_dirs, parse_dry_run

    root_p = Path(root).resolve()
    if files is None:
        from vado.build.make import walk_dirs

        # Every regular file (no links), found without recursion (Path.rglob recurses per level in Python 3.11).
        files = frozenset(os.path.join(cur, n) for cur, _, names in walk_dirs(root_p) for n in names
                          if not os.path.islink(os.path.join(cur, n)) and os.path.isfile(os.path.join(cur, n)))
    env = dict(os.environ if env is None else env)
    units, read, notes = [], [], []
    covered: set[Path] = set()
    for d in makefile_dirs(root_p, max_makefiles):
        if d in covered:
            continue
        run = _Run(files, env, dict(variables or {}))
        rel = os.path.relpath(d, root_p)
        try:
            run.make(d, [])
        except (Unreadable, OSError, RecursionError) as exc:
            notes.append(f"the Makefile in {rel} was not read ({exc}): it needs make to run")
            covered.add(d)
            continue
        text = "\n".join(run.out)
        got = [_origin(u, root_p, rel) for u in parse_dry_run(text, str(d), origin=f"Makefile in {rel}")]
        units += got
        read += [os.path.relpath(p, root_p) for p in run.read]
        covered.add(d)
        for line in run.out:
            m = re.match(r"^make\[\d+\]: Entering directory '(.*)'$", line)
            if m:
                covered.add(Path(m.group(1)))
        covered.update(Path(u.source).parent for u in got)
    seen, unique = set(), []
    for u in units:
        key = (u.source, u.directory, " ".join(u.flag_args()))
        if key not in seen:
            seen.add(key)
            unique.append(u)
    return BuildConfig(str(root_p), tuple(unique), "make-read", notes=tuple(notes),
                       sources_read=tuple(dict.fromkeys(read)))
