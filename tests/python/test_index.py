"""invidx.Index: the same answers as the invidx tool on the same index."""
import json

import numpy as np
import pandas as pd
import pytest

import invidx
from conftest import run_tool, tool


def cli_json(*args):
    return json.loads(run_tool(tool("INVIDX_CLI"), *args, "--format", "json"))


def test_stats_equal_the_tools(cli_index):
    index = invidx.Index(cli_index)
    assert index.stats() == cli_json("stats", cli_index)
    assert len(index) == index.stats()["documents"]


def test_term_and_postings_equal_the_tools(cli_index):
    index = invidx.Index(cli_index)
    expected = cli_json("term", cli_index, "Running")["terms"][0]
    term = index.term("Running")
    assert term == {"term": expected["term"], "df": expected["df"], "cf": expected["cf"]}
    docids, tfs = index.postings("Running")
    assert docids.dtype == np.uint32 and tfs.dtype == np.uint32
    assert docids.tolist() == [p["docid"] for p in expected["postings"]]
    assert tfs.tolist() == [p["tf"] for p in expected["postings"]]
    assert index.term("the") is None  # a stop word
    assert index.term("notaword") is None
    assert len(index.postings("notaword")[0]) == 0
    with pytest.raises(invidx.UsageError):
        index.term("two words")


def test_doc_by_docid_and_name(cli_index):
    index = invidx.Index(cli_index)
    expected = cli_json("doc", cli_index, "doc-00042")
    assert index.doc("doc-00042") == expected
    assert index.doc(expected["docid"]) == expected
    with pytest.raises(KeyError):
        index.doc("no-such-document")
    with pytest.raises(KeyError):
        index.doc(10 ** 9)


@pytest.mark.parametrize("mode", ["or", "and", "and-or"])
def test_search_and_batch_search_rank_as_the_cli(cli_index, queries, tmp_path, mode):
    index = invidx.Index(cli_index)
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join("%s\t%s\n" % item for item in queries.items()))
    expected = cli_json("search", cli_index, "--queries", str(topics), "--k", "20", "--mode", mode)
    run = index.batch_search(queries, k=20, mode=mode)
    assert list(run.columns) == ["qid", "docid", "docno", "rank", "score"]
    for entry in expected:
        got = run[run.qid == entry["qid"]]
        hits = entry["results"]
        assert got.docid.tolist() == [h["docid"] for h in hits]
        assert got.docno.tolist() == [h["name"] for h in hits]
        assert got["rank"].tolist() == list(range(len(hits)))
        assert got.score.tolist() == pytest.approx([h["score"] for h in hits], rel=1e-12)
        single = index.search(queries[entry["qid"]], k=20, mode=mode)
        assert [(h.docid, h.docno) for h in single] == [(h["docid"], h["name"]) for h in hits]
        assert [h.score for h in single] == got.score.tolist()


def test_one_query_equals_the_cli(cli_index):
    expected = cli_json("search", cli_index, "zebra", "apple", "--k", "5")[0]["results"]
    hits = invidx.Index(cli_index).search("zebra apple", k=5)
    assert [(h.docid, h.docno) for h in hits] == [(e["docid"], e["name"]) for e in expected]
    assert [h.score for h in hits] == pytest.approx([e["score"] for e in expected], rel=1e-12)


def test_batch_search_takes_a_dataframe_and_threads(cli_index, queries):
    index = invidx.Index(cli_index)
    frame = pd.DataFrame({"qid": list(queries), "query": list(queries.values())})
    assert index.batch_search(frame, k=10, threads=1).equals(index.batch_search(queries, k=10))


def test_device_auto_without_a_gpu_is_the_cpu(cli_index, queries):
    index = invidx.Index(cli_index)
    assert index.batch_search(queries, k=10, device="auto").equals(index.batch_search(queries, k=10))


def test_usage_errors(cli_index):
    index = invidx.Index(cli_index)
    for kwargs in ({"mode": "xor"}, {"scoring": "tfidf"}, {"device": "tpu"}, {"k": 0}):
        with pytest.raises(invidx.UsageError):
            index.search("zebra", **kwargs)
    with pytest.raises(ValueError):  # a UsageError is a ValueError too
        index.batch_search({"1": "zebra"}, mode="xor")
    with pytest.raises(invidx.UsageError):  # a phrase on an index without positions
        index.search('"zebra apple"')


def test_export_ciff_equals_the_tool(cli_index, tmp_path):
    ours, theirs = tmp_path / "a.ciff", tmp_path / "b.ciff"
    invidx.Index(cli_index).export_ciff(str(ours))
    run_tool(tool("INVIDX_CLI"), "export-ciff", cli_index, str(theirs))
    assert ours.read_bytes() == theirs.read_bytes()


def test_opening_no_index_is_an_error(tmp_path):
    with pytest.raises(invidx.Error):
        invidx.Index(str(tmp_path / "none"))


def test_help_is_useful():
    assert "exactly as `invidx search`" in invidx.Index.search.__doc__
    assert "KeyboardInterrupt" in invidx.build.__doc__


def test_doc_takes_an_int_as_docid_and_a_str_of_digits_as_name(tmp_path):
    # MS MARCO style: names are numbers, not in docid order.
    names = ["1", "0", "7"]
    docs = ({"id": name, "contents": "zebras eat apples %d" % i} for i, name in enumerate(names))
    output = str(tmp_path / "idx")
    invidx.index_documents(docs, output)
    index = invidx.Index(output)
    assert index.doc("0")["docid"] == 1
    assert index.doc(0)["name"] == "1"
    assert index.doc("7")["docid"] == 2
    with pytest.raises(KeyError):
        index.doc("2")  # a docid, but no name
    with pytest.raises(KeyError):
        index.doc(3)


def test_operators_and_weighted_queries_rank_as_the_cli(cli_index, tmp_path):
    index = invidx.Index(cli_index)
    for query in ("zebra -apple", "zebra NOT apple", "+zebra apple^2", "zebra AND apple"):
        expected = cli_json("search", cli_index, query, "--k", "10")[0]["results"]
        hits = index.search(query, k=10)
        assert [(h.docid, h.score) for h in hits] == [(e["docid"], e["score"]) for e in expected]
    # A dict is a weighted query: terms verbatim (the index's stemmed terms), as a JSON queries file.
    vectors = tmp_path / "vectors.jsonl"
    vectors.write_text('{"qid": "v", "vector": {"zebra": 2.0, "appl": 0.5}}\n')
    expected = cli_json("search", cli_index, "--queries", str(vectors), "--k", "10")[0]["results"]
    hits = index.search({"zebra": 2.0, "appl": 0.5}, k=10)
    assert [(h.docid, h.score) for h in hits] == [(e["docid"], e["score"]) for e in expected]
    run = index.batch_search({"v": {"zebra": 2.0, "appl": 0.5}}, k=10)
    assert run.docid.tolist() == [e["docid"] for e in expected]
    with pytest.raises(invidx.UsageError):  # malformed syntax names the character
        index.search("zebra AND")
