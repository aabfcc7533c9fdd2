#!/usr/bin/env python3
"""The Cranfield test collection (1,400 aeronautics abstracts, 225 queries,
graded judgments) as invidx input: a JSONL collection, a qid<TAB>text query
file for `invidx search --queries` and TREC qrels for bench/evaluate.py.

  cranfield.py CRAN_DIR OUT_DIR

CRAN_DIR holds the collection's classic SMART files as they are distributed
(cran.all.1400, cran.qry, cranqrel); OUT_DIR gets collection/cran.jsonl,
queries.tsv and qrels.txt. Nothing is downloaded: the files are public
(Cleverdon's Cranfield II, distributed with SMART) and widely mirrored.

Conventions, as most uses of the collection take them:
- A document's name is its .I number, its text the title (.T) then the
  abstract (.W); authors (.A) and the bibliographic line (.B) are left out.
- Queries are numbered 1..225 in the order of cran.qry (their .I labels skip
  numbers; cranqrel numbers them by position).
- cranqrel's third column is Cleverdon's code: 1 a complete answer, 2 high
  relevance, 3 useful, 4 minimal interest, -1 (or 5) no interest. Gains for
  nDCG are 5 - code (4, 3, 2, 1), and 0 for -1 and 5, which evaluate.py
  then counts as not relevant.
Standard library only.
"""

import json
import os
import sys


def smart_records(path):
    """[{field letter: text}] of a SMART file (.I starts a record, .X a field)."""
    records = []
    field = None
    with open(path, encoding="latin-1") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(".I"):
                records.append({"I": line[2:].strip()})
                field = None
            elif len(line) == 2 and line[0] == "." and line[1].isalpha() and records:
                field = line[1]
                records[-1].setdefault(field, "")
            elif field is not None:
                records[-1][field] += line + "\n"
    return records


def gain(code):
    return 5 - code if 1 <= code <= 4 else 0


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    source, out = argv[1], argv[2]
    os.makedirs(os.path.join(out, "collection"), exist_ok=True)

    documents = [r for r in smart_records(os.path.join(source, "cran.all.1400")) if r["I"]]
    with open(os.path.join(out, "collection", "cran.jsonl"), "w", encoding="utf-8") as f:
        for record in documents:
            text = (record.get("T", "") + record.get("W", "")).strip()
            f.write(json.dumps({"id": record["I"], "contents": text}) + "\n")

    queries = [r for r in smart_records(os.path.join(source, "cran.qry")) if r.get("W", "").strip()]
    with open(os.path.join(out, "queries.tsv"), "w", encoding="utf-8") as f:
        for number, record in enumerate(queries, 1):
            f.write(f"{number}\t{' '.join(record['W'].split())}\n")

    judged = 0
    with open(os.path.join(source, "cranqrel"), encoding="latin-1") as f, \
            open(os.path.join(out, "qrels.txt"), "w", encoding="utf-8") as qrels:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 3:
                raise SystemExit(f"cranqrel:{number}: 3 fields (query document code), not {len(fields)}")
            query, document, code = fields[0], fields[1], int(fields[2])
            qrels.write(f"{query} 0 {document} {gain(code)}\n")
            judged += 1
    print(f"{len(documents)} documents, {len(queries)} queries, {judged} judgments -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
