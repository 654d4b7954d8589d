#!/bin/sh
# Checks kiln's outputs: the CMT2 circuit, the rules JSON and two binary AIGER files.
set -eu
for f in "$@"; do
  [ -s "$f" ] || { echo "missing or empty: $f" >&2; exit 1; }
  case "$f" in
    *.cmt2.mlir) grep -q "cmt2" "$f" || { echo "$f: no cmt2 ops" >&2; exit 1; } ;;
    *.rules.json) head -c 1 "$f" | grep -q '[{[]' || { echo "$f: not JSON" >&2; exit 1; } ;;
    *.aig) head -c 4 "$f" | grep -q '^aig ' || { echo "$f: not binary AIGER" >&2; exit 1; } ;;
    *) echo "unexpected output $f" >&2; exit 1 ;;
  esac
done
[ "$#" -eq 4 ] || { echo "expected 4 outputs, got $#" >&2; exit 1; }
echo "ok: $# outputs"
