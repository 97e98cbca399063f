"""LIB004-LIB009 and LIB011: NVSHMEM, NPP, nvJPEG, cuFile (GPUDirect Storage), NVML, CUPTI and the
Video Codec SDK: communication, media, storage, management and profiling libraries.
"""

from __future__ import annotations

from vado.model import Severity
from vado.rules.lib.rule import CUDA_KINDS, _LibraryRule


class NvshmemUse(_LibraryRule):
    """The file uses NVSHMEM.

    What it does
    ------------
    Reports one finding per file that includes NVSHMEM headers, calls
    ``nvshmem_*`` / ``nvshmemx_*`` or loads ``libnvshmem``.

    Why is this bad?
    ----------------
    rocSHMEM (ROCm 7.2) is OpenSHMEM-style GPU-initiated communication like
    NVSHMEM, but not API-compatible: names, initialisation, team and memory
    APIs differ, and its transports (IPC, reverse offload, GPU Direct Async)
    have their own setup. On Intel the counterpart is Intel SHMEM.

    Example
    -------
    .. code-block:: cuda

        nvshmem_init(); float* buf = (float*)nvshmem_malloc(bytes);

    Use instead
    -----------
    ``rocshmem_init()`` / ``rocshmem_malloc()`` and rocSHMEM's device APIs.

    Fix safety
    ----------
    No fix: the communication layer is rewritten.

    References
    ----------
    - rocSHMEM, https://rocm.docs.amd.com/projects/rocSHMEM/en/latest
    - Intel SHMEM, https://oneapi-src.github.io/ishmem/intro.html
    """

    code = "LIB004"
    name = "nvshmem-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("nvshmem",)


class NppUse(_LibraryRule):
    """The file uses NPP (NVIDIA Performance Primitives).

    What it does
    ------------
    Reports one finding per file that includes NPP headers, calls ``npp*``
    functions, uses ``Npp*`` types or links an NPP library.

    Why is this bad?
    ----------------
    ROCm's RPP covers image, voxel and audio primitives but is not
    API-compatible with NPP, and some of its functions run only on the CPU
    (histogram balance, min-max-loc, integral, mean-stddev). Each call is
    replaced by an RPP call with its own tensor descriptors, or by a kernel.

    Example
    -------
    .. code-block:: cuda

        nppiResize_8u_C3R(src, srcStep, srcSize, srcRoi, dst, dstStep, dstSize, dstRoi, NPPI_INTER_LINEAR);

    Use instead
    -----------
    ``rppt_resize_gpu`` (RPP) with RPP descriptors, or a HIP kernel.

    Fix safety
    ----------
    No fix: RPP's calling convention differs.

    References
    ----------
    - RPP, https://rocm.docs.amd.com/projects/rpp/en/latest/what-is-rpp.html
    """

    code = "LIB005"
    name = "npp-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("npp",)


class NvjpegUse(_LibraryRule):
    """The file uses nvJPEG.

    What it does
    ------------
    Reports one finding per file that includes ``nvjpeg.h``, calls
    ``nvjpeg*`` or links ``libnvjpeg``.

    Why is this bad?
    ----------------
    rocJPEG (ROCm 7.2) decodes JPEG on AMD's VCN media engines, with its own
    API; there is no JPEG encode in ROCm. Decoding code is rework, encoding
    code needs another encoder (CPU libjpeg-turbo, VA-API).

    Example
    -------
    .. code-block:: cuda

        nvjpegDecode(handle, state, data, size, NVJPEG_OUTPUT_RGB, &img, stream);

    Use instead
    -----------
    ``rocJpegDecode`` with rocJPEG streams; a CPU or VA-API path for encoding.

    Fix safety
    ----------
    No fix: rocJPEG's API differs.

    References
    ----------
    - rocJPEG, https://rocm.docs.amd.com/projects/rocJPEG/en/latest
    """

    code = "LIB006"
    name = "nvjpeg-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("nvjpeg",)


