#!/usr/bin/env bash
# Installs what kiln's tests need on a Debian machine: the oracle tools (ABC, yosys,
# Verilator, Icarus Verilog, Graphviz). Idempotent; silent when everything is present.
set -euo pipefail
need=()
for pkg_cmd in berkeley-abc:berkeley-abc yosys:yosys verilator:verilator iverilog:iverilog graphviz:dot; do
  pkg=${pkg_cmd%%:*}; cmd=${pkg_cmd##*:}
  command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
for cmd in berkeley-abc yosys verilator iverilog dot; do
  command -v "$cmd" >/dev/null 2>&1 || { echo "setup: $cmd still missing after install" >&2; exit 1; }
done
