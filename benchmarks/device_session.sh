#!/bin/bash
# Work that outlasts one device call (at most 10 minutes each) on a warm device machine: start it detached
# in the first call, wait in the next ones, bring the results back in the last. A device session of 30
# minutes then spends its time on work, not on calls that each restart a build from nothing.
#   bash benchmarks/device_session.sh start NAME -- COMMAND...   run COMMAND detached; its OUT is
#                                                             /tmp/vado-device/NAME/out, its log .../log
#   bash benchmarks/device_session.sh wait SECONDS            until every job ended or SECONDS passed;
#                                                             prints what each job is doing
#   bash benchmarks/device_session.sh collect                 each job's out/ and log as $OUT/NAME.tar.gz
# A job that is no longer running and wrote no rc was killed when a call ended: the next call says so
# (state "lost"), and the job can be started again (torch_ext_device.py --reuse keeps its compiled objects).
set -u
BASE=/tmp/vado-device
cmd=${1:-}; shift || true
state() {  # running | done rc=N | lost
  local d=$BASE/$1
  if [ -f "$d/rc" ]; then echo "done rc=$(cat "$d/rc")"
  elif [ -f "$d/pid" ] && kill -0 "$(cat "$d/pid")" 2>/dev/null; then echo running
  else echo lost; fi
}
case "$cmd" in
  start)
    name=$1; shift; [ "${1:-}" = "--" ] && shift
    d=$BASE/$name; rm -rf "$d"; mkdir -p "$d/out"
    # The job runs in its own copy of the repository (tree and carried work dirs): each later device call
    # re-syncs the tree and drops the carried paths it does not name (on 2026-12-05 the torch builds' sources
    # and the list programs' binaries vanished mid-run at the second call), so the job must not read from it.
    cp -a . "$d/repo"
    # setsid + nohup: the job is not in the call's process group, so the call's end does not signal it.
    (cd "$d/repo" && OUT="$d/out" setsid nohup bash -c '"$@"; echo $? > "$0/rc"' "$d" "$@" > "$d/log" 2>&1 < /dev/null &
     echo $! > "$d/pid")
    echo "started $name (pid $(cat "$d/pid"))";;
  wait)
    limit=$1; t0=$(date +%s)
    while :; do
      busy=0
      for d in "$BASE"/*/; do [ -d "$d" ] || continue; [ "$(state "$(basename "$d")")" = running ] && busy=1; done
      [ $busy = 0 ] && break
      [ $(( $(date +%s) - t0 )) -ge "$limit" ] && break
      sleep 10
    done
    for d in "$BASE"/*/; do
      [ -d "$d" ] || continue; n=$(basename "$d")
      echo "== $n: $(state "$n")"; tail -n 4 "$d/log" | cut -c1-200
    done;;
  collect)
    OUT=${OUT:-/tmp/vado-device-out}; mkdir -p "$OUT"
    for d in "$BASE"/*/; do
      [ -d "$d" ] || continue; n=$(basename "$d")
      echo "$(state "$n")" > "$d/state"
      tar -czf "$OUT/$n.tar.gz" -C "$d" out log state
      echo "$n: $(cat "$d/state"), $(du -sh "$OUT/$n.tar.gz" | cut -f1)"
    done;;
  *) echo "usage: device_session.sh start NAME -- COMMAND... | wait SECONDS | collect" >&2; exit 2;;
esac
