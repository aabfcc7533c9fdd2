#!/usr/bin/env python3
"""The Python module against the tools, on the same data (issue #29's targets):

  1. batch_search from Python vs `invidx search --queries` (TREC output to a
     file) for the same queries: wall seconds, best of --repeat.
  2. index_documents from a generator vs invidx-run on the same documents as
     a JSONL file: MB/s of document text (report.json's throughput_mb_s and
     wall time).

    PYTHONPATH=build/python python3 bench/python_api.py --build-dir build \\
        [--documents 200000] [--queries 1000] [--k 1000] [--repeat 3]

Prints a table; makes its collection (synthetic words, Zipf-like) in a
temporary directory.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time


def make_documents(count, seed=1):
    """The documents as a list, made before any timing (Zipf-like words)."""
    rng = random.Random(seed)
    vocabulary = ["w%x" % i for i in range(50000)]
    cumulative, total = [], 0.0
    for rank in range(len(vocabulary)):
        total += 1.0 / (rank + 1)
        cumulative.append(total)
    return [{"id": "doc-%07d" % i,
             "contents": " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(50, 400)))}
            for i in range(count)]


def best_of(repeat, action):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--documents", type=int, default=200000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--config", default=os.path.join(os.path.dirname(__file__), "..", "configs", "default.json"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build_dir, "python"))
    import invidx

    run_tool = os.path.join(args.build_dir, "invidx-run")
    cli = os.path.join(args.build_dir, "invidx")
    folder = tempfile.mkdtemp(prefix="invidx-python-bench-")
    jsonl = os.path.join(folder, "docs.jsonl")
    documents = make_documents(args.documents)
    with open(jsonl, "w") as out:
        for doc in documents:
            out.write(json.dumps(doc) + "\n")
    megabytes = os.path.getsize(jsonl) / 1e6

    rows = []
    # Indexing: invidx-run on the file, then index_documents from a generator.
    cli_index, py_index = os.path.join(folder, "cli"), os.path.join(folder, "py")
    start = time.perf_counter()
    subprocess.run([run_tool, args.config, "--input", jsonl, "--output", cli_index, "--quiet", "--progress", "off"],
                   check=True, stderr=subprocess.DEVNULL)
    cli_seconds = time.perf_counter() - start
    with open(os.path.join(cli_index, "report.json")) as f:
        text_mb = json.load(f)["input_bytes_uncompressed"] / 1e6
    start = time.perf_counter()
    # A generator over documents already in memory: what is timed is the
    # handing over and the build, not making the words.
    invidx.index_documents((doc for doc in documents), py_index, config=args.config)
    py_seconds = time.perf_counter() - start
    rows.append(("index: invidx-run on JSONL", cli_seconds, "%.1f MB/s" % (text_mb / cli_seconds)))
    rows.append(("index: index_documents(generator)", py_seconds,
                 "%.1f MB/s (%.0f%%)" % (text_mb / py_seconds, 100 * cli_seconds / py_seconds)))

    # Searching: the same queries from the CLI (TREC run to a file) and batch_search.
    rng = random.Random(2)
    vocabulary = ["w%x" % i for i in range(2000)]
    queries = {str(q): " ".join(rng.sample(vocabulary, rng.randint(2, 5))) for q in range(args.queries)}
    topics = os.path.join(folder, "topics.tsv")
    with open(topics, "w") as out:
        out.writelines("%s\t%s\n" % item for item in queries.items())
    run_file = os.path.join(folder, "run.txt")

    def cli_search():
        with open(run_file, "w") as out:
            subprocess.run([cli, "search", cli_index, "--queries", topics, "--k", str(args.k), "--format", "trec"],
                           check=True, stdout=out)

    cli_search_seconds = best_of(args.repeat, cli_search)
    # Opening the index counts on both sides (the CLI opens it every run).
    py_search_seconds = best_of(args.repeat, lambda: invidx.Index(cli_index).batch_search(queries, k=args.k))
    rows.append(("search: invidx search --queries (TREC file)", cli_search_seconds,
                 "%d queries, k %d" % (args.queries, args.k)))
    rows.append(("search: Index(path).batch_search -> DataFrame", py_search_seconds,
                 "%+.0f%% vs the CLI" % (100 * (py_search_seconds / cli_search_seconds - 1))))

    print("collection: %d documents, %.1f MB JSONL, %d cores" % (args.documents, megabytes, os.cpu_count()))
    print("%-46s %9s  %s" % ("what", "seconds", ""))
    for name, seconds, note in rows:
        print("%-46s %9.3f  %s" % (name, seconds, note))


if __name__ == "__main__":
    main()
