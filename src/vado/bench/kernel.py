"""``vado bench kernel``: time one kernel of a CUDA or HIP file with device events.

vado reads the kernel's parameter list, writes a driver that includes the source
file, allocates a device buffer of ``n`` elements for every pointer parameter
(filled with deterministic values), passes ``n`` (or the named shape value) for
integer parameters and 1 for floating ones, launches ``warmup`` times, then times
``iters`` launches with events and prints one JSON line. Achieved bandwidth
counts every pointer buffer once for reading, and once more for writing when the
pointer is not ``const`` (override with ``--bytes EXPR``); ``--flops EXPR`` gives
the arithmetic done per launch. Both are set against the device's peaks from the
knowledge base.

The same driver builds with nvcc (CUDA source), with hipcc on AMD, and for a
HIP port on NVIDIA through HIP's header-only NVIDIA path
(``-D__HIP_PLATFORM_NVIDIA__``), compiled by clang against the CUDA 11.8 tree of
:mod:`vado.verify.hip_nvidia` when it is set up (HIP 5.2's headers need APIs
that CUDA 12 removed), else by nvcc. So an original and its port can be timed
on the same device, and the checksums of the buffers they write compared.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from vado.bench.environment import detect_environment, has_gpu
from vado.bench.stats import summarize
from vado.errors import ToolchainError, UsageError
from vado.model.bench import BenchResult, Environment, KernelComparison, Roofline
from vado.scan.lexer import Kind, tokenize
from vado.verify.compare import Tolerance, compare_text
from vado.verify.sandbox import run_capped


@dataclass(frozen=True)
class KernelParam:
    """One kernel parameter: its C type text, name, and what the driver passes."""

    type: str
    name: str
    pointer: bool
    const: bool
    elem_type: str

    @property
    def floating(self) -> bool:
        """Whether a scalar parameter is floating-point."""
        return not self.pointer and any(t in self.type for t in ("float", "double", "half", "__half", "bfloat"))


@dataclass(frozen=True)
class KernelSignature:
    """A ``__global__`` function's name, template header (if any) and parameters."""

    name: str
    params: tuple[KernelParam, ...]
    templated: bool


def find_kernel(text: str, name: str | None = None) -> KernelSignature:
    """The signature of kernel ``name`` (or the only kernel) in ``text``."""
    toks = [t for t in tokenize(text) if t[0] is not Kind.COMMENT]
    found: list[KernelSignature] = []
    for i, tok in enumerate(toks):
        if tok[0] is not Kind.IDENT or tok[3] != "__global__":
            continue
        templated = any(t[3] == "template" for t in toks[max(0, i - 12) : i])
        # The kernel name is the identifier right before the first '(' after __global__.
        j = i + 1
        while j < len(toks) and toks[j][3] != "(":
            j += 1
        if j >= len(toks) or toks[j - 1][0] is not Kind.IDENT:
            continue
        kname = toks[j - 1][3]
        depth, k = 0, j
        while k < len(toks):
            if toks[k][3] == "(":
                depth += 1
            elif toks[k][3] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        params_text = text[toks[j][2] : toks[k][1]] if k < len(toks) else ""
        found.append(KernelSignature(kname, tuple(_parse_params(params_text)), templated))
    if name:
        for sig in found:
            if sig.name == name:
                return sig
        raise UsageError(f"no __global__ kernel named {name!r}", f"kernels here: {', '.join(s.name for s in found) or 'none'}")
    if len(found) != 1:
        raise UsageError(
            "which kernel?", f"{len(found)} kernels in the file: {', '.join(s.name for s in found)}", "pass --kernel NAME"
        )
    return found[0]


def _parse_params(text: str) -> list[KernelParam]:
    out = []
    depth = 0
    current = ""
    parts = []
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    for raw in parts:
        decl = re.sub(r"\s+", " ", raw.split("=")[0]).strip()
        if not decl or decl == "void":
            continue
        m = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[\s*\])?$", decl)
        if not m:
            raise UsageError(f"cannot read kernel parameter {decl!r}", "", "time this kernel with your own driver and `vado bench CMD`")
        ctype, pname = m.group(1).strip(), m.group(2)
        pointer = "*" in ctype or bool(m.group(3))
        const = "const" in ctype.split("*")[0] if pointer else False
        elem = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b", "", ctype.split("*")[0]).strip()
        out.append(KernelParam(ctype, pname, pointer, const, elem or "float"))
    return out


