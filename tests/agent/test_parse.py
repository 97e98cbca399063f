"""Answer → edits: SEARCH/REPLACE blocks and unified diffs, and what validation refuses."""

from __future__ import annotations

import pytest

from vado.agent.context import window_for
from vado.agent.parse import EditRejected, edits_from_answer, parse_blocks
from vado.port.apply import apply_edits

TEXT = """#include <hip/hip_runtime.h>

__device__ unsigned highest_bit(unsigned x) {
  unsigned r;
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
  return r;
}

__device__ unsigned other(unsigned x) {
  unsigned r;
  return x;
}
"""

WHOLE = (0, len(TEXT))


def _apply(edits) -> str:
    return apply_edits(TEXT.encode("latin-1"), edits).decode("latin-1")


def test_search_replace_block_in_prose_and_fences():
    answer = """Here is the fix:
```cpp
<<<<<<< SEARCH
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
=======
  r = x ? 31 - __clz(x) : 0xffffffffu;
>>>>>>> REPLACE
```
This works because __clz counts leading zeros."""
    edits = edits_from_answer(answer, "k.cu", TEXT, WHOLE)
    assert len(edits) == 1 and edits[0].path == "k.cu"
    out = _apply(edits)
    assert "asm(" not in out and "r = x ? 31 - __clz(x) : 0xffffffffu;\n  return r;" in out


def test_unified_diff_answer():
    answer = """```diff
--- a/k.cu
+++ b/k.cu
@@ -4,3 +4,3 @@
   unsigned r;
-  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
+  r = 31 - __clz(x);
   return r;
```"""
    out = _apply(edits_from_answer(answer, "k.cu", TEXT, WHOLE))
    assert "r = 31 - __clz(x);" in out and "bfind" not in out
    assert out.count("unsigned r;") == 2


def test_trailing_whitespace_differences_are_tolerated():
    answer = "<<<<<<< SEARCH\n  unsigned r;   \n  asm(\"bfind.u32 %0, %1;\" : \"=r\"(r) : \"r\"(x));\n=======\n  unsigned r = 31 - __clz(x);\n>>>>>>> REPLACE"
    out = _apply(edits_from_answer(answer, "k.cu", TEXT, WHOLE))
    assert "  unsigned r = 31 - __clz(x);\n  return r;" in out


def test_multiple_blocks_apply_together():
    answer = (
        "<<<<<<< SEARCH\n  asm(\"bfind.u32 %0, %1;\" : \"=r\"(r) : \"r\"(x));\n=======\n  r = 31 - __clz(x);\n>>>>>>> REPLACE\n"
        "<<<<<<< SEARCH\n  return x;\n=======\n  return x + 1;\n>>>>>>> REPLACE\n"
    )
    out = _apply(edits_from_answer(answer, "k.cu", TEXT, WHOLE))
    assert "r = 31 - __clz(x);" in out and "return x + 1;" in out


@pytest.mark.parametrize(
    "answer, reason",
    [
        ("Use __clz instead of bfind.", "has no edit"),
        ("<<<<<<< SEARCH\n  asm(\"bfind.u64 %0, %1;\");\n=======\n  r = 0;\n>>>>>>> REPLACE", "does not occur"),
        ("<<<<<<< SEARCH\n  unsigned r;\n=======\n  unsigned r = 0;\n>>>>>>> REPLACE", "occurs 2 times"),
        ("<<<<<<< SEARCH\n  return r;\n=======\n  return r;\n>>>>>>> REPLACE", "changes nothing"),
        ("<<<<<<< SEARCH\n\n=======\nint x;\n>>>>>>> REPLACE", "empty"),
    ],
)
def test_unusable_answers_are_rejected_with_a_reason(answer, reason):
    with pytest.raises(EditRejected) as exc:
        edits_from_answer(answer, "k.cu", TEXT, WHOLE)
    assert reason in exc.value.reason


def test_edits_outside_the_window_are_refused():
    window, lines = window_for(TEXT, 5, 5, 1)
    assert lines == (4, 6)
    inside = "<<<<<<< SEARCH\n  asm(\"bfind.u32 %0, %1;\" : \"=r\"(r) : \"r\"(x));\n=======\n  r = 31 - __clz(x);\n>>>>>>> REPLACE"
    assert edits_from_answer(inside, "k.cu", TEXT, window)
    outside = "<<<<<<< SEARCH\n  return x;\n=======\n  return 0;\n>>>>>>> REPLACE"
    with pytest.raises(EditRejected) as exc:
        edits_from_answer(outside, "k.cu", TEXT, window)
    assert "outside the lines you were shown" in exc.value.reason


def test_a_repeated_line_is_unique_inside_the_window():
    # "unsigned r;" occurs twice in the file but once in the window around line 5.
    window, _ = window_for(TEXT, 5, 5, 1)
    answer = "<<<<<<< SEARCH\n  unsigned r;\n=======\n  unsigned r = 0;\n>>>>>>> REPLACE"
    (edit,) = edits_from_answer(answer, "k.cu", TEXT, window)
    assert TEXT[edit.start:edit.end] == "  unsigned r;\n"
    assert TEXT.index("  unsigned r;") == edit.start


def test_overlapping_blocks_are_refused():
    answer = (
        "<<<<<<< SEARCH\n  unsigned r;\n  asm(\"bfind.u32 %0, %1;\" : \"=r\"(r) : \"r\"(x));\n=======\n  unsigned r = 1;\n>>>>>>> REPLACE\n"
        "<<<<<<< SEARCH\n  asm(\"bfind.u32 %0, %1;\" : \"=r\"(r) : \"r\"(x));\n  return r;\n=======\n  return 2;\n>>>>>>> REPLACE\n"
    )
    with pytest.raises(EditRejected) as exc:
        edits_from_answer(answer, "k.cu", TEXT, WHOLE)
    assert "overlap" in exc.value.reason


def test_parse_blocks_reads_lenient_markers():
    blocks = parse_blocks("<<<<<<<< SEARCH\nold\n========\nnew\n>>>>>>>> REPLACE\n")
    assert [(b.search, b.replace) for b in blocks] == [("old\n", "new\n")]
