#!/usr/bin/env python3
"""Fetch the newest sdist of PyPI packages through the index's JSON API, checking each file's sha256.

    python3 benchmarks/torch_ext_fetch.py DEST NAME [NAME ...]

Not ``pip download``: pip prepares an sdist's metadata by running its setup.py, which the house rules forbid for
code not read first. Each file is written to DEST and ``FILE SHA256`` appended to DEST/sha.txt; a digest that
differs from the index's stops the run (nothing written for that file).
"""

from __future__ import annotations

import hashlib
import json
import sys
import urllib.parse
import urllib.request
from pathlib import Path


def fetch(dest: Path, name: str) -> tuple[str, str]:
    """Download ``name``'s newest sdist into ``dest``; returns (file name, sha256)."""
    api = f"https://pypi.org/pypi/{name}/json"
    with urllib.request.urlopen(api, timeout=30) as r:
        meta = json.load(r)
    sdists = [u for u in meta["urls"] if u["packagetype"] == "sdist"]
    if not sdists:
        raise SystemExit(f"{name}: no sdist for {meta['info']['version']}")
    sd = sdists[0]
    with urllib.request.urlopen(urllib.parse.urljoin(api, sd["url"]), timeout=120) as r:
        data = r.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sd["digests"]["sha256"]:
        raise SystemExit(f"{sd['filename']}: sha256 {digest} is not the index's {sd['digests']['sha256']}")
    (dest / sd["filename"]).write_bytes(data)
    with open(dest / "sha.txt", "a") as fh:
        fh.write(f"{sd['filename']} {digest}\n")
    return sd["filename"], digest


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    dest = Path(argv[0])
    dest.mkdir(parents=True, exist_ok=True)
    for name in argv[1:]:
        print(*fetch(dest, name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
