#!/usr/bin/env python3
"""Run invidx-run over one collection with several pipeline configs; print a table.

  run_pipeline_bench.py --invidx-run PATH --collection DIR --configs a.json,b.json
                        [--repeat N] [--set key=value ...] [--work-dir DIR]
                        [--keep-output] [--json FILE] [--timeout SECONDS]

For each config and repeat it runs
  invidx-run CONFIG --input DIR --output WORK/run-XXXX/index [--set key=value ...]
reads WORK/run-XXXX/index/report.json, and reports the median over repeats of:
wall time (measured here), engine time (report total_seconds), uncompressed
input MB (10^6 bytes), MB/s, documents/s and tokens/s (over total_seconds when
reported, else over the wall time), and peak RSS twice: as the engine reports
it (peak_rss_bytes) and as the OS measured it (GNU /usr/bin/time -v when
installed, else the child's rusage from wait4). A key missing from report.json
prints "-". Failed runs are listed with their log and make the exit status 1.
The summary table is printed last. Standard library only.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

GNU_TIME = "/usr/bin/time"
MIB = 1024 * 1024


def gnu_time_available():
    if not os.access(GNU_TIME, os.X_OK):
        return False
    try:
        probe = subprocess.run([GNU_TIME, "-v", "true"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return "Maximum resident set size" in probe.stderr


def read_gnu_time_max_rss_bytes(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            match = re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", f.read())
    except OSError:
        return None
    return int(match.group(1)) * 1024 if match else None


def number(report, key):
    value = report.get(key) if isinstance(report, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def wait_with_rusage(process, timeout):
    """Waits for the child with wait4; returns (status, rusage, timed_out).

    wait4 gives this child's own rusage (peak RSS) rather than the running
    maximum over all children that getrusage(RUSAGE_CHILDREN) would give.
    """
    deadline = time.monotonic() + timeout if timeout else None
    timed_out = False
    while True:
        try:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG if deadline else 0)
        except KeyboardInterrupt:
            os.killpg(process.pid, signal.SIGKILL)  # its own session misses our Ctrl-C
            raise
        if pid == process.pid:
            break
        if time.monotonic() >= deadline:
            os.killpg(process.pid, signal.SIGKILL)
            timed_out = True
            deadline = None
            continue
        time.sleep(0.05)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return status, usage, timed_out


def run_once(args, config, use_gnu_time, run_index):
    """Runs invidx-run once; returns a dict of measurements (None where unknown)."""
    run_dir = tempfile.mkdtemp(prefix="run-%02d-" % run_index, dir=args.work_dir)
    output_dir = os.path.join(run_dir, "index")
    command = [args.invidx_run, config, "--input", args.collection, "--output", output_dir]
    for setting in args.set:
        command += ["--set", setting]
    time_file = os.path.join(run_dir, "time.txt")
    if use_gnu_time:
        command = [GNU_TIME, "-v", "-o", time_file] + command
    log_path = os.path.join(run_dir, "log.txt")
    started = time.monotonic()
    with open(log_path, "wb") as log:
        log.write(("$ %s\n" % " ".join(command)).encode("utf-8"))
        log.flush()
        try:
            # A session of its own, so a timeout can stop time(1) and the engine together.
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as error:
            return {"ok": False, "why": "cannot start: %s" % error, "run_dir": run_dir,
                    "log": log_path}
        status, usage, timed_out = wait_with_rusage(process, args.timeout)
    wall = time.monotonic() - started
    exit_code = os.waitstatus_to_exitcode(status)
    result = {"run_dir": run_dir, "log": log_path, "wall_seconds": wall, "exit_code": exit_code}
    result["os_rss_bytes"] = read_gnu_time_max_rss_bytes(time_file) if use_gnu_time else None
    if result["os_rss_bytes"] is None:
        result["os_rss_bytes"] = usage.ru_maxrss * 1024  # Linux reports KiB
    if timed_out or exit_code != 0:
        result["ok"] = False
        result["why"] = "timed out after %d s" % args.timeout if timed_out else "exit code %d" % exit_code
        return result
    report_path = os.path.join(output_dir, "report.json")
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        print("  warning: cannot read %s: %s" % (report_path, error), file=sys.stderr)
        report = {}
    result["ok"] = True
    result["report"] = report if isinstance(report, dict) else {}
    return result


def derived(result):
    """Per-run metrics for the table; None where the report lacks a key."""
    report = result["report"]
    seconds = number(report, "total_seconds")
    rate_seconds = seconds if seconds else result["wall_seconds"]
    input_bytes = number(report, "input_bytes_uncompressed")
    documents = number(report, "documents")
    tokens = number(report, "tokens")
    engine_rss = number(report, "peak_rss_bytes")

    def per_second(value):
        return value / rate_seconds if value is not None and rate_seconds else None

    return {
        "wall_s": result["wall_seconds"],
        "engine_s": seconds,
        "mb": input_bytes / 1e6 if input_bytes is not None else None,
        "mb_s": per_second(input_bytes / 1e6) if input_bytes is not None else None,
        "docs_s": per_second(documents),
        "tokens_s": per_second(tokens),
        "rss_report_mib": engine_rss / MIB if engine_rss is not None else None,
        "rss_os_mib": result["os_rss_bytes"] / MIB if result.get("os_rss_bytes") else None,
    }


def median_or_none(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def fmt(value, digits=1):
    if value is None:
        return "-"
    return "%.*f" % (digits, value)


def print_table(headers, rows):
    widths = [max(len(str(row[i])) for row in [headers] + rows) for i in range(len(headers))]
    line = "  ".join("%-*s" % (widths[0], headers[0]) if i == 0 else "%*s" % (widths[i], h)
                     for i, h in enumerate(headers))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join("%-*s" % (widths[0], row[0]) if i == 0 else "%*s" % (widths[i], cell)
                        for i, cell in enumerate(row)))


def print_stages(name, results):
    """Median seconds per stage (report "stages"), when the engine reports them."""
    stage_names = []
    for result in results:
        stages = result["report"].get("stages")
        if isinstance(stages, dict):
            stage_names += [s for s in stages if s not in stage_names]
    if not stage_names:
        return
    print("\nstages of %s (median seconds):" % name)
    for stage in stage_names:
        values = [number(r["report"].get("stages"), stage) for r in results
                  if isinstance(r["report"].get("stages"), dict)]
        print("  %-24s %10s" % (stage, fmt(median_or_none(values), 3)))


def main():
    parser = argparse.ArgumentParser(
        description="Benchmark invidx-run pipeline configs on one collection.",
        epilog="example: %(prog)s --invidx-run build/tools/invidx-run --collection /tmp/syn1g "
               "--configs pipelines/cpu.json,pipelines/gpu.json --repeat 3")
    parser.add_argument("--invidx-run", required=True, help="path of the invidx-run program")
    parser.add_argument("--collection", required=True, help="input passed as --input")
    parser.add_argument("--configs", required=True, help="comma-separated pipeline JSON files")
    parser.add_argument("--repeat", type=int, default=1, help="runs per config (median shown)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="passed on to invidx-run as --set KEY=VALUE (repeatable)")
    parser.add_argument("--work-dir", help="where run outputs go (default: a new temp dir)")
    parser.add_argument("--keep-output", action="store_true",
                        help="keep each run's index (default: delete after reading report.json)")
    parser.add_argument("--json", help="also write all measurements to this JSON file")
    parser.add_argument("--timeout", type=int, default=0, help="seconds per run (0: none)")
    args = parser.parse_args()

    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not configs or args.repeat < 1:
        parser.error("need at least one config and --repeat >= 1")
    for path in [args.invidx_run] + configs + [args.collection]:
        if not os.path.exists(path):
            parser.error("not found: %s" % path)
    for setting in args.set:
        if "=" not in setting:
            parser.error("--set expects KEY=VALUE, got %r" % setting)
    args.invidx_run = os.path.abspath(args.invidx_run)
    if args.work_dir:
        os.makedirs(args.work_dir, exist_ok=True)
    else:
        args.work_dir = tempfile.mkdtemp(prefix="invidx-bench-")
    use_gnu_time = gnu_time_available()
    os_rss_source = "GNU time -v" if use_gnu_time else "wait4 rusage"

    names = [os.path.basename(c) for c in configs]
    if len(set(names)) != len(names):
        names = configs
    rows = []
    all_results = {}
    failures = 0
    run_index = 0
    for name, config in zip(names, configs):
        results = []
        for repeat in range(args.repeat):
            run_index += 1
            result = run_once(args, config, use_gnu_time, run_index)
            if result["ok"]:
                metrics = derived(result)
                result["metrics"] = metrics
                print("%s #%d: wall %.2f s, engine %s s, %s MB/s, os RSS %s MiB" % (
                    name, repeat + 1, metrics["wall_s"], fmt(metrics["engine_s"], 2),
                    fmt(metrics["mb_s"]), fmt(metrics["rss_os_mib"], 0)), flush=True)
                if not args.keep_output:
                    shutil.rmtree(os.path.join(result["run_dir"], "index"), ignore_errors=True)
            else:
                failures += 1
                print("%s #%d: FAILED (%s); log: %s" % (name, repeat + 1, result["why"],
                                                       result["log"]), flush=True)
                sys.stdout.flush()
                try:
                    with open(result["log"], encoding="utf-8", errors="replace") as f:
                        tail = f.read()[-2000:]
                    print("  " + tail.replace("\n", "\n  "), file=sys.stderr)
                except OSError:
                    pass
            results.append(result)
        all_results[name] = results
        good = [r for r in results if r["ok"]]
        if not good:
            rows.append([name, "0/%d" % args.repeat] + ["FAILED"] + ["-"] * 7)
            continue
        keys = ["wall_s", "engine_s", "mb", "mb_s", "docs_s", "tokens_s", "rss_report_mib",
                "rss_os_mib"]
        medians = {k: median_or_none([r["metrics"][k] for r in good]) for k in keys}
        rows.append([name, "%d/%d" % (len(good), args.repeat),
                     fmt(medians["wall_s"], 2), fmt(medians["engine_s"], 2), fmt(medians["mb"]),
                     fmt(medians["mb_s"]), fmt(medians["docs_s"], 0), fmt(medians["tokens_s"], 0),
                     fmt(medians["rss_report_mib"], 0), fmt(medians["rss_os_mib"], 0)])

    for name, results in all_results.items():
        good = [r for r in results if r["ok"]]
        if good:
            print_stages(name, good)

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"invidx_run": args.invidx_run, "collection": args.collection,
                       "set": args.set, "os_rss_source": os_rss_source,
                       "runs": {name: [{k: v for k, v in r.items() if k != "report"} |
                                       {"report": r.get("report")} for r in results]
                                for name, results in all_results.items()}},
                      f, indent=2)

    print("\ncollection %s; medians over %d repeat(s); rates over engine total_seconds "
          "(wall when absent); MB = 10^6 bytes uncompressed; os RSS from %s; runs in %s"
          % (args.collection, args.repeat, os_rss_source, args.work_dir))
    if args.set:
        print("settings: %s" % " ".join("--set " + s for s in args.set))
    print()
    print_table(["config", "ok", "wall s", "engine s", "MB", "MB/s", "docs/s", "tokens/s",
                 "RSS report MiB", "RSS os MiB"], rows)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
