#!/usr/bin/env python3
"""Generate a WARC collection of a given size for benchmarking invidx.

  gen_collection.py --kind synthetic|realistic --size-mb N --out DIR
                    [--files K] [--gzip per-record|whole|none] [--level L]
                    [--seed S] [--jobs J] [--source PATH] [--force]

synthetic  WARC/1.0 response records whose HTML-ish bodies draw their words
           from a Zipf(1.1) distribution over a generated vocabulary of ~1M
           pseudo-words (lengths 2-15, some non-ASCII). A finite Zipf
           vocabulary makes the dictionary keep growing with the collection,
           as it does for real text (Heaps' law), instead of saturating.
realistic  pages from sample/debian-docs.warc.gz (or --source: a WARC file or
           a directory of .html files), repeated with light perturbation: ~5%
           of each copy's words are replaced by words of the same page, and
           each copy gets a unique id term, until the size is reached.

N is in MB of uncompressed WARC (1 MB = 10^6 bytes), split evenly over K files
named part-00000.warc[.gz]; each file stops after the record that reaches its
share. Output is deterministic for the same arguments (not across different
--files). Only part files are written to DIR, so DIR can be given to
invidx-run --input as is. Standard library only; files are generated in
parallel processes (--jobs, default: number of CPUs).

Example: python3 bench/gen_collection.py --kind synthetic --size-mb 1000 --files 8 --out /tmp/syn1g
"""

import argparse
import bisect
import gzip
import itertools
import math
import multiprocessing
import os
import random
import re
import sys
import time
import uuid
import zlib

WARC_DATE = "2024-01-01T00:00:00Z"
RECORD_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://invidx.example/bench/gen_collection")
VOCABULARY_SIZE = 1_000_000
ZIPF_EXPONENT = 1.1
SUBSTITUTION_RATE = 0.05

# Lucene's default English stop words (invidx's default list). They take the
# most frequent ranks, interleaved with pseudo-words, so stop-word removal
# sees a realistic share of tokens.
STOP_WORDS = ("the of and a to in is it that for on was with as at by be this are or not "
              "an but if into no such their then there these they will").split()

# ---------------------------------------------------------------------------
# Synthetic vocabulary and documents


def make_vocabulary(seed, size=VOCABULARY_SIZE):
    """~size distinct pseudo-words ordered by rank (rank 0 most frequent)."""
    rng = random.Random("%s:vocabulary" % seed)
    onsets = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v",
              "w", "z", "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "sl", "st", "str",
              "th", "tr", "qu"]
    nuclei = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "ou", "y"]
    codas = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "ng", "rt", "st", "ck", "x"]
    suffixes = ["s", "es", "ed", "ing", "ly", "er", "ation", "ness", "ment", "ful", "ies", "ize",
                "ional", "able", "ous", "ive"]
    latin_letters = "àáâäåæçèéêëìíîïñòóôöøùúûüýßœšžłćńśźğışţ"
    cyrillic = "абвгдежзиклмнопрстуфхцчшщыэюя"
    greek = "αβγδεζηθικλμνξοπρστυφχψω"
    # Length in characters, peaking at 5-8 like English running text.
    length_weights = [0, 0, 2, 6, 10, 13, 14, 13, 11, 9, 7, 5, 4, 3, 2, 1]

    def ascii_word(length):
        parts = []
        total = 0
        while total < length:
            syllable = rng.choice(onsets) + rng.choice(nuclei) + rng.choice(codas)
            parts.append(syllable)
            total += len(syllable)
        word = "".join(parts)
        if length >= 5 and rng.random() < 0.25:
            suffix = rng.choice(suffixes)
            word = word[:length - len(suffix)] + suffix
        return word[:length]

    words = set(STOP_WORDS)
    ranked = []
    lengths = list(range(len(length_weights)))
    while len(ranked) < size:
        length = rng.choices(lengths, weights=length_weights)[0]
        kind = rng.random()
        if kind < 0.94:
            word = ascii_word(length)
        elif kind < 0.97:
            # A Latin word with one accented letter (é, ß, ø, ...).
            word = ascii_word(length)
            at = rng.randrange(len(word))
            word = word[:at] + rng.choice(latin_letters) + word[at + 1:]
        elif kind < 0.985:
            word = "".join(rng.choice(cyrillic) for _ in range(length))
        elif kind < 0.993:
            word = "".join(rng.choice(greek) for _ in range(length))
        else:
            # CJK ideographs: 2-4 per word, as in segmented Chinese text.
            word = "".join(chr(rng.randrange(0x4E00, 0x9FA6)) for _ in range(2 + length % 3))
        if len(word) < 2 or word in words:
            continue
        words.add(word)
        # Sort key: the most frequent ranks (most of the token mass) get
        # words of 4-7 letters, rarer ranks any length, as in English text;
        # non-ASCII words start a little lower so they stay around 1% of
        # tokens, as in a mostly English crawl.
        key = (rng.random() + 0.005 * max(0.0, abs(len(word) - 5.5) - 1.5)
               + (0.0 if word.isascii() else 0.01))
        ranked.append((key, word))
    ranked.sort()
    vocabulary = [word for _, word in ranked]
    # Interleave the stop words into the top ranks: 0, 2, 4, ...
    for index, stop_word in enumerate(STOP_WORDS):
        vocabulary.insert(2 * index, stop_word)
    return vocabulary


