//! The command line's grammar as a whole: the global flags, the subcommands ([`crate::cmd`])
//! and the help around them (the environment, `kiln.toml`); also what `kiln completions`
//! and `kiln man` generate from it.

use clap::{CommandFactory, Parser};

/// What `kiln --help` and the man page say after the commands.
pub const AFTER_HELP: &str = "\
Conventions:
  -o, --out-dir DIR  where commands that write several files write them (default: `out_dir`
                     of kiln.toml, else ./out); -o FILE where one file is written, `-` for
                     standard output
  --emit KIND        adds an output kind to the input's defaults (repeatable)
  sizes              bytes, or with a unit: 512K, 1M, 1.5G (binary units)

Configuration (kiln.toml, the nearest one from the current directory up; it also marks the
workspace root the daemon is keyed on; paths relative to it):
  blif_lib = \"lib\"            BLIF library of Handshake designs
  rtl_lib = \"verilog\"         Dynamatic's Verilog templates (yosys synthesizes units)
  out_dir = \"build/kiln\"      output directory of build, synth, watch and aig
  [limits]                    max_input_size = \"256M\", max_int_width = 4096, max_results,
                              max_depth, max_nodes, max_remote_body, max_ops,
                              max_name_len, max_slots (as the flags)
  [lints]                     W0405 = \"allow\", warnings = \"deny\" (as -A/-W/-D CODE;
                              a code's own level wins over `warnings`)
  [remote]                    url, timeout (s), upload (bool), hmac_key_file, ca (PEM file),
                              headers = { Authorization = \"Bearer ...\" }
  Flags override the environment, which overrides kiln.toml.

Environment:
  KILN_BLIF_LIB              BLIF library when neither --blif-lib nor kiln.toml names one
  KILN_RTL_LIB               Verilog templates when neither --rtl-lib nor kiln.toml names any
  KILN_YOSYS                 the yosys that synthesizes templates (default: yosys on PATH)
  KILN_NO_DAEMON=1           build in process, never through a daemon
  KILN_WORKSPACE             the workspace (daemon key) instead of kiln.toml's directory or
                             the current directory
  KILN_DAEMON_EXE            the executable started as the daemon (default: this one)
  KILN_CACHE_DIR             the persistent cache (default $XDG_CACHE_HOME/kiln, ~/.cache/kiln)
  KILN_REMOTE_CACHE, KILN_REMOTE_TIMEOUT, KILN_REMOTE_UPLOAD, KILN_REMOTE_HMAC_KEY_FILE,
  KILN_REMOTE_HMAC_KEY       the remote cache tier (as --remote-cache, ...)
  XDG_RUNTIME_DIR            where the daemon's socket, pid file and log live
  RUST_LOG                   the daemon's log filter (default info,salsa=warn)
  NO_COLOR                   no colour in diagnostics (also --color never)
  COLUMNS                    width diagnostics cut long source lines to (default 120)

Exit status: 0 success, 1 errors in the input (or a failed build), 2 usage errors.
Explain an error code: kiln explain E0101";

/// `kiln --version`: the crate version and the commit it was built from (the build script
/// reads git; `unknown commit` for sources without one).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("KILN_GIT_COMMIT"),
    ")"
);

#[derive(Parser)]
#[command(
    name = "kiln",
    version = VERSION,
    about = "Incremental compiler for hardware design flows",
    long_about = "Incremental compiler for hardware design flows: scheduled TOR/APS MLIR to \
                  rule-based hardware (CMT2 MLIR, rules JSON, SystemVerilog), Dynamatic \
                  Handshake MLIR to an AIG through a per-unit BLIF library, and BLIF to \
                  AIGER. Builds go through a per-workspace daemon that recompiles only what \
                  an edit touched.",
    after_help = "Run `kiln help COMMAND` for a command's options and examples; \
                  `kiln --help` for configuration and environment.",
    after_long_help = AFTER_HELP,
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: crate::cmd::Command,
    #[command(flatten)]
    pub limits: crate::limits::LimitArgs,
    #[command(flatten)]
    pub output: crate::diagnostics::OutputArgs,
}

/// The whole grammar, for generators.
pub fn command() -> clap::Command {
    Cli::command()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_is_consistent_and_every_command_has_examples() {
        let cmd = command();
        cmd.clone().debug_assert();
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let help = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                help.contains("Examples:"),
                "`kiln {}` has no examples",
                sub.get_name()
            );
        }
    }
}
