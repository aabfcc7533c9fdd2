"""A generator of many documents: the build takes them as they come, its
memory bounded by the blocks in flight, not by the number of documents."""
import resource

import invidx
from conftest import WORDS


def peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def test_a_generator_of_many_documents_stays_within_the_memory_bound(tmp_path):
    count = 200_000
    text_bytes = 0

    def documents(count):
        nonlocal text_bytes
        filler = " ".join(WORDS) + " "
        for i in range(count):
            contents = "%s%d %s" % (filler * 3, i, WORDS[i % len(WORDS)])
            text_bytes += len(contents)
            yield {"id": "m%d" % i, "contents": contents}

    settings = {"memory.tokens": 8, "memory.run_bytes": 32 << 20}
    # A build of a quarter of the documents first: the engine's allocations
    # that do not grow with the input (thread pools, the buffers of the
    # blocks in flight, a run) are in the peak before the big one.
    invidx.index_documents(documents(count // 4), str(tmp_path / "warm"), set=settings)
    text_bytes = 0
    before = peak_rss_bytes()
    report = invidx.index_documents(documents(count), str(tmp_path / "idx"), set=settings)
    growth = peak_rss_bytes() - before
    assert report["documents"] == count
    # Four times the documents (~190 MB of text), yet the peak grows by far
    # less than their text: they never were all in memory.
    assert text_bytes > 150 << 20
    assert growth < 128 << 20, "peak RSS grew by %.1f MiB" % (growth / 2**20)
