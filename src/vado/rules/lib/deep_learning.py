"""LIB001-LIB003: cuDNN, TensorRT and CUTLASS (deep-learning primitives, inference runtime, GEMM templates)."""

from __future__ import annotations

from vado.model import Severity
from vado.rules.lib.rule import CUDA_KINDS, _LibraryRule


class CudnnUse(_LibraryRule):
    """The file uses cuDNN.

    What it does
    ------------
    Reports one finding per file that includes cuDNN headers, calls ``cudnn*``
    functions, uses the cuDNN frontend or loads ``libcudnn``, with the headers,
    names and counts as evidence.

    Why is this bad?
    ----------------
    cuDNN has no drop-in ROCm counterpart. MIOpen (ROCm 7.2) has a different
    API (descriptors, find/solution flow); hipDNN offers a graph API like the
    cuDNN frontend but is a beta for ROCm 7.12+. Each call site is rework.
    SYCL goes through oneDNN (also rework); ZLUDA shims cuDNN 8/9 partially,
    mapping some paths to slow kernels.

    Example
    -------
    .. code-block:: cuda

        cudnnConvolutionForward(h, &a, xDesc, x, wDesc, w, convDesc, algo, ws, wsSize, &b, yDesc, y);

    Use instead
    -----------
    ``miopenConvolutionForward`` with MIOpen's find step, or hipDNN's graph API
    on ROCm ≥ 7.12, or a framework op (PyTorch, MIGraphX) instead of hand-written cuDNN.

    Fix safety
    ----------
    No fix: descriptor and algorithm-selection code has to be rewritten.

    References
    ----------
    - MIOpen / hipDNN, https://rocm.docs.amd.com/projects/hipdnn/en/latest/
    - HIP porting guide (cuDNN → MIOpen), https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md
    """

    code = "LIB001"
    name = "cudnn-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("cudnn",)


class TensorrtUse(_LibraryRule):
    """The file uses TensorRT (``NvInfer.h``, ``nvinfer1::``, ``NvOnnxParser``).

    What it does
    ------------
    Reports one finding per file that includes TensorRT headers, uses the
    ``nvinfer1`` / ``nvonnxparser`` namespaces or loads ``libnvinfer``.

    Why is this bad?
    ----------------
    TensorRT engines, builders and plugins exist only for NVIDIA GPUs. There is
    no port: on ROCm the route is MIGraphX (through ONNX Runtime's MIGraphX
    execution provider or torch_migraphx), on Intel it is OpenVINO. The model
    has to be re-exported (ONNX) and the serving code rewritten; custom
    TensorRT plugins become MIGraphX or framework ops.

    Example
    -------
    .. code-block:: cpp

        auto builder = nvinfer1::createInferBuilder(logger);

    Use instead
    -----------
    Export the model to ONNX and run it with ONNX Runtime (MIGraphX EP on ROCm,
    OpenVINO EP on Intel), or compile it with MIGraphX directly.

    Fix safety
    ----------
    No fix: this is a redesign of the inference path.

    References
    ----------
    - MIGraphX, https://rocm.docs.amd.com/projects/ai-ecosystem/en/latest/inference/migraphx.html
    - ONNX Runtime OpenVINO EP, https://github.com/microsoft/onnxruntime/pull/13813
    """

    code = "LIB002"
    name = "tensorrt-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("tensorrt",)
    hours_per_name = 2.0


class CutlassUse(_LibraryRule):
    """The file uses CUTLASS or CuTe (``cutlass/``, ``cute/`` headers, ``cutlass::``, ``cute::``).

    What it does
    ------------
    Reports one finding per file that includes CUTLASS or CuTe headers or uses
    their namespaces.

    Why is this bad?
    ----------------
    CUTLASS has no HIP port: it depends on libcu++ and on NVIDIA tensor-core
    PTX (``mma``, ``wgmma``, TMA). Kernels written with it are rewritten for
    AMD with Composable Kernel (CK / CK Tile), Triton or AITER. SCALE compiles
    CUTLASS 4.1 on some AMD GPUs (partial); SYCL has cutlass-sycl.

    Example
    -------
    .. code-block:: cpp

        #include <cutlass/gemm/device/gemm.h>
        using Gemm = cutlass::gemm::device::Gemm<float, Row, float, Row, float, Row>;

    Use instead
    -----------
    A Composable Kernel GEMM (``ck::tensor_operation::device::DeviceGemm…``),
    hipBLASLt for plain GEMMs, or a Triton kernel.

    Fix safety
    ----------
    No fix: the kernel is rewritten against another library.

    References
    ----------
    - HIPIFY issue on CUTLASS, https://github.com/ROCm/HIPIFY/issues/1374
    - Composable Kernel, https://rocm.docs.amd.com/projects/composable_kernel/en/develop/
    """

    code = "LIB003"
    name = "cutlass-use"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    library_ids = ("cutlass",)
    hours_per_name = 4.0
