#!/usr/bin/env bash
# Build (once) and cache ROCm 7.2.4 from Debian's own packages in a sid chroot, and install a `hipcc`
# wrapper that runs inside it with the caller's files visible at the same paths.
#
#   bash scripts/rocm-toolchain.sh            # build or reuse; prints the wrapper's path on stdout
#   bash scripts/rocm-toolchain.sh --check    # also compile a probe kernel for gfx942 and gfx950
#   bash scripts/rocm-toolchain.sh --rebuild  # throw the cached chroot away and build it again
#   bash scripts/rocm-toolchain.sh --bench-libs  # also the third-party headers HeCBench programs include
#                                              # (Boost, OpenMP, OpenMPI, GSL, bzip2), for benchmarks/port_hecbench.py
#
# Where: $VADO_ROCM_HOME (default /var/cache/vado/rocm-7.2.4) holds root/ (the chroot) and bin/hipcc,
# bin/clang (the wrappers). `vado doctor` and `vado verify` find bin/hipcc there by themselves.
#
# Why a chroot: Debian experimental packages ROCm 7.2.4 (hipcc 7.2.4, clang 22, the HIP runtime headers and
# the hip*/roc* library headers), but those packages need a newer libc than Debian 12 has. The mirror's
# Release files are expired snapshots, so apt must be told not to check their Valid-Until date.
#
# Needs root (mmdebstrap, chroot, mount namespaces). About 2-4 minutes and 8 GB the first time; later runs
# find the stamp and return at once. Idempotent; a half-built tree is never used (it is built beside the
# final one and renamed into place).
set -euo pipefail

ROCM_RELEASE=7.2.4
HOME_DIR=${VADO_ROCM_HOME:-/var/cache/vado/rocm-${ROCM_RELEASE}}
ROOT=$HOME_DIR/root
BIN=$HOME_DIR/bin
MIRROR=${VADO_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# hipsparselt-dev is left out: its package overwrites hipBLASLt's origami headers (dpkg refuses both).
PACKAGES=(hipcc libamdhip64-dev rocm-device-libs-22 libhipblas-dev libhipblaslt-dev libhipcub-dev librocprim-dev
          librocthrust-dev libhipfft-dev libhiprand-dev librocrand-dev libhipsparse-dev libhipsolver-dev
          libmiopen-dev librccl-dev libroctx-dev librocwmma-dev librocblas-dev librocfft-dev librocsolver-dev
          librocsparse-dev cmake make g++)
# Headers of third-party libraries that HeCBench programs include (boost/, omp.h for clang 22, mpi.h, gsl/,
# bzlib.h): not part of ROCm, installed on request so that a benchmark compares ports, not missing libraries.
BENCH_PACKAGES=(libboost-dev libomp-22-dev libopenmpi-dev libgsl-dev libbz2-dev)
# The stamp names what was asked for: a changed package list rebuilds the tree.
STAMP_TEXT="vado rocm toolchain ${ROCM_RELEASE}: ${PACKAGES[*]}"
STAMP=$ROOT/etc/vado-toolchain

check=0
rebuild=0
bench_libs=0
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    --rebuild) rebuild=1 ;;
    --bench-libs) bench_libs=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "rocm-toolchain.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { echo "rocm-toolchain: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot and mount namespaces); run it as root"

ready() { [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_TEXT" ] && [ -x "$ROOT/usr/bin/hipcc" ]; }

# Installs packages (experimental's where it has them) into the tree $1 with apt inside it. A private mount
# namespace: /proc inside the tree goes away with the command, even when it fails.
install_from_experimental() {
  local tree=$1
  shift
  unshare --mount --propagation private -- sh -c '
    set -e
    mount -t proc proc "$1/proc"
    chroot "$1" sh -c "apt-get -qq -o Acquire::Check-Valid-Until=false update &&
      DEBIAN_FRONTEND=noninteractive apt-get -qq -o Acquire::Check-Valid-Until=false install -y \
        --no-install-recommends -t experimental $2 >/dev/null && apt-get clean"
  ' sh "$tree" "$*" >&2
}

build() {
  local part=$HOME_DIR/root.partial
  command -v mmdebstrap >/dev/null 2>&1 || {
    say "installing mmdebstrap"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
  }
  mkdir -p "$HOME_DIR"
  if [ -d "$part" ]; then umount -R "$part/proc" 2>/dev/null || true; rm -rf "$part"; fi
  say "bootstrapping Debian sid into $part"
  mmdebstrap --quiet --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' unstable "$part" \
    "deb $MIRROR sid main" "deb $MIRROR experimental main" >&2
  cp /etc/resolv.conf "$part/etc/resolv.conf" 2>/dev/null || true
  say "installing ROCm ${ROCM_RELEASE} from experimental: ${PACKAGES[*]}"
  install_from_experimental "$part" "${PACKAGES[@]}"
  local version
  version=$(chroot "$part" dpkg-query -W -f='${Version}' hipcc)
  case "$version" in
    "$ROCM_RELEASE"*) ;;
    *) die "experimental's hipcc is $version, not $ROCM_RELEASE; the tree at $part is kept for a look" ;;
  esac
  echo "$STAMP_TEXT" > "$part/etc/vado-toolchain"
  rm -rf "$ROOT"
  mv "$part" "$ROOT"
  say "ROCm ${ROCM_RELEASE} ready in $ROOT ($(du -sh --exclude=proc "$ROOT" 2>/dev/null | cut -f1))"
}

