#!/usr/bin/env bash
# Issue #28, item 3: damaged inputs that used to build complete-looking wrong
# indexes with exit 0 (a zeroed start read as an empty tar, a damaged tar or
# zip header stepped over, binary data indexed as one "text" document). Each
# must fail (exit 1) naming the file, and publish no index; the undamaged
# files must give every document.
source "$(dirname "$0")/lib.sh"

IN=$WORK/in
mkdir -p "$IN"
python3 - "$IN" <<'PY'
import gzip, io, os, sys, tarfile, zipfile
d = sys.argv[1]
def write(name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
def zeroed(data, n):
    return b"\0" * min(n, len(data)) + data[n:]
def warc_record(i):
    body = ("<html><body>page %d about debian packages</body></html>" % i).encode()
    head = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%d>\r\nWARC-Target-URI: http://example.org/%d\r\n"
            "Content-Length: %d\r\n\r\n" % (i, i, len(body))).encode()
    return head + body + b"\r\n\r\n"
warc = b"".join(warc_record(i) for i in range(100))
warc_gz = b"".join(gzip.compress(warc_record(i), mtime=0) for i in range(100))
jsonl = b"".join(b'{"id": "d%d", "contents": "text number %d"}\n' % (i, i) for i in range(100))
text = b"".join(b"line %d of a plain text document\n" % i for i in range(200))
docs = [("doc%d.txt" % i, b"document %d text\n" % i) for i in range(10)]
tar_io = io.BytesIO()
with tarfile.open(fileobj=tar_io, mode="w", format=tarfile.USTAR_FORMAT) as t:
    for name, data in docs:
        info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))
tar = tar_io.getvalue()
zip_io = io.BytesIO()
with zipfile.ZipFile(zip_io, "w") as z:
    for name, data in docs:
        z.writestr(name, data)
zipb = zip_io.getvalue()

for name, data in [("docs.warc.gz", warc_gz), ("docs.warc", warc), ("docs.jsonl", jsonl), ("docs.txt", text),
                   ("ten.tar", tar), ("ten.zip", zipb), ("docs.txt.gz", gzip.compress(text, mtime=0))]:
    write("intact-" + name, data)
write("zeroed4k.warc.gz", zeroed(warc_gz, 4096))
write("zeroed.warc", zeroed(warc, 512))
write("zeroed.jsonl", zeroed(jsonl, 512))
write("zeroed.txt", zeroed(text, 512))
bad_sum = bytearray(tar)
at = tar.find(b"doc5.txt\0")
bad_sum[at + 148] = ord("1") if bad_sum[at + 148] != ord("1") else ord("2")
write("badsum.tar", bytes(bad_sum))
first = bytearray(tar)
first[148] = ord("1") if first[148] != ord("1") else ord("2")
write("first.tar", bytes(first))
write("first-header.bin", bytes(first))
bad_sig = bytearray(zipb)
at = -1
for _ in range(6):
    at = zipb.find(b"PK\x03\x04", at + 1)
bad_sig[at + 3] = 5
write("badsig.zip", bytes(bad_sig))
write("zeroed.txt.gz", zeroed(gzip.compress(text, mtime=0), 16))
PY
# The probe's 10 GB all-zero gzip, smaller: it must fail at once, not read it all.
dd if=/dev/zero of="$IN/zeros.warc.gz" bs=1M count=64 status=none

build() { "$INVIDX_RUN" "$SOURCE_DIR/configs/cpu-6-2.json" --input "$1" --output "$2" --set progress=off; }

# documents NAME FILE COUNT: FILE builds an index of COUNT documents.
documents() {
    local out=$WORK/idx-intact-$2
    expect_exit "intact $1 builds" 0 build "$IN/intact-$2" "$out"
    local got
    got=$("$INVIDX" stats "$out" 2>/dev/null | awk '$1 == "documents" {print $2}')
    local ok=0
    [ "$got" = "$3" ] || ok=1
    report "intact $1 documents" "$3 documents" "$ok" "got '$got'"
}

# refused NAME FILE TEXT: FILE fails the build (exit 1), the message names
# the file and TEXT, and no index is published.
refused() {
    local out=$WORK/idx-$2
    expect_exit "$1 fails" 1 build "$IN/$2" "$out"
    # The sampler, which may meet the damage first, names a file relative to
    # its input root; the frame and decompress nodes by the path given.
    expect_stderr "$1 names the file" "$2"
    expect_stderr "$1 says why" "$3"
    local ok=0
    [ ! -e "$out/manifest.json" ] || ok=1
    report "$1 publishes nothing" "no $out/manifest.json" "$ok"
}

documents warc.gz docs.warc.gz 100
documents warc docs.warc 100
documents jsonl docs.jsonl 100
documents txt docs.txt 1
documents txt.gz docs.txt.gz 1
documents tar ten.tar 10
documents zip ten.zip 10

refused "warc.gz, first 4 KiB zeroed" zeroed4k.warc.gz "512 zero bytes"
refused "warc, first 512 bytes zeroed" zeroed.warc "512 zero bytes"
refused "jsonl, first 512 bytes zeroed" zeroed.jsonl "512 zero bytes"
refused "txt, first 512 bytes zeroed" zeroed.txt "512 zero bytes"
refused "all-zero gzip (64 MiB)" zeros.warc.gz "512 zero bytes"
refused "tar member with a bad checksum" badsum.tar "after member 'doc4.txt'"
refused "zip entry with a bad local header" badsig.zip "badsig.zip!doc5.txt"
refused "tar with a damaged first header" first.tar "not a valid tar header"
refused "unnamed tar with a damaged first header" first-header.bin "binary data, not text"
refused "txt.gz with its first bytes zeroed" zeroed.txt.gz "binary data, not text"
finish
