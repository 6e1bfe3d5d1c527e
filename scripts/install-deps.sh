#!/usr/bin/env bash
# Installs the Debian packages mpicast needs to build, test and run its demo.
# Does nothing when they are all present; otherwise runs apt-get update first.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config python3 gfortran
  openmpi-bin libopenmpi-dev mpich libmpich-dev
  libjansson-dev libinih-dev libzstd-dev zlib1g-dev libgsl-dev
  libopen-trace-format2-dev
  otf2-tools gnuplot-nox fonts-dejavu-core chromium
  clang libclang-rt-14-dev valgrind cppcheck
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
