"""Classify every audit/port difference of the before/after review; unclassified ones are printed."""
import json, re, collections, sys
AD = json.load(open("/tmp/regress/auditdiff.json"))
PD = json.load(open("/tmp/regress/portdiff.json"))
CLASSES = json.load(open("/tmp/regress/classes.json"))  # id -> {judgement, commit, description}

def state(x):  # ((verdicts), severity, inactive, fix), msg
    v = dict(x[0][0]); return {"rocm": v.get("rocm-7.2"), "sev": x[0][1], "inactive": x[0][2], "fix": x[0][3], "msg": x[1]}

def audit_class(prog, d):
    code, path, line = d["key"][0], d["key"][1], d["key"][2]
    if d.get("msgonly"):
        if code == "PTX001" and "_rte_" in d["after"][0]:
            return "ptx001-rn"
        return None
    b = [state(x) for x in d["before"]]; a = [state(x) for x in d["after"]]
    msg = (a or b)[0]["msg"]
    if code in ("API004", "API005", "LIB010", "LIB001") and ((b and b[0]["inactive"] and not a) or (a and not b)) and not prog.startswith("repos__stdgpu"):
        return "first-compiled-use"
    if code == "ARCH007" and "only picks a tuning value" in msg:
        return "arch007-tuning"
    if prog.startswith("repos__stdgpu"):
        return "stdgpu-computed-includes"
    if code == "WARP009" and prog == "hecbench__attention-paged-cuda":
        return "warp009-own-hip-branch"
    if code == "API012" and b and not a:
        return "api012-torch-headers"
    if code == "API018":
        return "api018"
    if code == "PTX001" and ".rn." in msg:
        return "ptx001-rn"
    if code == "BLD003" and "-extended-lambda" in msg:
        return "nvcc-short-spellings"
    if code == "BLD004" and a and not b:
        return "bld004-torch-lists"
    if code == "BLD005":
        if path.endswith(".py") and not path.endswith("setup.py"):
            if msg.startswith("json.load"):
                return "REGRESSION-json-load"
            return "bld005-just-in-time"
        if b and not a and re.search(r"append_nvcc_threads", open_setup(prog, path)):
            return "REGRESSION-helper-argument-list"
        if a and not b:
            if "decides whether the CUDA extension is built" in msg or "if with_cuda else" in msg or "shutil.which" in msg:
                return "bld005-gates"
            return "bld005-more-flags"
    return None

_cache = {}
def open_setup(prog, path):
    import glob
    corpus, name = prog.split("__", 1)
    base = {"tproj": "/work/repos/tproj", "repos": "/work/repos"}.get(corpus, f"/work/repos/{corpus}")
    try:
        return open(f"{base}/{name}/{path}", errors="replace").read()
    except OSError:
        return ""

out = collections.defaultdict(list)
unclassified = []
for prog, o in AD["changed"].items():
    for d in o["diffs"]:
        c = audit_class(prog, d)
        if c is None:
            unclassified.append((prog, d["key"], d.get("before"), d.get("after")))
        else:
            out[c].append({"where": prog, "code": d["key"][0], "path": d["key"][1], "line": d["key"][2],
                           "change": "message" if d.get("msgonly") else ("added" if not d["before"] else "removed" if not d["after"] else "verdict/severity/fix")})
json.dump({"audit": out, "unclassified": unclassified}, open("/tmp/regress/classified.json", "w"), indent=1, default=str)
for c, v in out.items(): print(c, len(v), sorted({x["where"] for x in v})[:8])
print("UNCLASSIFIED", len(unclassified))
for u in unclassified[:40]: print("  ", str(u)[:300])
