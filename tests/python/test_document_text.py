"""Index.doc(key, text=True): the document store's text and JSONL metadata,
the same as `invidx doc --text --format json`, and an invidx.Error saying how
to build a store when the index has none."""
import json

import pytest

import invidx
from conftest import DEFAULT_CONFIG, run_tool, tool

DOCS = [
    {"id": "first", "contents": "zebras eat apples", "title": "Zebras", "url": "http://z.example/", "rank": 3},
    {"id": "12", "contents": "caf\u00e9 \"quoted\" back\\slash\ttab\nnewline \u6771\u4eac"},
    {"id": "third", "contents": "", "tags": ["a", "b"], "nested": {"k": None}},
]


def write_documents(path, docs):
    with open(path, "w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps(doc) + "\n")


def other_fields(doc):
    return {key: value for key, value in doc.items() if key not in ("id", "contents")}


@pytest.fixture(scope="module")
def stored_index(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stored")
    source = str(folder / "docs.jsonl")
    write_documents(source, DOCS)
    output = str(folder / "idx")
    invidx.build(DEFAULT_CONFIG, input=source, output=output, set={"store.documents": True})
    return output


def test_text_and_metadata_by_name_and_docid(stored_index):
    index = invidx.Index(stored_index)
    for docid, doc in enumerate(DOCS):
        by_name = index.doc(doc["id"], text=True)
        assert by_name["docid"] == docid
        assert by_name["text"] == doc["contents"]
        assert by_name["metadata"] == other_fields(doc)
        assert index.doc(docid, text=True) == by_name
    # Without text=True the record has neither key.
    assert "text" not in index.doc("first") and "metadata" not in index.doc("first")


def test_text_equals_the_tool(stored_index):
    index = invidx.Index(stored_index)
    for doc in DOCS:
        expected = json.loads(run_tool(tool("INVIDX_CLI"), "doc", stored_index, "--name", doc["id"], "--text",
                                       "--format", "json"))
        assert index.doc(doc["id"], text=True) == expected


def test_text_without_a_store_says_how_to_build_one(tmp_path):
    source = str(tmp_path / "docs.jsonl")
    write_documents(source, DOCS)
    output = str(tmp_path / "idx")
    invidx.build(DEFAULT_CONFIG, input=source, output=output)
    index = invidx.Index(output)
    assert index.doc("first")["docid"] == 0  # the record itself needs no store
    with pytest.raises(invidx.Error) as error:
        index.doc("first", text=True)
    assert '"store": {"documents": true}' in str(error.value)
