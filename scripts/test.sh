#!/usr/bin/env bash
# Install everything vado's tests need on a fresh Debian machine, then run the whole suite.
# Run as root (apt-get). Idempotent: packages already present are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(hipcc libamdhip64-dev rocm-device-libs librocprim-dev libhiprand-dev librocrand-dev
              libhipsparse-dev librocsparse-dev)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e ".[test]"
exec python3 -m pytest -q "$@"
