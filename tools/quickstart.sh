#!/usr/bin/env bash
# The README's main command: installs what invidx needs (Debian 12 packages),
# builds it, and indexes the bundled sample collection into ./index.
set -euo pipefail
cd "$(dirname "$0")/.."
packages="cmake g++ make libtbb-dev libarchive-dev nlohmann-json3-dev doctest-dev libstemmer-dev zlib1g-dev libdeflate-dev libhwy-dev"
if ! dpkg -s $packages >/dev/null 2>&1; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq $packages >/dev/null
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
./build/invidx-run configs/default.json "$@"
echo
./build/invidx stats index
