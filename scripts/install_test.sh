#!/usr/bin/env bash
# A new user's path, from a fresh clone of the committed tree (HEAD):
#  1. README.md's first set-up line (`cargo install ...`) and then every `sh` block of its
#     *Bazel* section, extracted from README.md and run exactly as written, on this Debian
#     machine as it is offline: its ~/.bazelrc points the repositories `bazel test` fetches
#     at local stand-ins (scripts/bazel_offline_lib.sh); bazel_skylib is Debian's
#     bazel-skylib, which the rules find themselves. The installed `kiln --version` names
#     the clone's commit.
#  2. scripts/dist.sh in the clone: the archive's checksum file verifies, it holds the
#     binary (stripped), man pages kiln.1 and kiln-<command>.1 for every command, the bash,
#     zsh and fish completions and the Bazel and Buck2 rules, and the archived binary's
#     `--version` names the commit.
#  3. The rules' test module (bazel/e2e, as the archive ships it) built and tested in
#     WORKSPACE mode with the toolchain taken from the release archive (a file:// URL and
#     its SHA-256; no kiln on PATH): every action runs the archive's binary. Without any
#     kiln binary, building a kiln target fails with the toolchain's message.
# Needs what scripts/bazel_test.sh installs (Bazel 4.2.3, bazel-skylib, bazel-rules-java).
# CARGO_TARGET_DIR is shared with the repository's (default target/) so that dependencies
# built with the `dist` profile are reused; cargo installs into a temporary root.
set -euo pipefail
START=$SECONDS
cd "$(dirname "$0")/.."
ROOT=$PWD
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
for cmd in bazel git zstd; do
  command -v "$cmd" >/dev/null || fail "$cmd is not installed (scripts/bazel_test.sh installs Bazel)"
done
[ -f /usr/share/bazel/tools/skylib/rules/common_settings.bzl ] || fail "Debian's bazel-skylib is not installed"
git diff --quiet HEAD -- 2>/dev/null || echo "install_test: note: uncommitted changes are not part of the clone tested" >&2

