#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for a bounded time on its corpus (fuzz/corpus/<target>/,
# kept in the repository) plus seeds from tests/data/. Stable Rust: RUSTC_BOOTSTRAP=1 lets
# cargo-fuzz pass its -Z flags; cargo-fuzz itself comes from crates.io (scripts/setup.sh).
# Fails loudly when a target cannot be built or run, or finds a crash (the input is left in
# fuzz/artifacts/<target>/).
#   KILN_FUZZ_SECS  seconds per target (default 60)
#   KILN_FUZZ_CMIN  1: minimise each corpus after its run (before committing it)
#   KILN_FUZZ_TARGETS  space-separated targets to run (default: all)
#   KILN_FUZZ_SEED  libFuzzer seed (default: random; 1 under CI=true, so a CI failure
#                   reproduces with the same seed on the same commit)
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${KILN_FUZZ_SECS:-60}
SEED=${KILN_FUZZ_SEED:-}
if [ -z "$SEED" ] && [ "${CI:-}" = true ]; then SEED=1; fi
# cmt2_reader's corpus starts from `.cmt2.mlir` files `kiln build` emitted for tests/data/aps/;
# a target's libFuzzer dictionary, when it has one, is fuzz/<target>.dict.
TARGETS=(mlir_parse blif_reader handshake_synth worker_frames remote_response cmt2_reader)

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz missing; installing it from crates.io" >&2
  cargo install cargo-fuzz --version 0.13.2 --locked
fi
command -v cargo-fuzz >/dev/null 2>&1 || { echo "fuzz: cargo-fuzz unavailable" >&2; exit 1; }

export RUSTC_BOOTSTRAP=1
FLAGS=(-O --sanitizer none --debug-assertions)
cargo fuzz build "${FLAGS[@]}"

seeds() {
  case "$1" in
    mlir_parse) echo tests/data/mlir/aps tests/data/mlir/handshake tests/data/mlir/malformed tests/data/aps tests/data/hostile ;;
    blif_reader) echo tests/data/blif/edge tests/data/blif/malformed ;;
    handshake_synth) echo tests/data/handshake tests/data/hostile tests/data/mlir/handshake ;;
    *) ;;
  esac
}

# Longest input per target: emitted CMT2 files run to ~85 kB.
max_len() {
  case "$1" in
    cmt2_reader) echo 131072 ;;
    *) echo 65536 ;;
  esac
}

if [ -n "${KILN_FUZZ_TARGETS:-}" ]; then read -r -a TARGETS <<<"$KILN_FUZZ_TARGETS"; fi

for t in "${TARGETS[@]}"; do
  corpus=fuzz/corpus/$t
  mkdir -p "$corpus" "fuzz/artifacts/$t"
  # The log stays outside artifacts/<target>/, where cargo-fuzz looks for the crashing input.
  log=fuzz/artifacts/$t.log
  echo "fuzz: $t for ${SECS}s${SEED:+, seed $SEED}" >&2
  st=0
  # shellcheck disable=SC2046
  dict=fuzz/$t.dict
  cargo fuzz run "${FLAGS[@]}" "$t" "$corpus" $(seeds "$t") -- \
    -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
    ${SEED:+-seed="$SEED"} $([ -f "$dict" ] && echo "-dict=$dict") -print_final_stats=1 \
    >"$log" 2>&1 || st=$?
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done|INFO: (seed corpus|Seed:))' "$log" >&2 || true
  if [ "$st" -ne 0 ]; then
    # The cause (panic message, time-out or memory report) and where the input was written.
    grep -m1 -A3 -E "panicked at|ERROR: libFuzzer|==ERROR" "$log" >&2 || tail -40 "$log" >&2
    grep -E "Test unit written to|^Base64:" "$log" >&2 || true
    echo "fuzz: $t failed (exit $st); crashing input in fuzz/artifacts/$t/, log $log" >&2
    exit 1
  fi
  if [ "${KILN_FUZZ_CMIN:-0}" = 1 ]; then
    cargo fuzz cmin "${FLAGS[@]}" "$t" "$corpus"
  fi
done
echo "fuzz: ${#TARGETS[@]} targets ran ${SECS}s each without a crash" >&2
