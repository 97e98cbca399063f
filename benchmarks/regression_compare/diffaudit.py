import json, os, sys, collections
R = os.environ.get("REGRESS_DIR", "/tmp/regress")  # working files: out/{before,after}/{audit,port}
B, A = R + "/out/before/audit", R + "/out/after/audit"
def load(p):
    d = json.load(open(p))
    res = {}
    for f in d["findings"]:
        s = f["span"]
        k = (f["code"], s["path"], s["line"], s["column"])
        v = (tuple(sorted(f["verdicts"].items())), f["severity"], bool(f.get("inactive")), bool(f.get("fix")))
        res.setdefault(k, []).append((v, f["message"]))
    return d, res
out = {}
counts = collections.defaultdict(lambda: [0, 0])
for name in sorted(os.listdir(A)):
    if not name.endswith(".json") or not os.path.exists(f"{B}/{name}"): continue
    corpus = name.split("__")[0]
    db, fb = load(f"{B}/{name}"); da, fa = load(f"{A}/{name}")
    counts[corpus][0] += len(db["findings"]); counts[corpus][1] += len(da["findings"])
    diffs = []
    for k in sorted(set(fb) | set(fa), key=str):
        b, a = fb.get(k, []), fa.get(k, [])
        if [x[0] for x in b] != [x[0] for x in a]:
            diffs.append({"key": k, "before": [(x[0], x[1][:200]) for x in b], "after": [(x[0], x[1][:200]) for x in a]})
        elif [x[1] for x in b] != [x[1] for x in a]:
            diffs.append({"key": k, "msgonly": True, "before": [x[1][:300] for x in b], "after": [x[1][:300] for x in a]})
    vb = [(v["target"], v["verdict"]) for v in db["verdicts"]]; va = [(v["target"], v["verdict"]) for v in da["verdicts"]]
    if diffs or vb != va:
        out[name[:-5]] = {"diffs": diffs, "verdicts_before": vb, "verdicts_after": va, "nb": len(db["findings"]), "na": len(da["findings"])}
json.dump({"counts": counts, "changed": out}, open(R + "/auditdiff.json", "w"), indent=1, default=str)
print(dict(counts))
for n, o in out.items():
    print(f"== {n}: {o['nb']} -> {o['na']}" + ("" if o['verdicts_before'] == o['verdicts_after'] else f"  VERDICT {o['verdicts_before'][0]} -> {o['verdicts_after'][0]}"))
    for d in o["diffs"][:int(os.environ.get("MAXD", "8"))]:
        k = d["key"]
        if d.get("msgonly"):
            print("  msg", k[0], k[1], k[2], "|", d["before"][0][:150] if d["before"] else "", "=>", d["after"][0][:150] if d["after"] else "")
        else:
            print("  ", k[0], k[1], k[2], "B:", [(x[0][0][-3][1] if len(x[0][0])>2 else x[0][0], x[0][1], 'inact' if x[0][2] else '', 'fix' if x[0][3] else '') for x in d["before"]], "A:", [(x[0][0][-3][1] if len(x[0][0])>2 else x[0][0], x[0][1], 'inact' if x[0][2] else '', 'fix' if x[0][3] else '') for x in d["after"]], "|", (d["after"] or d["before"])[0][1][:140])
    if len(o["diffs"]) > int(os.environ.get("MAXD", "8")): print("   ...", len(o["diffs"]))
