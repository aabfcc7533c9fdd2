#!/usr/bin/env python3
"""One line per build from its report.json: MB/s, total seconds and, per
node, its concurrency, busy seconds, utilization and the seconds its
workers waited for input and for room downstream; then the stages, the
framers and the tokens (memory.tokens and the most ever in flight). A node
that waits for input everywhere while nothing is busy points at the token
limit (memory.tokens) rather than at a node.

  node_table.py REPORT_JSON [LABEL]
Standard library only.
"""
import json
import sys


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    r = json.load(open(argv[1]))
    label = argv[2] if len(argv) > 2 else argv[1]
    gb = r["input_bytes_uncompressed"] / 1e9
    line = "%-40s %7.1f MB/s total %.2f s |" % (label[:40], gb * 1e3 / r["total_seconds"], r["total_seconds"])
    for n in r["nodes"]:
        line += " %s x%d busy %.2f util %.2f win %.2f wout %.2f |" % (
            n["kind"], n["concurrency"], n["busy_seconds"], n["utilization"], n["wait_input_seconds"], n["wait_output_seconds"])
    print(line)
    print("   stages", {k: round(v, 3) for k, v in r["stages"].items()}, "frame", json.dumps(r.get("frame"))[:200],
          "tokens", r.get("memory_tokens"), "peak in flight", r.get("peak_tokens_in_flight"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
