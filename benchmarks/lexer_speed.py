"""Lexer throughput: lex every C-family file under some directories and print MB/s.

Usage::

    python benchmarks/lexer_speed.py [DIR ...] [--repeat N] [--lexer MODULE]

Without a directory it lexes the CUDA headers under ``/usr/local/cuda/include``.
Files are read once (latin-1 view, as vado reads them) and lexed ``--repeat``
times; the best pass is reported, so a busy machine inflates the number less.
The numbers are one core's throughput, in one run:

- ``python``: the pure-Python lexer (the reference), building the token list;
- ``compiled list``: ``tokenize`` with ``vado._native_ext``, building the same list;
- ``compiled lazy``: ``lex``, the compiled token sequence that builds a tuple
  only when one is read (what audit uses); nothing is read here.

``--lexer`` names another module with a ``tokenize`` function (e.g. an older
copy of the lexer) to time instead.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import time
from pathlib import Path

from vado.model.text import decode_source
from vado.scan.classify import classify

DEFAULT_DIRS = ["/usr/local/cuda/include"]


def _load_lexer(name: str | None):
    if name is None:
        from vado.scan import lexer

        return lexer
    if name.endswith(".py"):
        spec = importlib.util.spec_from_file_location("lexer_under_test", name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(name)


def _texts(dirs: list[str]) -> list[str]:
    texts = []
    for d in dirs:
        for dirpath, dirnames, filenames in os.walk(d):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath, name)
                # Extension-less files under include/ are C++ headers (libcu++'s <cuda/std/...>).
                if classify(path).is_c_family or "." not in name:
                    try:
                        texts.append(decode_source(path.read_bytes()))
                    except OSError:
                        continue
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lexer", default=None, help="module name or .py path with a tokenize() function")
    args = parser.parse_args(argv)

    texts = _texts(args.dirs)
    total = sum(len(t) for t in texts)
    if not total:
        print(f"no C/C++/CUDA files under {', '.join(args.dirs)}", file=sys.stderr)
        return 1
    if args.lexer is not None:
        runs = {args.lexer: _load_lexer(args.lexer).tokenize}
    else:
        from vado import native
        from vado.scan import lexer

        runs = {"python": lexer.python_tokens}
        if native.available():
            runs["compiled list"] = lexer.tokenize
            runs["compiled lazy"] = lexer.lex
        else:
            print("vado._native_ext is not built: only the Python lexer is timed")
    mb = total / 1e6
    print(f"{len(texts)} files, {mb:.1f} MB; best of {args.repeat} passes")
    speeds = {}
    for name, lex in runs.items():
        best = float("inf")
        tokens = 0
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            tokens = sum(len(lex(t)) for t in texts)
            best = min(best, time.perf_counter() - t0)
        speeds[name] = mb / best
        print(f"  {name:<14} {tokens:>9} tokens  {best:6.2f} s  {mb / best:7.1f} MB/s")
    if "python" in speeds and len(speeds) > 1:
        for name, v in speeds.items():
            if name != "python":
                print(f"  {name} / python: {v / speeds['python']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
