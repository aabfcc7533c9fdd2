#!/usr/bin/env python3
"""Builds of several invidx-run binaries on the same files, alternately, with
the CPU time each build took as well as its rate.

    bench/ab_cpu_time.py --collection DIR --config CONFIG \
        --bin before=OLD/invidx-run --bin after=NEW/invidx-run [--repeat 4] [--reports DIR] [--set K=V ...]

Runs before, after, before, after, ... (drift of a shared machine hits both
alike) and prints, per binary, the median of: MB/s (uncompressed input over
report.json's total_seconds, as in docs/PERFORMANCE.md), the process's CPU
core-seconds per GB (user + system, from the kernel's accounting of the
child: it counts a thread that spins while it waits for a GPU, which the
nodes' busy seconds cannot tell from work), the parse and decompress
nodes' busy seconds per GB, the decompress node's CPU seconds per GB (its
busy_cpu_seconds: CPU time inside its bodies, no waiting for a core; "-" for
a binary whose report lacks it), and the best MB/s. --reports keeps each build's report.json (LABEL-RUN.json) for
bench/node_table.py. The table comes last."""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def median_of(values):
    """The median of the values that are there (None: a report without the figure), or None."""
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def figure(value):
    return "-" if value is None else f"{value:.2f}"


def one_build(binary, config, collection, sets, work, keep=None):
    out = os.path.join(work, "idx")
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [binary, config, "--input", collection, "--output", out, "--quiet", "--progress", "off"]
    for s in sets:
        cmd += ["--set", s]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{binary} failed ({done.returncode}):\n{done.stderr}")
    report = json.load(open(os.path.join(out, "report.json")))
    if keep:
        shutil.copy(os.path.join(out, "report.json"), keep)
    gb = report["input_bytes_uncompressed"] / 1e9
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    parse = sum(n["busy_seconds"] for n in report["nodes"] if n["kind"] == "parse")
    decompress_nodes = [n for n in report["nodes"] if n["kind"] == "decompress"]
    decompress = sum(n["busy_seconds"] for n in decompress_nodes)
    has_cpu = decompress_nodes and all("busy_cpu_seconds" in n for n in decompress_nodes)
    decompress_cpu = sum(n["busy_cpu_seconds"] for n in decompress_nodes) if has_cpu else None
    return {
        "mbps": gb * 1e3 / report["total_seconds"],
        "cpu_per_gb": cpu / gb,
        "parse_per_gb": parse / gb,
        "decompress_per_gb": decompress / gb,
        "decompress_cpu_per_gb": None if decompress_cpu is None else decompress_cpu / gb,
        "rss_mib": report.get("peak_rss_bytes", 0) / 1048576,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collection", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--bin", action="append", required=True, help="LABEL=PATH of an invidx-run")
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--reports", help="a directory that keeps each build's report.json")
    args = ap.parse_args()
    bins = [b.split("=", 1) for b in args.bin]
    results = {label: [] for label, _ in bins}
    with tempfile.TemporaryDirectory() as work:
        for r in range(args.repeat):
            for label, path in bins:
                keep = None
                if args.reports:
                    os.makedirs(args.reports, exist_ok=True)
                    keep = os.path.join(args.reports, f"{label}-{r + 1}.json")
                m = one_build(path, args.config, args.collection, args.sets, work, keep)
                results[label].append(m)
                print(f"run {r + 1} {label}: {m['mbps']:.1f} MB/s, cpu {m['cpu_per_gb']:.2f} core-s/GB, "
                      f"parse busy {m['parse_per_gb']:.2f} s/GB, decompress busy {m['decompress_per_gb']:.2f} s/GB, "
                      f"decompress cpu {figure(m['decompress_cpu_per_gb'])} s/GB, peak RSS {m['rss_mib']:.0f} MiB",
                      flush=True)
    first = bins[0][0]
    med = {label: {k: median_of(m[k] for m in runs) for k in runs[0]} for label, runs in results.items()}
    print(f"\n{args.config} on {args.collection}, {args.repeat} alternating runs, medians "
          f"({time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs)")
    print(f"{'build':<12} {'MB/s':>8} {'x ' + first:>10} {'best MB/s':>10} {'cpu s/GB':>9} {'parse s/GB':>11} "
          f"{'decomp s/GB':>12} {'decomp cpu s/GB':>16} {'RSS MiB':>8}")
    for label, m in med.items():
        best = max(run["mbps"] for run in results[label])
        print(f"{label:<12} {m['mbps']:8.1f} {m['mbps'] / med[first]['mbps']:10.3f} {best:10.1f} {m['cpu_per_gb']:9.2f} "
              f"{m['parse_per_gb']:11.2f} {m['decompress_per_gb']:12.2f} {figure(m['decompress_cpu_per_gb']):>16} "
              f"{m['rss_mib']:8.0f}")


if __name__ == "__main__":
    main()
