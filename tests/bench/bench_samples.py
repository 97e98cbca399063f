"""Deterministic bench, kernel, serve and tune results (no timing involved) for report and schema tests."""

from vado.bench.serve import RequestRecord, summarize_level
from vado.bench.stats import summarize
from vado.model.bench import (BenchResult, DeviceInfo, Environment, KernelComparison, Param, Roofline,
                              ServeBenchResult, Trial, TuneResult)

CPU_ENV = Environment(host="ci", cpu="Example CPU 3000", cpus=2, toolchains={"cc": "cc 12.2.0"}, python="3.11.7")
H200_ENV = Environment(host="gpu1", cpu="Example Xeon", cpus=16, python="3.12.3",
                       devices=(DeviceInfo("nvidia", "NVIDIA H200", "580.65", 143771, "sm_90", "nvidia-smi"),),
                       toolchains={"nvcc": "Cuda compilation tools, release 13.0"})
MI300X_ENV = Environment(host="gpu2", cpu="Example EPYC", cpus=16, python="3.12.3",
                         devices=(DeviceInfo("amd", "AMD Instinct MI300X", "", 0, "gfx942", "rocm-smi"),),
                         toolchains={"hipcc": "HIP version: 7.2"})


def command_result(label="", env=CPU_ENV, scale=1.0) -> BenchResult:
    walls = tuple(x * scale for x in (0.120, 0.118, 0.125, 0.119, 0.131))
    ms = tuple(x * scale for x in (100.5, 99.0, 104.0, 99.5, 110.0))
    metrics = {"loop_ms": ms, "items_per_s": tuple(1e8 / m for m in ms)}
    return BenchResult(kind="command", command=("./loop", "1000000"), runs=5, warmup=1, wall_s=walls,
                       wall=summarize(walls), metrics=metrics, metric_stats={k: summarize(v) for k, v in metrics.items()},
                       metric_spec=("loop_ms=loop: ([0-9.]+) ms", "json:items_per_s"), objective="loop_ms",
                       environment=env, label=label)


def kernel_result(env=H200_ENV, label="saxpy (nvcc)", factor=1.0) -> BenchResult:
    samples = tuple(f * factor for f in (0.120, 0.118, 0.119, 0.121))
    bytes_, flops = 12.0 * (1 << 24), 2.0 * (1 << 24)
    metrics = {"kernel_ms": samples, "gbs": tuple(bytes_ / (s * 1e-3) / 1e9 for s in samples),
               "gflops": tuple(flops / (s * 1e-3) / 1e9 for s in samples)}
    stats = {k: summarize(v) for k, v in metrics.items()}
    gbs = stats["gbs"].median
    return BenchResult(
        kind="kernel", command=("/tmp/k/driver",), runs=4, warmup=0, wall_s=(), wall=None, metrics=metrics,
        metric_stats=stats, metric_spec=("json:samples_ms",), objective="kernel_ms", environment=env, label=label,
        roofline=Roofline("NVIDIA H200", 4300.0, 67.0, gbs, stats["gflops"].median / 1e3, round(100 * gbs / 4300, 2),
                          round(100 * stats["gflops"].median / 67e3, 2), "memory",
                          "bandwidth: NVIDIA H200 measured copy; compute: NVIDIA H200 fp32 datasheet"),
        detail={"kernel": "saxpy", "source": "saxpy.cu", "api": "cuda", "compiler": "nvcc", "block": 256,
                "checksums": {"y": 1056964608.0}},
    )


def kernel_comparison() -> KernelComparison:
    port = kernel_result(label="saxpy (hip-nvidia)", factor=1.05)
    return KernelComparison(kernel_result(), port, round(0.1195 / (0.1195 * 1.05), 4), True, "rtol=1e-06 atol=0")


def serve_result(label="", env=CPU_ENV, speed=1.0) -> ServeBenchResult:
    levels = []
    for c in (1, 4):
        recs = [RequestRecord(True, (0.5 + 0.1 * i) / speed, (0.05 * c + 0.01 * i) / speed,
                              tuple(g / speed for g in (0.02, 0.03, 0.025)), 4, 16, prompt_tokens=20) for i in range(4)]
        levels.append(summarize_level(c, recs, (2.0 if c == 1 else 0.8) / speed))
    return ServeBenchResult("http://127.0.0.1:8000", "smollm2", "completions", "fixed:16", "fixed:4", 0,
                            tuple(levels), label=label, environment=env)


def tune_result() -> TuneResult:
    def bench(v):
        vals = (v, v * 1.01, v * 0.99)
        return BenchResult("command", ("/w/cfg/prog",), 3, 1, (0.2, 0.21, 0.19), summarize((0.2, 0.21, 0.19)),
                           {"cost_ms": vals}, {"cost_ms": summarize(vals)}, ("cost_ms=cost_ms (\\d+)",), "cost_ms")

    base = Trial({"BLOCK": "16"}, 62.0, True, "baseline", bench(62.0), 0.05, ("cc", "-DBLOCK=16"), ("/w/cfg000/prog",))
    bad = Trial({"BLOCK": "7"}, None, False, "results differ from the baseline's (1 of 2 values differ)", None, 0.05)
    best = Trial({"BLOCK": "64"}, 15.0, True, "verified", bench(15.0), 0.05)
    mid = Trial({"BLOCK": "32"}, 31.0, True, "verified", bench(31.0), 0.05)
    return TuneResult("cost_ms", False, base, best, (base, bad, mid, best), round((62 / 15 - 1) * 100, 2), "grid", 32, 0,
                      (Param("BLOCK", ("16", "7", "32", "64")),), "{bin}", "cc -O1 {DEFINES} blk.c -o {bin}",
                      "rtol=1e-06 atol=0", 4, CPU_ENV)


ALL = {
    "command": command_result(),
    "kernel": kernel_result(),
    "kernel-compare": kernel_comparison(),
    "serve": serve_result(),
    "tune": tune_result(),
}
