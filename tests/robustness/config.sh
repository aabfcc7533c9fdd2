#!/usr/bin/env bash
# Issue #28, items 2, 5 and 10: odd --set keys, pipelines that are no object,
# integers that would wrap, counts past the limit, stopword files that are no
# regular file or not UTF-8, paths that are not UTF-8, an empty --output.
# Each is exit 2 with a message naming the key or file (never an abort, 134),
# or, for odd paths, a correct index.
source "$(dirname "$0")/lib.sh"
export LC_ALL=C  # byte lengths and byte-wise file names

# Two small WARC documents, one of them in a file whose name is not UTF-8.
mkdir -p "$WORK/in"
warc() {  # warc ID TEXT: one WARC response record
    local http
    http=$(printf 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>%s</p>' "$2")
    printf 'WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://x/%s\r\nWARC-TREC-ID: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n' \
        "$1" "$1" "${#http}" "$http"
}
warc a "hello world" >"$WORK/in/a.warc"
odd_name=$(printf 'b\377\376.warc')
warc b "odd name" >"$WORK/in/$odd_name"
PIPELINE=configs/cpu-6-2.json
run() { "$INVIDX_RUN" "$PIPELINE" --input "$WORK/in" --progress off --quiet "$@"; }

# Item 2: --set through a value that has no keys, or no array index.
for assignment in input.0.format=trec description.x=1 positions.x=1 analysis.stopwords.0=the \
    parse.count.x=1 input.x=1 index.indexers.x=1; do
    key=${assignment%%=*}
    expect_exit "--set $assignment" 2 run --output "$WORK/idx" --set "$assignment" --set description=d --set positions=false
    expect_stderr "--set $assignment names the key" "$key"
done
for text in '[]' '"x"'; do
    printf '%s' "$text" >"$WORK/odd.json"
    expect_exit "pipeline file $text with --input/--output" 2 "$INVIDX_RUN" "$WORK/odd.json" --input "$WORK/in" --output "$WORK/idx"
    expect_stderr "pipeline file $text says what it must be" "expected the pipeline to be a JSON object"
done

# Item 10: integers range-checked, counts bounded, no empty --output.
for assignment in memory.tokens=4294967296 memory.tokens=4294967297 sampler.max_popular=4294967297 \
    memory.read_block_bytes=18446744073709551615 index.indexers.0.count=4096 parse.count=100000; do
    key=${assignment%%=*}
    expect_exit "--set $assignment" 2 run --output "$WORK/idx" --set "$assignment"
    expect_stderr "--set $assignment names the key" "/${key##*.}"
done
mkdir -p "$WORK/cwd/index" && echo keep >"$WORK/cwd/index/keep"
expect_exit "--output ''" 2 bash -c 'cd "$1/cwd" && shift && "$@"' _ "$WORK" "$(realpath "$INVIDX_RUN")" "$SOURCE_DIR/$PIPELINE" \
    --input "$WORK/in" --output ''
expect_stderr "--output '' names the flag" "--output"
expect_true "--output '' leaves ./index as it was" "./index/keep is still there" test -f "$WORK/cwd/index/keep"

# Stopword files: only regular files, at most 16 MiB, UTF-8.
stopwords() { printf '{"stopwords": {"file": "%s"}}' "$1"; }
mkfifo "$WORK/fifo"
for file in /dev/zero "$WORK/fifo" "$WORK/in"; do
    expect_exit "stopword file $file" 2 timeout 60 "$INVIDX_RUN" "$PIPELINE" --input "$WORK/in" --output "$WORK/idx" \
        --set "analysis=$(stopwords "$file")"
    expect_stderr "stopword file $file named" "$file"
done
head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' 'a' >"$WORK/big.txt"
expect_exit "stopword file over 16 MiB" 2 run --output "$WORK/idx" --set "analysis=$(stopwords "$WORK/big.txt")"
expect_stderr "stopword file over 16 MiB says the limit" "16 MiB"
printf 'the\nhel\377lo\n' >"$WORK/bad.txt"
expect_exit "stopword file not UTF-8" 2 run --output "$WORK/idx" --set "analysis=$(stopwords "$WORK/bad.txt")"
expect_stderr "stopword file not UTF-8 names file and line" "bad.txt': line 2"
expect_true "no index from the failed builds" "$WORK/idx absent" test ! -e "$WORK/idx"

# Item 5 (build side): paths are bytes; report.json and manifest.json publish.
odd_out="$WORK/$(printf 'idx\377')"
expect_exit "input folder with a file name that is not UTF-8" 0 run --output "$odd_out"
expect_true "it is indexed: 2 documents" "stats says 2 documents" \
    bash -c '"$1" stats "$2" --format json | grep -q "\"documents\": 2"' _ "$INVIDX" "$odd_out"
expect_exit "that index checks --full" 0 "$INVIDX" check "$odd_out" --full
expect_exit "--input naming that file alone" 0 "$INVIDX_RUN" "$PIPELINE" --input "$WORK/in/$odd_name" \
    --output "$WORK/one" --progress off --quiet
expect_true "report.json was published" "report.json ends the JSON object" \
    bash -c 'tail -c 2 "$1/report.json" | grep -q "}"' _ "$WORK/one"
expect_exit "that index checks --full" 0 "$INVIDX" check "$WORK/one" --full
finish
