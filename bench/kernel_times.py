#!/usr/bin/env python3
"""Per-kernel device time from an Nsight Compute CSV (ncu --csv --metrics
gpu__time_duration.sum): total, count and mean per kernel name, largest
total first, as a table.

    kernel_times.py NCU_CSV
"""
import csv
import re
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    totals = defaultdict(float)
    counts = defaultdict(int)
    with open(sys.argv[1], newline="") as f:
        # ncu prints its own lines before the CSV header.
        lines = [line for line in f if line.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = re.sub(r"\(anonymous namespace\)::|<unnamed>::", "", row["Kernel Name"])
        name = name.split("(")[0].split("<")[0].strip().split("::")[-1]
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "nsecond")
        scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
                 "second": 1e6, "s": 1e6}[unit]
        totals[name] += value * scale
        counts[name] += 1
    grand = sum(totals.values()) or 1.0
    print(f"{'kernel':48s} {'launches':>8s} {'total us':>10s} {'mean us':>9s} {'share':>6s}")
    for name, total in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"{name[:48]:48s} {counts[name]:8d} {total:10.1f} {total / counts[name]:9.1f} {total / grand:6.1%}")


if __name__ == "__main__":
    main()
