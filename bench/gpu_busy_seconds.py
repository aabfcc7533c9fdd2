#!/usr/bin/env python3
"""Seconds some kernel ran on the GPUs, summed over them, from nvidia-smi's
samples (bench/inflate_builds.sh records them during each build):

  nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv,noheader,nounits -lms 50 > FILE

Each sample's utilization (the share of the driver's last sample period in
which a kernel ran) counts for the time since that GPU's sample before it.
Prints the seconds, or "-" when no GPU has two samples.

  gpu_busy_seconds.py FILE
"""
import sys
from datetime import datetime


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    last = {}
    busy = 0.0
    intervals = 0
    for line in open(sys.argv[1]):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 3:
            continue
        try:
            at = datetime.strptime(fields[0], "%Y/%m/%d %H:%M:%S.%f")
            gpu, utilization = fields[1], float(fields[2])
        except ValueError:
            continue  # a line cut short when the sampler was stopped
        if gpu in last:
            busy += (at - last[gpu]).total_seconds() * utilization / 100
            intervals += 1
        last[gpu] = at
    print("%.3f" % busy if intervals else "-")


if __name__ == "__main__":
    main()
