#!/usr/bin/env python3
"""Synthetic known-item judgments for a WARC collection, for SMOKE CHECKS of
the effectiveness scripts only: they are not relevance judgments and say
nothing about retrieval quality.

  synthetic_judgments.py COLLECTION_DIR --queries OUT.tsv --qrels OUT.qrels
                         [--count N] [--seed S]

Picks N response records at random (WARC or WARC.gz files under the
directory, as bench/gen_collection.py writes them); each one's <title> text
becomes a query ("qid<TAB>text", what `invidx search --queries` reads) and
the record itself its only relevant document (rel 1; its name as SPEC
section 1 gives it: WARC-TREC-ID, else WARC-Record-ID). Standard library only.
"""

import argparse
import gzip
import os
import random
import re
import sys

TITLE = re.compile(rb"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def records(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        while True:
            line = f.readline()
            if not line:
                return
            if not line.startswith(b"WARC/"):
                continue
            headers = {}
            while True:
                line = f.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
                name, _, value = line.decode("utf-8", "replace").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = f.read(int(headers.get("content-length", "0")))
            if headers.get("warc-type") == "response":
                yield headers.get("warc-trec-id") or headers.get("warc-record-id"), body


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collection")
    parser.add_argument("--queries", required=True)
    parser.add_argument("--qrels", required=True)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    candidates = []
    for root, _, files in os.walk(args.collection):
        for name in sorted(files):
            if ".warc" in name:
                for docno, body in records(os.path.join(root, name)):
                    title = TITLE.search(body)
                    if docno and title:
                        text = " ".join(title.group(1).decode("utf-8", "replace").split())
                        if text:
                            candidates.append((docno, text))
    if not candidates:
        print("synthetic_judgments.py: no response records with a <title>", file=sys.stderr)
        return 1
    picked = random.Random(args.seed).sample(candidates, min(args.count, len(candidates)))
    with open(args.queries, "w", encoding="utf-8") as queries, open(args.qrels, "w", encoding="utf-8") as qrels:
        for number, (docno, text) in enumerate(picked, 1):
            queries.write(f"s{number}\t{text}\n")
            qrels.write(f"s{number} 0 {docno} 1\n")
    print(f"{len(picked)} synthetic known-item queries of {len(candidates)} titled records", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
