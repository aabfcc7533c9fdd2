#!/usr/bin/env python3
"""End to end from Python: index a collection, batch-search topics, write a
TREC run.

    PYTHONPATH=build/python python3 examples/python/index_and_search.py \
        DOCS.jsonl TOPICS.tsv OUTPUT_DIR RUN.txt

DOCS.jsonl: one {"id": ..., "contents": ...} per line (any iterable of such
dicts works: ir_datasets' docs_iter(), a database cursor ...). TOPICS.tsv:
qid<TAB>query a line. Without arguments it makes a small collection itself.
"""
import json
import sys
import tempfile

import invidx


def documents(path):
    """The documents one at a time: memory stays bounded for any collection."""
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                yield {"id": record["id"], "contents": record["contents"]}


def topics(path):
    with open(path, encoding="utf-8") as lines:
        return dict(line.rstrip("\n").split("\t", 1) for line in lines if line.strip())


def write_trec_run(run, path, tag="invidx"):
    # TREC ranks count from 1; batch_search's (PyTerrier's) from 0.
    with open(path, "w") as out:
        for row in run.itertuples(index=False):
            out.write("%s Q0 %s %d %.6f %s\n" % (row.qid, row.docno, row.rank + 1, row.score, tag))


def main(argv):
    if len(argv) == 5:
        docs, queries, output, run_file = documents(argv[1]), topics(argv[2]), argv[3], argv[4]
    elif len(argv) == 1:
        folder = tempfile.mkdtemp(prefix="invidx-example-")
        texts = ["zebras eat apples", "apples fall from trees", "the zebra runs", "trees grow slowly"]
        docs = ({"id": "doc-%d" % i, "contents": text} for i, text in enumerate(texts * 250))
        queries = {"1": "zebra", "2": "apple trees", "3": "growing"}
        output, run_file = folder + "/index", folder + "/run.txt"
    else:
        sys.exit(__doc__)

    report = invidx.index_documents(docs, output, progress=True)
    print("indexed %d documents, %d terms at %.1f MB/s" % (report["documents"], report["terms"],
                                                            report["throughput_mb_s"]), file=sys.stderr)
    index = invidx.Index(output)
    run = index.batch_search(queries, k=1000)
    write_trec_run(run, run_file)
    print("%d queries, %d hits -> %s" % (len(queries), len(run), run_file), file=sys.stderr)
    print(run.groupby("qid").head(3).to_string(index=False))


if __name__ == "__main__":
    main(sys.argv)
