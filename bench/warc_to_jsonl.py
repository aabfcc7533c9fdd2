#!/usr/bin/env python3
"""WARC files (plain, as bench/gen_collection.py --gzip none writes them) as
JSON Lines, one {"id", "contents"} object per record (Anserini's
JsonCollection, as Pyserini writes it): the same text for builds of the
jsonl format. --metadata adds a "url" (the record's WARC-Target-URI) and a
"title" field to each line (kept as the record's metadata, not indexed).

    python3 bench/gen_collection.py --kind realistic --size-mb 800 --files 8 --gzip none --out /tmp/plain
    python3 bench/warc_to_jsonl.py /tmp/plain /tmp/jsonl [--metadata]
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
        url = ""
        for line in record[:header_end].split(b"\r\n"):
            if line.lower().startswith(b"warc-target-uri:"):
                url = line.split(b":", 1)[1].strip().decode("utf-8", "replace")
        yield number, url, record[header_end + 4:].decode("utf-8", "replace")


def main():
    arguments = [a for a in sys.argv[1:] if a != "--metadata"]
    metadata = "--metadata" in sys.argv[1:]
    if len(arguments) != 2:
        sys.exit("usage: warc_to_jsonl.py WARC_DIR OUT_DIR [--metadata]")
    source, out = arguments
    os.makedirs(out, exist_ok=True)
    for k, path in enumerate(sorted(glob.glob(os.path.join(source, "*.warc")))):
        with open(os.path.join(out, "part-%05d.jsonl" % k), "w") as lines:
            for number, url, body in records(path):
                line = {"id": "d%d-%d" % (k, number), "contents": body}
                if metadata:
                    line.update({"url": url, "title": "Record %d of part %d" % (number, k)})
                lines.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
