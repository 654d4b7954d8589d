"""Buck2 rules for kiln (prelude style).

- `kiln_worker`: a `WorkerInfo` for `kiln worker --buck2`, shared by every kiln action of
  a build (Buck2 keys workers by this provider instance, so it lives in its own rule).
- `kiln_aps_library`: TOR/APS MLIR -> `<stem>.cmt2.mlir` and `<stem>.rules.json`.
- `kiln_blif_aig`: BLIF -> binary AIGER `<stem>.aig`.

Actions run through the worker when Buck2 uses persistent workers, else the fallback
`kiln worker ARGS...` runs once; the arguments are the same either way.
"""

KilnApsInfo = provider(doc = "Outputs of an APS compile.", fields = {
    "cmt2": provider_field(typing.Any, default = None),
    "rules_json": provider_field(typing.Any, default = None),
})

KilnAigInfo = provider(doc = "Outputs of a BLIF to AIG lowering.", fields = {
    "aig": provider_field(typing.Any, default = None),
})

def _kiln_worker_impl(ctx: AnalysisContext) -> list[Provider]:
    kiln = ctx.attrs.kiln[RunInfo]
    worker = WorkerInfo(
        exe = cmd_args(kiln, "worker", "--buck2"),
        concurrency = ctx.attrs.concurrency,
    )
    return [DefaultInfo(), worker, RunInfo(args = cmd_args(kiln, "worker"))]

kiln_worker = rule(
    impl = _kiln_worker_impl,
    attrs = {
        "concurrency": attrs.option(attrs.int(), default = None),
        "kiln": attrs.exec_dep(providers = [RunInfo]),
    },
)

def _stem(name: str) -> str:
    base = name.split("/")[-1]
    dot = base.rfind(".")
    return base[:dot] if dot > 0 else base

def _run_kiln(ctx: AnalysisContext, kinds: list[str], suffixes: list[str], category: str) -> list:
    src = ctx.attrs.src
    stem = _stem(src.short_path)
    outs = [ctx.actions.declare_output("{}/{}.{}".format(ctx.label.name, stem, s)) for s in suffixes]
    out_dir = cmd_args(outs[0].as_output(), parent = 1)
    kind_flags = []
    for kind in kinds:
        kind_flags += ["--kind", kind]
    args = cmd_args("--out-dir", out_dir, kind_flags, src)
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
    cmt2, rules_json = _run_kiln(ctx, ["cmt2", "rules-json"], ["cmt2.mlir", "rules.json"], "kiln_aps")
    return [
        DefaultInfo(default_outputs = [cmt2, rules_json]),
        KilnApsInfo(cmt2 = cmt2, rules_json = rules_json),
    ]

kiln_aps_library = rule(
    impl = _kiln_aps_library_impl,
    attrs = {
        "src": attrs.source(),
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
        "_worker": attrs.default_only(attrs.dep(default = "toolchains//:kiln_worker")),
    },
)
