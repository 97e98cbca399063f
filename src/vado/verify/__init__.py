"""verify: real toolchains decide whether a port is right.

- :mod:`~vado.verify.toolchains`: find hipcc, nvcc, Triton's AMD backend, GPUs (``vado doctor``);
- :mod:`~vado.verify.compile`: every unit of a port compiled for every offload target;
- :mod:`~vado.verify.triton_kernels`: every ``@triton.jit`` kernel compiled for AMD targets;
- :mod:`~vado.verify.mapping`: compiler errors mapped to the original CUDA line and a finding code;
- :mod:`~vado.verify.build`, :mod:`~vado.verify.differential`, :mod:`~vado.verify.compare`:
  original and port built, run on the same inputs, outputs compared;
- :mod:`~vado.verify.sandbox`: every subprocess with a timeout and resource limits.

Results are :class:`vado.model.Evidence` records. Import the submodules you need;
this package imports nothing at load time.
"""
