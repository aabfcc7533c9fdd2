#!/usr/bin/env python3
"""Build the bundled sample collection from Debian's own HTML documentation.

Writes, next to this script:
  debian-docs.warc.gz   WARC/1.0, one gzip member per record (as Common Crawl
                        ships it): a warcinfo record, then a request and a
                        response record for every page.
  SOURCES.md            every package used, the license evidence found in its
                        /usr/share/doc/<pkg>/copyright, and how to regenerate.
  formats/small.trec    a few TREC <DOC> blocks cut from the same pages (HTML).
  formats/small.jsonl   a few {"id", "contents"} lines (plain text, Anserini
                        JsonCollection convention).

Only packages whose copyright file names a free license are used (see
FREE_LICENSE_EVIDENCE). The output is deterministic for a given set of installed
files: paths are sorted, dates are fixed, record ids are uuid5 of the URL and
gzip members carry no timestamp.

Usage: python3 sample/make_sample.py [--doc-root /usr/share/doc] [--out-dir sample]
Standard library only.
"""

import argparse
import base64
import gzip
import hashlib
import html.parser
import io
import json
import os
import re
import sys
import uuid

WARC_DATE = "2024-01-01T00:00:00Z"
HTTP_DATE = "Mon, 01 Jan 2024 00:00:00 GMT"
WARC_FILENAME = "debian-docs.warc.gz"
RECORD_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://invidx.example/sample/debian-docs")

# Size policy. The whole collection should be a few MB so the README's main
# command runs in seconds, and the committed .warc.gz stays under ~2 MB. Big
# documentation sets (nodejs alone has ~18 MB of HTML) would swamp the small
# ones, so each package gets a budget, taken in sorted path order.
MAX_PAGE_BYTES = 400_000          # skip single pages larger than this
MAX_PACKAGE_BYTES = 1_000_000      # per-package budget of HTML bytes
MAX_TOTAL_BYTES = 5_000_000       # overall budget of HTML bytes
MAX_COMPRESSED_BYTES = 2_000_000  # checked after writing

# DEP-5 "License:" short names, or phrases of non-DEP-5 copyright files, that
# name one of the free license families we accept. Checked case-insensitively.
FREE_SHORT_NAMES = [
    ("LGPL", re.compile(r"\bLGPL", re.I)),
    ("GPL", re.compile(r"\bGPL", re.I)),  # \b keeps "LGPL" out
    ("BSD", re.compile(r"\bBSD", re.I)),
    ("MIT", re.compile(r"\bMIT\b", re.I)),
    ("Expat", re.compile(r"\bExpat\b", re.I)),
    ("Apache", re.compile(r"\bApache", re.I)),
    ("Artistic", re.compile(r"\bArtistic", re.I)),
    ("public domain", re.compile(r"\bpublic[- ]domain\b", re.I)),
]
FREE_LICENSE_PHRASES = [
    ("LGPL", re.compile(r"GNU (Lesser|Library) General Public License", re.I)),
    ("GPL", re.compile(r"terms of the GNU General Public License", re.I)),
    ("MIT/Expat", re.compile(r"Permission is hereby granted, free of charge, to any person", re.I)),
    ("BSD", re.compile(r"Redistribution and use in source and binary forms", re.I)),
    ("Apache", re.compile(r"Apache License,? Version", re.I)),
    ("public domain", re.compile(r"(placed|is) in the public domain", re.I)),
]
DEP5_LICENSE_FIELD = re.compile(r"^License:[ \t]*(\S.*)$", re.M)


def find_free_licenses(copyright_text):
    """Returns the sorted list of accepted license names the file states.

    A DEP-5 file is judged by its License: fields only (so a mention of the GPL
    in a history paragraph does not count); an older free-form file by the
    grant phrases of the licenses.
    """
    fields = [value.strip() for value in DEP5_LICENSE_FIELD.findall(copyright_text)]
    found = set()
    if fields:
        for value in fields:
            for name, pattern in FREE_SHORT_NAMES:
                if pattern.search(value):
                    found.add(name)
        if found:
            return sorted(found), "License: " + ", ".join(sorted(set(fields)))
    for name, pattern in FREE_LICENSE_PHRASES:
        if pattern.search(copyright_text):
            found.add(name)
    return sorted(found), "license text in copyright file"


