"""Ctrl-C (KeyboardInterrupt) during a build: nothing published, the
previous index intact, no temporary directory left."""
import _thread
import os
import threading

import pytest

import invidx
from conftest import DEFAULT_CONFIG, WORDS


def endless_documents():
    i = 0
    while True:
        yield {"id": "d%d" % i, "contents": " ".join(WORDS[(i + j) % len(WORDS)] for j in range(40))}
        i += 1


def snapshot(folder):
    """The names beside and in the index, and its CIFF."""
    names = sorted(os.listdir(folder))
    index_files = sorted(os.listdir(os.path.join(folder, "idx")))
    ciff = os.path.join(str(folder), "snapshot.ciff")
    invidx.Index(os.path.join(folder, "idx")).export_ciff(ciff)
    with open(ciff, "rb") as f:
        data = f.read()
    os.remove(ciff)
    return names, index_files, data


@pytest.fixture
def previous_index(tmp_path):
    output = str(tmp_path / "idx")
    invidx.index_documents([{"id": "old", "contents": "an older index"}], output)
    return output


def test_interrupt_from_another_thread_stops_index_documents(tmp_path, previous_index):
    before = snapshot(str(tmp_path))
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            invidx.index_documents(endless_documents(), previous_index)
    finally:
        timer.cancel()
    assert snapshot(str(tmp_path)) == before
    assert invidx.Index(previous_index).doc(0)["name"] == "old"


def test_interrupt_stops_build(tmp_path, previous_index):
    # Large enough that the build is still running when the timer fires.
    source = tmp_path / "big.jsonl"
    with open(source, "w") as out:
        line = " ".join(WORDS) * 4
        for i in range(60000):
            out.write('{"id": "b%d", "contents": "%s %d"}\n' % (i, line, i))
    before = snapshot(str(tmp_path))
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            invidx.build(DEFAULT_CONFIG, input=str(source), output=previous_index)
    finally:
        timer.cancel()
    assert snapshot(str(tmp_path)) == before


def test_an_exception_in_the_progress_callable_stops_the_build(tmp_path, previous_index):
    before = snapshot(str(tmp_path))

    def progress(notice):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        invidx.index_documents(endless_documents(), previous_index, progress=progress)
    assert snapshot(str(tmp_path)) == before
