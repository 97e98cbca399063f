"""``vado lookup``: exact output for a known name, JSON, --stats, and an unknown name."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import vado.cli.lookup as lookup_cli
from vado.cli.app import app
from vado.model import Target

# Fixed profiles, so the expected output does not move when targets.yaml changes.
TARGETS = (
    Target(name="rocm-7.2", family="rocm", version="7.2.4", hip_version="7.2"),
    Target(name="hip-5.2", family="rocm", version="5.2.3", hip_version="5.2"),
    Target(name="oneapi", family="oneapi", version="2026.0"),
    Target(name="scale", family="scale", version="1.7.1"),
    Target(name="zluda", family="zluda", version="6"),
)


@pytest.fixture(autouse=True)
def _fixed_targets(monkeypatch):
    def load(name):
        if name is None:
            return TARGETS
        return tuple(t for t in TARGETS if t.name == name)

    monkeypatch.setattr(lookup_cli, "_load_targets", load)


runner = CliRunner()

KNOWN = (
    '__shfl_down_sync  device function, Device Functions\n'
    '  CUDA: added 9.0\n'
    '  HIP:  __shfl_down_sync (added 6.2.0)\n'
    '  support: supported\n'
    '\n'
    'target    status             use               since  why                                           \n'
    'rocm-7.2  available          __shfl_down_sync  6.2.0  same name on ROCm; since HIP 6.2.0            \n'
    'hip-5.2   newer-than-target  __shfl_down_sync  6.2.0  __shfl_down_sync appeared in HIP 6.2.0;       \n'
    '                                                      hip-5.2 has HIP 5.2                           \n'
    'oneapi    unknown            -                 -      SYCLomatic migrates CUDA code to SYCL;        \n'
    "                                                      HIPIFY's tables hold no SYCL names and vado   \n"
    '                                                      records no per-name SYCLomatic mapping        \n'
    "scale     available          __shfl_down_sync  -      SCALE's compiler provides CUDA's device       \n"
    '                                                      functions and math under CUDA names;          \n'
    "                                                      per-function gaps are listed in SCALE's       \n"
    "                                                      coverage pages, not in vado's data            \n"
    "zluda     available          __shfl_down_sync  -      ZLUDA translates the binary's PTX, so device  \n"
    '                                                      functions keep their CUDA names               \n'
)

STATS = (
    'library     supported  deprecated  removed  experimental  unsupported  total\n'
    'complex            27           0        0             0            0     27\n'
    'cub               107           0        0             0           59    166\n'
    'cublas            817           0        0            29          167   1013\n'
    'cublaslt           86           0        0             0          409    495\n'
    'cudnn             648           0        0             0          515   1163\n'
    'cufft              89           0        0             0           60    149\n'
    'cufile            161           0        0             0           15    176\n'
    'curand            134           0        0             0           34    168\n'
    'cusolver          341           0        0             7          404    752\n'
    'cusparse          424         275        0             0          162    861\n'
    'cusparselt         36           0        0             0            0     36\n'
    'cutensor          172           0        2             0           84    258\n'
    'device            585           0        0             0          260    845\n'
    'driver           1034          64        0             8          903   2009\n'
    'nccl               31           0        0             0            0     31\n'
    'nvtx               13           0        0             0            4     17\n'
    'rtc                28           0        0             0            9     37\n'
    'runtime           932          11        0             3          516   1462\n'
    'thrust             14           0        0             0            0     14\n'
    'total            5679         350        2            47         3601   9679\n'
)

UNKNOWN = (
    "error: unknown CUDA name 'cudaMallocAsyn': no HIPIFY table lists it\n"
    'tip: did you mean: cudaMallocAsync, cudaMalloc, cudaMallocArray, cudaMallocHost, cudaMalloc3DArray?\n'
)


def test_known_name_text():
    result = runner.invoke(app, ["lookup", "__shfl_down_sync"])
    assert result.exit_code == 0
    assert result.stdout == KNOWN


def test_json_for_one_target():
    result = runner.invoke(app, ["lookup", "cublasSgemm_v2", "--target", "hip-5.2", "--format", "json"])
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["entry"]["cuda_name"] == "cublasSgemm_v2"
    assert (doc["entry"]["hip_name"], doc["entry"]["hip_added"]) == ("hipblasSgemm", "1.8.2")
    assert (doc["entry"]["roc_name"], doc["entry"]["roc_added"]) == ("rocblas_sgemm", "1.5.0")
    assert doc["source"] == {
        "repo": "https://github.com/ROCm/HIPIFY",
        "commit": "014177bc2e434ce3e834aa4f3d0e2abb1efa9796",
        "path": "docs/tables/CUBLAS_API_supported_by_HIP_and_ROC.md",
    }
    assert doc["targets"] == [
        {
            "target": "hip-5.2",
            "status": "renamed",
            "replacement": "hipblasSgemm",
            "since": "1.8.2",
            "reason": "cublasSgemm_v2 becomes hipblasSgemm; since HIP 1.8.2",
        }
    ]


def test_json_newer_than_target():
    result = runner.invoke(app, ["lookup", "__shfl_down_sync", "-t", "hip-5.2", "-f", "json"])
    target = json.loads(result.stdout)["targets"][0]
    assert (target["status"], target["since"]) == ("newer-than-target", "6.2.0")


def test_stats_table():
    result = runner.invoke(app, ["lookup", "--stats"])
    assert result.exit_code == 0
    assert result.stdout == STATS


def test_stats_json_totals_add_up():
    result = runner.invoke(app, ["lookup", "--stats", "--format", "json"])
    doc = json.loads(result.stdout)
    assert doc["total"]["total"] == sum(lib["total"] for lib in doc["libraries"].values()) >= 8932


def test_unknown_name_suggests_and_exits_2():
    result = runner.invoke(app, ["lookup", "cudaMallocAsyn"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == UNKNOWN


def test_no_name_is_a_usage_error():
    result = runner.invoke(app, ["lookup"])
    assert result.exit_code == 2
    assert "no name given" in result.stderr


def test_bad_format_is_a_usage_error():
    result = runner.invoke(app, ["lookup", "cudaMalloc", "--format", "xml"])
    assert result.exit_code == 2


def test_unknown_target_is_a_usage_error(monkeypatch):
    # The real loader: an unknown profile name becomes exit code 2 with the known names.
    monkeypatch.undo()
    result = runner.invoke(app, ["lookup", "cudaMalloc", "--target", "no-such-target"])
    assert result.exit_code == 2
    assert "unknown target" in result.stderr
