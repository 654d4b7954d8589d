#!/usr/bin/env bash
# Installs what kiln's tests need on a Debian machine: the oracle tools (ABC, yosys,
# Verilator, Icarus Verilog, Graphviz), the RISC-V toolchain with picolibc and (from
# ../shared when present) Spike for `kiln cosim`, GTKWave (its VCD reader checks `kiln sim --vcd`), Neovim and Emacs with eglot (for README's editor
# snippets) and CIRCT's parser/verifier (PyPI `pycde`, in a venv under target/). Idempotent;
# silent when everything is present.
set -euo pipefail
need=()
python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
for pkg_cmd in berkeley-abc:berkeley-abc yosys:yosys verilator:verilator iverilog:iverilog graphviz:dot gtkwave:vcd2fst neovim:nvim emacs-nox:emacs device-tree-compiler:dtc gcc-riscv64-unknown-elf:riscv64-unknown-elf-gcc zstd:zstd; do
  pkg=${pkg_cmd%%:*}; cmd=${pkg_cmd##*:}
  command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done
# eglot is built into Emacs 29+; Debian 12's Emacs 28 has it from elpa-eglot.
eglot='(progn (package-initialize) (require (quote eglot)))'
emacs --batch -q --eval "$eglot" >/dev/null 2>&1 || need+=(elpa-eglot)
# RISC-V programs for `kiln cosim`: picolibc, and what the Spike build needs at run time.
[ -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] || need+=(picolibc-riscv64-unknown-elf)
ldconfig -p 2>/dev/null | grep -q libboost_regex.so.1.74.0 || need+=(libboost-regex1.74.0)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
for cmd in berkeley-abc yosys verilator iverilog dot vcd2fst nvim emacs dtc riscv64-unknown-elf-gcc zstd; do
  command -v "$cmd" >/dev/null 2>&1 || { echo "setup: $cmd still missing after install" >&2; exit 1; }
done
emacs --batch -q --eval "$eglot" >/dev/null 2>&1 || { echo "setup: eglot still missing after install" >&2; exit 1; }
# Spike (the RISC-V ISA simulator, v1.1.0 with its extension headers) for `kiln cosim`: the
# prebuilt tarball of ../shared/tools/spike unpacks to /opt/spike (its rpath is fixed there).
SPIKE_TAR=$(cd "$(dirname "$0")/.." && pwd)/../shared/tools/spike/spike-install.tar.zst
if [ ! -x /opt/spike/bin/spike ] && [ -f "$SPIKE_TAR" ]; then
  echo "setup: unpacking Spike into /opt/spike" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  zstd -dc "$SPIKE_TAR" | $SUDO tar -x -C /opt
  /opt/spike/bin/spike --help 2>&1 | grep -q "Spike RISC-V ISA Simulator" || { echo "setup: Spike unusable" >&2; exit 1; }
fi
# CIRCT (hw/seq/comb/synth dialects) for checking the emitted Synth MLIR: scripts/circt_check.py.
CIRCT_VENV=$(cd "$(dirname "$0")/.." && pwd)/target/circt-venv
if ! "$CIRCT_VENV/bin/python" -c 'import pycde.circt' >/dev/null 2>&1; then
  echo "setup: installing pycde (CIRCT Python bindings) into $CIRCT_VENV" >&2
  rm -rf "$CIRCT_VENV"
  python3 -m venv "$CIRCT_VENV"
  "$CIRCT_VENV/bin/pip" install -q 'pycde==0.12.1'
  "$CIRCT_VENV/bin/python" -c 'import pycde.circt' || { echo "setup: pycde unusable" >&2; exit 1; }
fi
# cargo-fuzz for scripts/fuzz.sh (the fuzz targets run on stable with RUSTC_BOOTSTRAP=1).
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "setup: installing cargo-fuzz from crates.io" >&2
  cargo install cargo-fuzz --version 0.13.2 --locked --quiet
  command -v cargo-fuzz >/dev/null 2>&1 || { echo "setup: cargo-fuzz still missing after install" >&2; exit 1; }
fi