def zipf_cumulative_weights(size, exponent):
    return list(itertools.accumulate(1.0 / (rank ** exponent) for rank in range(1, size + 1)))


# Set in the parent before the worker processes fork, so they share it.
VOCABULARY = None
CUMULATIVE_WEIGHTS = None
SOURCE_PAGES = None

HTML_HEAD = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
             '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
             '<title>%s</title>\n'
             '<style type="text/css">body{font-family:sans-serif;margin:0 auto;max-width:60em}'
             ' .nav a{padding:0 .5em} p.lead{font-size:110%%}</style>\n'
             '<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push('
             'arguments);}gtag("js",new Date());</script>\n'
             '</head>\n<body>\n<!-- generated by invidx bench/gen_collection.py -->\n'
             '<div class="nav"><a href="/">Home</a> &middot; <a href="/about">About</a> '
             '&middot; <a href="/contact">Contact</a></div>\n<h1>%s</h1>\n')
HTML_TAIL = ('<footer><p>&copy; 2024 Example &amp; Co. &mdash; <a href="/privacy">Privacy'
             '</a></p></footer>\n</body>\n</html>\n')


def synthetic_document(rng, doc_number):
    choices = rng.choices
    # Body length: log-normal, median ~350 words, like a web page's main text.
    word_count = min(20_000, max(20, int(math.exp(rng.gauss(5.86, 0.9)))))
    title = " ".join(choices(VOCABULARY, cum_weights=CUMULATIVE_WEIGHTS, k=rng.randint(3, 9)))
    words = choices(VOCABULARY, cum_weights=CUMULATIVE_WEIGHTS, k=word_count)
    parts = [HTML_HEAD % (title, title.capitalize())]
    position = 0
    paragraph = 0
    while position < word_count:
        sentences = []
        for _ in range(rng.randint(2, 7)):
            if position >= word_count:
                break
            length = rng.randint(4, 28)
            sentence = words[position:position + length]
            position += length
            sentence[0] = sentence[0].capitalize()
            sentences.append(" ".join(sentence) + rng.choice(".....?!;"))
        paragraph += 1
        link = words[(paragraph * 7) % word_count]
        parts.append('<p class="p%d">%s <a href="/w/%s">%s</a></p>\n'
                     % (paragraph % 5, " ".join(sentences), link, link))
        if paragraph % 4 == 0:
            parts.append("<h2>%s &amp; %s</h2>\n" % (words[paragraph % word_count],
                                                     words[(paragraph * 3) % word_count]))
    parts.append(HTML_TAIL)
    url = "http://synthetic.invidx.test/doc/%d.html" % doc_number
    return url, "".join(parts).encode("utf-8")


