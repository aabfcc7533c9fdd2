"""invidx.Index.search / batch_search with k1 and b: the CLI's --k1 --b answers,
usage errors as the CLI's, and stats() naming the query layout as `invidx stats`."""
import json

import pytest

import invidx
from conftest import run_tool, tool


def cli_json(*args):
    return json.loads(run_tool(tool("INVIDX_CLI"), *args, "--format", "json"))


def test_k1_and_b_rank_as_the_cli(cli_index, queries, tmp_path):
    index = invidx.Index(cli_index)
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join("%s\t%s\n" % item for item in queries.items()))
    expected = cli_json("search", cli_index, "--queries", str(topics), "--k", "15", "--k1", "1.2", "--b", "0.75")
    run = index.batch_search(queries, k=15, k1=1.2, b=0.75)
    default = index.batch_search(queries, k=15)
    assert not run.score.equals(default.score)
    for entry in expected:
        got = run[run.qid == entry["qid"]]
        hits = entry["results"]
        assert got.docid.tolist() == [h["docid"] for h in hits]
        assert got.score.tolist() == [h["score"] for h in hits]
        single = index.search(queries[entry["qid"]], k=15, k1=1.2, b=0.75)
        assert [(h.docid, h.score) for h in single] == [(h["docid"], h["score"]) for h in hits]


def test_absent_k1_and_b_are_the_defaults(cli_index):
    index = invidx.Index(cli_index)
    assert index.search("zebra apple", k=5, k1=0.9, b=0.4) == index.search("zebra apple", k=5)
    assert index.search("zebra apple", k=5, k1=0.9) == index.search("zebra apple", k=5)


def test_bad_k1_and_b_are_usage_errors(cli_index):
    index = invidx.Index(cli_index)
    for kwargs in ({"k1": -1}, {"k1": float("inf")}, {"k1": float("nan")}, {"b": 1.5}, {"b": -0.5},
                   {"k1": 1.2, "scoring": "impact"}, {"b": 0.5, "scoring": "impact"}):
        with pytest.raises(invidx.UsageError):
            index.search("zebra", **kwargs)
        with pytest.raises(invidx.UsageError):
            index.batch_search({"1": "zebra"}, **kwargs)


def test_stats_name_the_query_layout_as_the_tool(cli_index):
    stats = invidx.Index(cli_index).stats()
    assert stats["query_layout"] == cli_json("stats", cli_index)["query_layout"]
