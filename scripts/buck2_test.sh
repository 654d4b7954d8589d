#!/usr/bin/env bash
# Real-Buck2 check of the kiln rules (buck2-rules/kiln.bzl) on the example cell
# (examples/buck2), with the Buck2 binary built from source in the shared tools
# (../shared/tools/buck2 or $KILN_SHARED_DIR/tools/buck2; $KILN_BUCK2 names another binary):
#  - `buck2 build //hw/...` in the example's directory succeeds, every kiln action runs on
#    kiln's local persistent worker (Buck2's worker protocol over $WORKER_SOCKET: `buck2 log
#    what-ran` says `worker`, the worker's stderr file lists each command);
#  - the outputs are byte-identical to `kiln build --no-daemon`'s;
#  - an edit of one input rebuilds that target's action only, with the right outputs;
#  - `aps_config` (//csr/...): the CSR list's lanes in the SystemVerilog, outputs equal to
#    `kiln build --aps-config`'s, an edit of the YAML rebuilds that target only;
#  - with `-c kiln.daemon=start` the worker builds through kiln's daemon (whose workspace is
#    the project root): the daemon counts the builds, outputs unchanged;
#  - remote execution (`-c kiln.remote_execution=true`, `[buck2_re_client]` in
#    .buckconfig.local) on the BuildGrid + bot that scripts/bazel_test.sh uses
#    (scripts/buildgrid_lib.sh): every kiln action runs on the bot (the kiln binary is an
#    input), outputs identical, and after `buck2 clean` every action is a remote cache hit;
#  - with `-c kiln.remote_cache=true` (and `[buck2] default_allow_cache_upload`) the actions
#    run on the local worker and are uploaded to BuildGrid's cache: hits after `buck2 clean`.
# Without the binary it says why it skipped; under CI (CI=true) that is a failure.
# $KILN_TEST_BIN names a kiln binary to test in place of the release build;
# KILN_BUCK2_TEST_LOCAL=1 stops after the local checks (before remote execution and cache).
set -euo pipefail
START=$SECONDS
cd "$(dirname "$0")/.."
ROOT=$PWD
fail() { echo "buck2_test: FAIL: $*" >&2; exit 1; }

SHARED=${KILN_SHARED_DIR:-$ROOT/../shared}
BUCK2=${KILN_BUCK2:-}
if [ -z "$BUCK2" ]; then
  if [ -f "$SHARED/tools/buck2/buck2.zst" ]; then
    BUCK2=$ROOT/target/buck2/buck2
    # unpack.sh checks the binary's SHA-256.
    [ -x "$BUCK2" ] || sh "$SHARED/tools/buck2/unpack.sh" "$ROOT/target/buck2" >/dev/null \
      || fail "unpacking $SHARED/tools/buck2/buck2.zst"
  else
    [ "${CI:-}" = "true" ] && fail "no Buck2: $SHARED/tools/buck2/buck2.zst is missing (required under CI)"
    echo "buck2_test: skipped: no Buck2 binary ($SHARED/tools/buck2/buck2.zst is missing; set KILN_SHARED_DIR or KILN_BUCK2)" >&2
    exit 0
  fi
fi
"$BUCK2" --version >/dev/null 2>&1 || fail "$BUCK2 does not run"

# $KILN_TEST_BIN: a kiln binary already built (e.g. a debug build) in place of the release one.
if [ -n "${KILN_TEST_BIN:-}" ]; then
  KILN=$(realpath "$KILN_TEST_BIN")
else
  T0=$SECONDS
  cargo build --release -q -p kiln-client
  echo "buck2_test: kiln built ($((SECONDS - T0)) s)" >&2
  KILN=${CARGO_TARGET_DIR:-$ROOT/target}/release/kiln
fi