# ---------------------------------------------------------------------------
# Realistic documents: copies of real pages

TAG_OR_TEXT = re.compile(r"(<!--.*?-->|<(?:script|style)\b.*?</(?:script|style)\s*>|<[^>]*>)",
                         re.S | re.I)
WORD = re.compile(r"(\w+)")


class SourcePage:
    """A page split into pieces, with the indices of the words of its text."""

    def __init__(self, url, body):
        text = body.decode("utf-8", errors="surrogateescape")
        self.url = url
        self.pieces = []
        self.word_slots = []
        for index, segment in enumerate(TAG_OR_TEXT.split(text)):
            if index % 2 == 1:  # markup, kept as is
                self.pieces.append(segment)
                continue
            for part_index, part in enumerate(WORD.split(segment)):
                if part_index % 2 == 1:
                    self.word_slots.append(len(self.pieces))
                self.pieces.append(part)
        self.vocabulary = sorted({self.pieces[slot] for slot in self.word_slots})


def read_warc_responses(path):
    """(url, HTTP body) of each response record of a (possibly gzipped) WARC file."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    pages = []
    position = 0
    while True:
        head_end = data.find(b"\r\n\r\n", position)
        if head_end < 0:
            break
        headers = {}
        for line in data[position:head_end].split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers[b"content-length"])
        block = data[head_end + 4:head_end + 4 + length]
        position = head_end + 4 + length
        while data.startswith(b"\r\n", position):
            position += 2
        if headers.get(b"warc-type") == b"response":
            _, separator, body = block.partition(b"\r\n\r\n")
            if separator and body:
                pages.append((headers.get(b"warc-target-uri", b"").decode("utf-8", "replace"), body))
    return pages


def read_html_directory(root):
    pages = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.lower().endswith((".html", ".htm")):
                path = os.path.join(dirpath, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    with open(path, "rb") as f:
                        pages.append(("file://" + path, f.read()))
    return pages


def load_source_pages(source):
    if os.path.isdir(source):
        raw = read_html_directory(source)
    else:
        raw = read_warc_responses(source)
    pages = [SourcePage(url, body) for url, body in raw]
    pages = [page for page in pages if page.word_slots]
    if not pages:
        sys.exit("gen_collection: no usable HTML pages in %s" % source)
    return pages


def realistic_document(rng, doc_number, file_index):
    page = SOURCE_PAGES[rng.randrange(len(SOURCE_PAGES))]
    pieces = list(page.pieces)
    substitutions = max(1, int(len(page.word_slots) * SUBSTITUTION_RATE))
    vocabulary = page.vocabulary
    for slot in rng.sample(page.word_slots, min(substitutions, len(page.word_slots))):
        pieces[slot] = vocabulary[rng.randrange(len(vocabulary))]
    # A unique id term per copy, like the URL tokens that make real
    # dictionaries keep growing.
    pieces.append("\n<p>copy c%dx%d</p>\n" % (file_index, doc_number))
    url = "%s?copy=%d" % (page.url, doc_number)
    return url, "".join(pieces).encode("utf-8", errors="surrogateescape")


# ---------------------------------------------------------------------------
# WARC writing


def warc_response(url, record_id, body):
    http_head = ("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                 "Content-Length: %d\r\n\r\n" % len(body)).encode("ascii")
    warc_head = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Date: %s\r\nWARC-Record-ID: %s\r\n"
                 "WARC-Target-URI: %s\r\nContent-Type: application/http; msgtype=response\r\n"
                 "Content-Length: %d\r\n\r\n"
                 % (WARC_DATE, record_id, url, len(http_head) + len(body))).encode("utf-8")
    return b"".join((warc_head, http_head, body, b"\r\n\r\n"))


def warc_info(file_name, arguments):
    block = ("software: invidx bench/gen_collection.py\r\nformat: WARC File Format 1.0\r\n"
             "arguments: %s\r\n" % arguments).encode("utf-8")
    record_id = "<urn:uuid:%s>" % uuid.uuid5(RECORD_ID_NAMESPACE, "warcinfo " + arguments + file_name)
    head = ("WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Date: %s\r\nWARC-Filename: %s\r\n"
            "WARC-Record-ID: %s\r\nContent-Type: application/warc-fields\r\nContent-Length: %d\r\n\r\n"
            % (WARC_DATE, file_name, record_id, len(block))).encode("utf-8")
    return head + block + b"\r\n\r\n"


class PartWriter:
    """Writes records uncompressed, as one gzip stream, or one gzip member each."""

    def __init__(self, path, mode, level):
        self.file = open(path, "wb")
        self.mode = mode
        self.level = level
        self.whole = zlib.compressobj(level, zlib.DEFLATED, 31) if mode == "whole" else None
        self.pending = []
        self.pending_bytes = 0
        self.uncompressed_bytes = 0

    def write(self, record):
        self.uncompressed_bytes += len(record)
        if self.mode == "per-record":
            # wbits=31: a gzip member with mtime 0, so output is reproducible.
            compressor = zlib.compressobj(self.level, zlib.DEFLATED, 31)
            data = compressor.compress(record) + compressor.flush()
        elif self.mode == "whole":
            data = self.whole.compress(record)
        else:
            data = record
        self.pending.append(data)
        self.pending_bytes += len(data)
        if self.pending_bytes >= 1 << 22:
            self._flush_pending()

    def _flush_pending(self):
        self.file.write(b"".join(self.pending))
        self.pending = []
        self.pending_bytes = 0

    def close(self):
        if self.whole is not None:
            self.pending.append(self.whole.flush())
        self._flush_pending()
        self.file.close()


def generate_part(task):
    """Worker: writes one part file; returns (name, documents, uncompressed, compressed, seconds)."""
    file_index, out_dir, kind, target_bytes, gzip_mode, level, seed, arguments = task
    started = time.monotonic()
    suffix = ".warc.gz" if gzip_mode != "none" else ".warc"
    name = "part-%05d%s" % (file_index, suffix)
    path = os.path.join(out_dir, name)
    rng = random.Random("%s:%s:part:%d" % (seed, kind, file_index))
    writer = PartWriter(path, gzip_mode, level)
    writer.write(warc_info(name, arguments))
    documents = 0
    while writer.uncompressed_bytes < target_bytes:
        doc_number = documents
        if kind == "synthetic":
            url, body = synthetic_document(rng, file_index * 100_000_000 + doc_number)
        else:
            url, body = realistic_document(rng, doc_number, file_index)
        record_id = "<urn:uuid:%s>" % uuid.uuid5(
            RECORD_ID_NAMESPACE, "%s %s %d %d" % (seed, kind, file_index, doc_number))
        writer.write(warc_response(url, record_id, body))
        documents += 1
    writer.close()
    return name, documents, writer.uncompressed_bytes, os.path.getsize(path), \
        time.monotonic() - started


def prepare_output_dir(out_dir, force):
    os.makedirs(out_dir, exist_ok=True)
    existing = sorted(os.listdir(out_dir))
    if not existing:
        return
    ours = [name for name in existing if re.fullmatch(r"part-\d{5}\.warc(\.gz)?", name)]
    if not force or len(ours) != len(existing):
        sys.exit("gen_collection: %s is not empty (%d entries); use an empty directory%s"
                 % (out_dir, len(existing),
                    "" if len(ours) != len(existing) else ", or --force to replace its part files"))
    for name in ours:
        os.remove(os.path.join(out_dir, name))


def main():
    global VOCABULARY, CUMULATIVE_WEIGHTS, SOURCE_PAGES
    here = os.path.dirname(os.path.abspath(__file__))
    default_source = os.path.join(os.path.dirname(here), "sample", "debian-docs.warc.gz")
    parser = argparse.ArgumentParser(
        description="Generate a WARC benchmark collection.",
        epilog="example: %(prog)s --kind synthetic --size-mb 1000 --files 8 --out /tmp/syn1g",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=["synthetic", "realistic"], required=True)
    parser.add_argument("--size-mb", type=float, required=True,
                        help="total uncompressed WARC size, MB of 10^6 bytes")
    parser.add_argument("--out", required=True, help="output directory (empty or new)")
    parser.add_argument("--files", type=int, default=8, help="number of part files (default 8)")
    parser.add_argument("--gzip", choices=["per-record", "whole", "none"], default="per-record",
                        help="per-record: one gzip member per record, like Common Crawl (default)")
    parser.add_argument("--level", type=int, default=1, choices=range(1, 10), metavar="1-9",
                        help="zlib level (default 1)")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--source", default=default_source,
                        help="realistic: WARC file or directory of .html pages (default: %(default)s)")
    parser.add_argument("--force", action="store_true",
                        help="replace part files already in --out")
    args = parser.parse_args()
    if args.size_mb <= 0 or args.files < 1 or args.jobs < 1:
        parser.error("--size-mb, --files and --jobs must be positive")

    started = time.monotonic()
    prepare_output_dir(args.out, args.force)
    if args.kind == "synthetic":
        VOCABULARY = make_vocabulary(args.seed)
        CUMULATIVE_WEIGHTS = zipf_cumulative_weights(len(VOCABULARY), ZIPF_EXPONENT)
    else:
        SOURCE_PAGES = load_source_pages(args.source)
    setup_seconds = time.monotonic() - started

    total_bytes = int(args.size_mb * 1_000_000)
    arguments = "kind=%s size_mb=%g files=%d gzip=%s level=%d seed=%s" % (
        args.kind, args.size_mb, args.files, args.gzip, args.level, args.seed)
    tasks = [(index, args.out, args.kind, total_bytes // args.files, args.gzip, args.level,
              args.seed, arguments) for index in range(args.files)]
    results = []
    jobs = min(args.jobs, args.files)
    if jobs == 1:
        iterator = map(generate_part, tasks)
        pool = None
    else:
        # fork: the workers inherit the vocabulary / source pages built above.
        pool = multiprocessing.get_context("fork").Pool(jobs)
        iterator = pool.imap_unordered(generate_part, tasks)
    for result in iterator:
        results.append(result)
        print("wrote %s: %d docs, %.1f MB" % (result[0], result[1], result[2] / 1e6),
              file=sys.stderr, flush=True)
    if pool is not None:
        pool.close()
        pool.join()
    elapsed = time.monotonic() - started

    results.sort()
    print("\n%-18s %10s %14s %14s %8s" % ("file", "documents", "uncompr. MB", "compr. MB", "s"))
    for name, documents, uncompressed, compressed, seconds in results:
        print("%-18s %10d %14.1f %14.1f %8.1f" % (name, documents, uncompressed / 1e6,
                                                  compressed / 1e6, seconds))
    total_docs = sum(r[1] for r in results)
    total_uncompressed = sum(r[2] for r in results)
    total_compressed = sum(r[3] for r in results)
    print("%-18s %10d %14.1f %14.1f %8.1f" % ("total", total_docs, total_uncompressed / 1e6,
                                              total_compressed / 1e6, elapsed))
    print("(%s, setup %.1f s, %.1f MB/s uncompressed, %d jobs, output %s)"
          % (arguments, setup_seconds, total_uncompressed / 1e6 / elapsed, jobs, args.out))


if __name__ == "__main__":
    main()
