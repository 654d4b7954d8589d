"""The example's execution platform: local actions on persistent workers (Buck2's own
platforms leave `use_persistent_workers` off), or remote execution with
`-c kiln.remote_execution=true` and a `[buck2_re_client]` section naming the REAPI server;
`remote_cache`: local actions that look up and upload results to that server's cache."""

load("@prelude//cfg/exec_platform:marker.bzl", "get_exec_platform_marker")
load("@prelude//platforms:defs.bzl", "host_configuration")

def _execution_platforms_impl(ctx: AnalysisContext) -> list[Provider]:
    constraints = dict()
    constraints.update(ctx.attrs.cpu_configuration[ConfigurationInfo].constraints)
    constraints.update(ctx.attrs.os_configuration[ConfigurationInfo].constraints)
    cfg = ConfigurationInfo(constraints = constraints, values = {})
    remote = ctx.attrs.remote_execution
    cache = ctx.attrs.remote_cache and not remote
    cache_flags = {"allow_cache_uploads": True, "remote_cache_enabled": True} if cache else {}
    platform = ExecutionPlatformInfo(
        label = ctx.label.raw_target(),
        configuration = cfg,
        executor_config = CommandExecutorConfig(
            local_enabled = not remote,
            remote_enabled = remote,
            use_persistent_workers = True,
            remote_execution_properties = ctx.attrs.remote_execution_properties if remote or cache else None,
            remote_execution_use_case = "buck2-default" if remote or cache else None,
            remote_output_paths = "output_paths" if remote else None,
            **cache_flags
        ),
    )
    return [
        DefaultInfo(),
        platform,
        PlatformInfo(label = str(ctx.label.raw_target()), configuration = cfg),
        ExecutionPlatformRegistrationInfo(platforms = [platform], exec_marker_constraint = get_exec_platform_marker()),
    ]

execution_platforms = rule(
    impl = _execution_platforms_impl,
    attrs = {
        "cpu_configuration": attrs.dep(providers = [ConfigurationInfo], default = host_configuration.cpu),
        "os_configuration": attrs.dep(providers = [ConfigurationInfo], default = host_configuration.os),
        "remote_cache": attrs.bool(default = False),
        "remote_execution": attrs.bool(default = False),
        "remote_execution_properties": attrs.dict(key = attrs.string(), value = attrs.string(), default = {}),
    },
)
