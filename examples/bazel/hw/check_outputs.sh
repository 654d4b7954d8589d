#!/bin/sh
# Checks kiln's outputs: the CMT2 circuit, rules JSON and SystemVerilog of the APS design,
# two binary AIGER files, and the Synth MLIR, AIGER and BLIF of the Handshake circuit.
set -eu
for f in "$@"; do
  [ -s "$f" ] || { echo "missing or empty: $f" >&2; exit 1; }
  case "$f" in
    *.cmt2.mlir) grep -q "cmt2" "$f" || { echo "$f: no cmt2 ops" >&2; exit 1; } ;;
    *.synth.mlir) grep -q "synth\." "$f" || { echo "$f: no synth ops" >&2; exit 1; } ;;
    *.rules.json) head -c 1 "$f" | grep -q '[{[]' || { echo "$f: not JSON" >&2; exit 1; } ;;
    *.sv) grep -q "^module " "$f" || { echo "$f: no SystemVerilog module" >&2; exit 1; } ;;
    *.blif) grep -q "^\.model " "$f" || { echo "$f: no BLIF model" >&2; exit 1; } ;;
    *.aig) head -c 4 "$f" | grep -q '^aig ' || { echo "$f: not binary AIGER" >&2; exit 1; } ;;
    *) echo "unexpected output $f" >&2; exit 1 ;;
  esac
done
[ "$#" -eq 9 ] || { echo "expected 9 outputs, got $#" >&2; exit 1; }
echo "ok: $# outputs"
