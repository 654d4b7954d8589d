"""Bazel rules for kiln.

- `kiln_aps_library`: TOR/APS MLIR -> `<stem>.cmt2.mlir`, `<stem>.rules.json` and (unless
  `sv = False`) `<stem>.sv`.
- `kiln_blif_aig`: BLIF -> binary AIGER `<stem>.aig`.
- `kiln_blif_library`: a directory of per-unit BLIF files (the Handshake unit library).
- `kiln_handshake_synth`: Handshake MLIR + a `kiln_blif_library` -> `<stem>.synth.mlir`,
  `<stem>.aig`, `<stem>.blif` (flat) and `<stem>.hier.blif`.
- `kiln_toolchain`: the `kiln` binary, registered for `@rules_kiln//:toolchain_type`.

Every action runs `kiln worker` with its per-action arguments in an `@flagfile`, declares
all of its inputs (sources and the `kiln` binary, a tool input) so it runs under
sandboxing and remote execution, and supports persistent (singleplex and multiplex)
workers. Outputs go to `<target name>/` in the package's output directory.

`--define=kiln_worker_protocol=json` selects Bazel's JSON worker protocol (Bazel 4 also
needs `--experimental_worker_allow_json_protocol`); the default is protobuf.
`--define=kiln_worker_multiplex=0` keeps the actions on singleplex workers.
`--define=kiln_worker_log=1` makes the workers log one line per request (with the number of
Bazel's input digests they used) in their log files under `<output_base>/bazel-workers/`.
`--define=kiln_input_digests=ignore` stops the workers from using Bazel's input digests
(needed when Bazel's digest function is not SHA-256, e.g. `--digest_function=blake3`).
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
        "sv": "File: the SystemVerilog circuit, or None",
    },
)

KilnBlifLibraryInfo = provider(
    doc = "A per-unit BLIF library for Handshake -> Synth.",
    fields = {
        "files": "depset of File: the library's BLIF files",
        "root": "string: execroot-relative directory the unit paths are relative to",
    },
)

KilnSynthInfo = provider(
    doc = "Outputs of a Handshake -> Synth lowering.",
    fields = {
        "aig": "File: binary AIGER of the flat circuit",
        "blif": "File: flat BLIF",
        "hier_blif": "File: hierarchical BLIF (top model + each used unit once)",
        "src": "File: the Handshake MLIR input",
        "synth_mlir": "File: Synth MLIR",
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

def _kiln_rule(implementation, doc, src_doc, src_files, attrs = {}):
    """A rule that runs kiln on one source file, its `src` attribute (plus `attrs`)."""
    src = attr.label(doc = src_doc, allow_single_file = src_files, mandatory = True)
    return rule(
        implementation = implementation,
        doc = doc,
        attrs = dict(attrs, src = src),
        toolchains = [_TOOLCHAIN],
    )

def _default_info(ctx, files):
    """The rule's files, as its default outputs and runfiles."""
    return DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files))

def _stem(f):
    return f.basename[:-len("." + f.extension)] if f.extension else f.basename

