import math

import pytest

np = pytest.importorskip("numpy")

from vado.verify.compare import (
    SENTINEL_WORD,
    Tolerance,
    compare_arrays,
    compare_dirs,
    compare_text,
    compare_to_oracle,
    count_sentinels_text,
)


def test_text_exact_and_tolerant():
    assert compare_text("a 1.0\nb 2", "a 1.0\nb 2").passed
    c = compare_text("x 1.0", "x 1.000001")
    assert not c.passed and c.mismatches == 1 and c.first[0]["original"] == "1.0"
    assert compare_text("x 1.0", "x 1.000001", Tolerance(rtol=1e-5)).passed
    assert not compare_text("ok", "FAIL").passed


def test_text_line_count_and_ignore():
    c = compare_text("a\nb", "a")
    assert not c.passed and "2 lines" in c.problem
    assert compare_text("t 1.0 ms\nv 3", "t 9.5 ms\nv 3", ignore_lines=r"^t ").passed


def test_text_nan():
    assert compare_text("nan", "nan").passed
    assert not compare_text("nan", "1.0").passed
    assert not compare_text("1.0", "nan", Tolerance(rtol=1)).passed


def test_text_sentinels():
    assert count_sentinels_text("0xdeadbeef -6.2598534e+18 3735928559 5") == 3
    c = compare_text("1 2", "1 -6.25985e+18", Tolerance(rtol=1e30))
    assert not c.passed and "sentinel" in c.problem


def test_arrays_ulp_and_nan():
    a = np.array([1.0, 2.0, np.nan, np.inf], dtype=np.float32)
    b = a.copy()
    b[1] = np.nextafter(np.float32(2.0), np.float32(3.0))
    c = compare_arrays(a, b)
    assert not c.passed and c.mismatches == 1 and c.max_ulp == 1
    assert compare_arrays(a, b, Tolerance(ulp=1)).passed
    assert not compare_arrays(a, b, Tolerance(ulp=1, nan_equal=False)).passed
    b2 = a.copy()
    b2[3] = -np.inf
    assert not compare_arrays(a, b2, Tolerance(rtol=1.0)).passed


def test_arrays_ulp_across_zero():
    a = np.array([np.float32(1e-45)], dtype=np.float32)
    b = np.array([-np.float32(1e-45)], dtype=np.float32)
    assert compare_arrays(a, b).max_ulp == 2


def test_arrays_shape_dtype_and_sentinel():
    assert "shape" in compare_arrays(np.zeros(3), np.zeros(4)).problem
    assert "dtype" in compare_arrays(np.zeros(3), np.zeros(3, dtype=np.int32)).problem
    a = np.arange(8, dtype=np.float32)
    b = a.copy()
    b.view(np.uint32)[5:] = SENTINEL_WORD
    c = compare_arrays(a, b, Tolerance(rtol=math.inf))
    assert not c.passed and c.sentinels_b == 3 and "3 more sentinel" in c.problem


def test_arrays_ints_and_relative():
    assert compare_arrays(np.array([1, 2, 3]), np.array([1, 2, 3])).passed
    c = compare_arrays(np.array([100.0]), np.array([101.0]), Tolerance(rtol=0.02))
    assert c.passed and c.max_rel == pytest.approx(1 / 101)


def test_dirs(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    np.save(a / "y.npy", np.ones(4, dtype=np.float32))
    np.save(b / "y.npy", np.ones(4, dtype=np.float32))
    (a / "log.txt").write_text("v 1.0\n")
    (b / "log.txt").write_text("v 1.0\n")
    (a / "only.bin").write_bytes(b"\0\1")
    res = {c.subject: c for c in compare_dirs(a, b)}
    assert res["y.npy"].passed and res["log.txt"].passed
    assert not res["only.bin"].passed and "original only" in res["only.bin"].problem


def test_oracle():
    oracle = [1.0, 2.0, 3.0]
    original = [1.001, 2.0, 3.0]
    assert compare_to_oracle(original, [1.0015, 2.0, 3.0], oracle).passed  # no further than 2x the original
    c = compare_to_oracle(original, [1.1, 2.0, 3.0], oracle)
    assert not c.passed and c.first[0]["index"] == 0
    assert not compare_to_oracle([1.0], [1.0, 2.0], [1.0]).passed
