"""Accelerator peak rates (datasheet, and measured where known) for roofline ratios."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field


@dataclass(frozen=True)
class DevicePeak:
    """Peak memory bandwidth (GB/s) and arithmetic rates (TFLOP/s) of one accelerator."""

    name: str
    vendor: str
    arch: str
    memory_gbs: float
    fp32_tflops: float
    bf16_tflops: float
    match: tuple[str, ...] = ()
    measured: dict = field(default_factory=dict)
    source: str = ""

    @property
    def bandwidth_ceiling_gbs(self) -> float:
        """The measured copy bandwidth when known, else the datasheet figure."""
        return float(self.measured.get("copy_gbs") or self.memory_gbs)


@functools.cache
def all_devices() -> tuple[DevicePeak, ...]:
    """Every device in ``data/devices.yaml``."""
    from vado.knowledge._data import load, require

    raw = load("devices")
    out = []
    for d in raw["devices"]:
        out.append(
            DevicePeak(
                name=d["name"],
                vendor=d["vendor"],
                arch=d.get("arch", ""),
                memory_gbs=float(d["memory_gbs"]),
                fp32_tflops=float(d["fp32_tflops"]),
                bf16_tflops=float(d.get("bf16_tflops", 0)),
                match=tuple(d.get("match", ())),
                measured=dict(d.get("measured") or {}),
                source=require(d, "source", f"devices.yaml {d.get('name')}"),
            )
        )
    return tuple(out)


def device_peak(name: str) -> DevicePeak | None:
    """The entry whose match string occurs in ``name`` (``NVIDIA H200`` → H200), or None."""
    for d in all_devices():
        if any(m.lower() in name.lower() for m in d.match):
            return d
    return None
