#!/usr/bin/env python3
"""bench/cranfield.py on a hand-made collection in the SMART files' layout:
documents named by their .I number with title then abstract, queries
numbered by position (their .I labels skip numbers, as cran.qry's do, and a
trailing empty record is dropped), gains 5 - code with -1 as 0, and a
malformed qrels line refused."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "cranfield.py")

DOCUMENTS = """\
.I 1
.T
wing flow .
.A
someone
.B
a journal
.W
wing flow .
  the abstract of one .
.I 2
.T
heat transfer
.A
.B
.W
heat transfer in slabs .
"""

QUERIES = """\
.I 001
.W
what about wing
flow .
.I 004
.W
heat in slabs .
.I
"""

QRELS = """\
1 1 2
1 2 -1
2 2 4
"""


def write(folder, name, text):
    with open(os.path.join(folder, name), "w", encoding="latin-1") as f:
        f.write(text)


class CranfieldTest(unittest.TestCase):
    def convert(self, qrels=QRELS):
        source = tempfile.mkdtemp()
        out = tempfile.mkdtemp()
        write(source, "cran.all.1400", DOCUMENTS)
        write(source, "cran.qry", QUERIES)
        write(source, "cranqrel", qrels)
        result = subprocess.run([sys.executable, SCRIPT, source, out], capture_output=True, text=True)
        return result, out

    def test_collection_queries_and_qrels(self):
        result, out = self.convert()
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "collection", "cran.jsonl"), encoding="utf-8") as f:
            documents = [json.loads(line) for line in f]
        self.assertEqual([d["id"] for d in documents], ["1", "2"])
        self.assertTrue(documents[0]["contents"].startswith("wing flow .\nwing flow ."))
        self.assertIn("the abstract of one", documents[0]["contents"])
        self.assertNotIn("someone", documents[0]["contents"])  # authors left out
        self.assertNotIn("journal", documents[0]["contents"])  # bibliography left out
        with open(os.path.join(out, "queries.tsv"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "1\twhat about wing flow .\n2\theat in slabs .\n")
        with open(os.path.join(out, "qrels.txt"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "1 0 1 3\n1 0 2 0\n2 0 2 1\n")

    def test_malformed_qrels_line(self):
        result, _ = self.convert(QRELS + "3 4\n")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("cranqrel:4", result.stderr)


if __name__ == "__main__":
    unittest.main()