def _run_kiln(ctx, src, outputs, kinds, mnemonic, library = None):
    """Declares one `kiln worker` action building `src` into the outputs' directory.

    `library` (a KilnBlifLibraryInfo) adds `--blif-lib` and the library files as inputs.
    """
    kiln = ctx.toolchains[_TOOLCHAIN].kiln.kiln
    protocol = ctx.var.get("kiln_worker_protocol", "proto")
    args = ctx.actions.args()
    args.add("--out-dir", outputs[0].dirname)
    for kind in kinds:
        args.add("--kind", kind)
    inputs = [src]
    if library:
        args.add("--blif-lib", library.root)
        inputs = depset([src], transitive = [library.files])
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
    startup = ["worker", "--worker-protocol=" + protocol]
    if ctx.var.get("kiln_worker_log", "0") == "1":
        startup.append("--log-requests")
    if ctx.var.get("kiln_input_digests", "use") == "ignore":
        startup.append("--input-digests=ignore")
    ctx.actions.run(
        executable = kiln,
        arguments = startup + [args],
        inputs = inputs,
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
    files = [cmt2, rules_json]
    kinds = ["cmt2", "rules-json"]
    sv = None
    if ctx.attr.sv:
        sv = ctx.actions.declare_file("%s/%s.sv" % (ctx.label.name, stem))
        files.append(sv)
        kinds.append("sv")
    _run_kiln(ctx, src, files, kinds, "KilnAps")
    groups = {"cmt2": depset([cmt2]), "rules_json": depset([rules_json])}
    if sv:
        groups["sv"] = depset([sv])
    return [
        _default_info(ctx, files),
        KilnApsInfo(cmt2 = cmt2, rules_json = rules_json, src = src, sv = sv),
        OutputGroupInfo(**groups),
    ]

kiln_aps_library = _kiln_rule(
    _kiln_aps_library_impl,
    doc = "Compiles a TOR/APS MLIR design to CMT2 MLIR and rules JSON.",
    src_doc = "The APS MLIR file (a module with `tor.design`).",
    src_files = [".mlir"],
    attrs = {
        "sv": attr.bool(
            doc = "Also emit `<stem>.sv`, the SystemVerilog of the merged rule circuit.",
            default = True,
        ),
    },
)

def _kiln_blif_aig_impl(ctx):
    src = ctx.file.src
    aig = ctx.actions.declare_file("%s/%s.aig" % (ctx.label.name, _stem(src)))
    _run_kiln(ctx, src, [aig], ["aig"], "KilnAig")
    return [
        _default_info(ctx, [aig]),
        KilnAigInfo(aig = aig, src = src),
    ]

kiln_blif_aig = _kiln_rule(
    _kiln_blif_aig_impl,
    doc = "Lowers a BLIF model to a binary AIGER file.",
    src_doc = "The BLIF file.",
    src_files = [".blif"],
)

def _kiln_blif_library_impl(ctx):
    parts = [p for p in [ctx.label.workspace_root, ctx.label.package, ctx.attr.strip_prefix] if p]
    root = "/".join(parts)
    for f in ctx.files.srcs:
        if not f.path.startswith(root + "/"):
            fail("%s is not under the library root %s" % (f.path, root))
    files = depset(ctx.files.srcs)
    return [
        DefaultInfo(files = files),
        KilnBlifLibraryInfo(files = files, root = root),
    ]

kiln_blif_library = rule(
    implementation = _kiln_blif_library_impl,
    doc = "A per-unit BLIF library (`<unit>/<params>/<unit>.blif` under one root directory).",
    attrs = {
        "srcs": attr.label_list(
            doc = "The library's BLIF files (source files of this package).",
            allow_files = [".blif"],
            mandatory = True,
        ),
        "strip_prefix": attr.string(
            doc = "Directory, relative to the package, that unit paths are relative to.",
            default = "",
        ),
    },
)

def _kiln_handshake_synth_impl(ctx):
    src = ctx.file.src
    stem = _stem(src)
    names = ["synth.mlir", "aig", "blif", "hier.blif"]
    synth_mlir, aig, blif, hier_blif = [
        ctx.actions.declare_file("%s/%s.%s" % (ctx.label.name, stem, n))
        for n in names
    ]
    files = [synth_mlir, aig, blif, hier_blif]
    library = ctx.attr.library[KilnBlifLibraryInfo]
    _run_kiln(ctx, src, files, ["synth"], "KilnSynth", library = library)
    return [
        _default_info(ctx, files),
        KilnSynthInfo(
            aig = aig,
            blif = blif,
            hier_blif = hier_blif,
            src = src,
            synth_mlir = synth_mlir,
        ),
    ]

kiln_handshake_synth = _kiln_rule(
    _kiln_handshake_synth_impl,
    doc = "Lowers a Handshake MLIR circuit (one `handshake.func`) to Synth MLIR, AIGER and BLIF.",
    src_doc = "The Handshake MLIR file.",
    src_files = [".mlir"],
    attrs = {
        "library": attr.label(
            doc = "The unit library (a kiln_blif_library).",
            providers = [KilnBlifLibraryInfo],
            mandatory = True,
        ),
    },
)
