#!/usr/bin/env bash
# Retrieval effectiveness of impact scoring against exact BM25 on one index:
# nDCG@10 and recall@1000 (bench/evaluate.py, trec_eval's definitions) of
# `invidx search --scoring impact` (quantized to BITS) and `--scoring bm25`
# over the same queries and judgments.
#
#   bench/impact_effectiveness.sh IDX QUERIES QRELS [BITS] [MODE]
#
# QUERIES: what `invidx search --queries` reads (qid<TAB>text lines or TREC
# topics); QRELS: TREC qrels whose docnos are the index's document names.
# BITS defaults to 8, MODE (and|or|and-or) to or. The index gets the query
# layout if it lacks one and is weighted with BITS (`invidx weight`: BM25
# scoring is unchanged by it). INVIDX_BUILD (default build) holds the tools.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,15p "$0" >&2; exit 2; }
index=$1 queries=$2 qrels=$3 bits=${4:-8} mode=${5:-or}
build=${INVIDX_BUILD:-build}
invidx="$build/invidx"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -f "$index/query.post" ] || "$invidx" merge "$index" --layout query >&2
"$invidx" weight "$index" --bits "$bits" >&2
for scoring in bm25 impact; do
  start=$(date +%s%N)
  "$invidx" search "$index" --queries "$queries" --format trec --k 1000 --mode "$mode" \
    --scoring "$scoring" --run-tag "$scoring" > "$work/$scoring.run"
  end=$(date +%s%N)
  echo "$scoring: $(cut -d' ' -f1 "$work/$scoring.run" | sort -u | wc -l) queries with results, $(( (end - start) / 1000000 )) ms" >&2
done
python3 "$here/evaluate.py" "$qrels" "$work/bm25.run" "$work/impact.run" --format json > "$work/eval.json"
python3 - "$work/eval.json" "$bits" "$mode" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
bm25 = next(r["all"] for path, r in result.items() if path.endswith("/bm25.run"))
impact = next(r["all"] for path, r in result.items() if path.endswith("/impact.run"))
queries = next(iter(result.values()))["queries"]
print(f"queries judged and answered: {queries}; mode {sys.argv[3]}, k 1000")
print("| scoring | nDCG@10 | recall@1000 |")
print("|---|---:|---:|")
print(f"| bm25 (exact) | {bm25['ndcg_cut_10']:.4f} | {bm25['recall_1000']:.4f} |")
print(f"| impact, {sys.argv[2]} bits | {impact['ndcg_cut_10']:.4f} | {impact['recall_1000']:.4f} |")
print(f"| impact − bm25 | {impact['ndcg_cut_10'] - bm25['ndcg_cut_10']:+.4f} | {impact['recall_1000'] - bm25['recall_1000']:+.4f} |")
PY
