"""Fixtures of the Python module's tests: the tools (INVIDX_CLI, INVIDX_RUN,
set by ctest), a small JSONL collection and its index built by invidx-run."""
import json
import os
import random
import subprocess
import sys

import pytest

SOURCE_DIR = os.environ.get("INVIDX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_CONFIG = os.path.join(SOURCE_DIR, "configs", "default.json")

WORDS = ("apple banana cherry zebra yellow violet orange river mountain valley ocean forest desert "
         "island planet rocket engine garden window market castle bridge tunnel winter summer autumn "
         "spring thunder lightning rain snow cloud storm sunny quiet loud running jumped swimming "
         "reading writing painted dancing singing").split()


def make_documents(count, seed=7, words=(5, 60)):
    """Deterministic documents: ids, some unicode, quotes and control bytes."""
    rng = random.Random(seed)
    docs = []
    for i in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(*words)))
        if i % 17 == 0:
            text += ' caf\u00e9 "quoted" back\\slash\ttab\nnewline \u6771\u4eac'
        docs.append({"id": "doc-%05d" % i, "contents": text, "extra": i})
    return docs


def write_jsonl(path, docs):
    with open(path, "w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps(doc) + "\n")


def tool(name):
    path = os.environ.get(name)
    if not path:
        pytest.skip("%s not set (run through ctest)" % name)
    return path


def run_tool(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="session")
def collection(tmp_path_factory):
    """(jsonl path, documents) of 3000 documents."""
    folder = tmp_path_factory.mktemp("collection")
    docs = make_documents(3000)
    path = str(folder / "docs.jsonl")
    write_jsonl(path, docs)
    return path, docs


@pytest.fixture(scope="session")
def cli_index(tmp_path_factory, collection):
    """The collection indexed by invidx-run with configs/default.json."""
    output = str(tmp_path_factory.mktemp("cli") / "idx")
    run_tool(tool("INVIDX_RUN"), DEFAULT_CONFIG, "--input", collection[0], "--output", output, "--quiet",
             "--progress", "off")
    return output


@pytest.fixture(scope="session")
def queries():
    rng = random.Random(11)
    return {str(q): " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for q in range(1, 41)}