def default_bytes(sig: KernelSignature, n: int) -> str:
    """The C expression of bytes moved per launch under the read-once/write-once model."""
    terms = []
    for p in sig.params:
        if p.pointer:
            factor = 1 if p.const else 2
            terms.append(f"{factor}.0*n*sizeof({p.elem_type})")
    return " + ".join(terms) or "0.0"


def driver_source(
    source_path: str,
    sig: KernelSignature,
    *,
    api: str,
    n: int,
    grid: str | None,
    block: int,
    iters: int,
    warmup: int,
    bytes_expr: str | None,
    flops_expr: str | None,
    shapes: dict[str, str],
    template_args: str = "",
    measure_peak: bool = False,
) -> str:
    """C++ source of a driver for ``sig`` using the ``cuda`` or ``hip`` runtime API.

    The driver prints ``checksum NAME VALUE`` for every buffer the kernel may
    write, then one JSON line: ``kernel_ms`` (median), ``best_ms``, ``gbs``,
    ``gflops``, ``iters``, ``block``, ``bytes`` and ``flops`` per launch,
    ``samples_ms`` (every timed launch) and, with ``measure_peak``, ``copy_gbs``:
    the device-to-device copy bandwidth measured on the same buffers' size.
    """
    if api not in ("cuda", "hip"):
        raise UsageError(f"unknown runtime API {api!r}", "", "use cuda or hip")
    if iters < 1 or warmup < 0 or block < 1 or n < 1:
        raise UsageError("--iters, --block and --n must be positive (and --warmup not negative)")
    p = api
    lines = [
        "// Generated by `vado bench kernel`. The source's own main() (if any) is renamed so the driver's is the program's.",
        "#define main vado_original_main",
        f'#include "{source_path}"',
        "#undef main",
        "#include <cstdio>",
        "#include <cstdlib>",
        "#include <vector>",
        "#include <algorithm>",
        f"#define VADO_CHECK(x) do {{ auto e_ = (x); if (e_ != {p}Success) {{ std::fprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, {p}GetErrorString(e_)); std::exit(2); }} }} while (0)",
        # The block size is a macro so `vado tune` can sweep it without regenerating the driver.
        f"#ifndef VADO_BLOCK\n#define VADO_BLOCK {block}\n#endif",
        "int main() {",
        f"  const long long n = {n};",
    ]
    for k, v in shapes.items():
        if not re.fullmatch(r"[A-Za-z_]\w*", k):
            raise UsageError(f"bad shape name {k!r}", "", "write --shape NAME=VALUE")
        lines.append(f"  const long long {k} = {v};")
    args = []
    for idx, prm in enumerate(sig.params):
        if prm.pointer:
            var = f"d{idx}"
            lines += [
                f"  {prm.elem_type}* {var} = nullptr;",
                f"  VADO_CHECK({p}Malloc((void**)&{var}, n * sizeof({prm.elem_type})));",
                # Deterministic bytes in [0, 63]: finite small values for float buffers, bounded integers otherwise.
                f"  {{ std::vector<unsigned char> h(n * sizeof({prm.elem_type}));",
                f"    for (size_t i = 0; i < h.size(); ++i) h[i] = (unsigned char)((i * 2654435761u) >> 24) & 0x3f;",
                f"    VADO_CHECK({p}Memcpy({var}, h.data(), h.size(), {p}MemcpyHostToDevice)); }}",
            ]
            cast = re.sub(r"\b(__restrict__|__restrict|restrict)\b", "", prm.type).strip()
            args.append(f"({cast}){var}")
        elif prm.floating:
            args.append(f"({prm.type})1")
        else:
            args.append(f"({prm.type})({prm.name if prm.name in shapes else 'n'})")
    grid_expr = grid or "(n + VADO_BLOCK - 1) / VADO_BLOCK"
    name = sig.name + (f"<{template_args}>" if template_args else "")
    call = f"{name}<<<grid_, block_>>>({', '.join(args)});"
    lines += [
        f"  dim3 grid_((unsigned)({grid_expr})), block_(VADO_BLOCK);",
        f"  {p}Event_t start, stop;",
        f"  VADO_CHECK({p}EventCreate(&start)); VADO_CHECK({p}EventCreate(&stop));",
        f"  for (int w = 0; w < {warmup}; ++w) {call}",
        f"  VADO_CHECK({p}GetLastError()); VADO_CHECK({p}DeviceSynchronize());",
        f"  std::vector<float> ms({iters});",
        f"  for (int it = 0; it < {iters}; ++it) {{",
        f"    VADO_CHECK({p}EventRecord(start));",
        f"    {call}",
        f"    VADO_CHECK({p}EventRecord(stop)); VADO_CHECK({p}EventSynchronize(stop));",
        f"    VADO_CHECK({p}EventElapsedTime(&ms[it], start, stop));",
        "  }",
        f"  VADO_CHECK({p}GetLastError());",
        *_checksum_lines(sig, p),
        "  double copy_gbs = 0;",
    ]
    if measure_peak:
        lines += _copy_peak_lines(p)
    lines += [
        "  std::vector<float> sorted_ms(ms); std::sort(sorted_ms.begin(), sorted_ms.end());",
        "  double med = sorted_ms[sorted_ms.size() / 2], best = sorted_ms[0];",
        f"  double bytes = {bytes_expr or default_bytes(sig, n)};",
        f"  double flops = {flops_expr or '0.0'};",
        '  std::printf("{\\"kernel_ms\\": %.6f, \\"best_ms\\": %.6f, \\"gbs\\": %.3f, \\"gflops\\": %.3f, \\"iters\\": %d, \\"block\\": %d, "'
        f"\"\\\"bytes\\\": %.17g, \\\"flops\\\": %.17g, \\\"copy_gbs\\\": %.3f, \\\"samples_ms\\\": [\","
        f" med, best, bytes / (med * 1e-3) / 1e9, flops / (med * 1e-3) / 1e9, {iters}, VADO_BLOCK, bytes, flops, copy_gbs);",
        '  for (size_t i = 0; i < ms.size(); ++i) std::printf(i ? ", %.6f" : "%.6f", ms[i]);',
        '  std::printf("]}\\n");',
        "  return 0;",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _checksum_lines(sig: KernelSignature, p: str) -> list[str]:
    """Lines that print a checksum of every buffer the kernel may write, so runs can be verified."""
    out = []
    for idx, prm in enumerate(sig.params):
        if prm.pointer and not prm.const:
            out += [
                f"  {{ std::vector<{prm.elem_type}> h(n);",
                f"    VADO_CHECK({p}Memcpy(h.data(), d{idx}, n * sizeof({prm.elem_type}), {p}MemcpyDeviceToHost));",
                "    double s = 0; for (long long i = 0; i < n; ++i) s += (double)h[i];",
                f'    std::printf("checksum {prm.name} %.17g\\n", s); }}',
            ]
    return out


def _copy_peak_lines(p: str) -> list[str]:
    """Time device-to-device copies of a 256 MiB buffer: the device's practical bandwidth ceiling."""
    return [
        "  { const size_t cb = 256u << 20; void *a = nullptr, *b = nullptr;",
        f"    VADO_CHECK({p}Malloc(&a, cb)); VADO_CHECK({p}Malloc(&b, cb));",
        f"    VADO_CHECK({p}Memcpy(b, a, cb, {p}MemcpyDeviceToDevice)); VADO_CHECK({p}DeviceSynchronize());",
        "    std::vector<float> c(10);",
        "    for (int r = 0; r < 10; ++r) {",
        f"      VADO_CHECK({p}EventRecord(start)); VADO_CHECK({p}Memcpy(b, a, cb, {p}MemcpyDeviceToDevice));",
        f"      VADO_CHECK({p}EventRecord(stop)); VADO_CHECK({p}EventSynchronize(stop));",
        f"      VADO_CHECK({p}EventElapsedTime(&c[r], start, stop)); }}",
        "    std::sort(c.begin(), c.end());",
        "    copy_gbs = 2.0 * cb / (c[c.size() / 2] * 1e-3) / 1e9;  // a copy reads and writes every byte",
        f"    VADO_CHECK({p}Free(a)); VADO_CHECK({p}Free(b)); }}",
    ]


def hip_include_dir() -> str | None:
    """HIP headers with the NVIDIA platform (``$VADO_HIP_INCLUDE`` first), as verify finds them for its builds."""
    from vado.verify.build import find_hip_nvidia_headers

    return find_hip_nvidia_headers(os.environ.get("VADO_HIP_INCLUDE"))


COMPILERS = ("nvcc", "hipcc", "hip-nvidia")


def build_command(
    driver: str, exe: str, *, compiler: str, source_is_hip: bool, arch: str | None, compile_only: bool = False,
) -> list[str]:
    """The compiler command for a driver.

    ``nvcc``: CUDA source (or HIP through HIP's NVIDIA headers, which need a CUDA
    that still has the APIs they wrap); ``hipcc``: HIP on AMD (``HIP_PLATFORM=amd``
    is set when it runs); ``hip-nvidia``: HIP on NVIDIA through clang and the CUDA
    11.8 tree of :mod:`vado.verify.hip_nvidia`. ``compile_only`` stops at an
    object file (``-c``): a build check on a machine without the GPU.
    """
    if compiler == "nvcc":
        cmd = ["nvcc", "-O3", "-std=c++17", "-x", "cu", driver, "-o", exe]
        if arch:
            cmd[1:1] = [f"-arch={arch}"]
        if source_is_hip:
            inc = hip_include_dir()
            if inc is None:
                raise ToolchainError(
                    "HIP headers not found for the HIP-on-NVIDIA build",
                    "nvcc needs hip/hip_runtime.h with its nvidia_detail headers",
                    "apt-get install libamdhip64-dev, or set VADO_HIP_INCLUDE",
                )
            cmd[1:1] = ["-D__HIP_PLATFORM_NVIDIA__", "-D__HIP_PLATFORM_NVCC__", f"-I{inc}"]
    elif compiler == "hipcc":
        cmd = ["hipcc", "-O3", "-std=c++17", "-x", "hip", f"--offload-arch={arch or 'gfx942'}", driver, "-o", exe]
    elif compiler == "hip-nvidia":
        from vado.verify import hip_nvidia

        inc = hip_include_dir()
        if inc is None:
            raise ToolchainError("HIP headers not found for the HIP-on-NVIDIA build",
                                 "clang needs hip/hip_runtime.h with its nvidia_detail headers",
                                 "apt-get install libamdhip64-dev, or set VADO_HIP_INCLUDE")
        if not hip_nvidia.is_ready():
            raise ToolchainError("the CUDA 11.8 tree for HIP on NVIDIA is not set up",
                                 f"{hip_nvidia.default_root()} lacks headers, ptxas or libcudart",
                                 "run `vado verify --platform nvidia` once (it assembles the tree), or set VADO_CUDA11_PATH")
        cmd = hip_nvidia.build_command([driver], exe, hip_include=inc, gpu_arch=arch or "sm_80", flags=["-O3"])
        if compile_only:
            # Linker options mean nothing with -c (clang would warn about each).
            cmd = [c for c in cmd if not c.startswith(("-L", "-l", "-Wl,"))]
    else:
        raise UsageError(f"unknown compiler {compiler!r}", "", f"use one of: {', '.join(COMPILERS)}")
    if compile_only:
        cmd.insert(1, "-c")
    return cmd


def choose_compiler(source_is_hip: bool, environment: Environment | None = None) -> str:
    """The compiler for a source on the GPU at hand: hipcc on AMD; nvcc (CUDA) or hip-nvidia (HIP) on NVIDIA."""
    env = environment or detect_environment()
    vendors = {d.vendor for d in env.devices}
    if "amd" in vendors or ("nvidia" not in vendors and shutil.which("rocminfo") and source_is_hip):
        return "hipcc"
    if not source_is_hip:
        return "nvcc"
    from vado.verify import hip_nvidia

    # HIP 5.2's NVIDIA headers need CUDA <= 11 APIs: clang + the CUDA 11.8 tree builds them where nvcc 12/13 cannot.
    return "hip-nvidia" if hip_nvidia.is_ready() and hip_nvidia.find_clang() else "nvcc"


def _default_arch(compiler: str, environment: Environment) -> str | None:
    for d in environment.devices:
        if compiler == "hipcc" and d.vendor == "amd" and d.arch:
            return d.arch
        if compiler == "nvcc" and d.vendor == "nvidia" and d.arch:
            return d.arch
    # hip-nvidia: sm_80 code + compute_80 PTX runs on Ampere and newer (the driver JIT-compiles the PTX).
    return None


@dataclass(frozen=True)
class KernelBuild:
    """A written driver and the command that builds it."""

    kernel: KernelSignature
    source: str
    api: str
    compiler: str
    driver: str
    exe: str
    command: tuple[str, ...]
    workdir: str


def prepare_driver(
    source: str,
    *,
    kernel: str | None = None,
    n: int = 1 << 24,
    block: int = 256,
    grid: str | None = None,
    iters: int = 50,
    warmup: int = 5,
    bytes_expr: str | None = None,
    flops_expr: str | None = None,
    shapes: dict[str, str] | None = None,
    compiler: str | None = None,
    arch: str | None = None,
    template_args: str = "",
    measure_peak: bool = False,
    compile_only: bool = False,
    workdir: str | None = None,
    environment: Environment | None = None,
) -> KernelBuild:
    """Write the timing driver for one kernel of ``source`` and work out its build command."""
    try:
        text = open(source, encoding="latin-1").read()
    except OSError as exc:
        raise UsageError(f"cannot read {source}", exc.strerror or str(exc), "pass a CUDA or HIP source file") from None
    sig = find_kernel(text, kernel)
    if sig.templated and not template_args:
        raise UsageError(f"kernel {sig.name} is a template", "the driver must instantiate it",
                         "pass --template-args, e.g. --template-args float,256")
    is_hip = source.endswith(".hip") or "hip/hip_runtime.h" in text
    env = environment or detect_environment()
    compiler = compiler or choose_compiler(is_hip, env)
    if compiler not in COMPILERS:
        raise UsageError(f"unknown compiler {compiler!r}", "", f"use one of: {', '.join(COMPILERS)}")
    if compiler == "hip-nvidia" and not is_hip:
        raise UsageError(f"{source} is CUDA source", "hip-nvidia builds HIP code", "use --compiler nvcc")
    api = "hip" if is_hip else "cuda"
    if compiler == "hipcc" and api == "cuda":
        raise UsageError(f"{source} is CUDA source", "hipcc builds HIP code",
                         "port it first (`vado port`), then time the port")
    work = workdir or tempfile.mkdtemp(prefix="vado-kbench-")
    os.makedirs(work, exist_ok=True)
    driver = os.path.join(work, "driver.hip" if compiler == "hipcc" else "driver.cu")
    with open(driver, "w", encoding="utf-8") as fh:
        fh.write(
            driver_source(
                os.path.abspath(source), sig, api=api, n=n, grid=grid, block=block, iters=iters, warmup=warmup,
                bytes_expr=bytes_expr, flops_expr=flops_expr, shapes=dict(shapes or {}), template_args=template_args,
                measure_peak=measure_peak,
            )
        )
    exe = os.path.join(work, "driver.o" if compile_only else "driver")
    cmd = build_command(driver, exe, compiler=compiler, source_is_hip=is_hip, arch=arch or _default_arch(compiler, env),
                        compile_only=compile_only)
    return KernelBuild(sig, source, api, compiler, driver, exe, tuple(cmd), work)


def build_driver(build: KernelBuild, timeout_s: float = 600.0) -> float:
    """Compile ``build``; returns the seconds it took. ToolchainError when the compiler is missing or fails."""
    if shutil.which(build.command[0]) is None:
        raise ToolchainError(f"{build.command[0]} not found", f"the {build.compiler} build needs it",
                             "install the toolchain or pass --compiler")
    env = dict(os.environ, HIP_PLATFORM="amd" if build.compiler == "hipcc" else "nvidia")
    t0 = time.perf_counter()
    try:
        proc = run_capped(list(build.command), timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"building the driver for {build.kernel.name} timed out", f"after {timeout_s:g} s",
                             " ".join(build.command)) from None
    if proc.returncode != 0:
        raise ToolchainError(f"building the driver for {build.kernel.name} failed",
                             (proc.stderr or proc.stdout).strip()[-1500:], " ".join(build.command))
    if build.compiler == "hip-nvidia" and not build.exe.endswith(".o"):
        from vado.verify import hip_nvidia

        hip_nvidia.bundle_runtime(os.path.dirname(build.exe))
    return time.perf_counter() - t0


def parse_driver_output(stdout: str) -> tuple[dict, dict[str, float]]:
    """The driver's JSON line and its checksums; ToolchainError when the line is missing."""
    line = next((l for l in reversed(stdout.splitlines()) if l.startswith("{")), "")
    try:
        doc = json.loads(line)
    except ValueError:
        raise ToolchainError("the driver printed no result line", stdout.strip()[-500:] or "no output") from None
    sums = {}
    for l in stdout.splitlines():
        parts = l.split()
        if len(parts) == 3 and parts[0] == "checksum":
            sums[parts[1]] = float(parts[2])
    return doc, sums


def roofline(
    device: str, gbs: float, gflops: float, *, peak_gbs: float | None = None, peak_tflops: float | None = None,
    measured_copy_gbs: float = 0.0, precision: str = "fp32",
) -> Roofline | None:
    """``gbs``/``gflops`` set against the peaks of ``device`` (options, a measurement, or the knowledge base)."""
    from vado.knowledge.devices import device_peak

    entry = device_peak(device) if device else None
    sources = []
    if peak_gbs:
        sources.append("bandwidth: --peak-gbs")
    elif measured_copy_gbs:
        peak_gbs = measured_copy_gbs
        sources.append("bandwidth: measured device-to-device copy")
    elif entry:
        peak_gbs = entry.bandwidth_ceiling_gbs
        sources.append(f"bandwidth: {entry.name} "
                       + ("measured copy, " + str(entry.measured.get('source', '')) if entry.measured.get("copy_gbs")
                          else entry.source))
    if peak_tflops:
        sources.append("compute: --peak-tflops")
    elif entry:
        peak_tflops = entry.bf16_tflops if precision == "bf16" else entry.fp32_tflops
        sources.append(f"compute: {entry.name} {precision} datasheet {entry.source}")
    if not peak_gbs and not peak_tflops:
        return None
    bw_pct = 100.0 * gbs / peak_gbs if peak_gbs else 0.0
    fl_pct = 100.0 * gflops / (peak_tflops * 1e3) if peak_tflops else 0.0
    return Roofline(
        device=entry.name if entry else device, peak_gbs=float(peak_gbs or 0.0), peak_tflops=float(peak_tflops or 0.0),
        achieved_gbs=gbs, achieved_tflops=gflops / 1e3, bandwidth_pct=round(bw_pct, 2), compute_pct=round(fl_pct, 2),
        bound="memory" if bw_pct >= fl_pct else "compute", peak_source="; ".join(sources),
    )


def run_driver(
    build: KernelBuild,
    *,
    label: str = "",
    timeout_s: float = 600.0,
    peak_gbs: float | None = None,
    peak_tflops: float | None = None,
    precision: str = "fp32",
    environment: Environment | None = None,
    build_s: float = 0.0,
) -> BenchResult:
    """Run a built driver and turn its output into a ``kernel`` BenchResult with a roofline."""
    env = environment or detect_environment()
    try:
        proc = run_capped([build.exe], timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"the driver for {build.kernel.name} timed out", f"after {timeout_s:g} s") from None
    except OSError as exc:
        raise ToolchainError(f"cannot run the driver for {build.kernel.name}", exc.strerror or str(exc)) from None
    if proc.returncode != 0:
        raise ToolchainError(f"the driver for {build.kernel.name} failed (exit {proc.returncode})",
                             (proc.stderr or proc.stdout).strip()[-1500:])
    doc, sums = parse_driver_output(proc.stdout)
    samples = tuple(float(x) for x in doc.get("samples_ms") or [doc["kernel_ms"]])
    bytes_, flops = float(doc.get("bytes", 0.0)), float(doc.get("flops", 0.0))
    gbs = tuple(bytes_ / (ms * 1e-3) / 1e9 if ms > 0 else 0.0 for ms in samples)
    gflops = tuple(flops / (ms * 1e-3) / 1e9 if ms > 0 else 0.0 for ms in samples)
    metrics = {"kernel_ms": samples, "gbs": gbs, "gflops": gflops}
    stats = {k: s for k, v in metrics.items() if (s := summarize(v)) is not None}
    gpu = next((d.name for d in env.devices if d.vendor in ("nvidia", "amd")), "")
    roof = roofline(gpu, stats["gbs"].median, stats["gflops"].median, peak_gbs=peak_gbs, peak_tflops=peak_tflops,
                    measured_copy_gbs=float(doc.get("copy_gbs") or 0.0), precision=precision)
    detail = {
        "kernel": build.kernel.name, "source": build.source, "api": build.api, "compiler": build.compiler,
        "build_command": list(build.command), "build_s": round(build_s, 3), "block": doc.get("block"),
        "bytes_per_launch": bytes_, "flops_per_launch": flops, "checksums": sums,
    }
    if doc.get("copy_gbs"):
        detail["copy_gbs"] = doc["copy_gbs"]
    return BenchResult(
        kind="kernel", command=(build.exe,), runs=len(samples), warmup=0, wall_s=(), wall=None, metrics=metrics,
        metric_stats=stats, metric_spec=("json:samples_ms",), objective="kernel_ms", higher_is_better=False,
        environment=env, label=label or f"{build.kernel.name} ({build.compiler})", roofline=roof, detail=detail,
    )


def bench_kernel(
    source: str,
    *,
    label: str = "",
    timeout_s: float = 600.0,
    peak_gbs: float | None = None,
    peak_tflops: float | None = None,
    precision: str = "fp32",
    require_gpu: bool = True,
    **driver_options,
) -> BenchResult:
    """Write, build and run a timing driver for one kernel (``driver_options`` as for :func:`prepare_driver`)."""
    env = driver_options.pop("environment", None) or detect_environment()
    if require_gpu and not has_gpu(env):
        raise ToolchainError("no GPU to time the kernel on", "nvidia-smi, rocm-smi and amd-smi list none",
                             "run on a machine with a GPU, or pass --build-only to check that the driver builds")
    build = prepare_driver(source, environment=env, **driver_options)
    build_s = build_driver(build, timeout_s)
    return run_driver(build, label=label, timeout_s=timeout_s, peak_gbs=peak_gbs, peak_tflops=peak_tflops,
                      precision=precision, environment=env, build_s=build_s)


def compare_checksums(a: dict[str, float], b: dict[str, float], tolerance: Tolerance) -> tuple[bool, str]:
    """Whether two drivers' checksums agree (verify's comparison); the reason when not."""
    if set(a) != set(b):
        return False, f"buffers differ: original writes {sorted(a)}, port {sorted(b)}"
    ta = "\n".join(f"{k} {a[k]!r}" for k in sorted(a))
    tb = "\n".join(f"{k} {b[k]!r}" for k in sorted(b))
    cmp = compare_text(ta, tb, tolerance, "checksums")
    return cmp.passed, "" if cmp.passed else cmp.summary()


def compare_kernels(
    original: str,
    port: str,
    *,
    original_compiler: str | None = None,
    port_compiler: str | None = None,
    rtol: float = 1e-6,
    atol: float = 0.0,
    **options,
) -> KernelComparison:
    """Time ``original`` and ``port`` with the same driver options on this device and compare their checksums."""
    orig = bench_kernel(original, compiler=original_compiler, **options)
    prt = bench_kernel(port, compiler=port_compiler, **options)
    tol = Tolerance(rtol, atol)
    ok, why = compare_checksums(orig.detail.get("checksums", {}), prt.detail.get("checksums", {}), tol)
    a, b = orig.objective_stats(), prt.objective_stats()
    speedup = a.median / b.median if a and b and b.median else 0.0
    return KernelComparison(orig, prt, round(speedup, 4), ok, tol.describe(), why)
