"""``cudaGetErrorString`` called in device code, which HIP's host-only ``hipGetErrorString`` cannot be:
a local ``__host__ __device__`` helper returning the ``hipError_t``'s name on the device.
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat.helpers import LocalHelper
from vado.port.compat.placement import insertion_offsets, line_start_insert
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind

# --------------------------------------------------------------------------- cudaGetErrorString in device code

#: hipError_t's enumerators, ROCm 7.2.4 ``hip/hip_runtime_api.h`` (``typedef enum hipError_t``), first name
#: of each value (``hipErrorMemoryAllocation``, ``hipErrorInitializationError``, ``hipErrorMapBufferObjectFailed``
#: and ``hipErrorInvalidResourceHandle`` are second names of 2, 3, 205 and 400).
HIP_ERROR_NAMES = (
    "hipSuccess hipErrorInvalidValue hipErrorOutOfMemory hipErrorNotInitialized hipErrorDeinitialized "
    "hipErrorProfilerDisabled hipErrorProfilerNotInitialized hipErrorProfilerAlreadyStarted "
    "hipErrorProfilerAlreadyStopped hipErrorInvalidConfiguration hipErrorInvalidPitchValue hipErrorInvalidSymbol "
    "hipErrorInvalidDevicePointer hipErrorInvalidMemcpyDirection hipErrorInsufficientDriver "
    "hipErrorMissingConfiguration hipErrorPriorLaunchFailure hipErrorInvalidDeviceFunction hipErrorNoDevice "
    "hipErrorInvalidDevice hipErrorInvalidImage hipErrorInvalidContext hipErrorContextAlreadyCurrent "
    "hipErrorMapFailed hipErrorUnmapFailed hipErrorArrayIsMapped hipErrorAlreadyMapped hipErrorNoBinaryForGpu "
    "hipErrorAlreadyAcquired hipErrorNotMapped hipErrorNotMappedAsArray hipErrorNotMappedAsPointer "
    "hipErrorECCNotCorrectable hipErrorUnsupportedLimit hipErrorContextAlreadyInUse hipErrorPeerAccessUnsupported "
    "hipErrorInvalidKernelFile hipErrorInvalidGraphicsContext hipErrorInvalidSource hipErrorFileNotFound "
    "hipErrorSharedObjectSymbolNotFound hipErrorSharedObjectInitFailed hipErrorOperatingSystem "
    "hipErrorInvalidHandle hipErrorIllegalState hipErrorNotFound hipErrorNotReady hipErrorIllegalAddress "
    "hipErrorLaunchOutOfResources hipErrorLaunchTimeOut hipErrorPeerAccessAlreadyEnabled "
    "hipErrorPeerAccessNotEnabled hipErrorSetOnActiveProcess hipErrorContextIsDestroyed hipErrorAssert "
    "hipErrorHostMemoryAlreadyRegistered hipErrorHostMemoryNotRegistered hipErrorLaunchFailure "
    "hipErrorCooperativeLaunchTooLarge hipErrorNotSupported hipErrorStreamCaptureUnsupported "
    "hipErrorStreamCaptureInvalidated hipErrorStreamCaptureMerge hipErrorStreamCaptureUnmatched "
    "hipErrorStreamCaptureUnjoined hipErrorStreamCaptureIsolation hipErrorStreamCaptureImplicit "
    "hipErrorCapturedEvent hipErrorStreamCaptureWrongThread hipErrorGraphExecUpdateFailure "
    "hipErrorInvalidChannelDescriptor hipErrorInvalidTexture hipErrorUnknown hipErrorRuntimeMemory "
    "hipErrorRuntimeOther"
).split()

_ERROR_STRING = frozenset({"cudaGetErrorString", "hipGetErrorString"})


def _device_error_string() -> LocalHelper:
    cases = "".join(f'    case {name}: return "{name}";\n' for name in HIP_ERROR_NAMES)
    code = (
        "static __host__ __device__ inline const char* vado_device_error_string(hipError_t error) {\n"
        "#if defined(__HIP_DEVICE_COMPILE__)\n"
        "  switch (error) {\n"
        f"{cases}"
        '    default: return "unrecognized hipError_t";\n'
        "  }\n"
        "#else\n"
        "  return hipGetErrorString(error);\n"
        "#endif\n"
        "}\n"
    )
    return LocalHelper(
        "cudaGetErrorString", "vado_device_error_string", code,
        "HIP's hipGetErrorString is host-only; on the device this returns the hipError_t's enumerator name "
        "(\"hipErrorInvalidValue\"), where the host's returns a description (which the host side still calls)",
        "ROCm 7.2.4 hip/hip_runtime_api.h (hipGetErrorString declared without __device__; the hipError_t enumerators)",
        lambda t: t.family == "rocm",
    )


def device_error_string_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``cudaGetErrorString(e)`` (or its port, ``hipGetErrorString``) called in a ``__device__`` or
    ``__global__`` function, which CUDA allows and HIP does not (its ``hipGetErrorString`` is a host
    function): the call goes to a local ``__device__`` helper returning the ``hipError_t``'s name.

    ``__host__ __device__`` functions get it too (clang rejects a host function in any of them that
    is emitted for the device): the helper is ``__host__ __device__`` and its host side calls
    ``hipGetErrorString``, so host behaviour is unchanged. Calls in host-only functions are
    untouched. Safe: what differs is the text of a message on the device (the enumerator's name
    instead of a description), which the helper's ``// vado:`` comment says.
    """
    if target.family != "rocm" or not spelling_index(toks).has_any(_ERROR_STRING):
        return []
    from vado.rules.cuda_syntax import find_functions

    helper = _device_error_string()
    uses: list[int] = []
    for fn in find_functions(toks):
        if not fn.qualifiers & {"__device__", "__global__"} or fn.name == helper.helper:
            continue
        for i in range(fn.body_open + 1, fn.body_close):
            tok = toks[i]
            if tok[0] is not Kind.IDENT or tok[3] not in _ERROR_STRING:
                continue
            j = i + 1
            while j < len(toks) and toks[j][0] is Kind.COMMENT:
                j += 1
            k = i - 1
            while k >= 0 and toks[k][0] is Kind.COMMENT:
                k -= 1
            if j < len(toks) and toks[j][3] == "(" and not (k >= 0 and toks[k][3] in (".", "->")):
                uses.append(i)
    if not uses:
        return []
    edits = [line_start_insert(path, text, off, helper.block()) for off in insertion_offsets(text, toks, uses)]
    edits += [Edit(path, toks[i][1], toks[i][2], helper.helper) for i in uses]
    return [Fix(tuple(edits), Applicability.SAFE,
                f"cudaGetErrorString in device code → {helper.helper} (local definition: {helper.why})", ("helper",))]
