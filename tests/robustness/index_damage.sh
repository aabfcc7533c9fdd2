#!/usr/bin/env bash
# Issue #28, item 4: an edited manifest.json (average_length, an input's name,
# an analysis setting) is refused by opening the index and by `invidx check`,
# naming manifest.json; re-indenting it changes nothing; an index written
# before manifests had a checksum still answers, check reports it, and
# `invidx merge` rewrites it with one.
source "$(dirname "$0")/lib.sh"

IDX=$WORK/idx
expect_exit "sample builds" 0 "$INVIDX_RUN" "$SOURCE_DIR/configs/cpu-6-2.json" --output "$IDX"
expect_exit "pristine index checks --full" 0 "$INVIDX" check "$IDX" --full
cp -a "$IDX" "$WORK/pristine"

# edit_manifest PYTHON: runs PYTHON on `m` (the manifest, parsed), writes it
# back indented as invidx does, the old "crc32" kept as an editor would.
edit_manifest() {
    python3 - "$IDX/manifest.json" "$1" <<'EOF'
import json, sys
path, code = sys.argv[1], sys.argv[2]
with open(path) as f:
    m = json.load(f)
exec(code)
with open(path, "w") as f:
    json.dump(m, f, indent=2)
    f.write("\n")
EOF
}

restore() {
    rm -rf "$IDX"
    cp -a "$WORK/pristine" "$IDX"
}

# expect_stdout NAME TEXT: the last command's stdout contains TEXT.
expect_stdout() {
    local ok=0
    grep -qF -- "$2" "$WORK/last.out" || ok=1
    report "$1" "stdout names \"$2\"" "$ok" "$(head -c 300 "$WORK/last.out" | tr '\n' ' ')"
}

# The checksum is reproducible outside invidx (docs/FORMAT.md, "manifest.json").
expect_true "crc32 is the documented canonical CRC" "python's canonical text gives the stored crc32" python3 - "$IDX/manifest.json" <<'EOF'
import json, sys, zlib
m = json.load(open(sys.argv[1]))
stored = m.pop("crc32")
sys.exit(0 if zlib.crc32(json.dumps(m, sort_keys=True, separators=(",", ":")).encode()) == stored else 1)
EOF

edited() {  # NAME PYTHON
    restore
    edit_manifest "$2"
    expect_exit "$1: check --full refuses" 3 "$INVIDX" check "$IDX" --full
    expect_stdout "$1: check names manifest.json" "manifest.json: key '/crc32'"
    expect_exit "$1: search refuses" 3 "$INVIDX" search "$IDX" debian
    expect_stderr "$1: search names manifest.json" "manifest.json: key '/crc32'"
}
edited "average_length +8000" 'm["counts"]["average_length"] += 8000'
edited "input name" 'm["inputs"][0]["name"] = "other.warc.gz"'
edited "stemmer" 'm["analysis"]["stemmer"] = "none"'
edited "stopword added" 'm["analysis"]["stopwords"].append("debian")'
edited "document count" 'm["counts"]["documents"] += 1'

restore
edit_manifest 'pass'
expect_exit "re-indented manifest: check --full passes" 0 "$INVIDX" check "$IDX" --full

restore
edit_manifest 'del m["crc32"]'
expect_exit "older manifest (no crc32): search answers" 0 "$INVIDX" search "$IDX" debian
expect_exit "older manifest: check reports it" 3 "$INVIDX" check "$IDX"
expect_stdout "older manifest: check says why" "written by an older invidx"
expect_exit "older manifest: merge rewrites it" 0 "$INVIDX" merge "$IDX"
expect_exit "older manifest: checks after merge" 0 "$INVIDX" check "$IDX" --full

restore
edit_manifest 'del m["crc32"]; m["counts"]["average_length"] += 8000'
expect_exit "older manifest, average_length edited: search refuses" 3 "$INVIDX" search "$IDX" debian
expect_stderr "older manifest, average_length edited: names it" "average_length"
finish
