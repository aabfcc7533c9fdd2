#!/usr/bin/env python3
"""A directory of many small HTML files, as users index a site's pages or a
document set unpacked: what a build costs per file, not per byte.

Writes the HTML pages of a WARC(.gz) (default: the bundled sample's) COPIES
times as one .html file each into WORK (kept and reused while the pages and
COPIES are the same), then builds it with each invidx-run given (LABEL=PATH,
e.g. before=/tmp/old/invidx-run after=build/invidx-run) REPEAT times in turn,
with CONFIG (configs/default.json). A table last: per binary the median MB/s
of text (report.json's total_seconds) and its runs, the median of the
run-by-run ratios to the first binary's, and the medians of the read,
decompress and frame nodes' busy seconds, the sampler's seconds and the peak
RSS.

  small_files.py [--copies 8] [--repeat 3] [--work /tmp/small-files] [--source WARC] LABEL=INVIDX_RUN ...
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

from gen_collection import read_warc_responses


def write_pages(source, copies, work):
    stamp = "%s copies=%d" % (os.path.abspath(source), copies)
    pages_dir = os.path.join(work, "pages")
    stamp_file = os.path.join(work, "stamp")
    if os.path.exists(stamp_file) and open(stamp_file).read() == stamp:
        return pages_dir
    shutil.rmtree(pages_dir, ignore_errors=True)
    os.makedirs(pages_dir)
    pages = [body for _, body in read_warc_responses(source)]
    for copy in range(copies):
        for i, page in enumerate(pages):
            with open(os.path.join(pages_dir, "c%02d-p%05d.html" % (copy, i)), "wb") as out:
                out.write(page)
    with open(stamp_file, "w") as f:
        f.write(stamp)
    return pages_dir


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binaries", nargs="+", help="LABEL=PATH of an invidx-run")
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", default="/tmp/small-files")
    parser.add_argument("--source", default="sample/debian-docs.warc.gz")
    parser.add_argument("--config", default="configs/default.json")
    args = parser.parse_args()
    binaries = [b.split("=", 1) for b in args.binaries]
    if any(len(b) != 2 for b in binaries):
        sys.exit("each binary is LABEL=PATH")
    pages_dir = write_pages(args.source, args.copies, args.work)
    files = len(os.listdir(pages_dir))
    text_mb = sum(os.path.getsize(os.path.join(pages_dir, f)) for f in os.listdir(pages_dir)) / 1e6
    print("%d files, %.1f MB of text in %s" % (files, text_mb, pages_dir))
    runs = {label: [] for label, _ in binaries}
    index = os.path.join(args.work, "index")
    for r in range(args.repeat):
        for label, path in binaries:
            shutil.rmtree(index, ignore_errors=True)
            subprocess.run([path, args.config, "--input", pages_dir, "--output", index, "--quiet", "--progress", "off"],
                           check=True)
            report = json.load(open(os.path.join(index, "report.json")))
            busy = {n["kind"]: n["busy_seconds"] for n in report["nodes"]}
            runs[label].append({
                "mbps": report["input_bytes_uncompressed"] / 1e6 / report["total_seconds"],
                "read": busy.get("read", 0), "decompress": busy.get("decompress", 0), "frame": busy.get("frame", 0),
                "sampler": report.get("sampler", {}).get("seconds", 0),
                "rss": report.get("peak_rss_bytes", 0) / 2**20,
            })
            print("%s run %d: %.1f MB/s" % (label, r + 1, runs[label][-1]["mbps"]), flush=True)
    shutil.rmtree(index, ignore_errors=True)
    first = [run["mbps"] for run in runs[binaries[0][0]]]
    print()
    print("| binary | MB/s | runs | x first | read busy s | decompress busy s | frame busy s | sampler s | peak RSS MiB |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for label, _ in binaries:
        mine = runs[label]
        median = lambda key: statistics.median(run[key] for run in mine)
        ratio = statistics.median(run["mbps"] / theirs for run, theirs in zip(mine, first))
        print("| %s | %.1f | %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.0f |" % (
            label, median("mbps"), ", ".join("%.1f" % run["mbps"] for run in mine), ratio, median("read"),
            median("decompress"), median("frame"), median("sampler"), median("rss")))


if __name__ == "__main__":
    main()
