#!/usr/bin/env python3
"""BENCHMARK-ONLY: summarizes the per-query latency files of
invidx_query, xapian_query and LuceneQuery (bench/peers) into one table.

  latency_table.py FILE...      each FILE: `# system: NAME ...` header, then
                                qid<TAB>microseconds<TAB>results<TAB>names

Per file: system, mode, k, queries, mean / p50 / p99 latency in ms over the
queries (each query's latency is already the median of its repetitions),
mean results per query, and the overlap of its top k with invidx's for the
same mode (shared document names / results of the larger list, averaged
over the queries where either returned something), invidx's mean speed-up
(that row's mean / invidx's mean) and the share of the queries that invidx
answers faster than that row's system. p50 and p99 are the
smallest latencies that at least 50% / 99% of the queries do not exceed
(as invidx_query_bench computes p99).
"""
import math
import re
import sys


def read(path):
    header, rows = "", []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                header = line
                continue
            if not line:
                continue
            parts = line.split("\t")
            names = parts[3].split(",") if len(parts) > 3 and parts[3] else []
            rows.append((parts[0], float(parts[1]), int(parts[2]), names))
    m = re.match(r"# system: (\S+).*?, (and|or), k (\d+)", header)
    if not m:
        sys.exit("%s: no '# system: NAME ..., MODE, k K' header" % path)
    return {"system": m.group(1), "mode": m.group(2), "k": int(m.group(3)), "rows": rows, "header": header}


def quantile(sorted_values, q):
    rank = math.ceil(q * len(sorted_values))
    return sorted_values[min(max(rank, 1), len(sorted_values)) - 1]


def main():
    runs = [read(p) for p in sys.argv[1:]]
    reference = {(r["mode"], r["k"]): r for r in runs if r["system"] == "invidx"}
    print("| system | mode | k | queries | mean ms | p50 ms | p99 ms | results/query | top-k overlap with invidx | invidx mean speed-up | queries invidx answers faster |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        lat = sorted(row[1] / 1000.0 for row in r["rows"])
        mean = sum(lat) / len(lat)
        results = sum(row[2] for row in r["rows"]) / len(r["rows"])
        ref = reference.get((r["mode"], r["k"]))
        overlap, speedup, faster = "-", "-", "-"
        if ref is not None and r is not ref:
            by_qid = {row[0]: row[3] for row in ref["rows"]}
            ref_us = {row[0]: row[1] for row in ref["rows"]}
            wins = [ref_us[row[0]] < row[1] for row in r["rows"] if row[0] in ref_us]
            if wins:
                faster = "%.0f%%" % (100.0 * sum(wins) / len(wins))
            shares = []
            for qid, _, _, names in r["rows"]:
                mine = by_qid.get(qid, [])
                most = max(len(names), len(mine))
                if most:
                    shares.append(len(set(names) & set(mine)) / most)
            if shares:
                overlap = "%.0f%%" % (100.0 * sum(shares) / len(shares))
            ref_mean = sum(row[1] for row in ref["rows"]) / len(ref["rows"]) / 1000.0
            speedup = "%.1fx" % (mean / ref_mean)
        print("| %s | %s | %d | %d | %.3f | %.3f | %.3f | %.1f | %s | %s | %s |" % (
            r["system"], r["mode"].upper(), r["k"], len(lat), mean, quantile(lat, 0.5), quantile(lat, 0.99),
            results, overlap, speedup, faster))
    print()
    for r in runs:
        print(r["header"])


if __name__ == "__main__":
    main()
