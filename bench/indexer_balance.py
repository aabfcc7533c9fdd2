#!/usr/bin/env python3
"""How evenly a build's indexers shared the work, from report.json: per
build the indexers' postings, tokens and busy seconds, and for each the
largest over the mean (1.00 = even). An index node waits for its busiest
indexer, so max/mean of busy seconds is what a sampler's assignment costs.

  indexer_balance.py REPORT_JSON...
Standard library only.
"""
import json
import sys


def spread(values):
    mean = sum(values) / len(values)
    return max(values) / mean if mean else 0.0


def main(paths):
    if not paths:
        sys.stderr.write(__doc__)
        return 2
    print("| report | indexers | postings (M) | max/mean | tokens (M) | max/mean | busy s | max/mean | pipeline s |")
    print("|---|---:|---|---:|---|---:|---|---:|---:|")
    for path in paths:
        r = json.load(open(path))
        ix = r.get("indexers", [])
        if not ix:
            continue
        postings = [i.get("postings", 0) / 1e6 for i in ix]
        tokens = [i.get("tokens", 0) / 1e6 for i in ix]
        busy = [i.get("busy_seconds", 0) for i in ix]
        print("| %s | %d | %s | %.3f | %s | %.3f | %s | %.3f | %.2f |" % (
            path, len(ix), " ".join("%.1f" % x for x in postings), spread(postings),
            " ".join("%.1f" % x for x in tokens), spread(tokens), " ".join("%.2f" % x for x in busy), spread(busy),
            r.get("stages", {}).get("pipeline", 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
