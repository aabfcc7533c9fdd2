#!/usr/bin/env bash
# Issue #32 item 5 in one call: builds of WARC.gz of both shapes against the
# inflate ceilings of the same files, measured in the same call.
#
# 1. Writes real pages (SOURCE: a WARC file or a directory of .html pages;
#    default: the .debs of .deps/doc-debs unpacked, as real_pages_carried.sh
#    does, else sample/debian-docs.warc.gz) as two collections of FILES
#    WARC.gz files of SIZE_MB MB of text each (bench/gen_collection.py,
#    gzip LEVEL): per-record (one gzip member per record, Common Crawl-style)
#    and one-stream (each file one gzip stream, ClueWeb-style), different
#    copies of the pages (seeds 1 and 2), so that "mixed", both together,
#    holds no document twice. Kept in WORK and reused by a later call with
#    the same arguments.
# 2. Ceilings: every file decoded by its own process, PROCS (default nproc)
#    at once, by each decoder built (invidx_inflate_bench --gunzip igzip,
#    libdeflate, zlib), per collection, REPEAT times: MB/s of text.
# 3. Builds: invidx-run CONFIG on each collection under each of VARIANTS
#    (LABEL=K=V,K=V,...; a setting written ?K=V is dropped where this
#    invidx-run rejects its key, e.g. a node key that does not exist yet; a
#    variant whose other settings are rejected is skipped; env:NAME=VALUE
#    sets an environment variable for the variant's builds; config:FILE
#    builds it with FILE instead of CONFIG (for settings --set cannot write,
#    such as a list of objects); bin:DIR runs
#    DIR/invidx-run for it, so that two builds of the code compare run by
#    run in one call), REPEAT times in
#    turn, and on the first run each index exported as CIFF (CIFF=0: never)
#    and compared across the variants.
# COLLECTIONS (default "per-record one-stream mixed") picks which of the
# three collections are measured and built (both are written either way);
# DECODERS (default "igzip libdeflate zlib") which ceilings are measured.
# A table last: per collection and variant, the median MB/s of text
# (report.json's total_seconds, as in docs/PERFORMANCE.md), the median of
# its run-by-run ratios to the first variant's ("x first": run r of every
# variant runs in turn, so a pair shares the machine's moment), that over each
# ceiling's median, MB/s over the invidx-run process's wall time (CUDA's
# start, publishing the index and exiting included, as the ceilings'
# processes are timed), MB/s over the flow graph's run alone
# (report.json's stages.pipeline: without the plan's CUDA start, which
# varies by 0.1 s from run to run, or the dictionary's writing), the share
# of that wall time outside the flow graph's run, the decompress node's busy
# core-seconds per GB of text (wall time inside its bodies), its CPU
# seconds per GB (the CPU
# time its threads used there: no waiting for a core or a GPU; "-" for a
# report without busy_cpu_seconds) and the whole process's CPU core-seconds
# per GB (report.json), the share of the text the GPUs inflated
# (decompress.gpus; split_gzip.decoders in report.json), the CPU the GPU
# parse slots' threads spent polling for their GPU work per GB
# (host_wait_cpu_seconds), the slots' busy seconds per GB and their streams'
# idle while the slots' threads read counts back
# (analyzer_seconds.device_idle_readbacks), and whether the CIFF is
# byte-identical to the first variant's. TSV rows (OUT/inflate-builds.tsv): build, collection,
# variant, run, MB/s, decompress busy s/GB, cpu s/GB, CIFF, decompress cpu
# s/GB, wall MB/s, pipeline s, wall s, GPU share, slots' wait cpu s/GB,
# pipeline MB/s, GPU busy s (GPU_UTIL=0: not sampled; bench/gpu_busy_seconds.py),
# GPU parse slots' busy s/GB, their streams' read-back idle s/GB
# (analyzer_seconds.device_idle_readbacks).
#
# On the GPU machine, with this tree's CUDA build carried in BIN (invidx-run,
# invidx, invidx_inflate_bench; bench/carried_setup.sh sets up .deps):
#   OUT=/tmp/out BIN=.carry/bin SIZE_MB=4000 FILES=36 REPEAT=2 bash bench/inflate_builds.sh
# Here, from a local build and no carried packages:
#   BUILD=build SIZE_MB=100 FILES=4 REPEAT=1 VARIANTS="cpu=parse.gpus=none,?decompress.gpus=none" bash bench/inflate_builds.sh
set -uo pipefail
if [ -n "${BUILD:-}" ]; then
  bindir=$BUILD
  out=${OUT:-/tmp/inflate-builds-out}
  mkdir -p "$out"
