import json, os, sys
B, A = sys.argv[1], sys.argv[2]
def load(p):
    d = json.load(open(p)); r = {}
    for f in d["findings"]:
        s = f["span"]; r.setdefault((f["code"], s["path"], s["line"], s["column"]), []).append((tuple(sorted(f["verdicts"].items())), f["severity"], bool(f.get("inactive")), bool(f.get("fix")), f["message"][:100]))
    return r
for n in sorted(os.listdir(A)):
    if not n.endswith(".json") or not os.path.exists(f"{B}/{n}"): continue
    b, a = load(f"{B}/{n}"), load(f"{A}/{n}")
    for k in sorted(set(b) | set(a), key=str):
        if b.get(k) != a.get(k):
            print(n[:-5], k[0], k[1], k[2], "B:", [x[1:4] for x in b.get(k, [])], "A:", [x[1:4] for x in a.get(k, [])], "|", (a.get(k) or b.get(k))[0][4].replace("\n", " ")[:90])
