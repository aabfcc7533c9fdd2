# Sourced by the GPU-machine scripts (bench/gpu_*.sh, scaling_16core.sh):
# unpacks the carried Debian packages (.deps/, ../shared/device/README.md)
# into /tmp/pfx, points the build and the run at them, and builds build-gpu
# (Ninja, sm_90). BUILD_TARGETS narrows the build ("" = everything).
rm -rf /tmp/pfx && eval "$(bash .deps/prefix.sh .deps/debs /tmp/pfx)"
nproc; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
build_start=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cmake.log 2>&1 ||
  { tail -30 /tmp/cmake.log; exit 1; }
build_args=()
for target in ${BUILD_TARGETS:-}; do build_args+=(--target "$target"); done
cmake --build build-gpu -j16 "${build_args[@]}" -- -k 0 > /tmp/build.log 2>&1 ||
  { grep -B2 -A3 "error" /tmp/build.log | head -80; exit 1; }
echo "build seconds: $(( $(date +%s) - build_start ))"
