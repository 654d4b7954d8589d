"""WORKSPACE set-up of the kiln rules: their dependency and the kiln toolchain.

```starlark
local_repository(name = "rules_kiln", path = "...")   # or an http_archive of the rules
load("@rules_kiln//:repositories.bzl", "kiln_dependencies", "kiln_register_toolchains")
kiln_dependencies()
kiln_register_toolchains()
```

With bzlmod (`MODULE.bazel`), `extensions.bzl` does the same.
"""

load("//:toolchain_repo.bzl", "kiln_toolchain_repository", "skylib_repository")

def kiln_dependencies():
    """Declares `bazel_skylib` (the rules' build settings) unless the workspace already has it.

    A workspace that declares its own `bazel_skylib` first keeps it. Otherwise the
    repository is Debian's `bazel-skylib` package when it is installed (offline), else
    bazel-skylib 1.0.3 downloaded from GitHub (checked by SHA-256).
    """
    if "bazel_skylib" not in native.existing_rules():
        skylib_repository(name = "bazel_skylib")

def kiln_register_toolchains(name = "kiln_toolchains", urls = [], sha256 = "", register = True):
    """Declares the repository `@<name>` holding a kiln binary and registers its toolchain.

    The binary is, in this order: `$KILN_BINARY` (a path) when set; else the release archive
    at `urls` (`kiln-<version>-<target>.tar.zst` from `scripts/dist.sh`, checked against
    `sha256`); else `kiln` on `PATH` (e.g. from `cargo install`). After replacing a binary
    found on `PATH` or in `$KILN_BINARY`, `bazel sync --configure` makes Bazel look again.

    A binary built by Bazel itself (or any other label) needs no repository: declare a
    `kiln_toolchain(kiln = "//your:label")` and a `toolchain(...)` for
    `@rules_kiln//:toolchain_type`, then register that.

    Args:
      name: the repository's name; its toolchain is `@<name>//:toolchain`.
      urls: where the release archive can be downloaded (`file://` URLs too).
      sha256: the archive's SHA-256 (required with `urls`).
      register: also call `register_toolchains("@<name>//:toolchain")`.
    """
    kiln_toolchain_repository(name = name, urls = urls, sha256 = sha256)
    if register:
        native.register_toolchains("@%s//:toolchain" % name)
