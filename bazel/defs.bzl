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
workers, with multiplex sandboxing where Bazel offers it. Outputs go to `<target name>/`
in the package's output directory.

Build settings (bazel_skylib flags of `@rules_kiln`, e.g. `--@rules_kiln//:worker_protocol=json`):

- `worker_protocol` (`proto`, `json`): Bazel's worker wire format (Bazel 4 needs
  `--experimental_worker_allow_json_protocol` for JSON); default `proto`.
- `worker_multiplex` (bool, default true): multiplex workers (false: singleplex only).
- `worker_log` (bool, default false): the workers log one line per request (with the number
  of Bazel's input digests they used) in their log files under `<output_base>/bazel-workers/`.
- `input_digests` (`use`, `ignore`): `ignore` stops the workers from using Bazel's input
  digests (needed when Bazel's digest function is not SHA-256, e.g. `--digest_function=blake3`).
- `daemon` (`use`, `start`, `never`): `use` builds through the workspace's kiln daemon when
  one runs, else in the worker; `start` also starts it (incremental rebuilds of one
  function, kept across Bazel servers); `never` builds in the worker only.

The former `--define=kiln_*` spellings are refused with the flag that replaces them.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")

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
    doc = "Declares the kiln binary used by the kiln rules; register it with a `toolchain()` " +
          "of `@rules_kiln//:toolchain_type` (`kiln_register_toolchains()` does this for a " +
          "binary on PATH or a release archive).",
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

# The build settings every kiln action reads: attribute name -> the setting's label.
_SETTINGS = {
    "_" + name: Label("//:" + name)
    for name in ["daemon", "input_digests", "worker_log", "worker_multiplex", "worker_protocol"]
}

# `--define` spellings of earlier versions, and the flags that replaced them.
_OLD_DEFINES = {
    "kiln_input_digests": "--@rules_kiln//:input_digests=ignore",
    "kiln_worker_log": "--@rules_kiln//:worker_log",
    "kiln_worker_multiplex": "--@rules_kiln//:worker_multiplex=false",
    "kiln_worker_protocol": "--@rules_kiln//:worker_protocol=json",
}

def _setting(ctx, name):
    return getattr(ctx.attr, "_" + name)[BuildSettingInfo].value

def _kiln_rule(implementation, doc, src_doc, src_files, attrs = {}):
    """A rule that runs kiln on one source file, its `src` attribute (plus `attrs`)."""
    src = attr.label(doc = src_doc, allow_single_file = src_files, mandatory = True)
    settings = {k: attr.label(default = v, providers = [BuildSettingInfo]) for k, v in _SETTINGS.items()}
    lints = attr.string_dict(
        default = {},
        doc = "Lint levels by warning code (or `warnings`): `allow`, `warn` or `deny`, as " +
              "`kiln build -A/-W/-D` takes them; a denied warning fails the action.",
    )
    return rule(
        implementation = implementation,
        doc = doc,
        attrs = dict(attrs, src = src, lints = lints, **settings),
        toolchains = [_TOOLCHAIN],
    )

def _refuse_old_defines(ctx):
    old = sorted([k for k in ctx.var.keys() if k in _OLD_DEFINES])
    if old:
        fail("the kiln rules take build settings, not --define: " + "; ".join([
            "instead of --define=%s=%s use %s" % (k, ctx.var[k], _OLD_DEFINES[k])
            for k in old
        ]))

def _default_info(ctx, files):
    """The rule's files, as its default outputs and runfiles."""
    return DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files))

def _stem(f):
    return f.basename[:-len("." + f.extension)] if f.extension else f.basename

