#!/usr/bin/env python3
"""Decompresses every gzip member of FILE with Python's zlib and discards the
output: a decompression yardstick (zlib's inflate, one process), as the
real-pages benches run it with one process per file.

  python3 bench/zlib_gunzip.py FILE
"""
import sys
import zlib


def main(path):
    d = zlib.decompressobj(31)
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 22)
            if not b:
                break
            while b:
                d.decompress(b)
                if d.eof:
                    b = d.unused_data
                    d = zlib.decompressobj(31)
                else:
                    b = b""


if __name__ == "__main__":
    main(sys.argv[1])
