#!/usr/bin/env python3
"""Index one collection with invidx, Xapian and Lucene, one after the other; print a table.

  compare_peers.py --invidx-run PATH --collection DIR [--config configs/default.json]
                   [--systems invidx,xapian,lucene] [--lucene-threads N] [--lucene-ram-mb MB]
                   [--java-heap SIZE] [--work-dir DIR] [--keep-output] [--timeout SECONDS]
                   [--json FILE]

BENCHMARK-ONLY. The peers are the harnesses of bench/peers/
(xapian_index.cpp, LuceneIndex.java), built by bench/peers/build.sh, which this
script runs when their outputs are missing. They read the same part files as
invidx-run --input DIR (the collection's *.warc.gz / *.warc files).

Per system it measures the wall time of the process (here, so JVM start-up
counts), the OS's peak RSS (GNU /usr/bin/time -v when installed, else the
child's rusage from wait4), the index size on disk, and reads the documents,
document bytes, terms and postings each system reports (invidx: report.json;
peers: their "key: value" output). "self s" is the time the system measured
itself (invidx total_seconds; the harnesses time from opening the index to the
final commit). MB is the HTML bytes of the documents (after the HTTP header),
as invidx counts input_bytes_uncompressed; MB/s is MB over the wall time, and
"invidx x" is invidx's MB/s over the row's MB/s (how many times faster invidx
is). The table is printed last. Standard library only.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_pipeline_bench import (GNU_TIME, MIB, gnu_time_available,  # noqa: E402
                                read_gnu_time_max_rss_bytes, wait_with_rusage)

PEERS = os.path.join(HERE, "peers")
PEERS_BUILD = os.path.join(PEERS, "build")


def collection_files(directory):
    files = []
    for pattern in ("*.warc.gz", "*.warc"):
        files += glob.glob(os.path.join(directory, pattern))
    return sorted(set(files))


def dir_bytes(path):
    total = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def parse_key_values(text):
    values = {}
    for line in text.splitlines():
        match = re.match(r"^([a-z_]+): (.*)$", line.strip())
        if match:
            values[match.group(1)] = match.group(2)
    return values


def as_float(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def run_measured(name, command, run_dir, use_gnu_time, timeout, env=None):
    """Runs command; returns (ok, wall seconds, peak RSS bytes, log text)."""
    time_file = os.path.join(run_dir, "time.txt")
    if use_gnu_time:
        command = [GNU_TIME, "-v", "-o", time_file] + command
    log_path = os.path.join(run_dir, "log.txt")
    print("[%s] $ %s" % (name, " ".join(command)), file=sys.stderr, flush=True)
    started = time.monotonic()
    with open(log_path, "wb") as log:
        try:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        except OSError as error:
            return False, None, None, "cannot start: %s" % error
        status, usage, timed_out = wait_with_rusage(process, timeout)
    wall = time.monotonic() - started
    with open(log_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    rss = read_gnu_time_max_rss_bytes(time_file) if use_gnu_time else None
    if rss is None:
        rss = usage.ru_maxrss * 1024  # kilobytes on Linux
    ok = process.returncode == 0 and not timed_out
    if timed_out:
        text += "\n(timed out after %s s)" % timeout
    return ok, wall, rss, text


def ensure_peers_built(systems):
    need = []
    if "xapian" in systems and not os.access(os.path.join(PEERS_BUILD, "xapian_index"), os.X_OK):
        need.append("xapian")
    if "lucene" in systems and not (os.path.exists(os.path.join(PEERS_BUILD, "classes", "LuceneIndex.class"))
                                    and os.path.exists(os.path.join(PEERS_BUILD, "lucene.classpath"))):
        need.append("lucene")
    for what in need:
        print("[build] bench/peers/build.sh %s" % what, file=sys.stderr, flush=True)
        subprocess.run([os.path.join(PEERS, "build.sh"), what], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--invidx-run", required=True, help="path of the invidx-run binary")
    parser.add_argument("--collection", required=True, help="directory of part-NNNNN.warc.gz files")
    parser.add_argument("--config", default=os.path.join(REPO, "configs", "default.json"),
                        help="invidx pipeline config (default: configs/default.json)")
    parser.add_argument("--systems", default="invidx,xapian,lucene",
                        help="which to run, in this order (default: invidx,xapian,lucene)")
    parser.add_argument("--lucene-threads", type=int, default=os.cpu_count() or 1,
                        help="Lucene indexing threads (default: one per core, %(default)s)")
    parser.add_argument("--lucene-ram-mb", type=float, default=1024, help="IndexWriter RAM buffer (default 1024)")
    parser.add_argument("--java-heap", default="3g", help="JVM -Xmx (default 3g; must exceed the RAM buffer)")
    parser.add_argument("--java", default="java")
    parser.add_argument("--work-dir", default=None, help="where the indexes go (default: a temporary directory)")
    parser.add_argument("--keep-output", action="store_true", help="keep the indexes")
    parser.add_argument("--timeout", type=float, default=0, help="seconds per system (default: none)")
    parser.add_argument("--json", default=None, help="save the measurements here")
    args = parser.parse_args()

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in ("invidx", "xapian", "lucene")]
    if unknown:
        parser.error("unknown system(s): %s" % ", ".join(unknown))
    files = collection_files(args.collection)
    if not files:
        parser.error("no *.warc.gz / *.warc files in %s" % args.collection)
    ensure_peers_built(systems)
    use_gnu_time = gnu_time_available()
    work = args.work_dir or tempfile.mkdtemp(prefix="compare-peers-")
    os.makedirs(work, exist_ok=True)
    cores = os.cpu_count() or 1

    rows = []
    failed = False
    for system in systems:
        run_dir = tempfile.mkdtemp(prefix=system + "-", dir=work)
        index = os.path.join(run_dir, "index")
        env = None
        if system == "invidx":
            command = [args.invidx_run, args.config, "--input", args.collection, "--output", index,
                       "--progress", "off"]
            threads = "auto/%d" % cores
        elif system == "xapian":
            command = [os.path.join(PEERS_BUILD, "xapian_index"), index] + files
            threads = "1"
        else:
            with open(os.path.join(PEERS_BUILD, "lucene.classpath")) as f:
                classpath = f.read().strip()
            command = [args.java, "-Xmx" + args.java_heap, "-DramMB=%g" % args.lucene_ram_mb,
                       "-cp", classpath, "LuceneIndex", index, str(args.lucene_threads)] + files
            threads = str(args.lucene_threads)
        ok, wall, rss, text = run_measured(system, command, run_dir, use_gnu_time, args.timeout or None, env)
        row = {"system": system, "threads": threads, "ok": ok, "wall_s": wall, "peak_rss_bytes": rss,
               "command": command, "run_dir": run_dir}
        if ok:
            row["index_bytes"] = dir_bytes(index)
            if system == "invidx":
                try:
                    with open(os.path.join(index, "report.json"), encoding="utf-8") as f:
                        report = json.load(f)
                except (OSError, ValueError):
                    report = {}
                row["self_s"] = as_float(report.get("total_seconds"))
                row["documents"] = as_float(report.get("documents"))
                row["mb"] = (as_float(report.get("input_bytes_uncompressed")) or 0) / 1e6 or None
                row["terms"] = as_float(report.get("terms"))
                row["postings"] = as_float(report.get("postings"))
                row["label"] = "invidx (%s)" % os.path.basename(args.config)
            else:
                values = parse_key_values(text)
                row["self_s"] = as_float(values.get("seconds"))
                row["documents"] = as_float(values.get("documents"))
                row["mb"] = as_float(values.get("mb"))
                row["terms"] = as_float(values.get("terms"))
                row["postings"] = as_float(values.get("postings"))
                row["label"] = values.get("system", system)
            if row.get("mb") and wall:
                row["mb_s"] = row["mb"] / wall
        else:
            failed = True
            print("[%s] FAILED; log %s:\n%s" % (system, os.path.join(run_dir, "log.txt"),
                                               "\n".join(text.splitlines()[-20:])), file=sys.stderr)
        if not args.keep_output:
            shutil.rmtree(index, ignore_errors=True)
        rows.append(row)

    base = next((r for r in rows if r["system"] == "invidx" and r.get("mb_s")), None)
    for row in rows:
        if base and row.get("mb_s"):
            row["invidx_x"] = base["mb_s"] / row["mb_s"]

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"collection": args.collection, "files": len(files), "cores": cores,
                       "rss_source": "GNU time -v" if use_gnu_time else "wait4 rusage", "rows": rows},
                      f, indent=2)

    def fmt(value, spec):
        return "-" if value is None else format(value, spec)

    header = ["system", "threads", "wall s", "self s", "MB", "MB/s", "docs", "terms", "postings",
              "peak RSS MiB", "index MiB", "invidx x"]
    table = []
    for row in rows:
        rss = row.get("peak_rss_bytes")
        size = row.get("index_bytes")
        table.append([
            row["system"] if row["ok"] else row["system"] + " FAILED",
            row["threads"],
            fmt(row.get("wall_s"), ".2f"),
            fmt(row.get("self_s"), ".2f"),
            fmt(row.get("mb"), ".1f"),
            fmt(row.get("mb_s"), ".1f"),
            fmt(row.get("documents"), ".0f"),
            fmt(row.get("terms"), ".0f"),
            fmt(row.get("postings"), ".0f"),
            fmt(rss / MIB if rss else None, ".1f"),
            fmt(size / MIB if size is not None else None, ".1f"),
            fmt(row.get("invidx_x"), ".2f"),
        ])
    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(header)]
    print()
    for row in rows:
        if row.get("label"):
            print("%-7s %s" % (row["system"], row["label"]))
    print("collection %s: %d files; %d cores; peak RSS from %s; MB/s = MB / wall s; "
          "invidx x = invidx MB/s / row MB/s"
          % (args.collection, len(files), cores, "GNU time -v" if use_gnu_time else "wait4 rusage"))
    print("  ".join(h.ljust(widths[0]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(header)))
    for r in table:
        print("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))
    if not args.work_dir and not args.keep_output and not failed:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
