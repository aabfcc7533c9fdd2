#!/usr/bin/env bash
# The README's main command: installs what invidx needs (Debian 12 packages),
# builds it, and indexes the bundled sample collection into ./index.
set -euo pipefail
cd "$(dirname "$0")/.."
packages="cmake g++ make libtbb-dev libarchive-dev nlohmann-json3-dev doctest-dev libstemmer-dev zlib1g-dev libdeflate-dev libisal-dev libhwy-dev"
if ! dpkg -s $packages >/dev/null 2>&1; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq $packages >/dev/null
fi
# The Python module (python/) and its tests' packages.
python_packages="pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest"
if ! dpkg -s $python_packages >/dev/null 2>&1; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends $python_packages >/dev/null
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
# Only the two programs run below: the tests and benchmarks (built by the
# README's test command into the same directory) would take minutes more.
cmake --build build -j"$(nproc)" --target invidx-run invidx-cli
./build/invidx-run configs/default.json "$@"
echo
./build/invidx stats index