class CufileUse(_LibraryRule):
    """The file uses cuFile (GPUDirect Storage).

    What it does
    ------------
    Reports one finding per file that includes ``cufile.h``, calls
    ``cuFile*`` or links ``libcufile``.

    Why is this bad?
    ----------------
    hipFile (AMD Infinity Storage) mirrors the cuFile API, but it is
    early-access: it needs a ROCm 7.2.x opt-in or the Core SDK, a kernel with
    PCI P2PDMA and a local file system. Until it is part of the production
    stack, the storage path needs manual work and testing.

    Example
    -------
    .. code-block:: cuda

        cuFileRead(handle, devPtr, size, fileOffset, devOffset);

    Use instead
    -----------
    ``hipFileRead`` from hipFile where it is available, or a POSIX read into
    pinned host memory plus ``hipMemcpyAsync``.

    Fix safety
    ----------
    No fix: availability depends on the deployment.

    References
    ----------
    - hipFile, https://rocm.docs.amd.com/projects/hipFile/en/latest/
    - HIPIFY cuFile table, https://github.com/ROCm/HIPIFY/blob/dc74d20c501ad1befd008b72a5582dda6aa110ee/docs/reference/tables/cuFile_API_supported_by_HIP.md
    """

    code = "LIB007"
    name = "cufile-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("cufile",)


class NvmlUse(_LibraryRule):
    """The file uses NVML (GPU management and monitoring).

    What it does
    ------------
    Reports one finding per file that includes ``nvml.h``, calls ``nvml*``
    or loads ``libnvidia-ml``.

    Why is this bad?
    ----------------
    On AMD the management library is AMD SMI (C/C++ and Python), with its own
    handles, units and metric names; queries are rewritten one by one. ZLUDA
    ships an NVML shim (``zluda_ml``).

    Example
    -------
    .. code-block:: cpp

        nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &temp);

    Use instead
    -----------
    ``amdsmi_get_temp_metric(handle, AMDSMI_TEMPERATURE_TYPE_EDGE, AMDSMI_TEMP_CURRENT, &temp)``.

    Fix safety
    ----------
    No fix: the metric sets differ.

    References
    ----------
    - AMD SMI, https://rocm.docs.amd.com/_/downloads/amdsmi/en/docs-6.4.3/pdf/
    """

    code = "LIB008"
    name = "nvml-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("nvml",)


class CuptiUse(_LibraryRule):
    """The file uses CUPTI (profiling and tracing).

    What it does
    ------------
    Reports one finding per file that includes CUPTI headers, calls
    ``cupti*`` or links ``libcupti``.

    Why is this bad?
    ----------------
    ROCprofiler-SDK offers callback and buffered tracing and counters on AMD,
    with a different API and different activity records; tools built on CUPTI
    are rewritten against it.

    Example
    -------
    .. code-block:: cpp

        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL);

    Use instead
    -----------
    ``rocprofiler_configure_buffer_tracing_service`` (ROCprofiler-SDK), or
    the ``rocprofv3`` command line for traces without code.

    Fix safety
    ----------
    No fix: the tracing model differs.

    References
    ----------
    - ROCprofiler-SDK, https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/
    """

    code = "LIB009"
    name = "cupti-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("cupti",)


class VideoCodecUse(_LibraryRule):
    """The file uses the NVIDIA Video Codec SDK (NVDEC ``nvcuvid.h``, NVENC ``nvEncodeAPI.h``).

    What it does
    ------------
    Reports one finding per file that includes Video Codec SDK headers, calls
    ``cuvid*`` / ``NvEnc*`` or loads ``libnvcuvid`` / ``libnvidia-encode``.

    Why is this bad?
    ----------------
    rocDecode covers hardware decode on AMD with its own API; ROCm has no
    encode library (AMD encode on Linux goes through VA-API or AMF). Decode
    paths are rework, encode paths need another stack.

    Example
    -------
    .. code-block:: cpp

        cuvidCreateDecoder(&decoder, &createInfo);
        NvEncEncodePicture(encoder, &picParams);

    Use instead
    -----------
    ``rocDecCreateDecoder`` (rocDecode) for decoding; FFmpeg with VA-API for encoding.

    Fix safety
    ----------
    No fix: the decode API differs and encode has no ROCm library.

    References
    ----------
    - rocDecode in the ROCm 7.2 matrix, https://github.com/ROCm/legacy-rocm-build/blob/fff7efbd0c870e1bfba278faa91d517996b7a33a/docs/compatibility/compatibility-matrix.rst
    """

    code = "LIB011"
    name = "video-codec-sdk-use"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    library_ids = ("video-codec",)
