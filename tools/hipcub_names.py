"""Which CUB names hipCUB declares: writes ``src/vado/knowledge/data/cub_hipcub_names.csv``.

    python3 tools/hipcub_names.py [--cub /usr/local/cuda-13.0/include/cccl] \
        [--hipcc /var/cache/vado/rocm-7.2.4/bin/hipcc] [--nvcc /usr/local/bin/nvcc]

Every identifier CUB's headers spell is a candidate; ``nvcc`` keeps those ``using cub::NAME;`` accepts (a name
CUB declares at namespace scope: a class, function, alias, variable or enumerator), and those spelled
``detail::NAME`` that ``using cub::detail::NAME;`` accepts. ``hipcc`` (ROCm 7.2.4's, hipCUB 4.2.0) then says, the
same way, which of them ``hipcub::`` declares. Both compilers read one translation unit with one probe per line
and report every failing line (no error limit): a name is absent where its line fails. Nothing is hand-listed.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "vado" / "knowledge" / "data" / "cub_hipcub_names.csv"
_IDENT = re.compile(r"\b[A-Za-z][A-Za-z0-9_]*\b")
_DETAIL = re.compile(r"\bdetail::([A-Za-z][A-Za-z0-9_]*)\b")
_KEYWORDS = frozenset("""alignas alignof and asm auto bool break case catch char char16_t char32_t char8_t class const
consteval constexpr constinit const_cast continue decltype default delete do double dynamic_cast else enum explicit
export extern false float for friend goto if inline int long mutable namespace new noexcept not nullptr operator or
private protected public register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned using
virtual void volatile wchar_t while defined include pragma ifdef ifndef endif elif define undef error""".split())


def candidates(cub_root: Path) -> tuple[list[str], list[str]]:
    """(identifiers, names spelled after ``detail::``) of every header under ``cub_root``/cub."""
    names: set[str] = set()
    detail: set[str] = set()
    for p in sorted((cub_root / "cub").rglob("*.cuh")):
        text = p.read_text(encoding="latin-1")
        text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
        names.update(_IDENT.findall(text))
        detail.update(_DETAIL.findall(text))
    keep = lambda n: n not in _KEYWORDS and not re.fullmatch(r"_*[A-Z0-9_]*[A-Z]_[A-Z0-9_]*|CUB_\w+|_CCCL\w*", n) \
        or re.fullmatch(r"(?:BLOCK|WARP|RADIX|LOAD|STORE|GRID|CACHE|DEVICE)_[A-Z0-9_]+", n)
    return sorted(n for n in names if keep(n)), sorted(n for n in detail if n not in _KEYWORDS)


def failing(compiler: list[str], prelude: str, probes: list[str], suffix: str, extra: list[str]) -> set[int]:
    """The indexes of ``probes`` whose line the compiler rejects."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
        src = Path(d) / f"probe{suffix}"
        lines = [prelude] + [f"namespace vado_probe_{i} {{ {p} }}" for i, p in enumerate(probes)]
        src.write_text("\n".join(lines) + "\n")
        run = subprocess.run([*compiler, *extra, str(src)], capture_output=True, text=True, cwd=d)
        bad = set()
        for m in re.finditer(rf"{re.escape(src.name)}[:(](\d+)", run.stdout + run.stderr):
            line = int(m.group(1))
            if line >= 2:
                bad.add(line - 2)
        if run.returncode != 0 and not bad:
            sys.exit(f"error: {compiler[0]} failed without a probe error:\n{run.stderr[-3000:]}")
        return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cub", default="/usr/local/cuda-13.0/include/cccl")
    ap.add_argument("--nvcc", default="/usr/local/bin/nvcc")
    ap.add_argument("--hipcc", default="/var/cache/vado/rocm-7.2.4/bin/hipcc")
    ap.add_argument("-o", "--output", default=str(OUT))
    a = ap.parse_args()
    names, detail = candidates(Path(a.cub))
    probes = [f"using cub::{n};" for n in names] + [f"using cub::detail::{n};" for n in detail]
    keys = names + [f"detail::{n}" for n in detail]
    nv_bad = failing([a.nvcc, "-x", "cu", "-c", "-o", "/dev/null"], "#include <cub/cub.cuh>", probes, ".cu",
                     ["-Xcudafe", "--error_limit=1000000", "-std=c++17"])
    cub_names = [k for i, k in enumerate(keys) if i not in nv_bad]
    hip_probes = [f"using hipcub::{k};" for k in cub_names]
    hip_bad = failing([a.hipcc, "-fsyntax-only", "--offload-arch=gfx942", "-x", "hip"], "#include <hipcub/hipcub.hpp>",
                      hip_probes, ".hip", ["-ferror-limit=0", "-std=c++17", "-w"])
    rows = [(k, "no" if i in hip_bad else "yes") for i, k in enumerate(cub_names)]
    version = subprocess.run([a.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    with open(a.output, "w") as f:
        f.write("# The names CUB declares at namespace scope (cub:: and cub::detail::), and whether hipCUB declares them\n"
                "# (hipcub::). Generated by tools/hipcub_names.py: probed with using-declarations compiled by nvcc\n"
                f"# ({version}; CUB from {a.cub}) and by ROCm 7.2.4's hipcc (hipCUB 4.2.0,\n"
                "# include/hipcub/hipcub.hpp, gfx942). Do not edit by hand.\n")
        f.write("name,hipcub\n")
        for k, v in rows:
            f.write(f"{k},{v}\n")
    print(f"{len(rows)} CUB names, {sum(v == 'no' for _, v in rows)} absent from hipCUB -> {a.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
