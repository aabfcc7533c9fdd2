"""invidx.import_ciff: the tool's import from Python; a round trip gives the
CIFF bytes back, and a bad file raises InputError naming its offset."""
import pytest

import invidx


def test_round_trip_gives_the_same_bytes_and_answers(cli_index, queries, tmp_path):
    first, second = tmp_path / "a.ciff", tmp_path / "b.ciff"
    invidx.Index(cli_index).export_ciff(str(first))
    summary = invidx.import_ciff(first, tmp_path / "imported")
    assert summary["canonical"]
    assert summary["analysis"] == "description"
    built, imported = invidx.Index(cli_index), invidx.Index(str(tmp_path / "imported"))
    assert summary["doc_records"] == len(built)
    imported.export_ciff(str(second))
    assert first.read_bytes() == second.read_bytes()
    for query in list(queries.values())[:10]:
        assert imported.search(query, k=10) == built.search(query, k=10)


def test_a_bad_file_raises_input_error_with_its_offset(tmp_path):
    # A Header (version 1, one list, one document), then a length prefix that
    # runs past the end of the file.
    path = tmp_path / "bad.ciff"
    path.write_bytes(bytes([6, 0x08, 1, 0x10, 1, 0x18, 1, 0x7F]))
    with pytest.raises(invidx.InputError) as raised:
        invidx.import_ciff(path, tmp_path / "out")
    assert raised.value.offset == 7
    assert raised.value.file == str(path)
    assert "past the end of the file" in str(raised.value)
    assert not (tmp_path / "out").exists()
    with pytest.raises(invidx.UsageError):
        invidx.import_ciff(path, tmp_path / "out", analysis="klingon")
