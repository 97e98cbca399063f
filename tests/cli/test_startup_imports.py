"""A one-file `vado audit` imports what it needs and no more: what the start-up work (issue 17) removed stays out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vecops" / "src" / "main.cu"

_PROBE = """
import json, sys
from vado.cli.app import main
sys.argv = ["vado", "audit", "-q", "-f", "json", sys.argv[1]]
try:
    main()
except SystemExit as exc:
    code = exc.code
mods = sorted({m.split(".")[0] for m in sys.modules} | {m for m in sys.modules if m.startswith("vado.")})
sys.stderr.write("MODULES " + json.dumps({"code": code, "modules": mods}) + "\\n")
"""


def test_one_file_audit_leaves_out_the_heavy_imports(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "VADO_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)})
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    got = json.loads(line[len("MODULES "):])
    assert got["code"] == 1 and json.loads(proc.stdout)["findings"]  # the audit ran and found something
    modules = set(got["modules"])
    # The first run parses the knowledge base (PyYAML); what must never load on this path:
    assert not {"typer", "click", "rich", "pathspec", "packaging"} & modules, sorted(modules)
    assert not {"vado.rules.dep", "vado.rules.img", "vado.rules.bld", "vado.rules.ptx_lower", "vado.knowledge.ptx"} & modules
    # A second run reads the knowledge cache: no YAML parser either.
    again = subprocess.run([sys.executable, "-c", _PROBE, str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                           env={"PATH": "/usr/bin:/bin", "VADO_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)})
    line = next(x for x in again.stderr.splitlines() if x.startswith("MODULES "))
    assert "yaml" not in json.loads(line[len("MODULES "):])["modules"]


def test_python_dash_m_vado_runs_the_command(tmp_path):
    res = subprocess.run([sys.executable, "-m", "vado", "audit", "-q", "-f", "json", str(EXAMPLE)], capture_output=True,
                         text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "VADO_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)})
    assert res.returncode == 1 and json.loads(res.stdout)["findings"]
    version = subprocess.run([sys.executable, "-m", "vado", "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("vado ")
