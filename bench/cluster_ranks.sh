#!/usr/bin/env bash
# A cluster build on P ranks of this machine (mpirun over TCP, oversubscribed),
# for each P given (default 1 2), against a single-machine build of the same
# collection: prints MB/s, the postings bytes exchanged per GB of input and
# per rank its busy seconds (parse, distribute, index, exchange thread), and
# checks that every build exports the single machine's CIFF.
#   bench/cluster_ranks.sh COLLECTION [CONFIG] [P ...] [-- --set K=V ...]
# CONFIG defaults to configs/cluster.json; BUILD (default build-nocuda) holds
# invidx-run and invidx. MB/s = uncompressed input over rank 0's
# total_seconds (report.json), as in docs/PERFORMANCE.md. --bind-to none:
# mpirun otherwise binds each of up to 2 ranks to one core, so 1 rank would
# get half of a 2-core machine that the single build gets whole.
# LAUNCH (optional) prefixes every build, the single one included: with
# bench/rank_slice.sh each rank (and the single build) gets its own slice of
# a multi-GPU machine (cores and GPU). MPI_ARGS (default "--mca btl
# tcp,self") replaces the transport arguments. REPORTS (optional) is a
# directory that keeps every build's report.json (single.json, pN.json).
# CHECK_CIFF=0 skips the CIFF exports (repeats of a build already checked:
# on a large collection the exports take longer than the builds).
set -euo pipefail
collection=${1:?collection}
shift
config=configs/cluster.json
if [ $# -gt 0 ] && [ "$1" != "--" ] && [ -f "$1" ]; then config=$1; shift; fi
ranks=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do ranks+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#ranks[@]} -eq 0 ] && ranks=(1 2)
build=${BUILD:-build-nocuda}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c.pop("cluster",None); json.dump(c,open(sys.argv[2],"w"))' \
  "$config" "$work/single.json"
${LAUNCH:-} "$build/invidx-run" "$work/single.json" --input "$collection" --output "$work/single" --quiet --progress off "$@"
[ "${CHECK_CIFF:-1}" = 1 ] && "$build/invidx" export-ciff "$work/single" "$work/single.ciff" > /dev/null
# What the exchanged bytes compare with: the single build's postings on disk.
run_bytes=$(cat "$work/single"/runs/*.post | wc -c)
reports=("$work/single/report.json")
labels=("single")
for p in "${ranks[@]}"; do
  mpirun --oversubscribe --bind-to none -np "$p" ${MPI_ARGS:---mca btl tcp,self} ${LAUNCH:-} "$build/invidx-run" "$config" --input "$collection" \
    --output "$work/p$p" --quiet --progress off "$@" 2> "$work/p$p.log" || { cat "$work/p$p.log"; exit 1; }
  if [ "${CHECK_CIFF:-1}" = 1 ]; then
    "$build/invidx" export-ciff "$work/p$p" "$work/p$p.ciff" > /dev/null
    if cmp -s "$work/single.ciff" "$work/p$p.ciff"; then same=yes; else same=NO; fi
    rm -f "$work/p$p.ciff"
  else
    same=unchecked
  fi
  cp "$work/p$p/report.json" "$work/p$p.report.json"
  reports+=("$work/p$p.report.json")
  labels+=("P=$p ciff=$same")
  rm -rf "$work/p$p"
done
if [ -n "${REPORTS:-}" ]; then
  mkdir -p "$REPORTS" && cp "$work/single/report.json" "$REPORTS/single.json"
  for p in "${ranks[@]}"; do cp "$work/p$p.report.json" "$REPORTS/p$p.json"; done
fi
python3 - "$run_bytes" "${#reports[@]}" "${reports[@]}" "${labels[@]}" <<'PY'
import json, sys
run_bytes = int(sys.argv[1])
n = int(sys.argv[2])
reports, labels = sys.argv[3:3 + n], sys.argv[3 + n:]
def busy(nodes, kind):
    return sum(x.get("busy_seconds", 0) for x in nodes if x.get("kind") == kind)
print("%-18s %8s %8s %9s %14s %12s" % ("build", "GB in", "seconds", "MB/s", "exch MB/GB in", "msgs sent"))
rows = []
for path, label in zip(reports, labels):
    r = json.load(open(path))
    gb = r["input_bytes_uncompressed"] / 1e9
    per = r.get("per_rank", [])
    sent = sum(x.get("postings_bytes_sent", 0) for x in per)
    msgs = sum(x.get("postings_messages_sent", 0) for x in per)
    print("%-18s %8.3f %8.2f %9.1f %14.1f %12d" % (label, gb, r["total_seconds"], gb * 1e3 / r["total_seconds"],
                                                 sent / 1e6 / gb, msgs))
    rows.append((label, r))
gb0 = json.load(open(reports[0]))["input_bytes_uncompressed"] / 1e9
print("(the single build's run files: %.1f MB per GB in)" % (run_bytes / 1e6 / gb0))
print()
print("%-18s %4s %7s %8s %8s %8s %8s %8s %8s %9s %9s %8s" % ("build", "rank", "docs", "parse s", "distr s", "index s",
      "exch s", "merge s", "wait s", "sent MB", "recv MB", "RSS MiB"))
for label, r in rows:
    for x in r.get("per_rank", []):
        print("%-18s %4d %7d %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %9.1f %9.1f %8.0f" % (
            label, x["rank"], x["documents"], x.get("parse_busy_seconds", 0), x.get("distribute_busy_seconds", 0),
            x.get("index_busy_seconds", 0), x.get("exchange_busy_seconds", 0), x.get("merge_seconds", 0),
            x.get("wait_seconds", 0), x.get("postings_bytes_sent", 0) / 1e6, x.get("postings_bytes_received", 0) / 1e6,
            x.get("peak_rss_bytes", 0) / 1048576))
print()
# Rank 0's end (after every rank's runs are adopted): its steps, and with the
# parallel join each rank's share of the dictionary and of the documents.
for label, r in rows:
    per = r.get("per_rank", [])
    if not per or "end_seconds" not in per[0]:
        continue
    gb = r["input_bytes_uncompressed"] / 1e9
    end = per[0]["end_seconds"]
    print("%-18s join=%s rank 0 end: %s (%.2f s per GB in)" % (label, r.get("cluster", {}).get("join", "?"),
          " ".join("%s %.3f" % (k, v) for k, v in end.items()), end.get("total", 0) / gb))
    for x in per:
        if "mpi_start_seconds" in x:
            print("%-18s   rank %d start: MPI %.3f s, plan %.3f s, sampling %.3f s; build %.3f s in all, %.3f s in fsync" % (
                label, x["rank"], x["mpi_start_seconds"], x["plan_seconds"], x.get("sampling_seconds", 0), x["build_seconds"],
                x.get("sync_wait_seconds", float("nan"))))
        if "join" in x:
            j = x["join"]
            print("%-18s   rank %d join: slices %.3f s, merge %.3f s, write %.3f s, %d terms, %.1f MB records" % (
                label, x["rank"], j["slice_seconds"], j["merge_seconds"], j["write_seconds"], j["terms"],
                j["record_bytes"] / 1e6))
        if "documents_join" in x:
            d = x["documents_join"]
            print("%-18s   rank %d documents: write %.3f s (of which sync %.3f s), %d documents, %.1f MB records" % (
                label, x["rank"], d["write_seconds"], d.get("sync_seconds", float("nan")), d["documents"],
                d["record_bytes"] / 1e6))
PY
