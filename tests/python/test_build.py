"""invidx.build and invidx.index_documents: reports, the same index as
invidx-run (CIFF bytes), typed errors."""
import json
import os

import pytest

import invidx
from conftest import DEFAULT_CONFIG, make_documents, write_jsonl


def ciff_bytes(index_dir, tmp_path, name):
    path = str(tmp_path / name)
    invidx.Index(index_dir).export_ciff(path)
    with open(path, "rb") as f:
        return f.read()


def test_build_from_path_returns_the_report(tmp_path, collection):
    output = str(tmp_path / "idx")
    report = invidx.build(DEFAULT_CONFIG, input=collection[0], output=output, set={"parse.count": 1})
    assert report["format"] == "invidx build report"
    assert report["documents"] == len(collection[1])
    with open(os.path.join(output, "report.json")) as f:
        assert json.load(f)["documents"] == report["documents"]


def test_build_from_dict_equals_build_from_path(tmp_path, collection, cli_index):
    with open(DEFAULT_CONFIG) as f:
        config = json.load(f)
    config["input"] = [collection[0]]
    config["output"] = str(tmp_path / "idx")
    report = invidx.build(config, set=["memory.tokens=16"])
    assert report["documents"] == len(collection[1])
    assert ciff_bytes(config["output"], tmp_path, "a.ciff") == ciff_bytes(cli_index, tmp_path, "b.ciff")


def test_index_documents_gives_invidx_runs_index(tmp_path, collection, cli_index):
    output = str(tmp_path / "py")
    docs = collection[1]
    report = invidx.index_documents((doc for doc in docs), output)
    assert report["documents"] == len(docs)
    assert ciff_bytes(output, tmp_path, "py.ciff") == ciff_bytes(cli_index, tmp_path, "cli.ciff")
    index = invidx.Index(output)
    assert index.doc(5)["name"] == "doc-00005"


def test_index_documents_with_small_blocks_across_lines(tmp_path, collection, cli_index):
    # Blocks far smaller than a line: lines straddle many blocks.
    output = str(tmp_path / "small")
    path, text, overrides = invidx._config_arguments(None, invidx._overrides(None, None, output))
    invidx._invidx._index_documents(iter(collection[1]), path, text, overrides, None, 97, 2)
    assert ciff_bytes(output, tmp_path, "s.ciff") == ciff_bytes(cli_index, tmp_path, "c.ciff")


def test_index_documents_of_nothing(tmp_path):
    report = invidx.index_documents([], str(tmp_path / "empty"))
    assert report["documents"] == 0


def test_progress_callable_gets_notices(tmp_path, collection):
    notices = []
    invidx.index_documents(collection[1], str(tmp_path / "p"), progress=notices.append)
    assert notices and notices[-1]["finished"]
    assert notices[-1]["documents"] == len(collection[1])


def test_bad_config_key_is_a_config_error_with_its_pointer(tmp_path, collection):
    with pytest.raises(invidx.ConfigError) as raised:
        invidx.build(DEFAULT_CONFIG, input=collection[0], output=str(tmp_path / "x"), set={"memory.tokenz": 3})
    assert raised.value.pointer == "/memory/tokenz"
    assert isinstance(raised.value, invidx.Error)


def test_missing_input_is_an_error(tmp_path):
    with pytest.raises(invidx.Error):
        invidx.build(DEFAULT_CONFIG, input=str(tmp_path / "nothing-here.jsonl"), output=str(tmp_path / "x"))


def test_a_bad_document_is_an_input_error_naming_it(tmp_path):
    docs = make_documents(50)
    docs[31] = {"id": "no-contents"}
    with pytest.raises(invidx.InputError) as raised:
        invidx.index_documents(docs, str(tmp_path / "bad"))
    assert raised.value.record == 31
    assert not os.path.exists(str(tmp_path / "bad"))


def test_a_document_that_is_no_mapping_is_a_type_error(tmp_path):
    with pytest.raises(TypeError):
        invidx.index_documents([{"id": "a", "contents": "b"}, "just text"], str(tmp_path / "t"))
    assert not os.path.exists(str(tmp_path / "t"))


def test_an_error_of_the_iterable_stops_the_build(tmp_path):
    def failing():
        yield from make_documents(10)
        raise RuntimeError("source broke")

    with pytest.raises(RuntimeError, match="source broke"):
        invidx.index_documents(failing(), str(tmp_path / "f"))
    assert not os.path.exists(str(tmp_path / "f"))


def test_default_pipeline_is_configs_default_json():
    # index_documents without a config builds as invidx-run configs/default.json does.
    with open(DEFAULT_CONFIG) as f:
        shipped = json.load(f)
    for key in ("analysis", "positions", "memory", "nodes"):
        assert invidx.DEFAULT_PIPELINE[key] == shipped[key], key
