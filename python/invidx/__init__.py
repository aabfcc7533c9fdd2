"""invidx from Python: build inverted indexes and search them.

    import invidx
    report = invidx.index_documents(({"id": d.doc_id, "contents": d.text} for d in docs), "idx")
    index = invidx.Index("idx")
    index.search("zebra apples", k=10)                       # [Hit(docid, docno, score), ...]
    run = index.batch_search({"1": "zebras", "2": "apples"})  # DataFrame: qid docid docno rank score

Builds run the same flow graph as invidx-run (docs/PIPELINE.md), on threads
of their own with the GIL released; Ctrl-C (KeyboardInterrupt) stops a
build as SIGINT stops invidx-run: nothing is published, the previous index
stays. Searches rank exactly as `invidx search` does (docs/QUERY.md).
"""

import json as _json
import os as _os
from collections import namedtuple as _namedtuple

from . import _invidx
from ._invidx import ConfigError, Error, FormatError, InputError, UsageError

__all__ = ["build", "index_documents", "import_ciff", "evaluate", "Index", "Hit", "Error", "ConfigError", "InputError", "FormatError",
           "UsageError", "DEFAULT_PIPELINE"]

#: The pipeline index_documents uses when given no config: configs/default.json's
#: nodes and analysis (every "auto" settled for this machine).
DEFAULT_PIPELINE = {
    "analysis": {"stopwords": "english", "stemmer": "porter"},
    "positions": False,
    "memory": {"batch_bytes": "auto", "run_bytes": 268435456},
    "nodes": [
        {"kind": "read"},
        {"kind": "decompress", "gpus": "auto"},
        {"kind": "frame"},
        {"kind": "parse", "count": "auto", "gpus": "auto"},
        {"kind": "regroup", "count": "auto"},
        {"kind": "index", "indexers": [{"kind": "cpu_btree", "count": "auto"},
                                       {"kind": "gpu_hash", "device": "auto"}]},
        {"kind": "compress", "count": "auto"},
        {"kind": "flush"},
    ],
}

#: One search result: the document's docid, its name (docno) and its score.
Hit = _namedtuple("Hit", ["docid", "docno", "score"])


def _override(key, value):
    # As invidx-run's --set takes it: a dotted key and a JSON value.
    return "%s=%s" % (key, _json.dumps(value))


def _config_arguments(config, overrides):
    """(path, json_text, overrides) for the compiled side."""
    if config is None:
        return None, _json.dumps(DEFAULT_PIPELINE), overrides
    if isinstance(config, dict):
        return None, _json.dumps(config), overrides
    if isinstance(config, (str, bytes, _os.PathLike)):
        return _os.fsdecode(config), None, overrides
    raise UsageError("config must be a path to a pipeline JSON or a dict, not %s" % type(config).__name__)


def _overrides(set, input=None, output=None, progress=None):
    overrides = []
    if input is not None:
        inputs = [input] if isinstance(input, (str, bytes, _os.PathLike)) else list(input)
        overrides.append(_override("input", [_os.fsdecode(path) for path in inputs]))
    if set:
        if isinstance(set, dict):
            overrides += [_override(key, value) for key, value in set.items()]
        else:
            overrides += [str(assignment) for assignment in set]  # "key=value" strings, as --set
    if output is not None:
        overrides.append(_override("output", _os.fsdecode(output)))
    # The terminal's progress: off unless progress=True (bar on a terminal,
    # lines otherwise, as invidx-run) or a mode's name.
    if progress is True:
        overrides.append(_override("progress", "auto"))
    elif isinstance(progress, str):
        overrides.append(_override("progress", progress))
    else:
        overrides.append(_override("progress", "off"))
    return overrides


def _progress_callable(progress):
    if progress is None or progress is True or progress is False or isinstance(progress, str):
        return None
    if not callable(progress):
        raise UsageError("progress must be a callable, True, a mode name or None")
    return progress


def build(config, input=None, output=None, set=None, progress=None):
    """Build an index as invidx-run does, and return report.json's content.

    config:   a path to a pipeline JSON (docs/PIPELINE.md) or the same as a dict.
    input:    a path or a list of paths (files, directories, globs) instead of
              the pipeline's "input" (invidx-run --input).
    output:   the index directory instead of the pipeline's "output" (--output).
    set:      overrides as --set takes them: a dict {"parse.count": 2,
              "memory.tokens": 8} (values as JSON) or a list of "key=value".
    progress: a callable called with a dict (the fields of invidx's
              ProgressNotice: seconds, input_bytes, bytes_read, text_bytes,
              text_bytes_parsed, bytes_done, documents, tokens, phase,
              finished) about every 0.5 s and once at the end; True for
              invidx-run's terminal progress on stderr ("bar"/"lines" name a
              mode); None: quiet.

    The build runs with the GIL released. KeyboardInterrupt (Ctrl-C, or an
    exception raised by the progress callable) stops it: the temporary
    directory is removed, nothing is published, a previous index at output
    stays as it was, and the exception is raised. Errors: ConfigError
    (.pointer names the key), InputError (.file, .record, .offset), Error.
    """
    path, text, overrides = _config_arguments(config, _overrides(set, input, output, progress))
    return _invidx._build(path, text, overrides, _progress_callable(progress))


