"""Token translation: identifiers, includes, namespaces, ``__syncwarp`` on old HIP; never inside comments or strings."""

from __future__ import annotations

from vado.knowledge.targets import get_target
from vado.model import Applicability
from vado.port.apply import fixpoint
from vado.port.file import PortOptions, port_bytes
from vado.port.namespaces import namespace_fixes
from vado.port.translate import identifier_fixes, include_fixes, sync_downgrade_fixes
from vado.scan.classify import FileKind
from vado.scan.lexer import tokenize

ROCM = get_target("rocm-7.2")
HIP52 = get_target("hip-5.2")


def rename(text: str, target=ROCM, roc: bool = False) -> str:
    def produce(t):
        toks = tokenize(t)
        return identifier_fixes("k.cu", toks, target, roc=roc) + include_fixes("k.cu", toks, target, roc=roc) \
            + namespace_fixes("k.cu", toks)
    return fixpoint(text, produce).text


def test_whole_tokens_only_and_longest_name_wins():
    assert rename("cudaMallocAsync(&p, n, s); cudaMalloc(&q, n);") == "hipMallocAsync(&p, n, s); hipMalloc(&q, n);"
    assert rename("mycudaMalloc(); cudaMalloc_wrapper();") == "mycudaMalloc(); cudaMalloc_wrapper();"


def test_comments_strings_and_members_untouched():
    src = '// cudaMalloc\n/* cudaFree */ s.cudaMalloc = p->cudaFree; puts("cudaMalloc"); cudaFree(p);\n'
    assert rename(src) == '// cudaMalloc\n/* cudaFree */ s.cudaMalloc = p->cudaFree; puts("cudaMalloc"); hipFree(p);\n'


def test_cublas_v2_names_and_enums():
    assert rename("cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_T)") == "hipblasSgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_T)"
    assert rename("cublasSgemm_v2(h, CUBLAS_OP_N)", roc=True) == "rocblas_sgemm(h, rocblas_operation_none)"


def test_includes_quoted_and_user_headers():
    src = '#include "cuda_runtime.h"\n#include "my_cuda_utils.h"\n#include <curand_kernel.h>\n'
    assert rename(src) == '#include "hip/hip_runtime.h"\n#include "my_cuda_utils.h"\n#include <hiprand/hiprand_kernel.h>\n'


def test_cub_namespace_only_where_it_qualifies():
    src = "cub::BlockScan<int, 64> s; ::cub::Max m; using namespace cub; int cub = 1; x::cub::y z; a.cub = 2;"
    want = "hipcub::BlockScan<int, 64> s; ::hipcub::Max m; using namespace hipcub; int cub = 1; x::cub::y z; a.cub = 2;"
    assert rename(src) == want


def test_cub_namespace_alias_names_the_library():
    """`namespace mycub = cub;` was left as is: the port did not compile (hipcc: 'expected namespace name')."""
    src = "namespace mycub = cub; namespace g = ::cub; namespace h = x::cub; int cub2 = cub;"
    want = "namespace mycub = hipcub; namespace g = ::hipcub; namespace h = x::cub; int cub2 = cub;"
    assert rename(src) == want


def test_thrust_cuda_policy_and_system_header():
    src = "#include <thrust/system/cuda/execution_policy.h>\nauto p = thrust::cuda::par.on(s); my::thrust::cuda::x q;\n"
    want = "#include <thrust/system/hip/execution_policy.h>\nauto p = thrust::hip::par.on(s); my::thrust::cuda::x q;\n"
    assert rename(src) == want


def test_cudnn_is_not_renamed():
    assert rename("cudnnCreate(&h);") == "cudnnCreate(&h);"


def test_curand_state_with_roc_uses_rocrand_state():
    assert rename("curandState s; curand_init(1, 2, 3, &s);", roc=True) == "rocrand_state_xorwow s; rocrand_init(1, 2, 3, &s);"


def test_syncwarp_downgrade_only_without_sync_builtins():
    src = "__syncwarp(); __syncwarp(0xffffffff); __syncwarp(m); __syncwarp(m++); __shfl_down_sync(0xffffffff, v, 1);"
    assert sync_downgrade_fixes("k.cu", src, tokenize(src), ROCM) == []
    fixes = sync_downgrade_fixes("k.cu", src, tokenize(src), HIP52)
    # Any mask is safe, as in HIP 7's own __syncwarp(mask), unless dropping it drops a side effect.
    # The shuffle is WARP008's (vado.rules.warp): the translator lowers __syncwarp only.
    assert [f.applicability for f in fixes] == [Applicability.SAFE] * 3 + [Applicability.UNSAFE]
    out = fixpoint(src, lambda t: sync_downgrade_fixes("k.cu", t, tokenize(t), HIP52)).text
    assert out.count("__builtin_amdgcn_wave_barrier()") == 3
    assert out.endswith("__syncwarp(m++); __shfl_down_sync(0xffffffff, v, 1);")
    # A stand-in the code defines for itself (HeCBench ge-spmm) is not a call.
    stand_in = "#ifdef __HIPCC__\n#define __syncwarp()\n#endif\n"
    assert sync_downgrade_fixes("k.cu", stand_in, tokenize(stand_in), HIP52) == []


def test_host_alloc_typed_pointer_gets_the_cast_cudas_overload_makes():
    src = "int* a; float* b; void* c; cudaHostAlloc(&a, n, cudaHostAllocDefault); cudaHostAlloc(&b[0], n, 0);" \
          " cudaHostAlloc((void**)&c, n, 0); cudaHostAlloc((void **) &c, n, 0);"
    want = "int* a; float* b; void* c; hipHostAlloc((void**)(&a), n, hipHostMallocDefault); hipHostAlloc((void**)(&b[0]), n, 0);" \
           " hipHostAlloc((void**)&c, n, 0); hipHostAlloc((void **) &c, n, 0);"
    assert rename(src, HIP52) == want
    assert rename(src, ROCM) == want


def test_missing_api_is_left_and_reported_with_location():
    src = b"#include <cuda_runtime.h>\nvoid f(cudaGraphExec_t* e, cudaGraph_t g) {\n  cudaGraphInstantiateWithParams(e, g, 0);\n}\n"
    result = port_bytes("k.cu", FileKind.CUDA_SOURCE, src, HIP52, PortOptions())
    assert b"cudaGraphInstantiateWithParams(e, g, 0)" in result.after and b"hipGraphExec_t" in result.after
    (f,) = [f for f in result.remaining if "cudaGraphInstantiateWithParams" in f.message]
    assert (f.span.line, f.span.column) == (3, 3)