def _run_kiln(ctx, src, outputs, kinds, mnemonic, library = None):
    """Declares one `kiln worker` action building `src` into the outputs' directory.

    `library` (a KilnBlifLibraryInfo) adds `--blif-lib` and the library files as inputs.
    """
    _refuse_old_defines(ctx)
    kiln = ctx.toolchains[_TOOLCHAIN].kiln.kiln
    protocol = _setting(ctx, "worker_protocol")
    args = ctx.actions.args()
    args.add("--out-dir", outputs[0].dirname)
    for kind in kinds:
        args.add("--kind", kind)
    for code, level in sorted(ctx.attr.lints.items()):
        if level not in ["allow", "warn", "deny"]:
            fail("lints: `%s` for %s is not allow, warn or deny" % (level, code))
        args.add("--" + level, code)
    inputs = [src]
    if getattr(ctx.attr, "top", ""):
        args.add("--top", ctx.attr.top)
    if getattr(ctx.attr, "style", ""):
        args.add("--style", ctx.attr.style)
    aps_config = getattr(ctx.file, "aps_config", None)
    if aps_config:
        # An input of the action: an edit of the file rebuilds.
        args.add("--aps-config", aps_config)
        inputs.append(aps_config)
    if library:
        args.add("--blif-lib", library.root)
        inputs = depset(inputs, transitive = [library.files])
    args.add(src)
    args.use_param_file("@%s", use_always = True)
    args.set_param_file_format("multiline")
    requirements = {
        "supports-worker-cancellation": "1",
        "supports-workers": "1",
    }
    if _setting(ctx, "worker_multiplex"):
        requirements["supports-multiplex-workers"] = "1"

        # Paths are resolved against WorkRequest.sandbox_dir (newer Bazel).
        requirements["supports-multiplex-sandboxing"] = "1"
    if protocol == "json":
        requirements["requires-worker-protocol"] = "json"
    startup = ["worker", "--worker-protocol=" + protocol]
    if _setting(ctx, "worker_log"):
        startup.append("--log-requests")
    if _setting(ctx, "input_digests") == "ignore":
        startup.append("--input-digests=ignore")
    daemon = _setting(ctx, "daemon")
    if daemon != "use":
        startup.append("--%s-daemon" % ("start" if daemon == "start" else "no"))
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
    doc = "Compiles a TOR/APS MLIR design (one `tor.func` per RISC-V custom instruction) to " +
          "`<name>/<stem>.cmt2.mlir` (CMT2 rules), `<name>/<stem>.rules.json` (rule IR) and, " +
          "unless `sv = False`, `<name>/<stem>.sv` (SystemVerilog). Provides `KilnApsInfo` and " +
          "the output groups `cmt2`, `rules_json` and `sv`.",
    src_doc = "The APS MLIR file (a module with `tor.design`).",
    src_files = [".mlir"],
    attrs = {
        "sv": attr.bool(
            doc = "Also emit `<stem>.sv`, the SystemVerilog of the merged rule circuit.",
            default = True,
        ),
        "top": attr.string(
            doc = "The SystemVerilog top module's name (`kiln build --top`); default `main`, " +
                  "the name APS's SoC integration instantiates.",
            default = "",
        ),
        "style": attr.string(
            doc = "The architecture of the rules (`kiln build --style`): `fsm` (one state " +
                  "machine per function) or `fifo` (the seeds' dataflow); default `fsm`.",
            default = "",
            values = ["", "fsm", "fifo"],
        ),
        "aps_config": attr.label(
            doc = "The SoC's CSR list (`aps_config.yaml`: `csrs: [{id, name, mask, init}]`, " +
                  "`kiln build --aps-config`): the CSR lanes' names, order, masks and reset " +
                  "values; default one lane per CSR global. An input of the action.",
            allow_single_file = [".yaml", ".yml"],
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
    doc = "Lowers a BLIF netlist (every model, hierarchies flattened) to binary AIGER " +
          "`<name>/<stem>.aig`. Provides `KilnAigInfo`.",
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
    doc = "Lowers a Dynamatic Handshake MLIR circuit (one `handshake.func`) through a unit " +
          "library to `<name>/<stem>.synth.mlir`, `<stem>.aig` (binary AIGER), `<stem>.blif` " +
          "(flat) and `<stem>.hier.blif` (top + each used unit, for ABC). Provides `KilnSynthInfo`.",
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