def index_documents(docs, output, config=None, set=None, progress=None):
    """Build an index from Python documents and return report.json's content.

    docs:   any iterable (a generator is fine) of dicts {"id": str, "contents":
            str}; other keys are ignored. Each document enters the flow graph
            as a line of a JSONL file would, so the index is the one invidx-run
            builds from the same documents written as JSONL (same docids, names,
            CIFF export). Documents are taken in blocks of about 1 MiB, at most
            4 waiting for the graph, which bounds memory for any number of them;
            the graph indexes while Python produces.
            Pre-weighted documents {"id": str, "vector": {term: weight}} (a
            "vector" and no "contents" in the first document) build the index
            the jsonvector input format builds (docs/PIPELINE.md, "Pre-weighted
            documents"): terms verbatim, weights quantized by the config's
            analysis.vector_scale. Every document must then be of that kind,
            and each later one of the other kind raises InputError naming it.
    output: the index directory.
    config: a pipeline (path or dict) for the nodes, analysis and memory;
            its "input" is ignored. Default: DEFAULT_PIPELINE.
    set, progress: as for build(); the documents' total is unknown in
            advance, so input_bytes is 0 and the terminal bar shows no
            percentage, only documents, text and MB/s.

    A document the build cannot read raises InputError whose .record is its
    position in docs (from 0). An exception from the iterable, or
    KeyboardInterrupt, stops the build (nothing published) and is raised.
    """
    path, text, overrides = _config_arguments(config, _overrides(set, None, output, progress))
    return _invidx._index_documents(iter(docs), path, text, overrides, _progress_callable(progress))


def import_ciff(path, output, analysis="auto", impacts=None, run_bytes=64 << 20):
    """Build an index at output from a CIFF file, as `invidx import-ciff` does,
    and return a summary dict (postings_lists, doc_records, postings, runs,
    analysis, description, canonical, not_canonical, impact_bits).

    analysis:  how search analyzes query words (docs/FORMAT.md, "CIFF import"):
               "auto" (an invidx export's description, else "default"),
               "default" (Porter, English stop words), "none", "verbatim".
    impacts:   "tf": also the query layout whose impacts are the tfs
               (search scoring="impact" ranks by them).
    run_bytes: encoded postings held before a run file is written.

    The file streams through a 1 MiB buffer with the GIL released. A bad file
    raises InputError whose .file and .offset say where; nothing is
    published then (a previous index at output stays). For a canonical file,
    Index(output).export_ciff(p) writes the same bytes.
    """
    return _invidx._import_ciff(_os.fsdecode(path), _os.fsdecode(output), analysis, impacts, int(run_bytes))


def evaluate(qrels, run, measures=None, complete=False, relevance_level=1):
    """Score a run against relevance judgments as `invidx eval` and trec_eval
    do (docs/QUERY.md, "Evaluating runs"), and return
    {"all": {measure: value}, "queries": {qid: {measure: value}}}.

    qrels:    a qrels file (qid iter docno level lines) or {qid: {docno: level}}.
    run:      a TREC run file (search's trec format) or {qid: {docno: score}};
              ranks come from the scores, ties by docno descending.
    measures: trec_eval names, e.g. ["map", "ndcg_cut.10", "P.5,10"]; None:
              trec_eval's default set ("official").
    complete: count judged queries the run lacks, as scoring 0 (trec_eval -c).
    relevance_level: judged at this level or above is relevant (trec_eval -l).

    Values are unrounded floats (counts are ints; runid a str). A malformed
    file raises InputError naming the file and line; a bad measure UsageError.
    """
    if isinstance(measures, str):
        measures = [measures]
    return _invidx._evaluate(qrels, run, None if measures is None else [str(m) for m in measures], bool(complete),
                             int(relevance_level))


def _optional_float(value):
    """None stays None (the index's BM25 parameter); anything else becomes a float."""
    return None if value is None else float(value)


def _query_text(query):
    """A query's text: a dict {term: weight} is a weighted query (its JSON,
    terms verbatim: docs/QUERY.md, "Weighted queries"); anything else, text."""
    if isinstance(query, dict):
        return _json.dumps(query, ensure_ascii=False)
    return str(query)


def _query_texts(queries):
    """(qids, texts) from a dict {qid: text}, a DataFrame (qid, query) or pairs;
    a text may be a dict {term: weight} (a weighted query)."""
    if isinstance(queries, dict):
        return [str(qid) for qid in queries.keys()], [_query_text(text) for text in queries.values()]
    columns = getattr(queries, "columns", None)
    if columns is not None:
        if "qid" not in columns or "query" not in columns:
            raise UsageError("a queries DataFrame needs the columns qid and query")
        return [str(qid) for qid in queries["qid"]], [_query_text(text) for text in queries["query"]]
    if isinstance(queries, str):
        raise UsageError("queries must be a dict {qid: text} or a DataFrame with columns qid and query")
    pairs = list(queries)
    return [str(qid) for qid, _ in pairs], [_query_text(text) for _, text in pairs]


