#!/usr/bin/env bash
# The sample collection still builds and checks (the other scripts' baseline).
source "$(dirname "$0")/lib.sh"
expect_exit "sample builds" 0 "$INVIDX_RUN" "$SOURCE_DIR/configs/cpu-6-2.json" --output "$WORK/idx"
expect_exit "sample checks --full" 0 "$INVIDX" check "$WORK/idx" --full
finish
