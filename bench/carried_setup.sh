# Sourced by the *_carried.sh scripts, which run binaries built elsewhere on
# a GPU machine with no package registry: unpacks .deps/debs into /tmp/pfx
# (the environment to run against it), prints the cores and GPUs, links the
# tree where the binaries were built (BUILT_AT, default /work/main: the tests
# find the sample and the tools there) to this one, and copies $BIN's
# binaries into build-dev/. Sets `out` ($OUT, created) and `bin` ($BIN).
out=${OUT:-/tmp/out}
bin=${BIN:-.carry/bin}
mkdir -p "$out"
rm -rf /tmp/pfx && eval "$(bash .deps/prefix.sh .deps/debs /tmp/pfx)"
nproc; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
built_at=${BUILT_AT:-/work/main}
if [ "$(cd "$built_at" 2>/dev/null && pwd -P)" != "$(pwd -P)" ]; then
  mkdir -p "$(dirname "$built_at")" && ln -sfn "$(pwd -P)" "$built_at" || echo "cannot link $built_at here: tests reading the sample will fail"
fi
mkdir -p build-dev && cp -f "$bin"/* build-dev/ 2>/dev/null
