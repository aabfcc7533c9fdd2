#!/usr/bin/env bash
# Queries and tool outputs (issue #28, items 5, 6, 9, 11): a batch with bad
# queries answers the others (exit 4, each bad one named by qid and line),
# --queries - reads stdin, qids that would break a TREC run line are refused,
# names with whitespace, escapes or bytes that are not UTF-8 keep every
# output well-formed, and a query of 100,000 distinct terms runs.
source "$(dirname "$0")/lib.sh"

# Documents whose <DOCNO>s hold a space, a tab, a terminal escape and bytes
# that are not UTF-8 (TREC keeps a DOCNO's bytes as the name).
docs="$WORK/odd.trec"
: >"$docs"
for name in 'plain-1' 'two words' $'tab\there' $'\x1b[31mred' $'caf\xe9-\xff'; do
    printf '<DOC>\n<DOCNO> %s </DOCNO>\n<TEXT>\napples zebras running caf\xe9\n</TEXT>\n</DOC>\n' "$name" >>"$docs"
done
expect_exit "index of odd names builds" 0 "$INVIDX_RUN" "$SOURCE_DIR/configs/cpu-6-2.json" --input "$docs" --output "$WORK/idx"
IDX="$WORK/idx"

# valid_json NAME FILE: FILE parses as JSON.
valid_json() {
    local ok=0
    python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$2" >/dev/null 2>&1 || ok=1
    report "$1" "valid JSON" "$ok" "$(head -c 200 "$2" | tr '\n' ' ')"
}

# 5,000 topics: a bad quote at line 2500, a phrase (the index has no
# positions) at line 4000; the others are answered.
topics="$WORK/topics.tsv"
for i in $(seq 1 5000); do
    if [ "$i" -eq 2500 ]; then
        printf 'q%d\tunmatched "apples\n' "$i"
    elif [ "$i" -eq 4000 ]; then
        printf 'q%d\t"apples zebras"\n' "$i"
    else
        printf 'q%d\tapples\n' "$i"
    fi
done >"$topics"
expect_exit "batch with bad queries: exit 4" 4 "$INVIDX" search "$IDX" --queries "$topics" --format trec --k 1
expect_stderr "bad quote named by line and qid" "topics.tsv: line 2500: query q2500: unterminated quote"
expect_stderr "phrase named by line and qid" "topics.tsv: line 4000: query q4000: phrase"
answered=$(cut -d' ' -f1 "$WORK/last.out" | sort -u | wc -l)
report "batch answers the 4,998 others" "4998 qids in the run" "$([ "$answered" -eq 4998 ]; echo $?)" "$answered qids"
expect_exit "batch with bad queries, --device auto: exit 4" 4 "$INVIDX" search "$IDX" --queries "$topics" --format trec --k 1 --device auto
expect_stderr "auto: bad quote named" "line 2500: query q2500"
expect_exit "batch with bad queries, json: exit 4" 4 "$INVIDX" search "$IDX" --queries "$topics" --format json --k 1
valid_json "batch json output" "$WORK/last.out"

# Standard input.
printf 'q1\tapples\nq2\tzebras\n' >"$WORK/two.tsv"
expect_exit "--queries - reads stdin" 0 bash -c '"$1" search "$2" --queries - --format trec <"$3"' _ "$INVIDX" "$IDX" "$WORK/two.tsv"
report "--queries - answers both" "2 qids" "$([ "$(cut -d' ' -f1 "$WORK/last.out" | sort -u | wc -l)" -eq 2 ]; echo $?)"

# qids that would break a TREC run line.
printf 'q1\tapples\nq 2\tzebras\n' >"$WORK/space-qid.tsv"
expect_exit "qid with a space refused" 2 "$INVIDX" search "$IDX" --queries "$WORK/space-qid.tsv" --format trec
expect_stderr "qid with a space: the line named" "space-qid.tsv: line 2: qid 'q 2'"
printf '<top>\n<num> Number: 7 8\n<title> apples\n</top>\n' >"$WORK/space-qid.topics"
expect_exit "topic number with a space refused" 2 "$INVIDX" search "$IDX" --queries "$WORK/space-qid.topics"
expect_stderr "topic number with a space: the line named" "line 1: qid '7 8'"

# TREC run lines keep six fields whatever the names hold.
expect_exit "trec run over odd names" 0 "$INVIDX" search "$IDX" apples --format trec
bad_lines=$(awk 'NF != 6' "$WORK/last.out" | wc -l)
lines=$(wc -l <"$WORK/last.out")
report "trec lines have six fields" "5 lines, none broken" "$([ "$bad_lines" -eq 0 ] && [ "$lines" -eq 5 ]; echo $?)" "$lines lines, $bad_lines broken"
expect_true "trec: space %-escaped" "two%20words in the run" grep -qF 'two%20words' "$WORK/last.out"

# Text output: no raw escape byte.
no_escape() { ! grep -q $'\x1b' "$1"; }
expect_exit "search text over odd names" 0 "$INVIDX" search "$IDX" apples
expect_true "search text: escape shown as \\x1b" "no raw ESC byte" no_escape "$WORK/last.out"
expect_true "search text: \\x1b[31mred printed" "escaped name" grep -qF '\x1b[31mred' "$WORK/last.out"
for docid in 0 1 2 3 4; do
    "$INVIDX" doc "$IDX" "$docid" >>"$WORK/docs.out" 2>&1
done
expect_true "doc text: no raw ESC byte" "no raw ESC byte" no_escape "$WORK/docs.out"

# JSON outputs with bytes that are not UTF-8 (names, query words, a qid, the index path).
printf 'q\xff\tapples\n' >"$WORK/latin1-qid.tsv"
expect_exit "search json, qid not UTF-8" 0 "$INVIDX" search "$IDX" --queries "$WORK/latin1-qid.tsv" --format json
valid_json "search json with odd names and qid" "$WORK/last.out"
for docid in 0 1 2 3 4; do
    expect_exit "doc $docid json" 0 "$INVIDX" doc "$IDX" "$docid" --format json
    valid_json "doc $docid json" "$WORK/last.out"
done
expect_exit "term json, words not UTF-8" 0 "$INVIDX" term "$IDX" $'caf\xe9' --format json
valid_json "term json" "$WORK/last.out"
mv "$IDX" "$WORK/idx-"$'\xff'
IDX="$WORK/idx-"$'\xff'
expect_exit "stats json, path not UTF-8" 0 "$INVIDX" stats "$IDX" --format json
valid_json "stats json" "$WORK/last.out"
expect_exit "check --format json" 0 "$INVIDX" check "$IDX" --full --format json
valid_json "check json" "$WORK/last.out"
expect_true "check json says ok" '"ok": true' grep -qF '"ok": true' "$WORK/last.out"

# A query of 100,000 distinct terms (de-duplication is linear).
python3 -c 'import itertools, string
words = ("".join(p) for n in (4,) for p in itertools.product(string.ascii_lowercase, repeat=n))
print("q1\t" + " ".join("x" + w for w in itertools.islice(words, 100000)))' >"$WORK/long.tsv"
expect_exit "query of 100,000 distinct terms" 0 "$INVIDX" search "$IDX" --queries "$WORK/long.tsv" --format trec

finish
