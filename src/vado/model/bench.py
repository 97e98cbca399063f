"""Benchmark and tuning results: timings, parsed metrics, and the machine they were measured on.

Four documents come out of ``vado bench`` and ``vado tune``, each a frozen
dataclass with a ``kind`` and a ``schema_version`` so that ``vado report`` can
tell them apart when it reads them back:

- :class:`BenchResult` (``kind`` ``command`` or ``kernel``): one workload timed
  ``runs`` times;
- :class:`KernelComparison` (``kernel-compare``): an original kernel and its
  port timed on the same device, with their checksums compared;
- :class:`ServeBenchResult` (``serve``): an inference server under load, one
  :class:`LevelResult` per concurrency level;
- :class:`TuneResult` (``tune``): every configuration tried, baseline and best.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Version of the bench/serve/tune documents (major bumps on a removed or renamed field).
BENCH_SCHEMA_VERSION = "1.0"


@dataclass(frozen=True)
class DeviceInfo:
    """An accelerator (or the host CPU) as the vendor tool reports it."""

    vendor: str  # nvidia, amd, intel, cpu
    name: str
    driver: str = ""
    memory_mib: int = 0
    arch: str = ""  # sm_90, gfx942 …
    source: str = ""  # the tool that reported it (nvidia-smi, rocm-smi, amd-smi, /proc/cpuinfo)


@dataclass(frozen=True)
class Environment:
    """Where a benchmark ran: host, devices and toolchains."""

    host: str
    cpu: str
    cpus: int
    devices: tuple[DeviceInfo, ...] = ()
    toolchains: dict[str, str] = field(default_factory=dict)
    python: str = ""

    def device_label(self) -> str:
        """The first GPU's name, else the CPU's: what a comparison column is headed with."""
        gpus = [d for d in self.devices if d.vendor != "cpu"]
        return gpus[0].name if gpus else self.cpu


@dataclass(frozen=True)
class Stats:
    """Summary of one series of samples."""

    count: int
    min: float
    median: float
    mean: float
    p95: float
    max: float
    stdev: float
    cv: float  # coefficient of variation, stdev / mean (0 when mean is 0)


@dataclass(frozen=True)
class Roofline:
    """A kernel's achieved rates set against the device's peaks.

    ``peak_source`` says where the peaks came from (the knowledge base entry and
    its datasheet URL, a measurement, or the user's ``--peak-*`` options);
    ``bound`` is ``memory`` when the bandwidth fraction is the larger one.
    """

    device: str
    peak_gbs: float
    peak_tflops: float
    achieved_gbs: float
    achieved_tflops: float
    bandwidth_pct: float
    compute_pct: float
    bound: str
    peak_source: str = ""


@dataclass(frozen=True)
class BenchResult:
    """``runs`` timed executions of ``command`` after ``warmup`` untimed ones.

    ``wall_s`` holds each timed run's wall-clock seconds; ``metrics`` holds, per
    metric name, the value each run printed (parsed with ``metric_spec``);
    ``objective`` names the series that tuning optimises (``wall_s`` or a metric)
    and ``higher_is_better`` its direction. ``failures`` counts runs that exited
    non-zero or timed out; their output tails are in ``errors``. For a kernel
    (``kind == "kernel"``) a run is one launch timed with device events,
    ``metrics`` holds ``kernel_ms``/``gbs``/``gflops`` per launch, and
    ``roofline`` compares them with the device's peaks.
    """

    kind: str  # command, kernel
    command: tuple[str, ...]
    runs: int
    warmup: int
    wall_s: tuple[float, ...]
    wall: Stats | None
    metrics: dict[str, tuple[float, ...]] = field(default_factory=dict)
    metric_stats: dict[str, Stats] = field(default_factory=dict)
    metric_spec: tuple[str, ...] = ()
    objective: str = "wall_s"
    higher_is_better: bool = False
    failures: int = 0
    errors: tuple[str, ...] = ()
    environment: Environment | None = None
    label: str = ""
    roofline: Roofline | None = None
    detail: dict = field(default_factory=dict)
    schema_version: str = BENCH_SCHEMA_VERSION

    def objective_stats(self) -> Stats | None:
        """Summary of the objective series (None when no run produced it)."""
        if self.objective == "wall_s":
            return self.wall
        return self.metric_stats.get(self.objective)


@dataclass(frozen=True)
class KernelComparison:
    """An original kernel and its port, timed by the same driver on the same device.

    ``speedup`` is the original's median time over the port's (above 1: the
    port is faster). ``outputs_match`` says whether the checksums of every buffer
    the kernel writes agree within ``tolerance``; ``mismatch`` says how not.
    """

    original: BenchResult
    port: BenchResult
    speedup: float
    outputs_match: bool
    tolerance: str = "exact"
    mismatch: str = ""
    kind: str = "kernel-compare"
    schema_version: str = BENCH_SCHEMA_VERSION


@dataclass(frozen=True)
class LevelResult:
    """All requests sent at one concurrency level, with summaries (seconds).

    ``errors`` counts requests that were sent and failed; ``not_sent`` those the
    level's time budget left unsent (neither is in the latency summaries).
    """

    concurrency: int
    requests: int
    errors: int
    duration_s: float
    requests_per_s: float
    output_tokens_per_s: float
    ttft: Stats | None
    tpot: Stats | None
    itl: Stats | None
    latency: Stats | None
    p99: dict[str, float] = field(default_factory=dict)
    error_samples: tuple[str, ...] = ()
    not_sent: int = 0
    output_tokens: int = 0
    prompt_tokens: int = 0


@dataclass(frozen=True)
class ServeBenchResult:
    """A load test of one server over several concurrency levels."""

    url: str
    model: str
    endpoint: str
    prompt_len: str
    output_len: str
    seed: int
    levels: tuple[LevelResult, ...]
    label: str = ""
    environment: Environment | None = None
    #: Why the run ended early (the server stopped answering), or ``""`` when every level ran.
    stopped: str = ""
    schema_version: str = BENCH_SCHEMA_VERSION
    kind: str = "serve"


@dataclass(frozen=True)
class Param:
    """One tunable: its name, candidate values, and where it goes (``define`` or ``env``)."""

    name: str
    values: tuple[str, ...]
    where: str = "define"


@dataclass(frozen=True)
class Trial:
    """One configuration's outcome: accepted only when it built, ran, and verified against the baseline."""

    config: dict[str, str]
    objective: float | None
    accepted: bool
    reason: str
    bench: BenchResult | None = None
    build_s: float = 0.0
    build_command: tuple[str, ...] = ()
    run_command: tuple[str, ...] = ()


@dataclass(frozen=True)
class TuneResult:
    """Baseline vs best, with every trial as evidence.

    ``gain_pct`` is how much better the best is than the baseline on the
    objective (``+38`` reads as 38 % more throughput, or a 1.38× shorter time).
    ``tolerance`` is how outputs were compared with the baseline's.
    """

    objective: str
    higher_is_better: bool
    baseline: Trial
    best: Trial
    trials: tuple[Trial, ...]
    gain_pct: float
    strategy: str
    budget: int
    seed: int
    params: tuple[Param, ...] = ()
    run: str = ""
    build: str = ""
    tolerance: str = "exact"
    space_size: int = 0
    environment: Environment | None = None
    label: str = ""
    schema_version: str = BENCH_SCHEMA_VERSION
    kind: str = "tune"
