"""bzlmod set-up of the kiln toolchain (`MODULE.bazel`; WORKSPACE: `repositories.bzl`).

rules_kiln's own MODULE.bazel registers `@kiln_toolchains//:toolchain`, whose kiln binary is
`$KILN_BINARY` or `kiln` on `PATH`. The root module can point it at a release archive:

```starlark
kiln = use_extension("@rules_kiln//:extensions.bzl", "kiln")
kiln.toolchain(urls = ["https://.../kiln-0.1.0-x86_64-unknown-linux-gnu.tar.zst"], sha256 = "...")
```
"""

load("//:toolchain_repo.bzl", "kiln_toolchain_repository")

_toolchain = tag_class(
    doc = "Where the kiln binary of `@kiln_toolchains` comes from (the root module's tag wins).",
    attrs = {
        "sha256": attr.string(doc = "SHA-256 of the release archive."),
        "urls": attr.string_list(doc = "URLs of a `kiln-<version>-<target>.tar.zst` release archive."),
    },
)

def _kiln_impl(mctx):
    # Modules come root first: the first tag found is the root module's when it has one.
    tags = [t for m in mctx.modules for t in m.tags.toolchain]
    urls = tags[0].urls if tags else []
    sha256 = tags[0].sha256 if tags else ""
    kiln_toolchain_repository(name = "kiln_toolchains", urls = urls, sha256 = sha256)

kiln = module_extension(
    implementation = _kiln_impl,
    tag_classes = {"toolchain": _toolchain},
)
