#!/usr/bin/env python3
"""A small TREC evaluator: nDCG@10 and recall@1000 as trec_eval computes
ndcg_cut.10 and recall.1000 (trec_eval 9.0's m_ndcg_cut.c and m_recall.c).

  evaluate.py QRELS RUN [RUN...] [--per-query] [--format text|json]

QRELS: "qid iter docno rel" lines. RUN: "qid Q0 docno rank score tag" lines
(what `invidx search --format trec` writes). The rules, as trec_eval's:
- A run's documents for a query are ranked by score descending, ties by
  docno descending (strcmp order); the rank column is ignored. A docno
  twice in one query's results is an error.
- Relevant: rel >= 1. The gain of a document is its rel (0 when negative or
  unjudged); DCG@k = sum over the first k of gain / log2(rank + 1), ranks
  from 1; the ideal DCG ranks the query's judged gains descending; nDCG@k
  = DCG / ideal, 0 when the ideal is 0.
- recall@k = relevant documents among the first k / relevant documents of
  the query (0 when it has none).
- Queries averaged over: those in both the run and the qrels (trec_eval
  without -c); a query judged but absent from the run is left out, as is a
  query of the run without judgments.
Standard library only.
"""

import argparse
import json
import math
import sys
from collections import defaultdict


def read_qrels(path):
    """qid -> {docno: rel}"""
    qrels = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise ValueError(f"{path}:{number}: a qrels line has 4 fields (qid iter docno rel), not {len(fields)}")
            qid, _, docno, rel = fields
            qrels[qid][docno] = int(rel)
    return qrels


def read_run(path):
    """qid -> [(score, docno)] in file order"""
    run = defaultdict(list)
    seen = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 6:
                raise ValueError(f"{path}:{number}: a run line has 6 fields (qid Q0 docno rank score tag), not {len(fields)}")
            qid, _, docno, _, score, _ = fields
            if (qid, docno) in seen:
                raise ValueError(f"{path}:{number}: document {docno} twice for query {qid}")
            seen.add((qid, docno))
            run[qid].append((float(score), docno))
    return run


def ranked(results):
    """docnos by score descending, ties by docno descending (trec_eval)"""
    return [docno for _, docno in sorted(results, key=lambda r: (r[0], r[1]), reverse=True)]


def ndcg_at(docnos, judgments, k):
    dcg = sum(max(judgments.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(docnos[:k]))
    ideal_gains = sorted((g for g in judgments.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
    return dcg / ideal if ideal > 0 else 0.0


def recall_at(docnos, judgments, k):
    relevant = sum(1 for g in judgments.values() if g >= 1)
    if relevant == 0:
        return 0.0
    return sum(1 for d in docnos[:k] if judgments.get(d, 0) >= 1) / relevant


def evaluate(qrels, run, ndcg_k=10, recall_k=1000):
    """{"per_query": {qid: {...}}, "all": {...}, "queries": n}"""
    per_query = {}
    for qid in sorted(run):
        if qid not in qrels:
            continue
        docnos = ranked(run[qid])
        per_query[qid] = {f"ndcg_cut_{ndcg_k}": ndcg_at(docnos, qrels[qid], ndcg_k),
                          f"recall_{recall_k}": recall_at(docnos, qrels[qid], recall_k)}
    names = [f"ndcg_cut_{ndcg_k}", f"recall_{recall_k}"]
    count = len(per_query)
    mean = {name: (sum(v[name] for v in per_query.values()) / count if count else 0.0) for name in names}
    return {"per_query": per_query, "all": mean, "queries": count}


def main(argv):
    parser = argparse.ArgumentParser(description="nDCG@10 and recall@1000 as trec_eval's ndcg_cut.10 and recall.1000")
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--per-query", action="store_true")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    args = parser.parse_args(argv)
    qrels = read_qrels(args.qrels)
    out = {}
    for path in args.runs:
        out[path] = evaluate(qrels, read_run(path))
    if args.format == "json":
        print(json.dumps({p: ({"all": r["all"], "queries": r["queries"], "per_query": r["per_query"]} if args.per_query
                              else {"all": r["all"], "queries": r["queries"]}) for p, r in out.items()}, indent=1))
        return 0
    for path, result in out.items():
        print(f"# {path}")
        if args.per_query:
            for qid, values in result["per_query"].items():
                for name, value in values.items():
                    print(f"{name:<16}\t{qid}\t{value:.4f}")
        print(f"{'num_q':<16}\tall\t{result['queries']}")
        for name, value in result["all"].items():
            print(f"{name:<16}\tall\t{value:.4f}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError) as error:
        print(f"evaluate.py: {error}", file=sys.stderr)
        sys.exit(2)
