#!/usr/bin/env python3
"""Writes the HTML documentation pages installed on this machine (under
/usr/share/doc and /usr/share/gtk-doc) as one uncompressed WARC file of
response records, in path order: real pages for benchmarks that need more
than the bundled sample (on a Debian 12 machine with the build's packages,
some 300 pages, 26 MB).

  local_docs_warc.py OUT.warc [ROOT ...]
"""
import glob
import os
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    roots = sys.argv[2:] or ["/usr/share/doc", "/usr/share/gtk-doc"]
    pages = sorted(p for root in roots for p in glob.glob(root + "/**/*.html", recursive=True) if os.path.isfile(p))
    written = 0
    with open(sys.argv[1], "wb") as out:
        for i, path in enumerate(pages):
            with open(path, "rb") as f:
                body = f.read()
            http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body) + body
            header = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: file://" + path.encode() +
                      b"\r\nWARC-Record-ID: <urn:uuid:%08d-0000-4000-8000-000000000000>\r\n" % i +
                      b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % len(http))
            out.write(header + http + b"\r\n\r\n")
            written += len(header) + len(http) + 4
    print("wrote %s: %d pages, %.1f MB" % (sys.argv[1], len(pages), written / 1e6))


if __name__ == "__main__":
    main()
