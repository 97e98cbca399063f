"""Helpers of the agent tests: a scripted provider (recorded answers) and tree digests."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from vado.agent.providers import Completion

FIXTURES = Path(__file__).parent / "fixtures"


class ScriptedProvider:
    """Answers from a list, in order (recorded answers); keeps every prompt it was sent."""

    name = "scripted"
    model = "scripted"

    def __init__(self, answers):
        self.answers = list(answers)
        self.prompts = []

    def complete(self, messages, *, max_tokens):
        self.prompts.append(list(messages))
        text = self.answers.pop(0) if self.answers else "no more answers"
        return Completion(text, input_tokens=sum(len(m.content) for m in messages) // 4, output_tokens=len(text) // 4, model="scripted")


def tree_digest(root: Path) -> dict[str, str]:
    """Path → sha256 of every file under ``root`` (to prove a tree was not touched)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}

