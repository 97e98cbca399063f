"""What vado's port of each PyTorch extension package changed, and why (issue 29's per-package list).

    python3 benchmarks/torch_ext_changes.py [--config benchmarks/torch_ext/packages.json] [--pypi /work/repos/pypi]
        [--unsafe-fixes] [--out benchmarks/torch_ext/port_changes.md]

Ports each package's unpacked sdist (``vado port --torch-extension auto -f json`` into a temporary directory) and
writes, per package, the files the port changed with each applied fix's description and count (the port report's
``changes``), the project's own AMD support the port kept, and the findings left for a person. The ports the GPU
runs use (benchmarks/torch_ext_device.py prepare) are made with --unsafe-fixes: pass it to describe those.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def port_report(src: Path, unsafe: bool) -> dict:
    """vado's JSON port report of ``src`` (ported into a temporary directory, then removed)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "vado", "port", str(src), "-o", str(Path(tmp) / "port"), "--torch-extension",
               "auto", "-f", "json", *(["--unsafe-fixes"] if unsafe else [])]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(HERE.parent / "src")))
        if not proc.stdout.strip():
            raise RuntimeError(f"vado port {src} gave no report (rc {proc.returncode}): {proc.stderr[-400:]}")
        return json.loads(proc.stdout)


def package_section(name: str, version_dir: str, doc: dict) -> list[str]:
    """The Markdown section of one package."""
    changed = [f for f in doc["files"] if f["status"] == "translated"]
    lines = [f"## {name} (`{version_dir}`)", ""]
    if doc.get("amd_support"):
        lines.append("Its own AMD support, kept: " + "; ".join(f"`{a}`" for a in doc["amd_support"]) + ".")
    left = doc.get("left_out") or []
    if left:
        lines.append("Left as is: " + "; ".join(left) + ".")
    lines.append(f"{len(changed)} of {len(doc['files'])} files changed"
                 + (":" if changed else " (PyTorch's build-time hipify does the rest)."))
    lines.append("")
    for f in changed:
        what = "; ".join(d.replace("|", "\\|") + (f" (×{n})" if n > 1 else "") for d, n in f.get("changes", {}).items())
        lines.append(f"- `{f['path']}`: {what or 'renamed'}")
    remaining = doc.get("remaining") or []
    lines += ["", f"Left for a person: {len(remaining)}" + (":" if remaining else ".")]
    for r in remaining:
        span = r.get("span") or {}
        where = f"{span.get('path', '?')}:{span.get('line', '?')}"
        lines.append(f"- `{where}` {r['code']}: {r['message']}")
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default=str(HERE / "torch_ext" / "packages.json"))
    p.add_argument("--pypi", default="/work/repos/pypi")
    p.add_argument("--unsafe-fixes", action="store_true")
    p.add_argument("--out", default="")
    args = p.parse_args(argv)
    cfg = json.loads(Path(args.config).read_text())["packages"]
    lines = ["# What vado's port of each PyTorch extension changed, and why", "",
             f"`python3 benchmarks/torch_ext_changes.py --config {os.path.relpath(args.config)}"
             f"{' --unsafe-fixes' if args.unsafe_fixes else ''}` (vado port --torch-extension auto"
             f"{' --unsafe-fixes' if args.unsafe_fixes else ''}); generated, do not edit.", ""]
    for name, pkg in cfg.items():
        src = Path(args.pypi) / pkg["dir"]
        if not src.is_dir():
            print(f"{name}: {src} is not here (unpack the sdist first)", file=sys.stderr)
            return 2
        lines += package_section(name, pkg["dir"], port_report(src, args.unsafe_fixes))
    text = "\n".join(lines).rstrip("\n") + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
