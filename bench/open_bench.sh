#!/usr/bin/env bash
# Open + first term lookup time against index size: block checksums verified
# as read (now) against every file verified whole at open (before; the same
# binary with INVIDX_VERIFY_ALL_AT_OPEN=1). Warm: files in the page cache;
# cold: dropped first (posix_fadvise, no root needed).
#   bench/open_bench.sh [BUILD_DIR] [--with-10gb]     (default build-nocuda)
# Needs about 1.2 GB of disk (12 GB with --with-10gb) under $TMPDIR.
set -euo pipefail
build=${1:-build-nocuda}
sizes="0.1 1"
[[ "${2:-}" == "--with-10gb" || "${1:-}" == "--with-10gb" ]] && sizes="0.1 1 10"
[[ "$build" == "--with-10gb" ]] && build=build-nocuda
bench="$build/invidx_open_bench"
work=$(mktemp -d "${TMPDIR:-/tmp}/invidx-open-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf "%-8s %-6s %-5s %10s %14s %16s\n" size_gb mode cache open_ms first_query_ms bytes_verified
for gb in $sizes; do
  "$bench" make "$work/idx-$gb" "$gb"
  for cache in warm cold; do
    flag=""; [[ $cache == cold ]] && flag="--cold"
    for mode in before after; do
      if [[ $mode == before ]]; then line=$(INVIDX_VERIFY_ALL_AT_OPEN=1 "$bench" open "$work/idx-$gb" $flag)
      else line=$("$bench" open "$work/idx-$gb" $flag); fi
      python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print("%-8s %-6s %-5s %10.2f %14.2f %16d" % (sys.argv[2], sys.argv[3], sys.argv[4], 1e3*r["open_s"], 1e3*r["first_query_s"], r["bytes_verified"]))' "$line" "$gb" "$mode" "$cache"
    done
  done
  rm -rf "$work/idx-$gb"
done