else
  source bench/carried_setup.sh
  bindir=build-dev
fi
for tool in invidx-run invidx invidx_inflate_bench; do
  [ -x "$bindir/$tool" ] || { echo "inflate_builds: no $bindir/$tool"; exit 1; }
done
work=${WORK:-/tmp/inflate-builds}
size_mb=${SIZE_MB:-4000}
files=${FILES:-36}
level=${LEVEL:-6}
repeat=${REPEAT:-2}
procs=${PROCS:-$(nproc)}
config=${CONFIG:-configs/default.json}
variants=${VARIANTS:-"cpu=parse.gpus=none,?decompress.gpus=none gpu=?decompress.gpus=none gpu-inflate=decompress.gpus=auto"}
mkdir -p "$work"
echo "$(date -u +%FT%TZ) $(nproc) cores; SIZE_MB=$size_mb per shape, FILES=$files, LEVEL=$level, REPEAT=$repeat, PROCS=$procs, $config"

# 1. The collections.
source_pages=${SOURCE:-}
if [ -z "$source_pages" ]; then
  if ls .deps/doc-debs/*.deb > /dev/null 2>&1; then
    rm -rf "$work/docs" && mkdir -p "$work/docs"
    for deb in .deps/doc-debs/*.deb; do dpkg -x "$deb" "$work/docs"; done
    source_pages=$work/docs
  else
    source_pages=sample/debian-docs.warc.gz
  fi
fi
stamp="source=$source_pages size_mb=$size_mb files=$files level=$level"
if [ "$(cat "$work/stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$work/per-record" "$work/one-stream" "$work/stamp"
  for shape in per-record one-stream; do
    if [ "$shape" = per-record ]; then gzip_mode=per-record seed=1; else gzip_mode=whole seed=2; fi
    python3 bench/gen_collection.py --kind realistic --source "$source_pages" --size-mb "$size_mb" --files "$files" \
      --gzip "$gzip_mode" --level "$level" --seed "$seed" --jobs "$(nproc)" --out "$work/$shape" > "$work/gen-$shape.log" 2>&1 ||
      { tail -5 "$work/gen-$shape.log"; exit 1; }
  done
  echo "$stamp" > "$work/stamp"
fi
for shape in per-record one-stream; do
  echo "$shape: $(grep '^total' "$work/gen-$shape.log" | awk '{printf "%d files, %d documents, %.1f MB of text, %.1f MB gzip", '"$files"', $2, $3, $4}')"
done
text_mb() {  # MB of text of the collection named $1
  local total=0
  for shape in per-record one-stream; do
    case $1 in "$shape"|mixed) total=$(python3 -c "print($total + $(grep '^total' "$work/gen-$shape.log" | awk '{print $3}'))") ;; esac
  done
  echo "$total"
}
inputs() {  # the directories of the collection named $1
  case $1 in
    mixed) echo "$work/per-record $work/one-stream" ;;
    *) echo "$work/$1" ;;
  esac
}
collections=${COLLECTIONS:-"per-record one-stream mixed"}  # any of the three, e.g. COLLECTIONS=mixed
results=$out/inflate-builds.tsv
: > "$results"

# 2. Ceilings: one process per file, PROCS at once.
for collection in $collections; do
  mb=$(text_mb "$collection")
  for decoder in ${DECODERS:-igzip libdeflate zlib}; do
    probe=$(ls "$work/per-record"/*.gz | head -1)
    if ! "$bindir/invidx_inflate_bench" --gunzip "$decoder" "$probe" 2> /dev/null; then
      echo "ceiling $decoder: not built, skipped"
      continue
    fi
    for r in $(seq "$repeat"); do
      start=$(date +%s.%N)
      # shellcheck disable=SC2046
      ls $(for d in $(inputs "$collection"); do echo "$d/*.gz"; done) |
        xargs -P "$procs" -n1 "$bindir/invidx_inflate_bench" --gunzip "$decoder"
      end=$(date +%s.%N)
      rate=$(python3 -c "print('%.1f' % ($mb / ($end - $start)))")
      printf 'ceiling\t%s\t%s\t%s\t%s\n' "$collection" "$decoder" "$r" "$rate" >> "$results"
      echo "ceiling $collection $decoder run $r: $rate MB/s of text ($procs processes)"
    done
  done
done

# 3. Builds. Each variant's settings checked on the sample first.
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
accepted() {  # whether invidx-run takes the settings given as arguments (exit 2: rejected)
  local args=()
  for pair in "$@"; do args+=(--set "$pair"); done
  rm -rf "$probe_dir/idx"
  "$probe_bin/invidx-run" "$probe_config" --input sample/debian-docs.warc.gz --output "$probe_dir/idx" --quiet --progress off \
    "${args[@]}" > /dev/null 2> "$probe_dir/log"
  local rc=$?
  [ $rc = 2 ] && { sed -n 1p "$probe_dir/log" | cut -c1-200 > "$probe_dir/why"; return 1; }
  [ $rc = 0 ] || { echo "probe build failed ($rc):"; cat "$probe_dir/log"; exit 1; }
  return 0
}
labels=()
declare -A settings_of env_of bin_of config_of
for variant in $variants; do
  label=${variant%%=*} spec=${variant#*=}
  required=() optional=() envs=() probe_bin=$bindir probe_config=$config
  IFS=, read -r -a pairs <<< "$spec"
  for pair in "${pairs[@]}"; do
    [ -z "$pair" ] && continue
    if [ "${pair:0:4}" = "env:" ]; then envs+=("${pair:4}")
    elif [ "${pair:0:4}" = "bin:" ]; then probe_bin=${pair:4}
    elif [ "${pair:0:7}" = "config:" ]; then probe_config=${pair:7}
    elif [ "${pair:0:1}" = "?" ]; then optional+=("${pair:1}"); else required+=("$pair"); fi
  done
  env_of[$label]="${envs[*]}"
  [ -x "$probe_bin/invidx-run" ] || { echo "variant $label: no $probe_bin/invidx-run"; exit 1; }
  bin_of[$label]=$probe_bin
  [ -f "$probe_config" ] || { echo "variant $label: no config $probe_config"; exit 1; }
  config_of[$label]=$probe_config
  if ! accepted "${required[@]}"; then
    echo "variant $label skipped: $(cat "$probe_dir/why")"
    continue
  fi
  kept=("${required[@]}")
  for pair in "${optional[@]}"; do
    if accepted "${kept[@]}" "$pair"; then kept+=("$pair"); else echo "variant $label: $pair dropped ($(cat "$probe_dir/why"))"; fi
  done
  labels+=("$label")
  settings_of[$label]="${kept[*]}"
  echo "variant $label: $probe_config ${kept[*]:-(as it is)}${envs[*]:+, environment ${envs[*]}}, $probe_bin/invidx-run"
done
[ ${#labels[@]} -gt 0 ] || { echo "inflate_builds: no variant runs"; exit 1; }
idx=$work/idx
for collection in $collections; do
  input_args=()
  for d in $(inputs "$collection"); do input_args+=(--input "$d"); done
  for r in $(seq "$repeat"); do
    for label in "${labels[@]}"; do
      set_args=()
      for pair in ${settings_of[$label]}; do set_args+=(--set "$pair"); done
      rm -rf "$idx"
      # The GPUs' utilization, sampled by nvidia-smi every 50 ms during the
      # build (GPU_UTIL=0: not sampled): the time some kernel ran.
      smi=
      if [ "${GPU_UTIL:-1}" != 0 ] && command -v nvidia-smi > /dev/null 2>&1; then
        nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv,noheader,nounits -lms 50 > "$work/gpu-util.csv" 2> /dev/null &
        smi=$!
      fi
      wall_start=$(date +%s.%N)
      # shellcheck disable=SC2086
      env ${env_of[$label]} "${bin_of[$label]}/invidx-run" "${config_of[$label]}" "${input_args[@]}" --output "$idx" --quiet --progress off "${set_args[@]}" 2> "$work/build.log" ||
        { echo "build $collection $label failed:"; cat "$work/build.log"; exit 1; }
      wall_end=$(date +%s.%N)
      gpu_busy=-
      if [ -n "$smi" ]; then
        kill "$smi" 2> /dev/null; wait "$smi" 2> /dev/null
        gpu_busy=$(python3 bench/gpu_busy_seconds.py "$work/gpu-util.csv")
      fi
      wall_mbps=$(python3 -c "print('%.1f' % ($(text_mb "$collection") / ($wall_end - $wall_start)))")
      mkdir -p "$out/reports"
      cp "$idx/report.json" "$out/reports/$collection-$label-$r.json"
      ciff=-
      if [ "$r" = 1 ] && [ "${CIFF:-1}" != 0 ]; then
        "$bindir/invidx" export-ciff "$idx" "$work/idx.ciff" > /dev/null || { echo "export-ciff failed"; exit 1; }
        ciff=$(sha256sum < "$work/idx.ciff" | cut -c1-16)
        rm -f "$work/idx.ciff"
      fi
      read -r mbps decompress cpu decompress_cpu pipeline gpu_share slot_wait pipeline_mbps slot_busy slot_idle <<< "$(python3 - "$idx/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
gb = r["input_bytes_uncompressed"] / 1e9
nodes = [n for n in r["nodes"] if n["kind"] == "decompress"]
decompress = sum(n["busy_seconds"] for n in nodes)
# busy_cpu_seconds: the CPU time inside the bodies; "-" where this invidx-run does not report it.
decompress_cpu = "%.3f" % (sum(n["busy_cpu_seconds"] for n in nodes) / gb) \
    if nodes and all("busy_cpu_seconds" in n for n in nodes) else "-"
# The share of the text the GPU inflate workers inflated ("-" without split_gzip in the report).
gpu_decoders = [d for d in r.get("split_gzip", {}).get("decoders", []) if d.get("kind") == "gpu"]
gpu_share = "%.3f" % (sum(d["text_bytes"] for d in gpu_decoders) / r["input_bytes_uncompressed"]) \
    if "split_gzip" in r and r["input_bytes_uncompressed"] else "-"
# The CPU the GPU parse slots' threads spent polling for their GPU work, per GB ("-" without GPU parsers).
gpu_parsers = [p for p in r.get("parse", {}).get("parsers", []) if "host_wait_cpu_seconds" in p]
slot_wait = "%.3f" % (sum(p["host_wait_cpu_seconds"] for p in gpu_parsers) / gb) if gpu_parsers else "-"
# The GPU parse slots' time per GB (their threads, waits included) and, of
# their streams' time, the idle while a slot's thread reads counts back
# (analyzer_seconds.device_idle_readbacks; "-" for reports without it).
slot_busy = "%.3f" % (sum(p["busy_seconds"] for p in gpu_parsers) / gb) if gpu_parsers else "-"
slot_idle = "%.3f" % (sum(p["analyzer_seconds"]["device_idle_readbacks"] for p in gpu_parsers) / gb) \
    if gpu_parsers and all("device_idle_readbacks" in p.get("analyzer_seconds", {}) for p in gpu_parsers) else "-"
print("%.1f %.3f %.3f %s %.3f %s %s %.1f %s %s" % (gb * 1e3 / r["total_seconds"], decompress / gb, r.get("cpu_seconds", 0) / gb,
                                                  decompress_cpu, r["stages"]["pipeline"], gpu_share, slot_wait,
                                                  gb * 1e3 / r["stages"]["pipeline"], slot_busy, slot_idle))
PY
)"
      # Fields added later go last, so that rows written before them still parse.
      wall_s=$(python3 -c "print('%.3f' % ($wall_end - $wall_start))")
      printf 'build\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$collection" "$label" "$r" "$mbps" "$decompress" "$cpu" "$ciff" \
        "$decompress_cpu" "$wall_mbps" "$pipeline" "$wall_s" "$gpu_share" "$slot_wait" "$pipeline_mbps" "$gpu_busy" "$slot_busy" "$slot_idle" >> "$results"
      echo "build $collection $label run $r: $mbps MB/s ($wall_mbps over the process's wall time), decompress busy $decompress s/GB, decompress cpu $decompress_cpu s/GB, cpu $cpu s/GB, ciff $ciff"
    done
  done
done
rm -rf "$idx"

python3 - "$results" "$collections" "${labels[@]}" <<'PY'
import statistics, sys
path, collections, labels = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
ceilings, builds = {}, {}
for line in open(path):
    f = line.rstrip("\n").split("\t")
    if f[0] == "ceiling":
        ceilings.setdefault((f[1], f[2]), []).append(float(f[4]))
    else:
        builds.setdefault((f[1], f[2]), []).append(f[4:])
decoders = [d for d in ("igzip", "libdeflate", "zlib") if any((c, d) in ceilings for c in collections)]
print()
print("MB/s of text (medians); ceilings: each file gunzipped by its own process, all at once, in this call")
print("| files | ceilings MB/s (%s) |" % ", ".join(decoders))
print("|---|---|")
for c in collections:
    print("| %s | %s |" % (c, ", ".join("%.0f" % statistics.median(ceilings[(c, d)]) if (c, d) in ceilings else "-"
                                         for d in decoders)))
print()
head = "| files | config | MB/s | runs | x first | " + " | ".join("x %s" % d for d in decoders) + \
       " | wall MB/s | pipeline MB/s | outside the pipeline | decompress busy s/GB | decompress cpu s/GB | cpu s/GB | GPU inflated | slots' wait cpu s/GB | GPU busy s/GB | pipeline s/GB | slots busy s/GB | slots' read-back idle s/GB | CIFF same |"
print(head)
print("|" + "---|" * (head.count("|") - 1))
for c in collections:
    first_ciff = None
    first_rates = None
    for label in labels:
        runs = builds.get((c, label))
        if not runs:
            continue
        rates = [float(r[0]) for r in runs]
        mbps = statistics.median(rates)
        # Against the first variant: the median of run-by-run ratios (run r of
        # each variant ran in turn, so a pair shares the machine's moment).
        if first_rates is None:
            first_rates = rates
        pairs = [mine / theirs for mine, theirs in zip(rates, first_rates)]
        by_first = "%.2f" % statistics.median(pairs) if pairs else "-"
        ciff = runs[0][3]
        if first_ciff is None:
            first_ciff = ciff
        same = "-" if ciff == "-" else ("yes" if ciff == first_ciff else "NO")
        ratios = " | ".join("%.2f" % (mbps / statistics.median(ceilings[(c, d)])) if (c, d) in ceilings else "-"
                            for d in decoders)
        # Rows from before the field, or from reports without it, have none.
        decompress_cpu = [float(r[4]) for r in runs if len(r) > 4 and r[4] != "-"]
        wall = [float(r[5]) for r in runs if len(r) > 5]
        # The share of the process's wall time outside the flow graph's run
        # (CUDA's start, the sample, the dictionary, publishing, exit).
        outside = [1 - float(r[6]) / float(r[7]) for r in runs if len(r) > 7]
        # The share of the text the GPUs inflated (decompress.gpus).
        gpu_share = [float(r[8]) for r in runs if len(r) > 8 and r[8] != "-"]
        # The GPU parse slots' polling CPU per GB (GPU parsers only).
        slot_wait = [float(r[9]) for r in runs if len(r) > 9 and r[9] != "-"]
        # MB/s over the flow graph's run alone (stages.pipeline): without the
        # plan's CUDA start, which varies by 0.1 s from run to run.
        pipeline_rate = [float(r[10]) for r in runs if len(r) > 10]
        # Seconds some kernel ran on the GPUs (summed over them; nvidia-smi's
        # utilization) per GB, beside the pipeline's seconds per GB.
        gpu_busy = [float(r[11]) / (float(r[10]) * float(r[6]) / 1e3) for r in runs if len(r) > 11 and r[11] != "-"]
        # The GPU parse slots' busy seconds and their streams' idle at
        # read-backs, per GB (GPU parsers only).
        slot_busy = [float(r[12]) for r in runs if len(r) > 12 and r[12] != "-"]
        slot_idle = [float(r[13]) for r in runs if len(r) > 13 and r[13] != "-"]
        print("| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %.3f | %s | %.2f | %s | %s | %s | %s | %s | %s | %s |" % (
            c, label, mbps, ", ".join("%.0f" % v for v in rates), by_first, ratios,
            "%.0f" % statistics.median(wall) if wall else "-",
            "%.0f" % statistics.median(pipeline_rate) if pipeline_rate else "-",
            "%.0f%%" % (100 * statistics.median(outside)) if outside else "-",
            statistics.median(float(r[1]) for r in runs),
            "%.3f" % statistics.median(decompress_cpu) if decompress_cpu else "-",
            statistics.median(float(r[2]) for r in runs),
            "%.0f%%" % (100 * statistics.median(gpu_share)) if gpu_share else "-",
            "%.3f" % statistics.median(slot_wait) if slot_wait else "-",
            "%.3f" % statistics.median(gpu_busy) if gpu_busy else "-",
            "%.3f" % statistics.median(1e3 / v for v in pipeline_rate) if pipeline_rate else "-",
            "%.3f" % statistics.median(slot_busy) if slot_busy else "-",
            "%.3f" % statistics.median(slot_idle) if slot_idle else "-", same))
PY
