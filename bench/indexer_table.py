#!/usr/bin/env python3
"""Per-indexer figures (Wei & JaJa Table V) from run_pipeline_bench.py --json files.

  indexer_table.py bench-a.json [bench-b.json ...]

For every config and indexer: kind, device, collections owned, tokens, terms,
characters, busy seconds, tokens per busy second (the indexer's own rate, not
limited by the parsers feeding it), peak device memory, and for GPU
indexers where their host thread's time goes (staging batches, waiting on the
device, building run lists); and the config's end-to-end MB/s. First repeat of each config. Standard library only.
"""

import json
import sys


def fmt(value, digits=1):
    if value is None:
        return "-"
    if isinstance(value, float):
        return "%.*f" % (digits, value)
    return str(value)


def main():
    rows = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        for name, runs in data["runs"].items():
            good = [r for r in runs if r.get("ok") and r.get("report")]
            if not good:
                rows.append([name, "FAILED"] + ["-"] * 13)
                continue
            report = good[0]["report"]
            mb_s = good[0].get("metrics", {}).get("mb_s")
            for indexer in report.get("indexers", []):
                busy = indexer.get("busy_seconds") or 0.0
                tokens = indexer.get("tokens", 0)
                device_busy = indexer.get("device_busy_seconds")
                peak = indexer.get("peak_device_bytes")
                rows.append([name, fmt(mb_s), str(indexer.get("indexer")), indexer.get("kind", "-"),
                             indexer.get("device", "-"), str(indexer.get("collections_owned", "-")),
                             "%.1f" % (tokens / 1e6), "%.2f" % (indexer.get("terms", 0) / 1e6),
                             fmt(busy, 2), fmt(tokens / busy / 1e6 if busy else None, 1),
                             fmt(device_busy, 2), fmt(peak / 2**20 if peak else None, 0),
                             fmt(indexer.get("host_stage_seconds"), 2), fmt(indexer.get("host_wait_seconds"), 2),
                             fmt(indexer.get("host_lists_seconds"), 2)])
    header = ["config", "MB/s", "#", "kind", "device", "colls", "M tokens", "M terms", "busy s",
              "M tok/busy s", "gpu busy s", "gpu peak MiB", "host stage s", "host wait s", "host lists s"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)] if rows else [len(h) for h in header]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


if __name__ == "__main__":
    main()
