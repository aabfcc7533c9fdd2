#!/usr/bin/env python3
"""bench/evaluate.py against values worked out by hand from trec_eval's
definitions (ndcg_cut.10, recall.1000) on hand-made qrels and runs."""

import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench")
sys.path.insert(0, BENCH)
import evaluate  # noqa: E402

QRELS = """\
q1 0 d1 2
q1 0 d2 1
q1 0 d3 0
q1 0 d4 1
q1 0 d5 1
q2 0 d7 1
q4 0 d1 1
"""

# The rank column lies on purpose: trec_eval orders by score, ties by docno
# descending, so d9 comes before d2 (both 2.0).
RUN = """\
q1 Q0 d4 1 1.0 t
q1 Q0 d2 2 2.0 t
q1 Q0 d9 3 2.0 t
q1 Q0 d1 4 2.5 t
q1 Q0 d3 5 3.0 t
q2 Q0 d8 1 1.0 t
q3 Q0 d1 1 9.0 t
"""


class EvaluateTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.qrels = os.path.join(self.dir.name, "qrels")
        self.run = os.path.join(self.dir.name, "run")
        with open(self.qrels, "w") as f:
            f.write(QRELS)
        with open(self.run, "w") as f:
            f.write(RUN)

    def tearDown(self):
        self.dir.cleanup()

    def test_by_hand(self):
        result = evaluate.evaluate(evaluate.read_qrels(self.qrels), evaluate.read_run(self.run))
        # q1 ranked: d3 (gain 0), d1 (2), d9 (unjudged, 0), d2 (1), d4 (1).
        dcg = 0 / math.log2(2) + 2 / math.log2(3) + 0 / math.log2(4) + 1 / math.log2(5) + 1 / math.log2(6)
        # Ideal: gains 2, 1, 1, 1 (d5, not retrieved, counts).
        ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
        q1_ndcg = dcg / ideal
        # By hand: DCG = 2/1.58496 + 1/2.32193 + 1/2.58496 = 1.26186 + 0.43068 + 0.38685 = 2.07939;
        # ideal = 2 + 0.63093 + 0.5 + 0.43068 = 3.56161; nDCG = 0.58383.
        self.assertAlmostEqual(q1_ndcg, 0.58383, places=5)
        self.assertAlmostEqual(result["per_query"]["q1"]["ndcg_cut_10"], q1_ndcg, places=12)
        self.assertAlmostEqual(result["per_query"]["q1"]["recall_1000"], 3 / 4, places=12)  # d1, d2, d4 of d1, d2, d4, d5
        # q2: its only relevant document is not retrieved.
        self.assertEqual(result["per_query"]["q2"], {"ndcg_cut_10": 0.0, "recall_1000": 0.0})
        # q3 has no judgments, q4 no results: neither is averaged (trec_eval without -c).
        self.assertEqual(sorted(result["per_query"]), ["q1", "q2"])
        self.assertEqual(result["queries"], 2)
        self.assertAlmostEqual(result["all"]["ndcg_cut_10"], q1_ndcg / 2, places=12)
        self.assertAlmostEqual(result["all"]["recall_1000"], 0.375, places=12)

    def test_cutoffs(self):
        # Only the first k count: at k = 2, q1's top two are d3 and d1.
        result = evaluate.evaluate(evaluate.read_qrels(self.qrels), evaluate.read_run(self.run), ndcg_k=2, recall_k=2)
        ideal2 = 2 / math.log2(2) + 1 / math.log2(3)
        self.assertAlmostEqual(result["per_query"]["q1"]["ndcg_cut_2"], (2 / math.log2(3)) / ideal2, places=12)
        self.assertAlmostEqual(result["per_query"]["q1"]["recall_2"], 1 / 4, places=12)

    def test_duplicates_and_bad_lines_are_errors(self):
        with open(self.run, "a") as f:
            f.write("q1 Q0 d4 6 0.5 t\n")
        with self.assertRaises(ValueError):
            evaluate.read_run(self.run)
        with open(self.qrels, "a") as f:
            f.write("q9 d1 1\n")
        with self.assertRaises(ValueError):
            evaluate.read_qrels(self.qrels)

    def test_command_line(self):
        out = subprocess.run([sys.executable, os.path.join(BENCH, "evaluate.py"), self.qrels, self.run],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("ndcg_cut_10     \tall\t0.2919", out)
        self.assertIn("recall_1000     \tall\t0.3750", out)
        self.assertIn("num_q           \tall\t2", out)


if __name__ == "__main__":
    unittest.main()