TMP=$(mktemp -d)
BAZEL_DIRS=()
cleanup() {
  for d in "${BAZEL_DIRS[@]}"; do (cd "$d" 2>/dev/null && HOME=$TMP/home bazel shutdown >/dev/null 2>&1) || true; done
  chmod -R u+w "$TMP" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

# The environment of a user on an offline Debian machine; cargo and rustup keep theirs.
export CARGO_HOME=${CARGO_HOME:-$HOME/.cargo} RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export CARGO_INSTALL_ROOT=$TMP/install
PATH_WITHOUT_KILN=$PATH
for p in $(type -ap kiln); do
  d=$(dirname "$p")
  PATH_WITHOUT_KILN=$(printf '%s' "$PATH_WITHOUT_KILN" | tr ':' '\n' | grep -vxF "$d" | paste -sd: -)
done
export PATH=$CARGO_INSTALL_ROOT/bin:$PATH_WITHOUT_KILN
unset KILN_BINARY
mkdir -p "$TMP/home"
source scripts/bazel_offline_lib.sh
bazel_offline_rc "$TMP/overrides" > "$TMP/home/.bazelrc"
export HOME=$TMP/home

CLONE=$TMP/kiln
git clone -q "$ROOT" "$CLONE"
COMMIT=$(git -C "$CLONE" rev-parse --short=12 HEAD)
COMMIT_TEXT="$COMMIT $(git -C "$CLONE" log -1 --format=%cs HEAD)"

# 1. The README's commands, as written.
python3 - "$CLONE/README.md" "$TMP/readme.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()

def section(title, level):
    """The text under the heading `title` of this level, up to the next heading of it or above."""
    m = re.search(r"^%s %s\s*$" % ("#" * level, re.escape(title)), text, re.M)
    if not m:
        sys.exit("README.md: no heading `%s %s`" % ("#" * level, title))
    rest = text[m.end():]
    end = re.search(r"^#{1,%d} " % level, rest, re.M)
    return rest[: end.start()] if end else rest

def sh_blocks(body):
    return re.findall(r"^```sh\n(.*?)^```", body, re.S | re.M)

setup = sh_blocks(section("Set-up", 2))
install = [l for l in setup[0].splitlines() if l.strip()][0] if setup else ""
if not install.startswith("cargo install "):
    sys.exit("README.md: the first set-up line is not `cargo install ...`: %r" % install)
bazel = sh_blocks(section("Bazel", 3))
if not bazel:
    sys.exit("README.md: no sh block in the Bazel section")
with open(sys.argv[2], "w") as out:
    out.write("set -euxo pipefail\n" + install + "\n" + "\n".join(bazel))
PY
[ -s "$TMP/readme.sh" ] || fail "no commands extracted from README.md"
echo "install_test: README commands:" >&2
sed '1d; s/^/  | /' "$TMP/readme.sh" >&2
BAZEL_DIRS+=("$CLONE/examples/bazel")
T0=$SECONDS
(cd "$CLONE" && bash "$TMP/readme.sh") >"$TMP/readme.log" 2>&1 || { tail -60 "$TMP/readme.log" >&2; fail "a README command failed (log above)"; }
echo "install_test: the README's set-up line and Bazel section ran as written ($((SECONDS - T0)) s)" >&2
[ "$(command -v kiln)" = "$CARGO_INSTALL_ROOT/bin/kiln" ] || fail "cargo install did not put kiln on PATH"
[ "$(kiln --version)" = "kiln $(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$CLONE/Cargo.toml") ($COMMIT_TEXT)" ] \
  || fail "kiln --version: $(kiln --version), expected the commit $COMMIT_TEXT"
echo "install_test: installed $(kiln --version), $(stat -c %s "$(command -v kiln)") bytes" >&2
(cd "$CLONE/examples/bazel" && bazel shutdown >/dev/null 2>&1) || true

# 2. The release archive.
T0=$SECONDS
ARCHIVE=$(cd "$CLONE" && scripts/dist.sh -o "$TMP/archives" 2>"$TMP/dist.log") || { cat "$TMP/dist.log" >&2; fail "scripts/dist.sh"; }
NAME=$(basename "$ARCHIVE" .tar.zst)
(cd "$TMP/archives" && sha256sum -c --quiet "$NAME.tar.zst.sha256") || fail "the archive's checksum does not verify"
mkdir -p "$TMP/x"
tar --zstd -xf "$ARCHIVE" -C "$TMP/x"
X=$TMP/x/$NAME
[ "$(tar --zstd -tf "$ARCHIVE" | cut -d/ -f1 | sort -u)" = "$NAME" ] || fail "the archive has more than one top directory"
for f in bin/kiln README.md share/bash-completion/completions/kiln share/zsh/site-functions/_kiln \
  share/fish/vendor_completions.d/kiln.fish share/kiln/bazel/defs.bzl share/kiln/bazel/MODULE.bazel \
  share/kiln/bazel/repositories.bzl share/kiln/bazel/e2e/MODULE.bazel share/kiln/buck2/kiln.bzl; do
  [ -s "$X/$f" ] || fail "the archive has no $f"
done
[ "$("$X/bin/kiln" --version)" = "$(kiln --version)" ] || fail "archived kiln --version: $("$X/bin/kiln" --version)"
readelf -S "$X/bin/kiln" | grep -qE '\.(debug_info|symtab)' && fail "the archived binary is not stripped"
COMMANDS=$("$X/bin/kiln" help 2>/dev/null | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && $1 != "help" && NF {print $1}')
for c in $COMMANDS; do
  [ -s "$X/share/man/man1/kiln-$c.1" ] || fail "no man page kiln-$c.1"
done
[ -s "$X/share/man/man1/kiln.1" ] || fail "no man page kiln.1"
bash -n "$X/share/bash-completion/completions/kiln" || fail "the bash completion is not valid bash"
diff <(cd "$CLONE/bazel" && git ls-files | sort) <(cd "$X/share/kiln/bazel" && find . -type f | sed 's#^\./##' | sort) >&2 \
  || fail "share/kiln/bazel is not the rules' tracked files"
echo "install_test: $NAME.tar.zst: $(stat -c %s "$ARCHIVE") bytes, checksum verified, bin/kiln $(stat -c %s "$X/bin/kiln") bytes (stripped), $(ls "$X/share/man/man1" | wc -l) man pages, $("$X/bin/kiln" --version) ($((SECONDS - T0)) s)" >&2

# 3. The test module with the toolchain from the archive, in WORKSPACE mode.
E2E=$X/share/kiln/bazel/e2e
BAZEL_DIRS+=("$E2E")
SHA=$(cut -c1-64 "$TMP/archives/$NAME.tar.zst.sha256")
sed -i "s#^kiln_register_toolchains()#kiln_register_toolchains(\n    sha256 = \"$SHA\",\n    urls = [\"file://$ARCHIVE\"],\n)#" "$E2E/WORKSPACE"
grep -q "file://$ARCHIVE" "$E2E/WORKSPACE" || fail "could not point the test module at the archive"
cd "$E2E"
T0=$SECONDS
PATH=$PATH_WITHOUT_KILN bazel test //... >"$TMP/e2e.log" 2>&1 || { cat "$TMP/e2e.log" >&2; fail "the test module with the archive's toolchain"; }
grep -q "1 test passes" "$TMP/e2e.log" || { cat "$TMP/e2e.log" >&2; fail "the test module's build_test did not pass"; }
PATH=$PATH_WITHOUT_KILN bazel aquery --output=text //:full_adder >"$TMP/aquery.log" 2>&1 || { cat "$TMP/aquery.log" >&2; fail "bazel aquery"; }
grep -q "Command Line: (exec external/kiln_toolchains/bin/kiln" "$TMP/aquery.log" || fail "//:full_adder does not run the toolchain's kiln"
cmp -s "$(bazel info output_base 2>/dev/null)/external/kiln_toolchains/bin/kiln" "$X/bin/kiln" || fail "the toolchain's kiln is not the archive's"
echo "install_test: test module (bazel/e2e) built and tested with the archive's toolchain ($((SECONDS - T0)) s)" >&2
# Without any kiln binary the kiln targets fail with the toolchain's message.
sed -i '/^kiln_register_toolchains(/,/^)/c kiln_register_toolchains()' "$E2E/WORKSPACE"
PATH=$PATH_WITHOUT_KILN bazel build //:full_adder >"$TMP/missing.log" 2>&1 && fail "a build without any kiln binary succeeded"
grep -q "no kiln binary for the kiln toolchain" "$TMP/missing.log" || { cat "$TMP/missing.log" >&2; fail "no toolchain message without a kiln binary"; }
echo "install_test: without a kiln binary: $(grep -m1 -o 'no kiln binary for the kiln toolchain[^;]*' "$TMP/missing.log")" >&2
echo "install_test: ok ($((SECONDS - START)) s)" >&2
