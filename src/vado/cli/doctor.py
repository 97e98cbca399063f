"""``vado doctor``: which toolchains vado can use here, and how to install the missing ones."""

from __future__ import annotations

from typing import Literal, Optional, get_args

import typer

Format = Literal["text", "json"]
FORMATS = get_args(Format)


def render_doctor(report) -> str:
    """The doctor report as plain text (a pure function of a :class:`~vado.verify.toolchains.DoctorReport`)."""
    rows: list[tuple[str, str, str]] = []
    if report.hip:
        h = report.hip
        where = f" {h.chroot}" if h.chroot else ""
        rows.append(("hipcc", "ok", f"{h.path} (HIP {h.hip_version}, clang {h.clang_version}, {h.flavour}{where}) "
                     "- chosen for rocm-7.2 ports"))
        for other in report.hip_all:
            if other.path != h.path:
                rows.append(("  also", "", f"{other.path} (HIP {other.hip_version}, clang {other.clang_version}, "
                                           f"{other.flavour}) - for HIP {other.release[0]}.{other.release[1]} targets"))
        if h.known_archs:
            rows.append(("  clang knows", "", " ".join(h.known_archs)))
        for p in report.archs:
            rows.append((f"  {p.arch}", "builds" if p.ok else "no", "" if p.ok else p.reason))
    else:
        rows.append(("hipcc", "missing", report.hip_problem))
    if report.nvcc:
        rows.append(("nvcc", "ok", f"{report.nvcc.path} (CUDA {report.nvcc.release}, {report.nvcc.version})"))
    else:
        rows.append(("nvcc", "missing", report.nvcc_problem))
    t = report.triton
    if t and t.found:
        rows.append(("triton", "ok" if t.amd_backend else "no AMD", f"{t.version} (AMD backend: {'yes' if t.amd_backend else 'no'})"
                     + (f": {t.problem}" if t.problem else "")))
    else:
        rows.append(("triton", "missing", (t.problem if t else "") or "not installed"))
    if report.gpus:
        for g in report.gpus:
            rows.append(("gpu", g.vendor, f"{g.name} ({g.tool})"))
    else:
        rows.append(("gpu", "none", "; ".join(report.gpu_notes) or "no nvidia-smi, amd-smi or rocm-smi"))
    if report.packages:
        rows.append(("debian", "ok", ", ".join(f"{k} {v}" for k, v in sorted(report.packages.items()))))
    w1 = max(len(r[0]) for r in rows)
    w2 = max(len(r[1]) for r in rows)
    lines = ["vado doctor: toolchains for verifying ports", ""]
    lines += [f"  {a.ljust(w1)}  {b.ljust(w2)}  {c}".rstrip() for a, b, c in rows]
    if report.tips:
        lines += ["", "to install what is missing:"]
        lines += [f"  - {tip}" for tip in report.tips]
    return "\n".join(lines) + "\n"


def doctor(
    hipcc: Optional[str] = typer.Option(None, "--hipcc", help="hipcc to check (default: $VADO_HIPCC, else every one found: ROCm installs, vado's ROCm chroot, PATH)."),
    nvcc: Optional[str] = typer.Option(None, "--nvcc", help="nvcc to check (default: $VADO_NVCC, PATH, /usr/local/cuda/bin)."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter to look for Triton in (default: $VADO_PYTHON or this one)."),
    arch: str = typer.Option("gfx942,gfx950,gfx90a,gfx1100,gfx1200", "--arch", "-a", help="Offload targets to probe."),
    probe: bool = typer.Option(True, "--probe/--no-probe", help="Compile a tiny kernel per target to see which build."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Probe again instead of reading the cache."),
    format: Format = typer.Option("text", "--format", "-f", help="Output format."),
) -> None:
    """Show the toolchains vado can verify with (hipcc, nvcc, Triton, GPUs) and how to get the missing ones.

    Exit codes: 0 always when the check ran (missing tools are reported, not errors), 2 usage error.
    """
    import json

    from vado.cli.terminal import get_terminal
    from vado.verify.toolchains import doctor as run_doctor

    term = get_terminal()
    archs = [a.strip() for a in arch.split(",") if a.strip()]
    report = run_doctor(hipcc=hipcc, nvcc=nvcc, python=python, archs=archs, probe=probe, use_cache=not no_cache)
    term.data(render_doctor(report).rstrip("\n") if format == "text" else json.dumps(report.to_json(), indent=2))
