#!/usr/bin/env bash
# The whole test suite: installs the oracle tools, checks formatting and lints, runs every
# test (release build: the oracle suites lower thousands of files). Extended suites over
# ../shared run when it is present; under CI (CI=true) they and the oracle tools are required.
# The build systems: real Bazel (bazel_test.sh), real Buck2 (buck2_test.sh), and a new
# user's install, README commands and release archive from a fresh clone (install_test.sh).
# Last, every fuzz target runs for a bounded time (scripts/fuzz.sh, 60 s each).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${CI:-}" = "true" ] && [ ! -d ../shared ] && [ -z "${KILN_SHARED_DIR:-}" ]; then
  echo "test: ../shared is required under CI" >&2; exit 1
fi
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
cargo test --workspace --release
bash scripts/bazel_test.sh
bash scripts/buck2_test.sh
bash scripts/install_test.sh
bash scripts/fuzz.sh