write_wrapper() {
  mkdir -p "$BIN"
  local tmp=$BIN/.hipcc.$$
  cat > "$tmp" <<'WRAPPER'
#!/usr/bin/env bash
# vado-rocm-chroot: @ROOT@
# vado-rocm-release: @RELEASE@
# Runs ROCm's hipcc inside the chroot above, in a private mount namespace, with the working directory and
# every directory named by the arguments bound at the same paths. Named clang, clang++, cmake, make or
# hipconfig (symlinks), it runs that tool instead; named rocm-run, it runs its arguments as a command.
# Written by vado's scripts/rocm-toolchain.sh; run that script again to rebuild it.
set -euo pipefail
ROOT='@ROOT@'
# Few processes: verify runs this once per compile (bash built-ins in place of basename, id, dirname).
tool=${0##*/}
case "$tool" in
  clang|clang++) inner=(/usr/lib/llvm-22/bin/$tool) ;;
  cmake|ctest|make|hipconfig) inner=(/usr/bin/$tool) ;;
  rocm-run) inner=() ;;
  *) inner=(/usr/bin/hipcc) ;;
esac
[ -x "$ROOT/usr/bin/hipcc" ] || { echo "$0: the ROCm chroot $ROOT is missing; run scripts/rocm-toolchain.sh" >&2; exit 127; }
[ "$EUID" = 0 ] || { echo "$0: needs root (chroot and mount namespaces)" >&2; exit 126; }

if [ -z "${VADO_ROCM_INSIDE_NS:-}" ]; then
  export VADO_ROCM_INSIDE_NS=1
  exec unshare --mount --propagation private -- "$0" "$@"
fi

# Directories to make visible: the working directory, and the deepest existing directory of every path an
# argument names (plain, -I/-L/-o/-include prefixed, or option=value), relative ones taken from here.
declare -a cands=("$PWD") named=()
[ -n "${TMPDIR:-}" ] && cands+=("$TMPDIR")
for a in "$@"; do
  p=$a
  case "$p" in
    -I*|-L*|-o*|-S*|-B*|-C*) p=${p:2} ;;
    --*=*|-*=*) p=${p#*=} ;;
    @*) p=${p:1} ;;
    -*) continue ;;
  esac
  [ -n "$p" ] || continue
  case "$p" in /*) ;; *) p=$PWD/$p ;; esac
  named+=("$p")
done
# One realpath for them all (NUL-separated); a path it cannot resolve is left out.
if [ "${#named[@]}" -gt 0 ]; then
  while IFS= read -r -d '' p; do
    while [ ! -d "$p" ] && [ "$p" != / ]; do p=${p%/*}; p=${p:-/}; done
    cands+=("$p")
  done < <(realpath -m -z -- "${named[@]}" 2>/dev/null || true)
fi
system_dir() {
  case "$1" in
    /|/usr|/usr/*|/bin|/bin/*|/sbin|/sbin/*|/lib|/lib/*|/lib32*|/lib64*|/libx32*|/etc|/etc/*|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*|/run|/run/*|/boot|/boot/*|/var|/var/lib|/var/lib/*) return 0 ;;
  esac
  case "$1" in "$ROOT"|"$ROOT"/*) return 0 ;; esac
  return 1
}
mapfile -t sorted < <(printf '%s\n' "${cands[@]}" | sort -u)
bound=() points=()
for d in "${sorted[@]}"; do
  system_dir "$d" && continue
  skip=0
  for b in "${bound[@]+"${bound[@]}"}"; do case "$d/" in "$b"/*) skip=1; break ;; esac; done
  [ "$skip" = 1 ] && continue
  bound+=("$d")
  points+=("$ROOT$d")
done
# None of them lies inside another: every mount point is made first, in one mkdir.
if [ "${#bound[@]}" -gt 0 ]; then
  mkdir -p -- "${points[@]}"
  for d in "${bound[@]}"; do mount --bind -- "$d" "$ROOT$d"; done
fi
mount -t proc proc "$ROOT/proc"
exec chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  HIP_PLATFORM="${HIP_PLATFORM:-amd}" ${HIPCC_VERBOSE:+HIPCC_VERBOSE="$HIPCC_VERBOSE"} \
  /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$PWD" "${inner[@]+"${inner[@]}"}" "$@"
WRAPPER
  sed -i "s|@ROOT@|$ROOT|g; s|@RELEASE@|$ROCM_RELEASE|g" "$tmp"
  chmod 755 "$tmp"
  mv "$tmp" "$BIN/hipcc"
  for name in clang clang++ cmake ctest make hipconfig rocm-run; do ln -sf hipcc "$BIN/$name"; done
}

# Installs what BENCH_PACKAGES lacks in the tree (apt keeps the rest); nothing when all are there.
install_bench_libs() {
  local missing=() pkg
  for pkg in "${BENCH_PACKAGES[@]}"; do
    chroot "$ROOT" dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ "${#missing[@]}" = 0 ] && return 0
  say "installing third-party headers for the benchmarks: ${missing[*]}"
  install_from_experimental "$ROOT" "${missing[@]}"
}

if [ "$rebuild" = 1 ] || ! ready; then
  build
fi
write_wrapper
if [ "$bench_libs" = 1 ]; then
  install_bench_libs
fi

if [ "$check" = 1 ]; then
  probe=$(mktemp -d)
  trap 'rm -rf "$probe"' EXIT
  printf '%s\n' '#include <hip/hip_runtime.h>' \
    '__global__ void vado_probe(float* p) { p[threadIdx.x] = __shfl_xor(p[threadIdx.x], 1); }' > "$probe/probe.hip"
  for arch in gfx942 gfx950; do
    (cd "$probe" && "$BIN/hipcc" --offload-arch="$arch" -c probe.hip -o "probe-$arch.o") ||
      die "the probe kernel does not compile for $arch"
  done
  say "hipcc $(chroot "$ROOT" dpkg-query -W -f='${Version}' hipcc) builds gfx942 and gfx950"
fi
echo "$BIN/hipcc"
