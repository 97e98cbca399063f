"""One fully populated instance of every model type, shared by the model tests.

Values are chosen so that every optional branch is exercised (a fix present, a
null hip_version, nested tuples, enums as dict values).
"""

from __future__ import annotations

from vado.model import (
    Applicability,
    Edit,
    Effort,
    Evidence,
    Finding,
    Fix,
    Severity,
    Skip,
    SkipReason,
    Span,
    Target,
    TargetVerdict,
    Verdict,
)
from vado.model.audit import AuditResult, AuditStats, BuildSummary, FileReport, RuleInfo, WorkloadReport

SPAN = Span("src/k.cu", 10, 24, 2, 3, 2, 17)
EDIT = Edit("src/k.cu", 10, 24, "hipMalloc\xff")
FIX = Fix((EDIT, Edit("src/k.cu", 0, 0, "#include <hip/hip_runtime.h>\n")), Applicability.UNSAFE,
          "rename cudaMalloc", ("hipify",))
EFFORT = Effort(lines=3, constructs=1, hours=0.5)
FINDING = Finding(
    code="API001",
    name="cuda-runtime-call",
    severity=Severity.HIGH,
    span=SPAN,
    message="cudaMalloc has a HIP equivalent",
    verdicts={"rocm-7.2": Verdict.AUTOMATIC, "oneapi": Verdict.MANUAL},
    effort=EFFORT,
    fix=FIX,
    data={"cuda": "cudaMalloc", "hip": "hipMalloc", "nested": {"list": [1, 2]}},
)
TARGET_VERDICT = TargetVerdict("rocm-7.2", Verdict.AUTOMATIC, (("API001", 2), ("PTX001", 1)), "renames only")
TARGET = Target(
    name="rocm-7.2",
    family="rocm",
    version="7.2",
    description="AMD ROCm 7.2",
    hip_version=None,
    wavefront={"gfx942": 64, "gfx1100": 32},
    default_arch=("gfx942",),
    libraries={"cublas": "hipblas"},
    features={"cooperative_groups": True},
    source="https://rocm.docs.amd.com",
)
EVIDENCE = Evidence(
    kind="compile",
    subject="src/k.hip",
    passed=False,
    command=("hipcc", "--offload-arch=gfx90a", "-c", "k.hip"),
    returncode=1,
    stdout="",
    stderr="error: unknown type",
    duration_s=1.25,
    target="rocm-7.2",
    arch="gfx90a",
    toolchain="hipcc",
    toolchain_version="5.2",
    detail={"warnings": 0},
)
SKIP = Skip("third_party/x.bin", SkipReason.BINARY, "NUL bytes in the first 8 KiB")
FILE_REPORT = FileReport("src/k.cu", "cuda", 120, (TARGET_VERDICT,), EFFORT, 1)
WORKLOAD = WorkloadReport("k", "src", ("src/k.cu",), (TARGET_VERDICT,), EFFORT)
RULE_INFO = RuleInfo("API001", "cuda-runtime-call", "API", "high", "CUDA runtime call", "See docs.")
STATS = AuditStats(files_scanned=3, files_skipped=1, bytes_scanned=4096, duration_s=0.125, jobs=2)
BUILD = BuildSummary("compile-db", "compile_commands.json", "default", False, 2, (), ("1 entries skipped",),
                     ("tools/unused.cu",))
AUDIT = AuditResult(
    root="/repo",
    targets=("rocm-7.2",),
    verdicts=(TARGET_VERDICT,),
    files=(FILE_REPORT,),
    workloads=(WORKLOAD,),
    findings=(FINDING,),
    skips=(SKIP,),
    rules=(RULE_INFO,),
    stats=STATS,
    errors=({"type": "ScanError", "what": "cannot read x", "why": "EACCES", "tip": "check permissions"},),
    build=BUILD,
    tool_version="0.1.0",
)

ALL = {
    "Span": SPAN,
    "Edit": EDIT,
    "Fix": FIX,
    "Effort": EFFORT,
    "Finding": FINDING,
    "TargetVerdict": TARGET_VERDICT,
    "Target": TARGET,
    "Evidence": EVIDENCE,
    "Skip": SKIP,
    "FileReport": FILE_REPORT,
    "WorkloadReport": WORKLOAD,
    "RuleInfo": RULE_INFO,
    "AuditStats": STATS,
    "BuildSummary": BUILD,
    "AuditResult": AUDIT,
}
