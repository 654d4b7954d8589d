#!/usr/bin/env bash
# The main job on the embedded samples: builds kiln and runs it over examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin kiln
kiln=target/release/kiln
mkdir -p out
$kiln parse examples/aps/flow_burst_add.mlir examples/handshake/gcd.mlir
