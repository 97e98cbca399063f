"""Keeping MCP answers inside an assistant's context budget.

Claude Code warns above 10,000 tokens of tool output and refuses above 25,000
(``MAX_MCP_OUTPUT_TOKENS``); other assistants are similar. An answer is sent as
compact JSON, so its size in tokens is estimated from its characters:
:data:`CHARS_PER_TOKEN` is what vado's own answers measure (JSON with paths,
codes and messages: 145,287 characters of llm.c's audit answer were about 51,000
tokens, 2.85 characters per token), rounded down to stay on the safe side.

Tools page their long lists (``offset``/``limit`` → ``next_offset``) and fit
each page into ``max_tokens`` with :func:`fit_list`; :func:`shrink` is the
safety net every answer passes through, so that no tool, whatever it returns,
exceeds the budget: it shortens long strings, then long lists, and says what
it cut under ``"truncated"``.
"""

from __future__ import annotations

import json
from typing import Any

#: Characters of compact JSON per token (see the module docstring).
CHARS_PER_TOKEN = 2.7
#: Tokens an answer may take unless the caller asks for more.
DEFAULT_MAX_TOKENS = 8_000
#: The most a caller may ask for (Claude Code's default refusal limit).
MAX_TOKENS_LIMIT = 25_000
#: Tokens a page leaves free for what a tool adds after cutting it (a hint, flags).
RESERVE = 200


def dumps(obj: Any) -> str:
    """The compact JSON an answer is sent as."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)


def estimate_tokens(obj: Any) -> int:
    """Estimated tokens of ``obj`` sent as compact JSON."""
    text = obj if isinstance(obj, str) else dumps(obj)
    return int(len(text) / CHARS_PER_TOKEN) + 1


def fit_list(answer: dict[str, Any], key: str, offset: int, max_tokens: int) -> dict[str, Any]:
    """Cut ``answer[key]`` (one page starting at ``offset``) to what fits in ``max_tokens``.

    Sets ``answer["next_offset"]`` to the offset of the first item left out
    (None when the page ends the list) unless the caller set it already for a
    page cut by ``limit``. Items are kept whole; at least one is kept. The
    page leaves :data:`RESERVE` tokens for the hints a tool adds afterwards, so
    that :func:`shrink` never has to cut a page (and break its ``next_offset``).
    """
    max_tokens -= RESERVE
    items = answer.get(key) or []
    if estimate_tokens(answer) <= max_tokens or len(items) <= 1:
        return answer
    lo, hi = 1, len(items)  # largest count that fits, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        trial = dict(answer)
        trial[key] = items[:mid]
        trial["next_offset"] = offset + mid
        if estimate_tokens(trial) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    answer[key] = items[:lo]
    answer["next_offset"] = offset + lo
    return answer


def shrink(answer: Any, max_tokens: int) -> Any:
    """``answer`` cut until its estimate is at most ``max_tokens`` (see the module docstring)."""
    if estimate_tokens(answer) <= max_tokens or not isinstance(answer, dict):
        return answer
    answer = json.loads(dumps(answer))  # a private copy, plain JSON types
    cut: list[str] = []
    limit = 4000
    while estimate_tokens(answer) > max_tokens and limit >= 200:
        _cut_strings(answer, limit, "", cut)
        limit //= 2
    while estimate_tokens(answer) > max_tokens:
        where, items = _longest_list(answer, "")
        if items is None or len(items) <= 1:
            break
        del items[max(1, len(items) // 2):]
        cut.append(f"{where or '.'}: list cut to {len(items)} items")
    if cut:
        answer["truncated_by_budget"] = sorted(set(cut))[:20]
        answer["hint"] = "the answer was cut to fit max_tokens; ask for a page (offset/limit), a path, or more max_tokens"
    return answer


def _cut_strings(node: Any, limit: int, where: str, cut: list[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, str) and len(v) > limit:
                node[k] = v[:limit] + f"\n[… {len(v) - limit} characters cut]"
                cut.append(f"{where}/{k}: text cut")
            else:
                _cut_strings(v, limit, f"{where}/{k}", cut)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, str) and len(v) > limit:
                node[i] = v[:limit] + f"\n[… {len(v) - limit} characters cut]"
                cut.append(f"{where}[]: text cut")
            else:
                _cut_strings(v, limit, f"{where}[]", cut)


def _longest_list(node: Any, where: str) -> tuple[str, list | None]:
    """The list with the largest JSON text anywhere in ``node``."""
    best: tuple[int, str, list | None] = (0, where, None)
    stack = [(node, where)]
    while stack:
        cur, path = stack.pop()
        children = cur.items() if isinstance(cur, dict) else enumerate(cur) if isinstance(cur, list) else ()
        if isinstance(cur, list) and len(cur) > 1:
            size = len(dumps(cur))
            if size > best[0]:
                best = (size, path, cur)
        for k, v in children:
            if isinstance(v, (dict, list)):
                stack.append((v, f"{path}/{k}" if isinstance(cur, dict) else f"{path}[]"))
    return best[1], best[2]


class ResultCache:
    """The last few results of an expensive call, by key, so that paging through one answer does not redo
    the work (a port per page would also write a new copy of the tree per page)."""

    def __init__(self, size: int = 4) -> None:
        from collections import OrderedDict

        self.size = size
        self._items: OrderedDict = OrderedDict()

    def get(self, key: Any) -> Any:
        """The value stored under ``key`` (now the most recent), or None."""
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, key: Any, value: Any) -> None:
        """Store ``value`` under ``key``, dropping the least recently used beyond ``size``."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


def tree_state(path: str) -> str:
    """A digest of what a tree holds now: each file's relative path, size and modification time.

    Two calls that see the same digest see the same files (as far as a stat can tell), so a result
    computed from the first still holds; any edit, new or removed file changes it."""
    import hashlib
    import os

    digest = hashlib.sha256()
    if os.path.isfile(path):
        st = os.stat(path)
        digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()
    for top, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(top, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            rel = os.path.relpath(full, path)
            digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()
