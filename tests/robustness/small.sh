#!/usr/bin/env bash
# The small ones of issue #28. Without a usable GPU every GPU request says
# "no usable GPU" naming the device asked for, exit 2, never CUDA's bare
# "driver version is insufficient" (skipped where nvidia-smi finds a GPU).
source "$(dirname "$0")/lib.sh"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    report "no usable GPU: --device gpu messages" "skipped: GPU present" 0
    finish
    exit
fi

printf '{"id": "a", "contents": "apples pears"}\n{"id": "b", "contents": "zebras apples"}\n' >"$WORK/docs.jsonl"
expect_exit "a small index builds" 0 "$INVIDX_RUN" configs/cpu-6-2.json --input "$WORK/docs.jsonl" \
    --output "$WORK/idx" --progress off --quiet
expect_exit "search --device gpu, no GPU" 2 "$INVIDX" search "$WORK/idx" apples --device gpu
expect_stderr "search --device gpu names the device" "--device gpu:0: no usable GPU"
expect_exit "search --device gpu:3, no GPU" 2 "$INVIDX" search "$WORK/idx" apples --device gpu:3
expect_stderr "search --device gpu:3 names the device" "--device gpu:3: no usable GPU"
expect_exit "merge --layout query" 0 "$INVIDX" merge "$WORK/idx" --layout query
expect_exit "weight --device gpu, no GPU" 2 "$INVIDX" weight "$WORK/idx" --device gpu
expect_stderr "weight --device gpu names the device" "--device gpu:0: no usable GPU"
expect_exit "a GPU parser, no GPU" 2 "$INVIDX_RUN" configs/default.json --input "$WORK/docs.jsonl" \
    --output "$WORK/gpu-parse" --progress off --set 'parse.gpus=[{"device": "gpu:0"}]'
expect_stderr "a GPU parser names its key and device" '/nodes/3/gpus/0/device: "gpu:0" is not available: no usable GPU'
expect_exit "a GPU indexer, no GPU" 2 "$INVIDX_RUN" configs/6-2-2.json --input "$WORK/docs.jsonl" \
    --output "$WORK/gpu-index" --progress off
expect_stderr "a GPU indexer names its key and device" '"gpu:0" is not available: no usable GPU'
finish
