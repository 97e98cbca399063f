"""Differential runs: the original and the port on the same inputs, outputs compared.

The runner works with any two programs. A run command is a template
(``'{bin} --n {n} --out {out}/y.npy'``) with these fields:

- ``{bin}``: the program (the original's binary, then the port's);
- ``{n}``: the problem size of this round (see *shapes*);
- ``{out}``: an empty directory for this run's output files.

Every run happens in its own scratch directory (a copy of ``inputs`` when
given), under :data:`vado.verify.sandbox.RUN_LIMITS`, with these variables set:
``VADO_SENTINEL=0xDEADBEEF`` (see :mod:`vado.verify.compare`), ``VADO_N``,
``VADO_OUT`` and ``VADO_ROLE`` (``original``, ``port`` or ``oracle``). Nothing
is written into the user's tree.

**Shapes.** Wave64 bugs hide at sizes that are multiples of 32: the default
rounds are ``n`` = 63, 64, 65 (straddling a 64-wide wavefront), 4097 (a
partial last block) and 1<<20 (many blocks). Large-magnitude inputs are the
harness's part: ``VADO_MAGNITUDE`` is set per round (1 for the first rounds,
1e30 for the last), so a harness can scale its inputs and catch a reduction that
overflows or drops lanes.

**Comparison** is ``stdout`` (token-wise), ``files`` (everything in
``{out}``, or everything new in the run directory when the template has no
``{out}``) or ``numpy`` (only ``.npy`` files); see :mod:`vado.verify.compare`.
Exit codes must match; a run that times out or is killed fails its round.

**Stability and normalisation.** With ``original_runs=2`` the original runs twice
per round: output tokens that differ between its two runs (a random seed, a race
the program tolerates) are masked on all sides before the port is compared, and
the round records how many; originals that disagree on their exit code make the
round *inconclusive*. Before comparing, each run's own paths are written as
placeholders (its binary as ``<bin>``, its directory as ``<dir>``, its output
directory as ``<out>``), so a program that prints ``argv[0]`` or a path compares
equal.

**Inconclusive.** A port that runs out of time while the original finished is
*inconclusive*, not failed, when ``timeout_inconclusive`` is set: under the
wave64 emulation (:mod:`vado.verify.hip_on_cuda`) a wave-wide cross-lane call
waits for the other half of its wave until that half reaches it, waits at a block
barrier or leaves the kernel; a half that does none of these (it spins on a flag)
keeps it waiting forever, and that is a limit of the emulation, not a verdict on
the port. Such a round neither passes nor fails.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from vado.errors import UsageError
from vado.model import Evidence
from vado.verify.compare import (
    SENTINEL_ENV,
    SENTINEL_WORD,
    Comparison,
    Tolerance,
    compare_dirs,
    compare_text,
    compare_to_oracle,
    numbers_of,
)
from vado.verify.sandbox import RUN_LIMITS, Limits, Outcome, run_limited

DEFAULT_SHAPES = (63, 64, 65, 4097, 1 << 20)
#: Lines that report timings or speeds (left out of stdout comparisons unless the caller says otherwise).
TIMING_LINES = (r"(?i)\b(time|times|timing|runtime|elapsed|duration|throughput|bandwidth|latency|g?flops|[gmk]i?b/s|"
                r"ms|msec|usec|us|ns|sec|secs|seconds|per (?:second|sec|s)|\w+/s|\w+/sec)\b")
COMPARE_MODES = ("stdout", "files", "numpy")


@dataclass(frozen=True)
class Round:
    """One problem size: both runs (and the oracle's), and the comparisons of their outputs."""

    n: int | None
    magnitude: float
    runs: tuple[Evidence, ...]
    comparisons: tuple[Comparison, ...]
    oracle: bool = False
    inconclusive: str = ""
    unstable: int = 0

    @property
    def status(self) -> str:
        """``pass``, ``fail`` or ``inconclusive``."""
        if self.inconclusive:
            return "inconclusive"
        return "pass" if self.passed else "fail"

    @property
    def passed(self) -> bool:
        """Every comparison passed; with an oracle, the oracle decides numeric differences.

        With an oracle the direct original-vs-port comparison stays in the report,
        but only its problems (exit codes, sentinels, shapes) fail the round: how
        far the numbers may differ is the oracle comparison's question.
        """
        if not self.comparisons or self.inconclusive:
            return False
        return all(c.passed or (self.oracle and c.kind != "oracle" and not c.problem) for c in self.comparisons)


@dataclass(frozen=True)
class DifferentialReport:
    """All rounds of a differential run, and one ``compare`` evidence record per round."""

    command: str
    mode: str
    tolerance: Tolerance
    rounds: tuple[Round, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    skipped: str = ""
    #: The port's kernels whose results may depend on the wave size (set by the caller; named on a failure).
    kernels: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """True when every round passed (False when skipped: nothing was proved)."""
        return not self.skipped and bool(self.rounds) and all(r.passed for r in self.rounds)

    @property
    def inconclusive(self) -> bool:
        """True when no round failed but some round was inconclusive."""
        return bool(self.rounds) and any(r.inconclusive for r in self.rounds) and all(
            r.passed or r.inconclusive for r in self.rounds)

    @property
    def first_difference(self) -> dict | None:
        """The first differing output of the first failed round (``{n, subject, line, token, original, port}``)."""
        for r in self.rounds:
            if r.passed or r.inconclusive:
                continue
            for c in r.comparisons:
                if c.passed:
                    continue
                if c.first:
                    return {"n": r.n, "subject": c.subject, **c.first[0]}
                return {"n": r.n, "subject": c.subject, "problem": c.problem}
        return None


def _format(template: str, bin_path: str, n: int | None, out: Path) -> list[str]:
    try:
        text = template.format(bin=shlex.quote(bin_path), n="" if n is None else n, out=shlex.quote(str(out)))
    except (KeyError, IndexError, ValueError) as exc:
        raise UsageError(f"bad run command {template!r}", f"unknown or malformed field {exc}",
                         "use only {bin}, {n} and {out}; write {{ and }} for literal braces") from None
    words = shlex.split(text)
    if not words:
        raise UsageError("empty run command", "", "pass --run 'CMD {bin}'")
    return words


def normalise(text: str, bin_path: str, rundir: Path, out: Path) -> str:
    """``text`` with the run's own paths as placeholders: ``<out>``, ``<dir>``, ``<bin>`` (longest first)."""
    pairs = [(str(out), "<out>"), (str(rundir), "<dir>"), (bin_path, "<bin>")]
    for old, new in sorted(pairs, key=lambda p: -len(p[0])):
        if old:
            text = text.replace(old, new)
    return text


def _kept_lines(text: str, ignore_lines: str | None) -> list[str]:
    lines = text.splitlines()
    if ignore_lines:
        pat = re.compile(ignore_lines)
        lines = [x for x in lines if not pat.search(x)]
    return lines


def mask_unstable(first: str, second: str, *others: str, ignore_lines: str | None = None) -> tuple[list[str], int]:
    """Mask the tokens that differ between two runs of the original, in all texts given.

    Returns the texts (``first``, then ``others``) with ignored lines removed and
    each unstable token written as ``<unstable>``, and the number of unstable
    tokens. A line whose token count differs between the two runs is masked whole.
    """
    a, b = _kept_lines(first, ignore_lines), _kept_lines(second, ignore_lines)
    rest = [_kept_lines(t, ignore_lines) for t in others]
    unstable = 0
    for ln in range(min(len(a), len(b))):
        ta, tb = a[ln].split(), b[ln].split()
        if ta == tb:
            continue
        if len(ta) != len(tb):
            unstable += max(len(ta), 1)
            a[ln] = "<unstable line>"
            for r in rest:
                if ln < len(r):
                    r[ln] = "<unstable line>"
            continue
        cols = [k for k, (u, v) in enumerate(zip(ta, tb)) if u != v]
        unstable += len(cols)
        for lines in (a, *rest):
            if ln >= len(lines):
                continue
            toks = lines[ln].split()
            for k in cols:
                if k < len(toks):
                    toks[k] = "<unstable>"
            lines[ln] = " ".join(toks)
    return ["\n".join(a)] + ["\n".join(r) for r in rest], unstable


def _run(role: str, template: str, bin_path: str, n: int | None, magnitude: float, base: Path,
         inputs: Path | None, limits: Limits, env_extra: dict[str, str]) -> tuple[Outcome, Path, Path, set[str]]:
    rundir = base / role
    if inputs is not None:
        shutil.copytree(inputs, rundir, symlinks=True)
    else:
        rundir.mkdir(parents=True)
    before = {p.relative_to(rundir).as_posix() for p in rundir.rglob("*") if p.is_file()}
    out = base / f"{role}.out"
    out.mkdir()
    cmd = _format(template, bin_path, n, out)
    env = dict(os.environ)
    env.update(env_extra)
    env.update({SENTINEL_ENV: f"0x{SENTINEL_WORD:X}", "VADO_OUT": str(out), "VADO_ROLE": role,
                "VADO_MAGNITUDE": f"{magnitude:g}"})
    if n is not None:
        env["VADO_N"] = str(n)
    outcome = run_limited(cmd, cwd=rundir, env=env, limits=limits)
    return outcome, rundir, out, before


def _run_evidence(role: str, outcome: Outcome, n: int | None) -> Evidence:
    return Evidence(
        kind="run", subject=role, passed=outcome.ok, command=outcome.command, returncode=outcome.returncode,
        stdout=outcome.stdout, stderr=outcome.stderr, duration_s=outcome.duration_s,
        detail={"n": n, "status": "pass" if outcome.ok else ("timeout" if outcome.timed_out else "fail")},
    )


def _outputs_dir(template: str, rundir: Path, out: Path, before: set[str]) -> Path:
    """Where a run's output files are: ``{out}``, or the files it created in its run directory."""
    if "{out}" in template:
        return out
    moved = out.parent / (out.name + ".new")
    moved.mkdir()
    for p in rundir.rglob("*"):
        if p.is_file():
            rel = p.relative_to(rundir).as_posix()
            if rel not in before:
                dst = moved / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(p, dst)
    return moved


def differential(
    template: str,
    original_bin: str,
    port_bin: str,
    *,
    mode: str = "stdout",
    tolerance: Tolerance = Tolerance(),
    shapes: Sequence[int | None] = DEFAULT_SHAPES,
    oracle_bin: str | None = None,
    oracle_factor: float = 2.0,
    inputs: str | os.PathLike | None = None,
    limits: Limits = RUN_LIMITS,
    env: dict[str, str] | None = None,
    subject: str = "",
    ignore_lines: str | None = None,
    original_runs: int = 1,
    timeout_inconclusive: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> DifferentialReport:
    """Run ``template`` with the original and the port for each shape; compare outputs.

    ``progress(done, total)`` is called after each round (``total`` rounds).

    ``shapes`` may hold None for one round without ``{n}``; ``ignore_lines``
    (a regular expression) drops matching stdout lines (timings) before comparing;
    ``original_runs=2`` runs the original twice and masks what differs between
    those runs; ``timeout_inconclusive`` makes a port that times out an
    inconclusive round (see the module docstring). Raises
    :class:`UsageError` for an unknown mode or a template without ``{bin}``.
    """
    if mode not in COMPARE_MODES:
        raise UsageError(f"unknown comparison {mode!r}", "", f"use --compare {' | '.join(COMPARE_MODES)}")
    if "{bin}" not in template:
        raise UsageError("the run command has no {bin}", "vado substitutes each program there",
                         "write it like --run '{bin} --size {n}'")
    shapes = list(shapes) or [None]
    inputs_path = Path(inputs) if inputs else None
    if inputs_path is not None and not inputs_path.is_dir():
        raise UsageError(f"inputs {inputs} is not a directory", "", "pass --inputs DIR with the program's input files")
    rounds: list[Round] = []
    evidence: list[Evidence] = []
    label = subject or template
    for k, n in enumerate(shapes):
        magnitude = 1e30 if (len(shapes) > 1 and k == len(shapes) - 1) else 1.0
        with tempfile.TemporaryDirectory(prefix="vado-run-") as tmp:
            base = Path(tmp)
            roles = [("original", original_bin), ("port", port_bin)]
            if original_runs > 1:
                roles.insert(1, ("original-again", original_bin))
            if oracle_bin:
                roles.append(("oracle", oracle_bin))
            results = {}
            for role, binp in roles:
                results[role] = _run(role, template, binp, n, magnitude, base, inputs_path, limits, dict(env or {}))
            runs = tuple(_run_evidence(role, results[role][0], n) for role, _ in roles)
            texts = {role: normalise(results[role][0].stdout, binp, results[role][1], results[role][2])
                     for role, binp in roles}
            comps: list[Comparison] = []
            oa, ob = results["original"][0], results["port"][0]
            inconclusive = ""
            unstable = 0
            if original_runs > 1:
                oa2 = results["original-again"][0]
                if oa2.returncode != oa.returncode or oa2.timed_out != oa.timed_out:
                    inconclusive = (f"the original is not deterministic: {oa.why() or 'exit 0'} once, "
                                    f"{oa2.why() or 'exit 0'} the second time")
            if ob.timed_out and not oa.timed_out and timeout_inconclusive and not inconclusive:
                inconclusive = ("the port timed out where the original finished: under the wave64 emulation this is "
                                "a wave-wide cross-lane call that not every lane of a wave reached (divergent)")
            if not inconclusive and (not oa.ok or not ob.ok or oa.returncode != ob.returncode):
                if oa.returncode != ob.returncode or oa.timed_out or ob.timed_out:
                    comps.append(Comparison("exit", "exit", False, problem=(
                        f"original: {oa.why() or 'exit 0'}; port: {ob.why() or 'exit 0'}")))
            if not comps and not inconclusive:
                if mode == "stdout":
                    if original_runs > 1:
                        (ta, tb), unstable = mask_unstable(texts["original"], texts["original-again"], texts["port"],
                                                           ignore_lines=ignore_lines)
                        comps.append(compare_text(ta, tb, tolerance, "stdout"))
                    else:
                        comps.append(compare_text(texts["original"], texts["port"], tolerance, "stdout", ignore_lines))
                else:
                    dirs = {role: _outputs_dir(template, *results[role][1:]) for role, _ in roles}
                    found = compare_dirs(dirs["original"], dirs["port"], tolerance)
                    if mode == "numpy":
                        found = [c for c in found if c.subject.endswith(".npy")]
                    if not found:
                        found = [Comparison("outputs", mode, False, problem="neither program wrote an output file")]
                    comps.extend(found)
                if oracle_bin:
                    orc = results["oracle"][0]
                    if not orc.ok:
                        comps.append(Comparison("oracle", "oracle", False, problem=f"the oracle failed: {orc.why()}"))
                    elif mode == "stdout":
                        def nums(text: str) -> list[float]:
                            if ignore_lines:
                                text = "\n".join(x for x in text.splitlines() if not re.search(ignore_lines, x))
                            return numbers_of(text)

                        comps.append(compare_to_oracle(nums(oa.stdout), nums(ob.stdout), nums(orc.stdout),
                                                       tolerance, oracle_factor))
                    else:
                        comps.extend(_oracle_files(dirs, tolerance, oracle_factor))
        rnd = Round(n, magnitude, runs, tuple(comps), oracle=bool(oracle_bin), inconclusive=inconclusive,
                    unstable=unstable)
        rounds.append(rnd)
        evidence.extend(runs)
        detail = {"n": n, "mode": mode, "tolerance": tolerance.describe(), "magnitude": magnitude,
                  "status": rnd.status, "comparisons": [c.to_json() for c in comps]}
        if inconclusive:
            detail["reason"] = inconclusive
        if original_runs > 1:
            detail["unstable_tokens"] = unstable
        evidence.append(Evidence(
            kind="compare", subject=label, passed=rnd.passed, duration_s=sum(r.duration_s for r in runs),
            detail=detail,
        ))
        if progress is not None:
            progress(k + 1, len(shapes))
    return DifferentialReport(template, mode, tolerance, tuple(rounds), tuple(evidence))


def _oracle_files(dirs: dict[str, Path], tol: Tolerance, factor: float) -> list[Comparison]:
    """Each ``.npy`` the oracle wrote, against the original's and the port's of the same name."""
    from vado.verify.compare import _numpy

    np = _numpy()
    out = []
    for p in sorted(Path(dirs["oracle"]).rglob("*.npy")):
        rel = p.relative_to(dirs["oracle"]).as_posix()
        pa, pb = Path(dirs["original"]) / rel, Path(dirs["port"]) / rel
        if not (pa.is_file() and pb.is_file()):
            out.append(Comparison(rel, "oracle", False, problem="missing beside the oracle's output"))
            continue
        vals = [np.load(x, allow_pickle=False).astype(np.float64).ravel().tolist() for x in (pa, pb, p)]
        out.append(compare_to_oracle(vals[0], vals[1], vals[2], tol, factor, f"oracle:{rel}"))
    return out
