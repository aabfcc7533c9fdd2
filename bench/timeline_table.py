#!/usr/bin/env python3
"""A build's timeline as a table: the pipeline cut into WINDOWS equal spans,
and for each the tokens in flight, the process's CPU cores in use and each
node's bodies running (the mean of the rows' "active" counts, sampled at each
row's instant: unlike "busy", which counts a body when it ends, not lumpy),
from report.json's "timeline" (a build run with --set report.timeline_ms=N).
Shows which stage was busy when: the graph filling, its steady state and its
drain, which the report's whole-build totals average together.

  python3 bench/timeline_table.py INDEX/report.json [--windows 10] [--nodes decompress,parse]
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="report.json of a build made with report.timeline_ms set")
    parser.add_argument("--windows", type=int, default=10, help="equal spans of the timeline (default 10)")
    parser.add_argument("--nodes", default="", help="comma-separated node names (default: every node)")
    args = parser.parse_args()

    report = json.load(open(args.report))
    if "timeline" not in report:
        sys.exit("%s has no timeline: build with --set report.timeline_ms=10" % args.report)
    timeline = report["timeline"]
    columns = timeline["columns"]
    rows = timeline["rows"]
    if not rows:
        sys.exit("the timeline has no rows")
    index = {name: i for i, name in enumerate(columns)}
    names = [c[: -len(".busy")] for c in columns if c.endswith(".busy")]
    if args.nodes:
        wanted = args.nodes.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            sys.exit("no node %s in the timeline; it has %s" % (", ".join(unknown), ", ".join(names)))
        names = wanted
    concurrency = {node["name"]: node["concurrency"] for node in report.get("nodes", [])}

    end = rows[-1][0]
    width = end / args.windows if end > 0 else 1.0
    # Each row's rates hold over the interval before it: weight by its length.
    sums = [dict(seconds=0.0, tokens=0.0, cpu=0.0, **{n: 0.0 for n in names}) for _ in range(args.windows)]
    previous = 0.0
    for row in rows:
        at = row[0]
        span = at - previous
        previous = at
        if span <= 0:
            continue
        w = min(int((at - span / 2) / width), args.windows - 1)
        s = sums[w]
        s["seconds"] += span
        s["tokens"] += row[index["tokens_in_flight"]] * span
        s["cpu"] += row[index["cpu_cores"]] * span
        for n in names:
            s[n] += row[index[n + ".active"]] * span

    print("timeline of %s: %d rows every %.3f s, pipeline %.3f s, %d tokens" % (
        args.report, len(rows), timeline["interval_seconds"], report.get("stages", {}).get("pipeline", 0),
        report.get("memory_tokens", 0)))
    print()
    header = "| from s | to s | tokens | cpu cores | " + " | ".join(
        "%s (of %s)" % (n, concurrency.get(n, "?")) for n in names) + " |"
    print(header)
    print("|" + "---|" * (4 + len(names)))
    for w, s in enumerate(sums):
        t = s["seconds"]
        if t <= 0:
            continue
        cells = ["%.2f" % (w * width), "%.2f" % ((w + 1) * width), "%.1f" % (s["tokens"] / t), "%.1f" % (s["cpu"] / t)]
        cells += ["%.2f" % (s[n] / t) for n in names]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # piped into head: the rows asked for were printed
        sys.stderr.close()
