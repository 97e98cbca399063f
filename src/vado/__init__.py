"""vado: move CUDA workloads to AMD ROCm, and tell the truth about the other routes."""

__version__ = "0.1.0"
