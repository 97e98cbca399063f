import os, sys, filecmp, json, difflib
R = os.environ.get("REGRESS_DIR", "/tmp/regress")  # working files: out/{before,after}/{audit,port}
B, A = R + "/out/before/port", R + "/out/after/port"
res = {}
for name in sorted(os.listdir(A)):
    if not name.endswith(".report.json") or not os.path.exists(f"{B}/{name}"): continue
    k = name[:-len(".report.json")]
    db, da = f"{B}/{k}", f"{A}/{k}"
    files = set()
    for d in (db, da):
        for r, _, fs in os.walk(d):
            for f in fs: files.add(os.path.relpath(os.path.join(r, f), d))
    changed = []
    for f in sorted(files):
        pb, pa = os.path.join(db, f), os.path.join(da, f)
        if not (os.path.lexists(pb) and os.path.lexists(pa)):
            changed.append((f, "only-before" if os.path.lexists(pb) else "only-after", 0)); continue
        if os.path.islink(pb) or os.path.islink(pa):
            if not (os.path.islink(pb) and os.path.islink(pa) and os.readlink(pb) == os.readlink(pa)):
                changed.append((f, "link differs", 0))
            continue
        if not filecmp.cmp(pb, pa, shallow=False):
            lb = open(pb, errors="replace").read().replace("/out/before/", "/out/X/").splitlines(); la = open(pa, errors="replace").read().replace("/out/after/", "/out/X/").splitlines()
            if lb == la: continue
            n = sum(1 for l in difflib.unified_diff(lb, la, n=0) if l[:1] in "+-" and not l.startswith(("+++", "---")))
            changed.append((f, "differs", n))
    if changed: res[k] = changed
json.dump(res, open(R + "/portdiff.json", "w"), indent=1)
for k, v in res.items():
    print("==", k, len(v))
    for c in v[:12]: print("   ", *c)
