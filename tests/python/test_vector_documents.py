"""invidx.index_documents of pre-weighted documents ({"id", "vector"}): the
index invidx-run builds from the same documents in a .jsonl file of format
jsonvector (CIFF bytes), stats() saying so, and the errors of mixing kinds."""
import json
import random

import pytest

import invidx
from conftest import DEFAULT_CONFIG, run_tool, tool, write_jsonl

TERMS = ["Running", "running", "##ing", "the", "\u6771\u4eac", "\u00e9t\u00e9", "a b", "[CLS]", "quote\"d",
         "back\\slash"] + ["t%03d" % i for i in range(120)]


def vector_documents(count, seed=5):
    """Documents of integer and float weights over verbatim terms."""
    rng = random.Random(seed)
    docs = []
    for i in range(count):
        terms = rng.sample(TERMS, rng.randint(1, 12))
        vector = {term: (rng.randint(1, 255) if rng.random() < 0.7 else round(rng.uniform(0.01, 4.0), 4))
                  for term in terms}
        docs.append({"id": "v-%04d" % i, "vector": vector, "extra": i})
    return docs


def ciff_bytes(index_dir, tmp_path, name):
    path = str(tmp_path / name)
    invidx.Index(index_dir).export_ciff(path)
    with open(path, "rb") as f:
        return f.read()


def cli_vector_index(tmp_path, docs, vector_scale=None):
    """The documents written as JSONL and built by invidx-run as jsonvector."""
    source = str(tmp_path / "vectors.jsonl")
    write_jsonl(source, docs)
    with open(DEFAULT_CONFIG) as f:
        config = json.load(f)
    config["input"] = [{"path": source, "format": "jsonvector"}]
    config["output"] = str(tmp_path / "cli")
    if vector_scale is not None:
        config.setdefault("analysis", {})["vector_scale"] = vector_scale
    config_path = str(tmp_path / "pipeline.json")
    with open(config_path, "w") as f:
        json.dump(config, f)
    run_tool(tool("INVIDX_RUN"), config_path, "--quiet", "--progress", "off")
    return config["output"]


def test_vector_documents_give_invidx_runs_jsonvector_index(tmp_path):
    docs = vector_documents(400)
    cli = cli_vector_index(tmp_path, docs)
    output = str(tmp_path / "py")
    report = invidx.index_documents((doc for doc in docs), output)
    assert report["documents"] == len(docs)
    assert ciff_bytes(output, tmp_path, "py.ciff") == ciff_bytes(cli, tmp_path, "cli.ciff")
    stats = invidx.Index(output).stats()
    assert stats["pre_weighted"] is True
    assert stats["vector_scale"] == 100
    assert stats["stemmer"] == "none"
    # Index.stats() mirrors `invidx stats --format json`.
    cli_stats = json.loads(run_tool(tool("INVIDX_CLI"), "stats", "--format", "json", cli))
    assert invidx.Index(cli).stats() == cli_stats
    assert cli_stats["pre_weighted"] is True


def test_vector_documents_take_the_configs_vector_scale(tmp_path):
    docs = vector_documents(60, seed=9)
    cli = cli_vector_index(tmp_path, docs, vector_scale=10000)
    output = str(tmp_path / "py")
    invidx.index_documents(docs, output, set={"analysis.vector_scale": 10000})
    assert invidx.Index(output).stats()["vector_scale"] == 10000
    assert ciff_bytes(output, tmp_path, "py.ciff") == ciff_bytes(cli, tmp_path, "cli.ciff")


def test_a_text_index_is_not_pre_weighted(tmp_path):
    output = str(tmp_path / "text")
    invidx.index_documents([{"id": "a", "contents": "apples and pears"}], output)
    stats = invidx.Index(output).stats()
    assert stats["pre_weighted"] is False
    assert "vector_scale" not in stats


@pytest.mark.parametrize("first_kind", ["vector", "text"])
def test_a_document_of_the_other_kind_is_an_input_error_naming_it(tmp_path, first_kind):
    docs = vector_documents(40)
    text = {"id": "t", "contents": "plain text"}
    if first_kind == "vector":
        docs[23] = text
    else:
        docs = [dict(text, id="t-%d" % i) for i in range(40)]
        docs[23] = vector_documents(1)[0]
    output = str(tmp_path / "mixed")
    with pytest.raises(invidx.InputError, match="document 23 ") as raised:
        invidx.index_documents(docs, output)
    assert raised.value.record == 23


def test_vector_documents_with_positions_are_a_config_error(tmp_path):
    config = dict(invidx.DEFAULT_PIPELINE, positions=True)
    with pytest.raises(invidx.ConfigError) as raised:
        invidx.index_documents(vector_documents(3), str(tmp_path / "p"), config=config)
    assert raised.value.pointer == "/positions"
