"""Buck2 rules for kiln (prelude style).

- `kiln_worker`: a `WorkerInfo` for `kiln worker --buck2`, shared by every kiln action of
  a build (Buck2 keys workers by this provider instance, so it lives in its own rule);
  `daemon` (`use`, `start`, `never`) says whether the worker builds through the
  workspace's kiln daemon (which outlives Buck2's per-command workers), `log_requests`
  logs each command in the worker's `stderr` file (`<tmp>/buck2_worker/<id>/stderr`).
- `kiln_aps_library`: TOR/APS MLIR -> `<stem>.cmt2.mlir`, `<stem>.rules.json` and (unless
  `sv = False`) `<stem>.sv`.
- `kiln_blif_aig`: BLIF -> binary AIGER `<stem>.aig`.
- `kiln_blif_library`: the per-unit BLIF library of Handshake -> Synth, laid out as one
  directory (`srcs` maps each unit path, e.g. `addi/32/addi.blif`, to its source).
- `kiln_handshake_synth`: Handshake MLIR + a `kiln_blif_library` -> `<stem>.synth.mlir`,
  `<stem>.aig`, `<stem>.blif` and `<stem>.hier.blif`.

Actions run through the worker when Buck2 uses persistent workers, else the fallback
`kiln worker ARGS...` runs once (also remotely: the kiln binary is an input); the
arguments are the same either way. Every output of an action is bound to it (`--out-dir`
names the first one's directory, the others are hidden outputs).
"""

KilnApsInfo = provider(doc = "Outputs of an APS compile.", fields = {
    "cmt2": provider_field(typing.Any, default = None),
    "rules_json": provider_field(typing.Any, default = None),
    "sv": provider_field(typing.Any, default = None),
})

KilnBlifLibraryInfo = provider(doc = "A per-unit BLIF library laid out as one directory.", fields = {
    "dir": provider_field(typing.Any, default = None),
})

KilnSynthInfo = provider(doc = "Outputs of a Handshake to Synth lowering.", fields = {
    "aig": provider_field(typing.Any, default = None),
    "blif": provider_field(typing.Any, default = None),
    "hier_blif": provider_field(typing.Any, default = None),
    "synth_mlir": provider_field(typing.Any, default = None),
})

KilnAigInfo = provider(doc = "Outputs of a BLIF to AIG lowering.", fields = {
    "aig": provider_field(typing.Any, default = None),
})

_DAEMON_FLAGS = {"never": ["--no-daemon"], "start": ["--start-daemon"], "use": []}

def _kiln_worker_impl(ctx: AnalysisContext) -> list[Provider]:
    kiln = ctx.attrs.kiln[RunInfo]
    flags = _DAEMON_FLAGS[ctx.attrs.daemon] + (["--log-requests"] if ctx.attrs.log_requests else [])
    worker = WorkerInfo(
        exe = cmd_args(kiln, "worker", "--buck2", flags),
        concurrency = ctx.attrs.concurrency,
    )

    # The fallback (workers off, or a remote executor) never leaves a daemon behind.
    fallback = ["--no-daemon"] if ctx.attrs.daemon == "never" else []
    return [DefaultInfo(), worker, RunInfo(args = cmd_args(kiln, "worker", fallback))]

kiln_worker = rule(
    impl = _kiln_worker_impl,
    attrs = {
        "concurrency": attrs.option(attrs.int(), default = None),
        "daemon": attrs.enum(["never", "start", "use"], default = "use"),
        "kiln": attrs.exec_dep(providers = [RunInfo]),
        "log_requests": attrs.bool(default = False),
    },
)

# Lint levels by warning code (or `warnings`), as `kiln build -A/-W/-D` takes them.
_LINTS = attrs.dict(key = attrs.string(), value = attrs.enum(["allow", "warn", "deny"]), default = {})

def _stem(name: str) -> str:
    base = name.split("/")[-1]
    dot = base.rfind(".")
    return base[:dot] if dot > 0 else base