# The project as the repository lays it out (root .buckconfig, the rules, the example), in
# a private copy: its own Buck2 daemon and buck-out, stopped and removed afterwards.
TMP=$(mktemp -d)
P=$TMP/repo
EX=$P/examples/buck2
source scripts/buildgrid_lib.sh
cleanup() {
  (cd "$EX" 2>/dev/null && "$BUCK2" kill >/dev/null 2>&1) || true
  buildgrid_stop
  (cd "$P" 2>/dev/null && KILN_WORKSPACE=$P "$KILN" shutdown >/dev/null 2>&1) || true
  rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$P"
git ls-files -z .buckconfig .buckroot buck2-rules/kiln.bzl examples/buck2 | while IFS= read -r -d '' f; do
  mkdir -p "$P/$(dirname "$f")"; cp "$f" "$P/$f"
done
cp "$KILN" "$EX/toolchains/kiln"
export XDG_RUNTIME_DIR=$TMP/xdg KILN_CACHE_DIR=$TMP/cache
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
cd "$EX"
LOG=$TMP/buck2.log

# `buck2 build` of $PATTERN with the worker's log on; $1 = label, then extra arguments.
PATTERN=//hw/...
build() {
  local label=$1 t0=$SECONDS; shift
  touch "$TMP/marker"
  "$BUCK2" build "$PATTERN" -c kiln.worker_log=true "$@" >"$LOG" 2>&1 || { cat "$LOG" >&2; fail "$label: buck2 build"; }
  grep -q "BUILD SUCCEEDED" "$LOG" || { cat "$LOG" >&2; fail "$label: no BUILD SUCCEEDED"; }
  "$BUCK2" log what-ran >"$TMP/ran.txt" 2>/dev/null || fail "$label: buck2 log what-ran"
  echo "  $label: $(grep -m1 -o 'Commands: .*' "$LOG") ($((SECONDS - t0)) s)" >&2
}
# Kiln actions of the last command, by how they ran (`worker`, `local`, `remote`, ...).
ran() { awk -F'\t' -v how="$1" '$3 == how && $2 ~ /\(kiln_/' "$TMP/ran.txt" | wc -l; }
# The commands the kiln workers of the last command logged (their stderr files).
logged() { find /tmp/buck2_worker -name stderr -newer "$TMP/marker" 2>/dev/null | xargs -r cat | grep -c '^kiln worker: buck2 command: exit 0: ' || true; }
art() { find "$P/buck-out/v2/art/kiln_example" -path "*/${3:-hw}/__$1__/$1/$2" | head -1; }

# Reference: `kiln build` in process on the same inputs.
REF=$TMP/ref
"$KILN" build --no-daemon --emit sv --top burst_isax -o "$REF" hw/burst.mlir >/dev/null 2>&1 || fail "kiln build burst"
grep -q '^module burst_isax (' "$REF/burst.sv" || fail "kiln build --top does not name the SystemVerilog top"
"$KILN" build --no-daemon -o "$REF" hw/mux.blif >/dev/null 2>&1 || fail "kiln build mux"
"$KILN" build --no-daemon --blif-lib hw/handshake/library -o "$REF" hw/handshake/gcd.mlir >/dev/null 2>&1 || fail "kiln build gcd"
OUTS="burst:burst.cmt2.mlir burst:burst.rules.json burst:burst.sv mux:mux.aig gcd:gcd.synth.mlir gcd:gcd.aig gcd:gcd.blif gcd:gcd.hier.blif"
same_as_kiln_build() {
  local t f got
  for o in $OUTS; do
    t=${o%%:*}; f=${o#*:}
    got=$(art "$t" "$f")
    [ -n "$got" ] || fail "$1: no output $t/$f under buck-out"
    cmp -s "$got" "$REF/$f" || fail "$1: $t/$f differs from kiln build's"
  done
}

echo "buck2_test: $("$BUCK2" --version | cut -c1-60)" >&2
echo "buck2_test: cold build on kiln's persistent worker" >&2
build "cold build"
[ "$(ran worker)" -eq 3 ] || { cat "$TMP/ran.txt" >&2; fail "cold build: expected 3 kiln actions on the worker, got $(ran worker)"; }
[ "$(ran local)" -eq 0 ] || fail "cold build: kiln actions ran without the worker"
grep -q 'worker_init.*kiln worker --buck2' "$TMP/ran.txt" || { cat "$TMP/ran.txt" >&2; fail "no worker started"; }
[ "$(logged)" -eq 3 ] || fail "the worker's stderr lists $(logged) commands, expected 3"
same_as_kiln_build "cold build"
echo "  3 actions on the worker (its log lists each), 8 outputs byte-identical to kiln build" >&2

echo "buck2_test: edit one input" >&2
printf '# edited\n.model extra\n.inputs a\n.outputs y\n.names a y\n0 1\n.end\n' >> hw/mux.blif
"$KILN" build --no-daemon -o "$REF" hw/mux.blif >/dev/null 2>&1 || fail "kiln build of the edited mux"
build "after the edit"
[ "$(ran worker)" -eq 1 ] || { cat "$TMP/ran.txt" >&2; fail "edit: expected 1 kiln action, got $(ran worker)"; }
grep -q '(kiln_aig mux)' "$TMP/ran.txt" || fail "edit: the action that ran is not mux's"
same_as_kiln_build "after the edit"
echo "  only //hw:mux rebuilt, outputs identical" >&2

# aps_config (the SoC's CSR list) is an artifact of the action's arguments, so an input:
# //csr:csr's SystemVerilog top has the list's lanes (its names, in its order), //csr:csr_plain
# one per CSR global, both byte-identical to kiln build's; an edit of the YAML rebuilds
# //csr:csr only, with the new names.
echo "buck2_test: aps_config (the SoC's CSR list, an input of the action)" >&2
PATTERN=//csr/...
# The CSR lanes of a SystemVerilog top, in port order.
sv_lanes() { sed -n 's/^ *input  *logic \[31:0\] csr_\([A-Za-z0-9_]*\)_value_res0,\{0,1\}$/\1/p' "$1" | tr '\n' ' '; }
csr_check() { # $1 = label, $2 = the lanes //csr:csr must have
  local t got
  "$KILN" build --no-daemon --emit sv --aps-config csr/aps_config.yaml -o "$REF/csr" csr/csr.mlir >/dev/null 2>&1 || fail "kiln build csr"
  "$KILN" build --no-daemon --emit sv -o "$REF/csr_plain" csr/csr.mlir >/dev/null 2>&1 || fail "kiln build csr_plain"
  for t in csr csr_plain; do
    for f in csr.cmt2.mlir csr.rules.json csr.sv; do
      got=$(art "$t" "$f" csr)
      [ -n "$got" ] || fail "$1: no output csr/$t/$f under buck-out"
      cmp -s "$got" "$REF/$t/$f" || fail "$1: csr/$t/$f differs from kiln build's"
    done
  done
  [ "$(sv_lanes "$(art csr csr.sv csr)")" = "$2" ] || fail "$1: //csr:csr has the lanes [$(sv_lanes "$(art csr csr.sv csr)")], expected [$2]"
  [ "$(sv_lanes "$(art csr_plain csr.sv csr)")" = "cfg status " ] || fail "$1: //csr:csr_plain has the lanes [$(sv_lanes "$(art csr_plain csr.sv csr)")]"
}
build "aps_config"
[ "$(ran worker)" -eq 2 ] || { cat "$TMP/ran.txt" >&2; fail "aps_config: expected 2 kiln actions on the worker, got $(ran worker)"; }
csr_check "aps_config" "acc_status scale_cfg "
echo "  //csr:csr lanes [$(sv_lanes "$(art csr csr.sv csr)")], //csr:csr_plain [$(sv_lanes "$(art csr_plain csr.sv csr)")], outputs identical to kiln build" >&2
sed -i 's/name: scale_cfg/name: gain/' csr/aps_config.yaml
build "aps_config edit"
[ "$(ran worker)" -eq 1 ] || { cat "$TMP/ran.txt" >&2; fail "aps_config edit: expected 1 kiln action, got $(ran worker)"; }
grep -qF 'kiln_example//csr:csr (' "$TMP/ran.txt" || { cat "$TMP/ran.txt" >&2; fail "aps_config edit: the action that ran is not //csr:csr's"; }
csr_check "aps_config edit" "acc_status gain "
echo "  YAML edited: only //csr:csr rebuilt, lanes [$(sv_lanes "$(art csr csr.sv csr)")]" >&2
PATTERN=//hw/...

echo "buck2_test: through kiln's daemon (-c kiln.daemon=start)" >&2
build "daemon" -c kiln.daemon=start
[ "$(ran worker)" -eq 3 ] || fail "daemon: expected 3 kiln actions (a new worker key), got $(ran worker)"
same_as_kiln_build "daemon"
KILN_WORKSPACE=$P "$KILN" stats --json >"$TMP/stats.json" || fail "no kiln daemon for the project root"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["builds"] == 3, s["builds"]' "$TMP/stats.json" \
  || fail "the daemon did not build the 3 actions: $(cat "$TMP/stats.json")"
echo "  the daemon built the 3 actions (kiln stats), outputs identical" >&2

if [ "${KILN_BUCK2_TEST_LOCAL:-}" = 1 ]; then
  echo "buck2_test: ok, local checks only (KILN_BUCK2_TEST_LOCAL=1: no remote execution or cache) ($((SECONDS - START)) s)" >&2
  exit 0
fi

echo "buck2_test: remote execution on BuildGrid (REAPI) with a bot" >&2
"$BUCK2" kill >/dev/null 2>&1 || true
buildgrid_install
buildgrid_start
printf '[buck2_re_client]\n  engine_address = grpc://127.0.0.1:%s\n  action_cache_address = grpc://127.0.0.1:%s\n  cas_address = grpc://127.0.0.1:%s\n  tls = false\n' \
  "$BG_PORT" "$BG_PORT" "$BG_PORT" > "$P/.buckconfig.local"
RE=(-c kiln.remote_execution=true -c "kiln.re_pool=$BG_POOL")
"$BUCK2" clean >/dev/null 2>&1 || true
build "remote execution" "${RE[@]}"
[ "$(ran "re(kiln-pool=$BG_POOL)")" -eq 3 ] || { cat "$TMP/ran.txt" >&2; fail "remote execution: expected 3 remote kiln actions"; }
[ "$(grep -c ' executed [0-9a-f]* runner=buildbox-run exit=0 .* argv=examples/buck2/toolchains/kiln worker ' "$BG_DIR/bot.log")" -eq 3 ] \
  || { cat "$BG_DIR/bot.log" >&2; fail "remote execution: the bot's log does not list 3 kiln actions"; }
same_as_kiln_build "remote execution"
"$BUCK2" clean >/dev/null 2>&1 || true
build "after buck2 clean" "${RE[@]}"
grep -q 'Commands: 3 (cached: 3, remote: 0, local: 0)' "$LOG" || fail "after clean: expected 3 remote cache hits"
same_as_kiln_build "remote cache hits"
echo "  3 kiln actions run by buildbox-run on the bot, outputs identical; 3 remote cache hits after buck2 clean" >&2

echo "buck2_test: local actions with BuildGrid's cache (-c kiln.remote_cache=true)" >&2
"$BUCK2" kill >/dev/null 2>&1 || true
printf '[buck2]\n  default_allow_cache_upload = true\n' >> "$P/.buckconfig.local"
RC=(-c kiln.remote_cache=true)
"$BUCK2" clean >/dev/null 2>&1 || true
build "remote cache, first build" "${RC[@]}"
[ "$(ran worker)" -eq 3 ] || { cat "$TMP/ran.txt" >&2; fail "remote cache: expected 3 kiln actions on the local worker, got $(ran worker)"; }
same_as_kiln_build "remote cache, first build"
"$BUCK2" clean >/dev/null 2>&1 || true
build "remote cache, after buck2 clean" "${RC[@]}"
grep -q 'Commands: 3 (cached: 3, remote: 0, local: 0)' "$LOG" || { cat "$TMP/ran.txt" >&2; fail "remote cache: expected 3 hits of the worker's uploads after clean"; }
same_as_kiln_build "remote cache hits of uploads"
echo "  3 kiln actions on the local worker, uploaded; 3 remote cache hits after buck2 clean, outputs identical" >&2

echo "buck2_test: ok ($((SECONDS - START)) s)" >&2
