#!/usr/bin/env bash
# Fuzzes frsm's parsers of hostile bytes (the frame decoder of both protocols, the SSTable reader,
# commit-log replay) for longer than the build's short run: each target in turn for SECONDS
# (default 600), continuing from the corpus earlier runs saved in <module>/.cifuzz-corpus/.
# A finding is written to the target's ...FuzzTestInputs/<method>/ directory under
# src/test/resources (commit it once fixed: it becomes a regression input) and ends the run with a
# non-zero status.
#
#   scripts/fuzz.sh [SECONDS] [Class#method ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(
    frsm-transport:io.frsm.transport.FrameDecoderFuzzTest#peerPort
    frsm-transport:io.frsm.transport.FrameDecoderFuzzTest#clientPort
    frsm-lsm:io.frsm.lsm.sstable.SSTableReaderFuzzTest#damagedTable
    frsm-lsm:io.frsm.lsm.sstable.SSTableReaderFuzzTest#arbitraryFile
    frsm-lsm:io.frsm.lsm.commitlog.CommitLogReplayFuzzTest#damagedSegment
    frsm-lsm:io.frsm.lsm.commitlog.CommitLogReplayFuzzTest#arbitrarySegment
  )
fi

# One build of the test class paths; the fuzzer then runs outside Maven, as long as asked.
./mvnw -B -q -ntp -pl frsm-lsm,frsm-transport -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/fuzz-classpath.txt

for target in "${targets[@]}"; do
  module="${target%%:*}"
  [ "$module" = "$target" ] && module=$(case "$target" in io.frsm.transport.*) echo frsm-transport ;; *) echo frsm-lsm ;; esac)
  test="${target#*:}"
  class="${test%%#*}"
  method="${test#*#}"
  corpus="$module/.cifuzz-corpus/$class/$method"
  inputs="$module/src/test/resources/$(dirname "${class//.//}")/${class##*.}Inputs/$method"
  mkdir -p "$corpus" "$inputs"
  includes='io.frsm.**'
  [ "$module" = frsm-transport ] && includes='io.frsm.**,com.google.protobuf.**'
  echo "== $class#$method for ${seconds}s (corpus $corpus)"
  java -ea -Xmx2g \
    -cp "$module/target/test-classes:$module/target/classes:$(cat "$module/target/fuzz-classpath.txt")" \
    com.code_intelligence.jazzer.Jazzer \
    --target_class="$class" --target_method="$method" \
    --instrumentation_includes="$includes" --custom_hook_includes="$includes" \
    -max_total_time="$seconds" -artifact_prefix="$inputs/" \
    "$corpus" "$inputs"
done
