#!/usr/bin/env bash
# Outputs (issue #28, items 1, 7 and 8): an output that is a symbolic link to
# an index is written through and stays a link, and its lock is the real
# directory's; export-ciff never writes into an index and replaces its FILE
# whole or not at all; merge and weight interrupted leave no temporary
# directory and the index as it was.
source "$(dirname "$0")/lib.sh"

CONFIG="$SOURCE_DIR/configs/cpu-6-2.json"
build() { "$INVIDX_RUN" "$CONFIG" --quiet --output "$1"; }
is_link_to() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }
no_leftovers() { ! compgen -G "$WORK/*.tmp-*" >/dev/null && ! compgen -G "$WORK/*.old-*" >/dev/null &&
                 ! compgen -G "$WORK/*.partial-*" >/dev/null; }

# --- 1. symbolic links as outputs --------------------------------------------
expect_exit "build idx-v1" 0 build "$WORK/idx-v1"
ln -s idx-v1 "$WORK/current"
expect_exit "invidx-run --output LINK" 0 build "$WORK/current"
expect_true "run: link kept" "current still links to idx-v1" is_link_to "$WORK/current" idx-v1
expect_exit "run: target checks --full" 0 "$INVIDX" check "$WORK/idx-v1" --full
expect_true "run: the real directory's lock" "idx-v1.lock, no current.lock" \
    bash -c "[ -e '$WORK/idx-v1.lock' ] && [ ! -e '$WORK/current.lock' ]"

ln -s idx-v2 "$WORK/next"
expect_exit "invidx-run --output DANGLING-LINK" 0 build "$WORK/next"
expect_true "dangling link: built at its target" "idx-v2 a directory, next a link" \
    bash -c "[ -d '$WORK/idx-v2' ] && [ ! -L '$WORK/idx-v2' ] && [ -L '$WORK/next' ]"

# A writer holds idx-v1 (its lock file, as invidx-run takes it): writers
# through the link must wait their turn.
expect_exit "run via link while target locked" 1 flock -n "$WORK/idx-v1.lock" "$INVIDX_RUN" "$CONFIG" --quiet --output "$WORK/current"
expect_stderr "run via link while target locked: names it" "another build is writing"
expect_exit "merge via link while target locked" 3 flock -n "$WORK/idx-v1.lock" "$INVIDX" merge "$WORK/current"
expect_stderr "merge via link while target locked: names it" "is held by process"

expect_exit "merge LINK --layout query" 0 "$INVIDX" merge "$WORK/current" --layout query
expect_true "merge: link kept" "current still links to idx-v1" is_link_to "$WORK/current" idx-v1
expect_exit "merge: target checks --full" 0 "$INVIDX" check "$WORK/idx-v1" --full
expect_exit "weight LINK" 0 "$INVIDX" weight "$WORK/current" --bits 8
expect_true "weight: link kept" "current still links to idx-v1" is_link_to "$WORK/current" idx-v1
expect_exit "weight: target checks --full" 0 "$INVIDX" check "$WORK/idx-v1" --full
expect_true "no leftovers after the link cases" "no *.tmp-*, *.old-*" no_leftovers

# --- 7. export-ciff ----------------------------------------------------------
for inside in runs/run-000000.post dictionary.bin manifest.json documents.bin new.ciff; do
    expect_exit "export-ciff into IDX/$inside" 3 "$INVIDX" export-ciff "$WORK/idx-v1" "$WORK/idx-v1/$inside"
    expect_stderr "export-ciff into IDX/$inside: refused" "refusing to write the CIFF file into the index directory"
    expect_exit "export-ciff into IDX/$inside: index checks --full" 0 "$INVIDX" check "$WORK/idx-v1" --full
done
expect_exit "export-ciff into LINK/manifest.json" 3 "$INVIDX" export-ciff "$WORK/current" "$WORK/current/manifest.json"
expect_exit "export-ciff into LINK/manifest.json: index checks --full" 0 "$INVIDX" check "$WORK/idx-v1" --full

"$INVIDX" export-ciff "$WORK/idx-v1" - >"$WORK/expected.ciff"
echo "the old export" >"$WORK/out.ciff"
ln "$WORK/out.ciff" "$WORK/old-name.ciff"
expect_exit "export-ciff over an existing file" 0 "$INVIDX" export-ciff "$WORK/idx-v1" "$WORK/out.ciff"
expect_true "export-ciff: the new bytes" "out.ciff equals the export to stdout" cmp "$WORK/out.ciff" "$WORK/expected.ciff"
expect_true "export-ciff: renamed, not truncated" "the old file's other name keeps its bytes" \
    grep -qx "the old export" "$WORK/old-name.ciff"

# A full disk, as a file size limit: the write fails past 8 KiB.
echo "the old export" >"$WORK/out.ciff"
expect_exit "export-ciff on a full disk" 3 bash -c "ulimit -f 8; trap '' XFSZ; exec '$INVIDX' export-ciff '$WORK/idx-v1' '$WORK/out.ciff'"
expect_stderr "export-ciff on a full disk: says why" "File too large"
expect_true "export-ciff on a full disk: old file kept" "out.ciff as it was" grep -qx "the old export" "$WORK/out.ciff"
expect_true "export-ciff on a full disk: no partial file" "no *.partial-*" no_leftovers

# --- 8. merge and weight interrupted -----------------------------------------
# Each stops itself once its temporary directory exists (INVIDX_TEST_STOP_AT),
# is signalled and continued. Job control on: a background job would
# otherwise start with SIGINT ignored.
"$INVIDX" export-ciff "$WORK/idx-v1" - >"$WORK/before.ciff"
interrupt() {  # interrupt SIGNAL COMMAND ARGS...: the command's exit status
    local signal=$1
    shift
    set -m
    INVIDX_TEST_STOP_AT=merge:writing "$INVIDX" "$@" >"$WORK/last.out" 2>"$WORK/last.err" &
    local pid=$!
    set +m
    for _ in $(seq 600); do
        [ "$(ps -o stat= -p "$pid" | cut -c1)" = T ] && break
        sleep 0.05
    done
    compgen -G "$WORK/idx-v1.tmp-*" >/dev/null || echo "no temporary directory while stopped" >>"$WORK/last.err"
    kill "-$signal" "$pid"
    kill -CONT "$pid"
    wait "$pid"
}
for case in "INT merge 130" "TERM merge 143" "INT weight 130" "TERM weight 143"; do
    read -r signal command code <<<"$case"
    args=("$command" "$WORK/idx-v1")
    [ "$command" = weight ] && args+=(--bits 6)
    interrupt "$signal" "${args[@]}"
    got=$?
    report "SIG$signal to $command" "exit $code" "$([ "$got" -eq "$code" ] && echo 0 || echo 1)" "exit $got: $(head -c 300 "$WORK/last.err")"
    expect_stderr "SIG$signal to $command: says so" "$command interrupted by SIG$signal"
    expect_true "SIG$signal to $command: no temporary directory" "no idx-v1.tmp-*" no_leftovers
    expect_true "SIG$signal to $command: index as it was" "same CIFF" \
        bash -c "'$INVIDX' export-ciff '$WORK/idx-v1' - | cmp - '$WORK/before.ciff'"
done
expect_exit "after the interrupts: index checks --full" 0 "$INVIDX" check "$WORK/idx-v1" --full
finish
