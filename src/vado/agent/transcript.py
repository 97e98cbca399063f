"""The agent's transcript: one JSON object per line, written as the run goes.

Record types (field ``type``):

- ``run``: the configuration (model, provider, endpoint, budget, targets) — never a key;
- ``item``: an open item the agent will work on;
- ``attempt``: one question to the model and what became of it: the prompt
  messages, the answer, the parsed edit as a diff (or why none was parsed), the
  verify evidence, tokens, cost where a price was given, and whether it was kept;
- ``summary``: the totals, written last.

Each line is flushed as it is written, so a run stopped half-way leaves a
readable transcript of what it did.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, IO


class Transcript:
    """Append-only JSONL writer (or a no-op when ``path`` is None)."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = Path(path) if path is not None else None
        self._fh: IO[str] | None = None
        self.records = 0
        if self.path is not None:
            # The default path is in the current directory, often a cloned repository: a
            # link there (to ~/.bashrc, say) is refused, never truncated (vado.safefs).
            from vado.safefs import open_for_writing, split_user_path

            root, rel = split_user_path(self.path)
            fd = open_for_writing(root, rel)
            self._fh = open(fd, "w", encoding="utf-8")

    def write(self, type_: str, **fields: Any) -> None:
        """Write one record of ``type_`` with ``fields`` and a timestamp."""
        self.records += 1
        if self._fh is None:
            return
        record = {"type": type_, "time": round(time.time(), 3), **fields}
        self._fh.write(json.dumps(record, default=str, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        """Close the file."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> "Transcript":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_transcript(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a transcript file, in order."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
