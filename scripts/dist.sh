#!/usr/bin/env bash
# Release archive: builds kiln with the `dist` profile (release code, no debug info,
# stripped) and packs kiln-<version>-<target>.tar.zst with
#   bin/kiln
#   share/man/man1/kiln.1, kiln-<command>.1            (kiln man)
#   share/bash-completion/completions/kiln, share/zsh/site-functions/_kiln,
#   share/fish/vendor_completions.d/kiln.fish          (kiln completions)
#   share/kiln/bazel/   the Bazel rules (the rules_kiln module/repository)
#   share/kiln/buck2/   the Buck2 rules (kiln.bzl)
#   README.md
# under one top directory kiln-<version>-<target>/, plus kiln-<version>-<target>.tar.zst.sha256
# (`sha256sum -c` format). The archive is reproducible: sorted names, owner 0, file times
# set to the commit's time.
#
# Usage: scripts/dist.sh [-o OUT_DIR]   (default target/archives); prints the archive's path.
# <target> is the host's (rustc -vV); CARGO_TARGET_DIR is honoured as by cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/target/archives
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--out-dir) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "dist: unknown argument $1 (usage: scripts/dist.sh [-o OUT_DIR])" >&2; exit 2 ;;
  esac
done
command -v zstd >/dev/null || { echo "dist: zstd is required (Debian: apt-get install zstd)" >&2; exit 1; }

TARGET=$(rustc -vV | sed -n 's/^host: //p')
VERSION=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$VERSION" ] || { echo "dist: no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
NAME=kiln-$VERSION-$TARGET

echo "dist: cargo build --locked --profile dist (kiln $VERSION, $TARGET)" >&2
cargo build --locked --profile dist -p kiln-client --bin kiln
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/dist/kiln

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
D=$STAGE/$NAME
mkdir -p "$D/bin" "$D/share/man/man1" "$D/share/bash-completion/completions" \
  "$D/share/zsh/site-functions" "$D/share/fish/vendor_completions.d" "$D/share/kiln"
install -m 0755 "$BIN" "$D/bin/kiln"
# Pages and completions come from the binary itself.
GEN=$D/bin/kiln
"$GEN" man -o "$D/share/man/man1"
"$GEN" completions bash > "$D/share/bash-completion/completions/kiln"
"$GEN" completions zsh > "$D/share/zsh/site-functions/_kiln"
"$GEN" completions fish > "$D/share/fish/vendor_completions.d/kiln.fish"
# The rules as the repository tracks them (no build outputs or local files).
for d in bazel buck2; do
  src=$d; [ "$d" = buck2 ] && src=buck2-rules
  git ls-files -z -- "$src" ':!:buck2-rules/check' | while IFS= read -r -d '' f; do
    mkdir -p "$D/share/kiln/$d/$(dirname "${f#"$src"/}")"
    cp "$f" "$D/share/kiln/$d/${f#"$src"/}"
  done
done
cp README.md "$D/README.md"

# Reproducible: every file's time is the commit's, names sorted, no owners.
STAMP=$(git log -1 --format=%ct 2>/dev/null || echo 0)
mkdir -p "$OUT"
ARCHIVE=$OUT/$NAME.tar.zst
tar -C "$STAGE" --sort=name --mtime="@$STAMP" --owner=0 --group=0 --numeric-owner \
  --mode='u+rwX,go+rX,go-w' -cf - "$NAME" | zstd -q -19 -T0 -f -o "$ARCHIVE"
(cd "$OUT" && sha256sum "$NAME.tar.zst" > "$NAME.tar.zst.sha256")
echo "dist: $ARCHIVE ($(stat -c %s "$ARCHIVE") bytes; bin/kiln $(stat -c %s "$D/bin/kiln") bytes)" >&2
echo "$ARCHIVE"
