"""Before/after vado runs. usage: drive.py {audit|port} LISTFILE  (lines: corpus<TAB>path[<TAB>torch])"""
import os, sys, subprocess, hashlib, concurrent.futures as cf
TREES = {"before": os.environ.get("BEFORE_SRC", "/tmp/wt-before/src"), "after": os.environ.get("AFTER_SRC", "/work/wt/regress/src")}
OUT = os.environ.get("REGRESS_OUT", "/tmp/regress/out")
import time
mode, listfile = sys.argv[1], sys.argv[2]
jobs = int(os.environ.get("JOBS", "1"))
items = [l.rstrip("\n").split("\t") for l in open(listfile) if l.strip()]
def key(corpus, path):
    return corpus + "__" + os.path.basename(path.rstrip("/"))
def one(tree, it):
    corpus, path = it[0], it[1]
    k = key(corpus, path)
    env = dict(os.environ, PYTHONPATH=TREES[tree])
    d = f"{OUT}/{tree}/{mode}"
    os.makedirs(d, exist_ok=True)
    if mode == "audit":
        out = f"{d}/{k}.json"
        if os.path.exists(out) and os.path.getsize(out) > 0:
            return
        cmd = ["nice", "-n", "10", "python3", "-m", "vado", "audit", "-f", "json", "-q", "--exit-zero", "-j", "1", "-o", out + ".tmp", path]
        t0 = time.time()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/tmp", timeout=1800)
        open(f"{d}/{k}.time", "w").write("%.2f\n" % (time.time() - t0))
        if r.returncode != 0:
            open(f"{d}/{k}.err", "w").write(r.stdout + r.stderr)
        if os.path.exists(out + ".tmp"):
            os.rename(out + ".tmp", out)
    else:
        out = f"{d}/{k}"
        if os.path.exists(out + ".report.json"):
            return
        cmd = ["nice", "-n", "10", "python3", "-m", "vado", "port", "-f", "json", "-q", "-j", "1", "--report", out + ".report.json", "-o", out, path]
        if len(it) > 2 and it[2] == "torch":
            cmd[cmd.index("port") + 1:cmd.index("port") + 1] = ["--torch-extension", "auto"]
        t0 = time.time()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/tmp", timeout=1800)
        open(f"{d}/{k}.time", "w").write("%.2f\n" % (time.time() - t0))
        open(f"{d}/{k}.log", "w").write(" ".join(cmd) + "\nrc=%d\n" % r.returncode + r.stdout[-20000:] + r.stderr[-20000:])
        if not os.path.exists(out + ".report.json"):
            open(out + ".report.json", "w").write('{"failed": %d}' % r.returncode)
with cf.ThreadPoolExecutor(jobs) as ex:
    futs = [ex.submit(one, t, it) for it in items for t in TREES]  # JOBS=1: one repo, one tree at a time
    for i, f in enumerate(cf.as_completed(futs)):
        try: f.result()
        except Exception as e: print("ERR", e, file=sys.stderr)
        print(i, len(futs), flush=True)
