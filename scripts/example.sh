#!/usr/bin/env bash
# The main job on the embedded samples: builds kiln and runs it over examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin kiln
kiln=target/release/kiln
mkdir -p out
$kiln parse examples/aps/flow_burst_add.mlir examples/handshake/gcd.mlir

# APS flow: rules for flow_burst_add, then the acceptance run on both engines
# (A = 1..16 at rs1, B = 101..116 at rs2; expect C = A + B at rs1 and response 42).
$kiln build examples/aps/flow_burst_add.mlir --out-dir out
cat > out/flow_burst_add.mem.json <<'JSON'
[{"addr":4096,"i32":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]},{"addr":8192,"i32":[101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116]}]
JSON
# cmt2: the rule simulator on the circuit read back from the emitted .cmt2.mlir.
$kiln parse out/flow_burst_add.cmt2.mlir
for engine in tor rules cmt2; do
  $kiln sim examples/aps/flow_burst_add.mlir --func flow_burst_add --engine $engine \
    --rs1 4096 --rs2 8192 --cpu-mem out/flow_burst_add.mem.json --json
done

# Handshake → Synth: the gcd dataflow circuit against the library units it uses
# (a subset of the Dynamatic BLIF library, tests/data/handshake/library).
$kiln build examples/handshake/gcd.mlir --blif-lib tests/data/handshake/library --out-dir out
ls -l out/gcd.synth.mlir out/gcd.aig out/gcd.blif out/gcd.hier.blif
