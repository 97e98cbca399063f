"""Child-process driver: compile Triton kernels for AMD targets, print one JSON result.

Run as ``python _triton_driver.py JOB.json`` by :mod:`vado.verify.triton_kernels`
under the interpreter that has Triton (it needs nothing from vado). The job
lists kernel modules vado built (:mod:`vado.verify.triton_module`: its own
imports of Triton, literal constants, validated ``@triton.jit`` functions), for
each kernel its signature, constexprs and the dotted names it reads from Triton,
and the targets ``[arch, warp_size]``. Before compiling a kernel, every name it
reads is resolved and checked (``triton_module.chain_problem``, loaded by path):
Triton's code generator calls whatever Python function a kernel names, so a name
that leads out of ``triton.language`` refuses the kernel.
Each compile is ``triton.compile(ASTSource(fn, signature, constexprs),
target=GPUTarget("hip", arch, warp_size))``: real code generation down to an
HSA code object, no GPU needed.
"""

import importlib.util
import json
import sys
import time
import traceback


def _load_checker(path):
    if not path:
        return None
    spec = importlib.util.spec_from_file_location("vado_triton_checker", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def _resolve(name):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def _problem(checker, reads):
    if checker is None:
        return "vado's name check is missing" if reads else ""
    for dotted in reads:
        why = checker.chain_problem(dotted, _resolve)
        if why:
            return why
    return ""


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
    checker = _load_checker(job.get("checker"))
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
            problem = _problem(checker, k.get("reads", []))
            if problem:
                results.append({"kernel": k["name"], "file": mod["file"], "arch": "", "ok": False, "refused": problem,
                                "seconds": 0.0})
                continue
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
