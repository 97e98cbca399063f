"""Child-process driver: compile Triton kernels for AMD targets, print one JSON result.

Run as ``python _triton_driver.py JOB.json`` by :mod:`vado.verify.triton_kernels`
under the interpreter that has Triton (it needs nothing from vado). The job
lists extracted kernel modules (files written by vado that hold only the
kernel file's imports, constants and ``@triton.jit`` functions), and for each
kernel its signature and constexprs and the targets ``[arch, warp_size]``.
Each compile is ``triton.compile(ASTSource(fn, signature, constexprs),
target=GPUTarget("hip", arch, warp_size))``: real code generation down to an
HSA code object, no GPU needed.
"""

import importlib.util
import json
import sys
import time
import traceback


def main(job_path):
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    results = []
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except Exception as exc:  # reported, not raised: the parent turns it into evidence
        print(json.dumps({"error": f"cannot import triton: {type(exc).__name__}: {exc}"}))
        return 0
    for mod in job["modules"]:
        try:
            spec = importlib.util.spec_from_file_location(mod["name"], mod["path"])
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod["name"]] = module
            spec.loader.exec_module(module)
        except Exception as exc:
            for k in mod["kernels"]:
                for arch, warp in job["targets"]:
                    results.append({"kernel": k["name"], "file": mod["file"], "arch": arch, "ok": False,
                                    "seconds": 0.0, "error": f"loading the kernel module failed: {type(exc).__name__}: {exc}"})
            continue
        for k in mod["kernels"]:
            fn = getattr(module, k["name"], None)
            for arch, warp in job["targets"]:
                started = time.perf_counter()
                entry = {"kernel": k["name"], "file": mod["file"], "arch": arch}
                try:
                    src = ASTSource(fn, signature=dict(k["signature"]), constexprs=dict(k["constexprs"]))
                    compiled = triton.compile(src, target=GPUTarget("hip", arch, int(warp)))
                    asm = compiled.asm
                    entry.update(ok=True, hsaco_bytes=len(asm.get("hsaco", b"") or b""),
                                 stages=sorted(asm.keys()))
                except Exception as exc:
                    tb = traceback.format_exception_only(type(exc), exc)
                    entry.update(ok=False, error="".join(tb).strip()[-4000:])
                entry["seconds"] = round(time.perf_counter() - started, 4)
                results.append(entry)
    print(json.dumps({"triton": triton.__version__, "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