def list_html_pages(doc_root):
    """All regular .html/.htm files under doc_root, byte-wise sorted.

    Symbolic links are skipped (Debian links index.html to another page of the
    same package, which would only duplicate a document), and so are package
    directories that are themselves links to another package's directory.
    """
    pages = []
    for package in sorted(os.listdir(doc_root)):
        package_dir = os.path.join(doc_root, package)
        if os.path.islink(package_dir) or not os.path.isdir(package_dir):
            continue
        for dirpath, dirnames, filenames in os.walk(package_dir):
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
            for name in filenames:
                if not name.lower().endswith((".html", ".htm")):
                    continue
                path = os.path.join(dirpath, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                pages.append((package, path))
    pages.sort(key=lambda item: item[1].encode("utf-8", "surrogateescape"))
    return pages


def select_pages(doc_root):
    """Applies the license filter and the size budgets; returns (pages, packages, skipped)."""
    licenses_by_package = {}
    skipped_packages = {}
    package_bytes = {}
    total_bytes = 0
    selected = []
    for package, path in list_html_pages(doc_root):
        if package not in licenses_by_package and package not in skipped_packages:
            copyright_path = os.path.join(doc_root, package, "copyright")
            try:
                with open(copyright_path, encoding="utf-8", errors="replace") as f:
                    names, evidence = find_free_licenses(f.read())
            except OSError:
                names, evidence = [], "no copyright file"
            if names:
                licenses_by_package[package] = (names, evidence)
            else:
                skipped_packages[package] = evidence if evidence != "license text in copyright file" \
                    else "no accepted license named"
        if package in skipped_packages:
            continue
        size = os.path.getsize(path)
        if size == 0 or size > MAX_PAGE_BYTES:
            continue
        if package_bytes.get(package, 0) + size > MAX_PACKAGE_BYTES:
            continue
        if total_bytes + size > MAX_TOTAL_BYTES:
            continue
        package_bytes[package] = package_bytes.get(package, 0) + size
        total_bytes += size
        selected.append((package, path))
    used = {p: licenses_by_package[p] for p in sorted(package_bytes)}
    return selected, used, package_bytes, skipped_packages


def record_id(kind, url):
    return "<urn:uuid:%s>" % uuid.uuid5(RECORD_ID_NAMESPACE, kind + " " + url)


def sha1_base32(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def warc_record(headers, block):
    """One WARC/1.0 record: CRLF header lines, exact Content-Length, CRLF CRLF after the block."""
    lines = ["WARC/1.0"]
    for name, value in headers:
        lines.append("%s: %s" % (name, value))
    lines.append("Content-Length: %d" % len(block))
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")
    return head + block + b"\r\n\r\n"


def gzip_member(data):
    # mtime=0 keeps the output byte-identical between runs.
    return gzip.compress(data, compresslevel=9, mtime=0)


def write_warc(pages, out_path):
    """Writes the WARC; returns (uncompressed bytes, number of response records)."""
    warcinfo_id = record_id("warcinfo", WARC_FILENAME)
    info_block = ("software: invidx sample/make_sample.py\r\n"
                  "format: WARC File Format 1.0\r\n"
                  "description: HTML documentation of Debian packages under free licenses,"
                  " see SOURCES.md\r\n"
                  "isPartOf: invidx-sample-debian-docs\r\n").encode("utf-8")
    uncompressed = 0
    with open(out_path, "wb") as out:
        record = warc_record([
            ("WARC-Type", "warcinfo"),
            ("WARC-Date", WARC_DATE),
            ("WARC-Filename", WARC_FILENAME),
            ("WARC-Record-ID", warcinfo_id),
            ("Content-Type", "application/warc-fields"),
        ], info_block)
        uncompressed += len(record)
        out.write(gzip_member(record))
        for _, path in pages:
            with open(path, "rb") as f:
                body = f.read()
            url = "file://" + path
            request_id = record_id("request", url)
            request_block = ("GET %s HTTP/1.1\r\nHost: localhost\r\n"
                             "User-Agent: invidx-make-sample\r\n\r\n" % path).encode("utf-8")
            request = warc_record([
                ("WARC-Type", "request"),
                ("WARC-Date", WARC_DATE),
                ("WARC-Record-ID", request_id),
                ("WARC-Warcinfo-ID", warcinfo_id),
                ("WARC-Target-URI", url),
                ("Content-Type", "application/http; msgtype=request"),
            ], request_block)
            http_head = ("HTTP/1.1 200 OK\r\nDate: %s\r\nContent-Type: text/html\r\n"
                         "Content-Length: %d\r\n\r\n" % (HTTP_DATE, len(body))).encode("ascii")
            response_block = http_head + body
            response = warc_record([
                ("WARC-Type", "response"),
                ("WARC-Date", WARC_DATE),
                # A readable document name, as ClueWeb09's WARC-TREC-ID gives one.
                ("WARC-TREC-ID", "debian-doc/" + os.path.relpath(path, "/usr/share/doc")),
                ("WARC-Record-ID", record_id("response", url)),
                ("WARC-Warcinfo-ID", warcinfo_id),
                ("WARC-Concurrent-To", request_id),
                ("WARC-Target-URI", url),
                ("WARC-Payload-Digest", sha1_base32(body)),
                ("WARC-Block-Digest", sha1_base32(response_block)),
                ("Content-Type", "application/http; msgtype=response"),
            ], response_block)
            for rec in (request, response):
                uncompressed += len(rec)
                out.write(gzip_member(rec))
    return uncompressed, len(pages)


class TextExtractor(html.parser.HTMLParser):
    """Visible text of a page, for the plain-text JSONL sample."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skip_depth = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip_depth += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip_depth:
            self.skip_depth -= 1

    def handle_data(self, data):
        if not self.skip_depth:
            self.parts.append(data)


def plain_text(html_bytes, limit):
    parser = TextExtractor()
    parser.feed(html_bytes.decode("utf-8", errors="replace"))
    parser.close()
    text = " ".join(" ".join(parser.parts).split())
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0]
    return text


def html_excerpt(html_bytes, limit):
    """The start of a page's <body> (or of the page), cut after a tag end."""
    text = html_bytes.decode("utf-8", errors="replace")
    match = re.search(r"<body[^>]*>", text, re.I)
    if match:
        text = text[match.end():]
    text = re.sub(r"</body>.*", "", text, flags=re.I | re.S)
    if len(text) > limit:
        cut = text.rfind(">", 0, limit)
        text = text[:cut + 1] if cut > 0 else text[:limit]
    return text.strip()


def companion_pages(pages, count):
    """The first page of each of the first `count` packages (sorted), for the small formats."""
    chosen = []
    seen = set()
    for package, path in pages:
        if package in seen:
            continue
        seen.add(package)
        chosen.append((package, path))
        if len(chosen) == count:
            break
    return chosen


def write_companions(pages, formats_dir):
    os.makedirs(formats_dir, exist_ok=True)
    chosen = companion_pages(pages, 6)
    with open(os.path.join(formats_dir, "small.trec"), "w", encoding="utf-8", newline="\n") as trec:
        for number, (package, path) in enumerate(chosen, 1):
            with open(path, "rb") as f:
                excerpt = html_excerpt(f.read(), 700)
            # The TREC reader takes everything up to </DOC>; make sure the
            # excerpt cannot end the block early.
            excerpt = re.sub(r"</?DOC(NO)?>", "", excerpt, flags=re.I)
            trec.write("<DOC>\n<DOCNO> debian-docs-%03d </DOCNO>\n" % number)
            trec.write("<!-- %s: %s -->\n%s\n</DOC>\n" % (package, path, excerpt))
    with open(os.path.join(formats_dir, "small.jsonl"), "w", encoding="utf-8", newline="\n") as jsonl:
        for number, (package, path) in enumerate(chosen, 1):
            with open(path, "rb") as f:
                text = plain_text(f.read(), 600)
            jsonl.write(json.dumps({"id": "debian-docs-%03d" % number, "contents": text},
                                   ensure_ascii=False) + "\n")


def write_sources(out_path, used, package_bytes, page_counts, skipped, uncompressed, responses,
                  compressed):
    out = io.StringIO()
    out.write("# Sources of the sample collection\n\n")
    out.write("`debian-docs.warc.gz` holds %d HTML pages (%d response records, %s bytes of WARC\n"
              "uncompressed, %s bytes compressed) taken from `/usr/share/doc` of a Debian 12 machine.\n"
              "Each page keeps the license of the package it comes from; every package below\n"
              "states a free license in its `/usr/share/doc/<package>/copyright` file (the\n"
              "evidence column quotes what was found). The full copyright files are installed\n"
              "with each package and at https://metadata.ftp-master.debian.org/changelogs/.\n\n"
              % (responses, responses, format(uncompressed, ","), format(compressed, ",")))
    out.write("| package | pages | HTML bytes | licenses | evidence |\n|---|---:|---:|---|---|\n")
    for package, (names, evidence) in used.items():
        if len(evidence) > 160:
            evidence = evidence[:157] + "..."
        out.write("| %s | %d | %s | %s | %s |\n" % (package, page_counts[package],
                                                    format(package_bytes[package], ","),
                                                    ", ".join(names),
                                                    evidence.replace("|", "\\|")))
    if skipped:
        out.write("\nPackages with HTML pages that were left out (no accepted license named):\n\n")
        for package, reason in sorted(skipped.items()):
            out.write("- %s (%s)\n" % (package, reason))
    out.write("""
## How the collection is built

- Every regular `*.html` / `*.htm` file under `/usr/share/doc`, in byte-wise
  sorted path order; symbolic links are skipped (they duplicate another page).
- A package is used only if its `copyright` file names GPL, LGPL, BSD, MIT,
  Expat, Apache, Artistic or public domain: in `License:` fields for
  machine-readable (DEP-5) files, else by the license's grant wording.
- Budgets keep the sample small: pages over %s bytes are skipped, each package
  contributes at most %s bytes of HTML and the whole at most %s bytes, taking
  pages in sorted order while they fit.
- WARC/1.0, one gzip member per record: a `warcinfo` record, then for each page
  a `request` and a `response` record (`HTTP/1.1 200` header block, then the
  page). URL `file:///usr/share/doc/...`, date %s, record ids uuid5 of the URL.
  Only the response records are documents; their names are their
  `WARC-TREC-ID` values, `debian-doc/<path under /usr/share/doc>`.
- `formats/small.trec` and `formats/small.jsonl` hold the first page of six
  packages in the TREC (HTML excerpt) and JSONL (plain text) formats.

## Regenerating

    python3 sample/make_sample.py

(standard library only). The result is byte-identical as long as the same
package versions are installed; another machine gives another, equally valid
collection.
""" % (format(MAX_PAGE_BYTES, ","), format(MAX_PACKAGE_BYTES, ","), format(MAX_TOTAL_BYTES, ","),
       WARC_DATE))
    with open(out_path, "w", encoding="utf-8", newline="\n") as f:
        f.write(out.getvalue())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--doc-root", default="/usr/share/doc")
    parser.add_argument("--out-dir", default=here)
    args = parser.parse_args()

    pages, used, package_bytes, skipped = select_pages(args.doc_root)
    if not pages:
        sys.exit("make_sample: no HTML pages under a free license found in %s" % args.doc_root)
    page_counts = {}
    for package, _ in pages:
        page_counts[package] = page_counts.get(package, 0) + 1

    os.makedirs(args.out_dir, exist_ok=True)
    warc_path = os.path.join(args.out_dir, WARC_FILENAME)
    uncompressed, responses = write_warc(pages, warc_path)
    compressed = os.path.getsize(warc_path)
    write_companions(pages, os.path.join(args.out_dir, "formats"))
    write_sources(os.path.join(args.out_dir, "SOURCES.md"), used, package_bytes, page_counts,
                  skipped, uncompressed, responses, compressed)
    print("%s: %d pages from %d packages, %.2f MB uncompressed, %.2f MB compressed"
          % (warc_path, responses, len(used), uncompressed / 1e6, compressed / 1e6))
    if compressed > MAX_COMPRESSED_BYTES:
        print("warning: compressed size exceeds %d bytes; lower MAX_TOTAL_BYTES" % MAX_COMPRESSED_BYTES,
              file=sys.stderr)


if __name__ == "__main__":
    main()
