"""Bazel rules for kiln.

- `kiln_aps_library`: TOR/APS MLIR -> `<stem>.cmt2.mlir` and `<stem>.rules.json`.
- `kiln_blif_aig`: BLIF -> binary AIGER `<stem>.aig`.
- `kiln_toolchain`: the `kiln` binary, registered for `@rules_kiln//:toolchain_type`.

Every action runs `kiln worker` with its per-action arguments in an `@flagfile`, declares
all of its inputs (sources and the `kiln` binary, a tool input) so it runs under
sandboxing and remote execution, and supports persistent (singleplex and multiplex)
workers. Outputs go to `<target name>/` in the package's output directory.

`--define=kiln_worker_protocol=json` selects Bazel's JSON worker protocol (Bazel 4 also
needs `--experimental_worker_allow_json_protocol`); the default is protobuf.
`--define=kiln_worker_multiplex=0` keeps the actions on singleplex workers.
"""

KilnToolchainInfo = provider(
    doc = "The kiln binary.",
    fields = {"kiln": "FilesToRunProvider of the kiln executable"},
)

KilnApsInfo = provider(
    doc = "Outputs of an APS compile.",
    fields = {
        "cmt2": "File: the CMT2 MLIR circuit",
        "rules_json": "File: the rules JSON",
        "src": "File: the APS MLIR input",
    },
)

KilnAigInfo = provider(
    doc = "Outputs of a BLIF to AIG lowering.",
    fields = {
        "aig": "File: binary AIGER",
        "src": "File: the BLIF input",
    },
)

_TOOLCHAIN = str(Label("//:toolchain_type"))

def _kiln_toolchain_impl(ctx):
    info = KilnToolchainInfo(kiln = ctx.attr.kiln[DefaultInfo].files_to_run)
    return [platform_common.ToolchainInfo(kiln = info)]

kiln_toolchain = rule(
    implementation = _kiln_toolchain_impl,
    doc = "Declares the kiln binary used by the kiln rules.",
    attrs = {
        "kiln": attr.label(
            doc = "The kiln executable.",
            executable = True,
            cfg = "exec",
            allow_files = True,
            mandatory = True,
        ),
    },
)

def _stem(f):
    return f.basename[:-len("." + f.extension)] if f.extension else f.basename

def _run_kiln(ctx, src, outputs, kinds, mnemonic):
    """Declares one `kiln worker` action building `src` into the outputs' directory."""
    kiln = ctx.toolchains[_TOOLCHAIN].kiln.kiln
    protocol = ctx.var.get("kiln_worker_protocol", "proto")
    args = ctx.actions.args()
    args.add("--out-dir", outputs[0].dirname)
    for kind in kinds:
        args.add("--kind", kind)
    args.add(src)
    args.use_param_file("@%s", use_always = True)
    args.set_param_file_format("multiline")
    requirements = {
        "supports-worker-cancellation": "1",
        "supports-workers": "1",
    }
    if ctx.var.get("kiln_worker_multiplex", "1") != "0":
        requirements["supports-multiplex-workers"] = "1"
    if protocol == "json":
        requirements["requires-worker-protocol"] = "json"
    ctx.actions.run(
        executable = kiln,
        arguments = ["worker", "--worker-protocol=" + protocol, args],
        inputs = [src],
        outputs = outputs,
        mnemonic = mnemonic,
        progress_message = "kiln %s %s" % (mnemonic, src.short_path),
        execution_requirements = requirements,
    )

def _kiln_aps_library_impl(ctx):
    src = ctx.file.src
    stem = _stem(src)
    cmt2 = ctx.actions.declare_file("%s/%s.cmt2.mlir" % (ctx.label.name, stem))
    rules_json = ctx.actions.declare_file("%s/%s.rules.json" % (ctx.label.name, stem))
    _run_kiln(ctx, src, [cmt2, rules_json], ["cmt2", "rules-json"], "KilnAps")
    files = [cmt2, rules_json]
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files)),
        KilnApsInfo(cmt2 = cmt2, rules_json = rules_json, src = src),
        OutputGroupInfo(cmt2 = depset([cmt2]), rules_json = depset([rules_json])),
    ]

kiln_aps_library = rule(
    implementation = _kiln_aps_library_impl,
    doc = "Compiles a TOR/APS MLIR design to CMT2 MLIR and rules JSON.",
    attrs = {
        "src": attr.label(
            doc = "The APS MLIR file (a module with `tor.design`).",
            allow_single_file = [".mlir"],
            mandatory = True,
        ),
    },
    toolchains = [_TOOLCHAIN],
)

def _kiln_blif_aig_impl(ctx):
    src = ctx.file.src
    aig = ctx.actions.declare_file("%s/%s.aig" % (ctx.label.name, _stem(src)))
    _run_kiln(ctx, src, [aig], ["aig"], "KilnAig")
    return [
        DefaultInfo(files = depset([aig]), runfiles = ctx.runfiles(files = [aig])),
        KilnAigInfo(aig = aig, src = src),
    ]

kiln_blif_aig = rule(
    implementation = _kiln_blif_aig_impl,
    doc = "Lowers a BLIF model to a binary AIGER file.",
    attrs = {
        "src": attr.label(
            doc = "The BLIF file.",
            allow_single_file = [".blif"],
            mandatory = True,
        ),
    },
    toolchains = [_TOOLCHAIN],
)
