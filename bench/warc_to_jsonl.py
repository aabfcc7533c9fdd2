#!/usr/bin/env python3
"""WARC files (plain, as bench/gen_collection.py --gzip none writes them) as
JSON Lines, one {"id", "contents"} object per record (Anserini's
JsonCollection, as Pyserini writes it): the same text for builds of the
jsonl format.

    python3 bench/gen_collection.py --kind realistic --size-mb 800 --files 8 --gzip none --out /tmp/plain
    python3 bench/warc_to_jsonl.py /tmp/plain /tmp/jsonl
    bash bench/ab_throughput.sh OLD/invidx-run NEW/invidx-run /tmp/jsonl configs/default.json 5
"""
import glob
import json
import os
import sys


def records(path):
    data = open(path, "rb").read()
    for number, record in enumerate(data.split(b"WARC/1.0\r\n")):
        header_end = record.find(b"\r\n\r\n")
        if header_end < 0:
            continue
        yield number, record[header_end + 4:].decode("utf-8", "replace")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: warc_to_jsonl.py WARC_DIR OUT_DIR")
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for k, path in enumerate(sorted(glob.glob(os.path.join(source, "*.warc")))):
        with open(os.path.join(out, "part-%05d.jsonl" % k), "w") as lines:
            for number, body in records(path):
                lines.write(json.dumps({"id": "d%d-%d" % (k, number), "contents": body}) + "\n")


if __name__ == "__main__":
    main()