def _run_kiln(ctx: AnalysisContext, kinds: list[str], suffixes: list[str], category: str, extra: list = []) -> list:
    src = ctx.attrs.src
    stem = _stem(src.short_path)
    outs = [ctx.actions.declare_output("{}/{}.{}".format(ctx.label.name, stem, s)) for s in suffixes]
    out_dir = cmd_args(outs[0].as_output(), parent = 1)
    kind_flags = []
    for kind in kinds:
        kind_flags += ["--kind", kind]
    for code, level in sorted(ctx.attrs.lints.items()):
        kind_flags += ["--" + level, code]
    args = cmd_args("--out-dir", out_dir, kind_flags, extra, src, hidden = [o.as_output() for o in outs[1:]])
    worker = ctx.attrs._worker
    ctx.actions.run(
        args,
        category = category,
        identifier = stem,
        exe = WorkerRunInfo(
            worker = worker[WorkerInfo],
            exe = worker[RunInfo].args,
        ),
    )
    return outs

def _kiln_aps_library_impl(ctx: AnalysisContext) -> list[Provider]:
    kinds = ["cmt2", "rules-json"]
    suffixes = ["cmt2.mlir", "rules.json"]
    if ctx.attrs.sv:
        kinds.append("sv")
        suffixes.append("sv")
    extra = ["--top", ctx.attrs.top] if ctx.attrs.top else []
    if ctx.attrs.style:
        extra += ["--style", ctx.attrs.style]
    if ctx.attrs.aps_config:
        # An artifact of the arguments, so an input of the action: an edit rebuilds.
        extra += ["--aps-config", ctx.attrs.aps_config]
    outs = _run_kiln(ctx, kinds, suffixes, "kiln_aps", extra)
    sv = outs[2] if ctx.attrs.sv else None
    return [
        DefaultInfo(default_outputs = outs),
        KilnApsInfo(cmt2 = outs[0], rules_json = outs[1], sv = sv),
    ]

kiln_aps_library = rule(
    impl = _kiln_aps_library_impl,
    attrs = {
        "src": attrs.source(),
        "sv": attrs.bool(default = True),
        # The SystemVerilog top module's name (`kiln build --top`); "" means `main`.
        "top": attrs.string(default = ""),
        # The architecture of the rules (`kiln build --style`): "fsm" or "fifo"; "" means fsm.
        "style": attrs.string(default = ""),
        # The SoC's CSR list (`aps_config.yaml`, `kiln build --aps-config`): the CSR lanes'
        # names, order, masks and reset values; None means one lane per CSR global.
        "aps_config": attrs.option(attrs.source(), default = None),
        "lints": _LINTS,
        "_worker": attrs.default_only(attrs.dep(default = "toolchains//:kiln_worker")),
    },
)

def _kiln_blif_aig_impl(ctx: AnalysisContext) -> list[Provider]:
    outs = _run_kiln(ctx, ["aig"], ["aig"], "kiln_aig")
    return [
        DefaultInfo(default_output = outs[0]),
        KilnAigInfo(aig = outs[0]),
    ]

kiln_blif_aig = rule(
    impl = _kiln_blif_aig_impl,
    attrs = {
        "src": attrs.source(),
        "lints": _LINTS,
        "_worker": attrs.default_only(attrs.dep(default = "toolchains//:kiln_worker")),
    },
)

def _kiln_blif_library_impl(ctx: AnalysisContext) -> list[Provider]:
    lib = ctx.actions.symlinked_dir(ctx.label.name, ctx.attrs.srcs)
    return [
        DefaultInfo(default_output = lib),
        KilnBlifLibraryInfo(dir = lib),
    ]

kiln_blif_library = rule(
    impl = _kiln_blif_library_impl,
    attrs = {
        "srcs": attrs.dict(key = attrs.string(), value = attrs.source()),
    },
)

def _kiln_handshake_synth_impl(ctx: AnalysisContext) -> list[Provider]:
    lib = ctx.attrs.library[KilnBlifLibraryInfo].dir
    synth_mlir, aig, blif, hier_blif = _run_kiln(
        ctx,
        ["synth"],
        ["synth.mlir", "aig", "blif", "hier.blif"],
        "kiln_synth",
        extra = ["--blif-lib", lib],
    )
    return [
        DefaultInfo(default_outputs = [synth_mlir, aig, blif, hier_blif]),
        KilnSynthInfo(synth_mlir = synth_mlir, aig = aig, blif = blif, hier_blif = hier_blif),
    ]

kiln_handshake_synth = rule(
    impl = _kiln_handshake_synth_impl,
    attrs = {
        "library": attrs.dep(providers = [KilnBlifLibraryInfo]),
        "src": attrs.source(),
        "lints": _LINTS,
        "_worker": attrs.default_only(attrs.dep(default = "toolchains//:kiln_worker")),
    },
)
