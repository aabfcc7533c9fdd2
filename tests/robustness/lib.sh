# Shared by the robustness scripts (tests/robustness/*.sh): each script is one
# area of the adversarial probe of issue #28, kept as a regression suite. A
# script is run by ctest as `bash SCRIPT INVIDX INVIDX_RUN` and prints one line
# per case: ok/FAIL, the case's name, what was expected. It exits 1 if any
# case failed.
set -uo pipefail

INVIDX=${1:?usage: SCRIPT path/to/invidx path/to/invidx-run}
INVIDX_RUN=${2:?usage: SCRIPT path/to/invidx path/to/invidx-run}
SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/invidx-robustness.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Pipelines name their inputs relative to the repository root (sample/).
cd "$SOURCE_DIR"
failures=0
cases=0

# report NAME EXPECTED OK(0|1) [DETAIL]
report() {
    cases=$((cases + 1))
    if [ "$3" -eq 0 ]; then
        printf 'ok    %-48s %s\n' "$1" "$2"
    else
        failures=$((failures + 1))
        printf 'FAIL  %-48s %s%s\n' "$1" "$2" "${4:+ -- $4}"
    fi
}

# expect_exit NAME CODE CMD...: the command exits with CODE (stdout and
# stderr kept in $WORK/last.out and $WORK/last.err) and does not crash.
expect_exit() {
    local name=$1 want=$2
    shift 2
    "$@" >"$WORK/last.out" 2>"$WORK/last.err"
    local got=$?
    local ok=0
    [ "$got" -eq "$want" ] || ok=1
    report "$name" "exit $want" "$ok" "exit $got: $(head -c 300 "$WORK/last.err" | tr '\n' ' ')"
}

# expect_stderr NAME TEXT: the last command's stderr contains TEXT.
expect_stderr() {
    local ok=0
    grep -qF -- "$2" "$WORK/last.err" || ok=1
    report "$1" "stderr names \"$2\"" "$ok" "$(head -c 300 "$WORK/last.err" | tr '\n' ' ')"
}

# expect_true NAME DESCRIPTION CMD...: the command succeeds.
expect_true() {
    local name=$1 what=$2
    shift 2
    local ok=0
    "$@" >/dev/null 2>&1 || ok=1
    report "$name" "$what" "$ok"
}

finish() {
    echo "$cases cases, $failures failed"
    [ "$failures" -eq 0 ]
}
