"""invidx.evaluate: trec_eval's numbers from Python, on the committed fixtures
whose expected outputs trec_eval 10.0 made (tests/tools/data/eval/README.md),
from files or dicts; bad input raises InputError or UsageError."""
import os

import pytest

import invidx
from conftest import SOURCE_DIR

DATA = os.path.join(SOURCE_DIR, "tests", "tools", "data", "eval")


def expected(name):
    """{(measure, qid): text} of a trec_eval output file."""
    values = {}
    with open(os.path.join(DATA, name)) as lines:
        for line in lines:
            measure, qid, value = line.rstrip("\n").split("\t")
            values[(measure.strip(), qid)] = value
    return values


def printed(value):
    return value if isinstance(value, str) else str(value) if isinstance(value, int) else "%6.4f" % value


def flatten(result):
    values = {(measure, "all"): printed(v) for measure, v in result["all"].items()}
    for qid, measures in result["queries"].items():
        values.update({(measure, qid): printed(v) for measure, v in measures.items()})
    return values


def test_default_measures_equal_trec_eval():
    result = invidx.evaluate(os.path.join(DATA, "qrels.txt"), os.path.join(DATA, "run.txt"))
    assert {k: v for k, v in flatten(result).items() if k[1] == "all"} == expected("expected_official.txt")
    assert sorted(result["queries"]) == ["1", "10", "2"]  # 3 not judged, 7 not retrieved


def test_chosen_measures_per_query_and_complete():
    measures = ["map", "P.3,5", "recall.5", "ndcg_cut.5,11", "recip_rank", "bpref", "ndcg", "map_cut.5", "Rprec"]
    result = invidx.evaluate(os.path.join(DATA, "qrels.txt"), os.path.join(DATA, "run.txt"), measures)
    assert flatten(result) == expected("expected_measures_q.txt")
    complete = invidx.evaluate(os.path.join(DATA, "qrels.txt"), os.path.join(DATA, "run.txt"), complete=True)
    assert {k: v for k, v in flatten(complete).items() if k[1] == "all"} == expected("expected_official_complete.txt")


def test_dicts_and_relevance_level():
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "u": 0.5}}
    result = invidx.evaluate(qrels, run, ["map", "recip_rank", "num_rel"])
    assert result["all"]["map"] == pytest.approx((1 + 2 / 3) / 2)
    assert result["all"]["num_rel"] == 2
    strict = invidx.evaluate(qrels, run, "map", relevance_level=2)
    assert strict["all"]["map"] == pytest.approx(1.0)
    # Ties: score descending, then docno descending.
    tied = invidx.evaluate({"1": {"a": 1, "b": 0}}, {"1": {"a": 2.0, "b": 2.0}}, ["recip_rank"])
    assert tied["all"]["recip_rank"] == pytest.approx(0.5)


def test_bad_input(tmp_path):
    bad = tmp_path / "run.txt"
    bad.write_text("1 Q0 d01 1 3.5 r\n1 Q0 d02 2 x r\n")
    with pytest.raises(invidx.InputError, match=r"run.txt: line 2: score 'x' is not a finite number"):
        invidx.evaluate(os.path.join(DATA, "qrels.txt"), bad)
    with pytest.raises(invidx.UsageError, match="unknown measure 'mrr'"):
        invidx.evaluate(os.path.join(DATA, "qrels.txt"), os.path.join(DATA, "run.txt"), ["mrr"])
    with pytest.raises(invidx.UsageError):
        invidx.evaluate([], {})
