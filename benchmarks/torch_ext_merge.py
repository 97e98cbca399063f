#!/usr/bin/env python3
"""Merge benchmarks/torch_ext_gfx942.py runs (before and after a branch) into one results file per package.

    python3 benchmarks/torch_ext_merge.py --config benchmarks/torch_ext/unseen4_packages.json \\
        --run before=/work/repos/pypi5-results/port_v0.json --run after=/work/repos/pypi5-results/port2.json \\
        --notes benchmarks/torch_ext/unseen4_notes.json --out benchmarks/torch_ext/unseen4_results.json

Each ``--run LABEL=FILE`` is a torch_ext_gfx942.py ``--out`` file (a list of per-TU results; a later entry for the
same package and source replaces an earlier one, so a run may be completed by a second call; an entry's ``note``, if
any, is kept: say there why a result was carried over rather than measured). ``--notes`` holds what
the measurements cannot say: ``_about``, per package ``port_changed``/``manual``/``fixes_in_vado``, ``classes_fixed``
and ``left_out``. The output has, per package, the TU counts per run (``gfx942_<label>``: "k/n compiled") and per TU
each run's ok, seconds and first error; and the totals.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _runs(specs: list[str]) -> dict[str, dict[tuple[str, str], dict]]:
    out = {}
    for spec in specs:
        label, _, path = spec.partition("=")
        by_tu: dict[tuple[str, str], dict] = {}
        for r in json.loads(Path(path).read_text()):
            by_tu[(r["package"], r["source"])] = {"ok": r["ok"], "seconds": round(r["seconds"], 1), "error": r["error"],
                                                  **({"note": r["note"]} if r.get("note") else {})}
        out[label] = by_tu
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, required=True)
    ap.add_argument("--run", action="append", required=True, help="LABEL=FILE (torch_ext_gfx942.py --out)")
    ap.add_argument("--notes", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    cfg = json.loads(args.config.read_text())["packages"]
    notes = json.loads(args.notes.read_text())
    runs = _runs(args.run)
    packages, totals = {}, {label: [0, 0] for label in runs}
    for name, pkg in cfg.items():
        sources = [s for ext in pkg["extensions"] for s in ext["sources"]]
        entry = {"sdist": pkg["sdist"], "sha256": pkg["sha256"], "tus": len(sources),
                 "cu_tus": sum(s.endswith(".cu") for s in sources)}
        per_tu = []
        for src in sources:
            row = {"source": src}
            for label, by_tu in runs.items():
                if (name, src) in by_tu:
                    row[f"gfx942_{label}"] = by_tu[(name, src)]
            per_tu.append(row)
        for label in runs:
            measured = [r[f"gfx942_{label}"] for r in per_tu if f"gfx942_{label}" in r]
            ok = sum(m["ok"] for m in measured)
            entry[f"gfx942_{label}"] = f"{ok}/{len(sources)} compiled" + (
                "" if len(measured) == len(sources) else f" ({len(sources) - len(measured)} not measured)")
            totals[label][0] += ok
            totals[label][1] += len(sources)
        entry.update(notes.get("packages", {}).get(name, {}))
        entry["per_tu"] = per_tu
        packages[name] = entry
    doc = {"_about": notes.get("_about", ""), "packages": packages,
           "totals": {f"gfx942_{label}": f"{ok}/{n} compiled" for label, (ok, n) in totals.items()}}
    doc["totals"].update(notes.get("totals", {}))
    for key in ("classes_fixed", "left_out"):
        if key in notes:
            doc[key] = notes[key]
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print("; ".join(f"{k}: {v}" for k, v in doc["totals"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
