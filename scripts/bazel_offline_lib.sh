# Sourced by the Bazel tests: `bazel_offline_rc DIR` writes offline stand-ins for the
# repositories `bazel test` fetches (remote_coverage_tools, rules_cc; rules_java is
# Debian's bazel-rules-java) under DIR and prints the bazelrc lines that point Bazel at
# them. Bazel 4.2.3 needs them for any test target; CI has no access to their downloads.
bazel_offline_rc() {
  local ov=$1
  mkdir -p "$ov/remote_coverage_tools" "$ov/rules_cc/cc"
  touch "$ov/remote_coverage_tools/WORKSPACE" "$ov/rules_cc/WORKSPACE" "$ov/rules_cc/BUILD" "$ov/rules_cc/cc/BUILD"
  printf '#!/bin/sh\nexit 0\n' > "$ov/remote_coverage_tools/noop.sh"
  chmod +x "$ov/remote_coverage_tools/noop.sh"
  cat > "$ov/remote_coverage_tools/BUILD" <<'B'
package(default_visibility = ["//visibility:public"])
sh_binary(name = "coverage_report_generator", srcs = ["noop.sh"])
sh_binary(name = "lcov_merger", srcs = ["noop.sh"])
B
  cat > "$ov/rules_cc/cc/defs.bzl" <<'B'
"""Forwards the rules_cc macros to the native rules."""
def cc_binary(**kw): native.cc_binary(**kw)
def cc_library(**kw): native.cc_library(**kw)
def cc_test(**kw): native.cc_test(**kw)
def cc_proto_library(**kw): native.cc_proto_library(**kw)
def cc_toolchain(**kw): native.cc_toolchain(**kw)
def cc_toolchain_suite(**kw): native.cc_toolchain_suite(**kw)
def cc_import(**kw): native.cc_import(**kw)
def objc_library(**kw): native.objc_library(**kw)
B
  printf '%s\n' "build --override_repository=remote_coverage_tools=$ov/remote_coverage_tools" \
    "build --override_repository=rules_cc=$ov/rules_cc" \
    "build --override_repository=rules_java=/usr/share/bazel/rules/java"
}