class Index:
    """An index directory opened for reading and searching.

    Index(path) checks and maps the index as `invidx search` does. Searches
    release the GIL, so Python threads may search one Index at once.
    """

    def __init__(self, path):
        """Open the index in directory `path` (FormatError if it is damaged)."""
        self._core = _invidx._Index(_os.fsdecode(path))

    @property
    def path(self):
        """The index directory."""
        return self._core.path

    def __len__(self):
        """The number of documents."""
        return len(self._core)

    def __repr__(self):
        return "invidx.Index(%r)" % self.path

    def stats(self):
        """Collection totals as `invidx stats --format json`: documents, terms,
        postings, total_length, average_length, runs, positional, stemmer,
        stopwords, stopword_count, input_files."""
        return self._core.stats()

    def term(self, text):
        """The term `text` analyzes to (the index's stop words and stemmer) with
        its df and cf, as a dict {"term", "df", "cf"}; None for a stop word or
        a term not in the index. UsageError if text analyzes to several terms."""
        return self._core.term(text)

    def postings(self, text):
        """The postings of the term `text` analyzes to: (docids, tfs), two numpy
        uint32 arrays in docid order; empty when the term is not in the index."""
        return self._core.postings(text)

    def doc(self, key, text=False):
        """One document's record: a docid (int) or a name (str; digits too: "0" is
        a name, 0 a docid) -> dict with
        docid, name, length, file_ordinal, file, source_offset. KeyError if none.
        text=True adds 'text' (the text as indexed; bytes that are not UTF-8
        become U+FFFD) and 'metadata' (a JSONL record's other fields, a dict),
        from the document store: the index must be built with
        {"store": {"documents": True}}, else invidx.Error says so."""
        record = self._core.doc(key, bool(text))
        if text:
            record["metadata"] = _json.loads(record["metadata"]) if record["metadata"] else {}
        return record

    def search(self, query, k=10, mode="or", scoring="bm25", device="cpu", k1=None, b=None):
        """Rank documents for one query, exactly as `invidx search` ranks them.

        query:   text, analyzed as documents were, in Lucene's classic syntax
                 (+must -mustnot AND OR NOT term^boost; docs/QUERY.md); "double
                 quotes" make a phrase (needs an index built with positions). A
                 dict {term: weight} is a weighted query: terms verbatim, all
                 optional (learned sparse models).
        k:       the number of hits.
        mode:    "or" (any term), "and" (every term), "and-or" (AND, then OR when
                 AND finds fewer than k).
        scoring: "bm25" (k1 0.9, b 0.4) or "impact" (the quantized impacts that
                 `invidx weight` stored).
        k1, b:   BM25's parameters for this query (k1 finite, >= 0; b from 0 to
                 1; None: 0.9 and 0.4), as `invidx search --k1 --b`: exact on
                 every device; not with scoring="impact".
        device:  "cpu", "gpu" (GPU 0), "gpu:N" or "auto" (where it is estimated
                 cheaper); the same hits and scores on every device.

        Returns a list of Hit(docid, docno, score), best first; ties go to the
        smaller docid.
        """
        return [Hit(*hit) for hit in self._core.search(_query_text(query), int(k), mode, scoring, device,
                                                       _optional_float(k1), _optional_float(b))]

    def batch_search(self, queries, k=1000, mode="or", scoring="bm25", device="cpu", threads=None, k1=None, b=None):
        """Run many queries on all cores (or `threads` of them) and return a
        pandas DataFrame with PyTerrier's columns qid, docid, docno, rank (from
        0), score: each query's hits best first, queries in input order.

        queries: a dict {qid: text}, a DataFrame with columns qid and query, or
                 (qid, text) pairs. mode, scoring, device, k1, b as for search(); on a
                 GPU ("gpu", "gpu:N") the queries go in GPU batches; with "auto"
                 the CPU threads and the GPU share them (invidx search --device
                 auto --queries). The hits are those of `invidx search --queries`.
        """
        import numpy as np
        import pandas as pd

        qids, texts = _query_texts(queries)
        columns = self._core.batch_search(texts, int(k), mode, scoring, device,
                                          None if threads is None else int(threads),
                                          _optional_float(k1), _optional_float(b))
        qid_array = np.asarray(qids, dtype=object)
        return pd.DataFrame({
            "qid": qid_array[columns["query"]] if len(qids) else np.asarray([], dtype=object),
            "docid": columns["docid"],
            "docno": columns["docno"],
            "rank": columns["rank"],
            "score": columns["score"],
        })

    def export_ciff(self, path, description=None):
        """Write the index in CIFF (github.com/osirrc/ciff) to `path`, as
        `invidx export-ciff`: equal indexes export to equal bytes."""
        self._core.export_ciff(_os.fsdecode(path), description)
