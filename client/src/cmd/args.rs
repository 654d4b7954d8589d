//! Argument groups several commands share, so that one option means one thing everywhere:
//! `-o/--out-dir DIR` where a command writes a directory ([`OutDir`]), `--emit KIND` adding
//! an output kind to each input's defaults ([`Emit`]), what `build` and `watch` build
//! ([`BuildInputs`], `-j N` among them), the lint levels of their warnings
//! ([`LintArgs`]), the Handshake → Synth options ([`HandshakeArgs`], with where the BLIF library
//! and the Verilog templates come from) and the remote cache of `build` ([`RemoteArgs`]).

use crate::daemon_client;
use crate::io::{self, Failure};
use compiler::diag::Code;
use compiler::diag::lint::{Level, Lint, Lints};
use compiler::flow::{Flow, OutputKind};
use compiler::handshake::{Dialect, Naming};
use kiln_daemon::request::{BuildSpec, HandshakeSpec};
use std::path::PathBuf;

/// The inputs of `build` and `watch`, where their outputs go and how they are built.
#[derive(clap::Args, Clone, Debug)]
pub struct BuildInputs {
    /// MLIR or BLIF files, or directories searched for them.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub out: OutDir,
    /// Options of the Handshake → Synth flow.
    #[command(flatten)]
    pub handshake: HandshakeArgs,
    #[command(flatten)]
    pub emit: Emit,
    #[command(flatten)]
    pub lints: LintArgs,
    /// The top: for BLIF inputs the model to lower (default: each file's first model); for
    /// APS inputs with `--emit sv` the SystemVerilog top module's name [default: main]
    #[arg(long, value_name = "NAME")]
    pub top: Option<String>,
    /// Compile at most N inputs at once; outputs and messages are the same for any N
    /// [default: `jobs` of kiln.toml, else available parallelism]
    #[arg(short = 'j', long, value_name = "N", value_parser = jobs)]
    pub jobs: Option<usize>,
    /// The architecture of APS inputs' rules: `fsm` (one program-counter state machine per
    /// function) or `fifo` (per-slot rules, cross-slot and token FIFOs, input distribution)
    /// [default: `style` of kiln.toml, else fsm]
    #[arg(long, value_name = "STYLE", value_parser = super::sim::parse_style)]
    pub style: Option<compiler::aps::Style>,
    /// The SoC's CSR list (`aps_config.yaml`: `csrs: [{id, name, mask, init}]`): APS
    /// inputs' CSR lanes, in its order [default: `aps_config` of kiln.toml, else one lane
    /// per CSR global]
    #[arg(long, value_name = "FILE")]
    pub aps_config: Option<PathBuf>,
}

impl BuildInputs {
    /// The build spec: paths absolute, kinds added to the defaults, the library resolved
    /// and checked ([`checked_handshake_spec`]).
    pub fn spec(&self) -> Result<BuildSpec, Failure> {
        self.spec_reading_config(true)
    }

    /// The spec of `kiln watch`: the CSR configuration is not read here but named (absolute)
    /// for the daemon, which reads it before each build and watches it like an input.
    pub fn watch_spec(&self) -> Result<BuildSpec, Failure> {
        let mut spec = self.spec_reading_config(false)?;
        spec.aps_config_path = self.aps_config_file().map(|p| daemon_client::absolute(&p));
        Ok(spec)
    }

    /// The CSR configuration's file: given, else `aps_config` of kiln.toml.
    pub fn aps_config_file(&self) -> Option<PathBuf> {
        super::sim::aps_config_file(self.aps_config.as_deref())
    }

    fn spec_reading_config(&self, read_config: bool) -> Result<BuildSpec, Failure> {
        let out_dir = self.out.resolve()?;
        let mut spec = daemon_client::spec_of(&self.inputs, self.emit.spec_kinds(), &out_dir);
        spec.handshake = checked_handshake_spec(&self.handshake)?;
        spec.lints = self.lints.resolved();
        spec.top = self.top.clone();
        spec.style = super::sim::style_or_config(self.style);
        spec.aps_config = match read_config {
            true => super::sim::csr_config(self.aps_config.as_deref())?,
            false => None,
        };
        spec.jobs = self
            .jobs
            .or_else(|| crate::config::get().jobs())
            .unwrap_or(0);
        Ok(spec)
    }
}

/// A number of jobs (`-j N`): a whole number, 1 or more.
pub fn jobs(n: &str) -> Result<usize, String> {
    match n.parse::<usize>() {
        Ok(0) => Err("at least 1 job is needed".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a number of jobs, 1 or more".into()),
    }
}

/// The output directory of a command that writes several files.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OutDir {
    /// Output directory, created if missing [default: `out_dir` of kiln.toml, else out]
    #[arg(short = 'o', long = "out-dir", alias = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

impl OutDir {
    /// The directory: given, else the configuration's, else `out`.
    pub fn resolve(&self) -> Result<PathBuf, Failure> {
        match &self.out_dir {
            Some(d) if io::is_stdout(d) => Err(Failure::usage(
                "error: -o/--out-dir names a directory; `-` (standard output) holds one file",
            )),
            Some(d) => Ok(d.clone()),
            None => Ok(crate::config::get().out_dir()),
        }
    }
}

/// Output kinds added to each input's defaults.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Emit {
    /// Also write this output kind (repeatable): sv (APS); aag (BLIF); or any default kind:
    /// cmt2, rules-json (APS), aig (BLIF), synth-mlir, aig, blif, hier-blif (Handshake)
    #[arg(long = "emit", value_name = "KIND", value_parser = kinds(), hide_possible_values = true)]
    pub kinds: Vec<OutputKind>,
}

impl Emit {
    /// The kinds of a build spec: none (each flow's defaults) when nothing is added, else
    /// every flow's defaults and the added kinds, in one fixed order.
    pub fn spec_kinds(&self) -> Vec<OutputKind> {
        if self.kinds.is_empty() {
            return Vec::new();
        }
        let defaults = [Flow::Aps, Flow::Blif, Flow::Handshake]
            .iter()
            .flat_map(|f| f.default_kinds().iter());
        let wanted: Vec<OutputKind> = defaults.chain(&self.kinds).copied().collect();
        OutputKind::ALL
            .iter()
            .copied()
            .filter(|k| wanted.contains(k))
            .collect()
    }
}

/// Lint levels of warning codes, as rustc takes them: `-A/-W/-D CODE` (`--allow`,
/// `--warn`, `--deny`; `warnings` for every warning), a later flag winning over an
/// earlier one for the same name, all of them over `kiln.toml`'s `[lints]`.
#[derive(Clone, Debug, Default)]
pub struct LintArgs {
    /// The flags in command-line order.
    pub given: Vec<(Lint, Level)>,
}

const LINT_FLAGS: [(&str, char, Level, &str); 3] = [
    (
        "allow",
        'A',
        Level::Allow,
        "Allow warnings of CODE (`warnings`: every warning): not shown, counted in the summary",
    ),
    (
        "warn",
        'W',
        Level::Warn,
        "Show warnings of CODE (the default)",
    ),
    (
        "deny",
        'D',
        Level::Deny,
        "Make warnings of CODE errors (`-D warnings`: every warning): the input fails",
    ),
];

impl LintArgs {
    /// The levels of a build: `kiln.toml`'s, then the flags.
    pub fn resolved(&self) -> Lints {
        crate::config::get().lints().overridden_by(&self.given())
    }

    /// The levels the flags alone set.
    pub fn given(&self) -> Lints {
        self.given.iter().copied().collect()
    }
}

impl clap::FromArgMatches for LintArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for (id, _, level, _) in LINT_FLAGS {
            if let (Some(lints), Some(at)) = (m.get_many::<Lint>(id), m.indices_of(id)) {
                given.extend(at.zip(lints).map(|(i, l)| (i, *l, level)));
            }
        }
        given.sort_by_key(|(i, ..)| *i);
        let given = given.into_iter().map(|(_, l, v)| (l, v)).collect();
        Ok(LintArgs { given })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for LintArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        LINT_FLAGS.iter().fold(cmd, |cmd, &(id, short, _, help)| {
            cmd.arg(
                clap::Arg::new(id)
                    .short(short)
                    .long(id)
                    .value_name("CODE")
                    .action(clap::ArgAction::Append)
                    .value_parser(Lint::parse)
                    .help(help),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// Output kinds by name, their names known to clap (so shells complete them).
fn kinds() -> impl clap::builder::TypedValueParser<Value = OutputKind> {
    use clap::builder::TypedValueParser;
    let names = OutputKind::ALL.iter().map(|k| k.name());
    clap::builder::PossibleValuesParser::new(names).try_map(|n: String| kind(&n))
}

/// An output kind by name.
fn kind(name: &str) -> Result<OutputKind, String> {
    OutputKind::parse(name).ok_or_else(|| {
        let names: Vec<&str> = OutputKind::ALL.iter().map(|k| k.name()).collect();
        format!("unknown output kind `{name}` (one of {})", names.join(", "))
    })
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum DialectArg {
    /// CIRCT Synth (`synth.aig.and_inv`, `seq.compreg`).
    Circt,
    /// Dynamatic Synth (`synth.and_inv`, `synth.latch`).
    Dynamatic,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum NamingArg {
    /// Top ports from `argNames`/`resNames`.
    ArgNames,
    /// Top ports `in<i>`/`out<j>` (the original pass).
    InOut,
}

/// The Handshake options (shared with `kiln build`).
#[derive(Clone, Debug, clap::Args)]
pub struct HandshakeArgs {
    /// Directory of the per-unit BLIF library.
    #[arg(long, value_name = "DIR")]
    pub blif_lib: Option<PathBuf>,
    /// Dynamatic's Verilog templates (`data/verilog`): units the library lacks are
    /// synthesized from them with yosys.
    #[arg(long, value_name = "DIR")]
    pub rtl_lib: Option<PathBuf>,
    /// Path-table override file (`key = template` lines).
    #[arg(long, value_name = "FILE")]
    pub path_table: Option<PathBuf>,
    /// Spelling of the emitted Synth MLIR.
    #[arg(long, value_enum, default_value = "circt")]
    pub synth_dialect: DialectArg,
    /// Naming of the top module's ports.
    #[arg(long, value_enum, default_value = "arg-names")]
    pub naming: NamingArg,
}

impl From<DialectArg> for Dialect {
    fn from(d: DialectArg) -> Dialect {
        match d {
            DialectArg::Circt => Dialect::Circt,
            DialectArg::Dynamatic => Dialect::Dynamatic,
        }
    }
}

impl From<NamingArg> for Naming {
    fn from(n: NamingArg) -> Naming {
        match n {
            NamingArg::ArgNames => Naming::ArgNames,
            NamingArg::InOut => Naming::InOut,
        }
    }
}

/// The Verilog template directory of a Handshake build: `--rtl-lib`, else `rtl_lib` of the
/// nearest `kiln.toml` (relative to it), else `$KILN_RTL_LIB`; `None` when none is named.
/// A named directory that is not one is an error (code `E0413`).
pub fn rtl_dir(args: &HandshakeArgs) -> Result<Option<PathBuf>, Failure> {
    must_be_dir(
        rtl_named(args),
        Code::RtlLibNotDirectory,
        "the RTL template directory",
    )
}

/// The template directory named for a Handshake build, and by what.
fn rtl_named(args: &HandshakeArgs) -> Option<(PathBuf, &'static str)> {
    named_dir(
        (&args.rtl_lib, "--rtl-lib"),
        (crate::config::get().rtl_lib(), "`rtl_lib` in kiln.toml"),
        ("KILN_RTL_LIB", "$KILN_RTL_LIB"),
    )
}

/// The library named for a Handshake build, and by what: `--blif-lib`, else `blif_lib` of
/// the nearest `kiln.toml` (relative to it), else `$KILN_BLIF_LIB`.
pub fn library_named(args: &HandshakeArgs) -> Option<(PathBuf, &'static str)> {
    named_dir(
        (&args.blif_lib, "--blif-lib"),
        (crate::config::get().blif_lib(), "`blif_lib` in kiln.toml"),
        ("KILN_BLIF_LIB", "$KILN_BLIF_LIB"),
    )
}

/// The BLIF library of a Handshake build: `--blif-lib`, else `blif_lib` of the nearest
/// `kiln.toml` (relative to it), else `$KILN_BLIF_LIB`; `None` when none is named. A named
/// library that is not a directory is an error (code `E0402`): a wrong path would leave
/// every unit opaque.
pub fn library_dir(args: &HandshakeArgs) -> Result<Option<PathBuf>, Failure> {
    must_be_dir(
        library_named(args),
        Code::LibraryNotDirectory,
        "the BLIF library",
    )
}

/// A directory named by a flag, else by a `kiln.toml` key, else by a non-empty environment
/// variable; with what named it.
fn named_dir(
    flag: (&Option<PathBuf>, &'static str),
    config: (Option<PathBuf>, &'static str),
    env: (&str, &'static str),
) -> Option<(PathBuf, &'static str)> {
    match (flag.0, config.0) {
        (Some(d), _) => Some((d.clone(), flag.1)),
        (None, Some(d)) => Some((d, config.1)),
        (None, None) => std::env::var_os(env.0)
            .filter(|v| !v.is_empty())
            .map(|v| (PathBuf::from(v), env.1)),
    }
}

/// The directory `named`, which must be one: else an error with `code` naming `what` and
/// what named it.
fn must_be_dir(
    named: Option<(PathBuf, &'static str)>,
    code: Code,
    what: &str,
) -> Result<Option<PathBuf>, Failure> {
    let Some((dir, from)) = named else {
        return Ok(None);
    };
    if !dir.is_dir() {
        let is = match dir.exists() {
            true => "is not a directory",
            false => "does not exist",
        };
        let m = io::file_error(&dir, code, format!("{what} {is} (from {from})"));
        return Err(Failure::located(vec![m]));
    }
    Ok(Some(dir))
}

/// The Handshake options of a build: the library is resolved ([`library_dir`])
/// and must be a directory; when none is named the spec has none, and a Handshake input
/// then fails as `kiln synth` does.
pub fn checked_handshake_spec(args: &HandshakeArgs) -> Result<HandshakeSpec, Failure> {
    let lib = library_dir(args)?;
    let mut spec = spec_with_library(args, lib);
    spec.rtl_lib = rtl_dir(args)?.map(|d| daemon_client::absolute(&d));
    Ok(spec)
}

/// The Handshake options of a build-system action: the library named is passed on as it
/// is (a build of a design whose units it lacks fails with `E0403`). `_file` is unused:
/// the library no longer depends on the input's place (see [`crate::config`]).
pub fn handshake_spec(_file: &std::path::Path, args: &HandshakeArgs) -> HandshakeSpec {
    let lib = library_named(args).map(|(dir, _)| dir);
    spec_with_library(args, lib)
}

/// The Handshake options of an editor's documents: [`handshake_spec`] with the Verilog
/// templates named (`--rtl-lib`, `rtl_lib` of `kiln.toml`, `$KILN_RTL_LIB`), so that a
/// document is built as `kiln build` builds it.
pub fn editor_handshake_spec(file: &std::path::Path, args: &HandshakeArgs) -> HandshakeSpec {
    let mut spec = handshake_spec(file, args);
    spec.rtl_lib = rtl_named(args).map(|(d, _)| daemon_client::absolute(&d));
    spec
}

fn spec_with_library(args: &HandshakeArgs, lib: Option<PathBuf>) -> HandshakeSpec {
    HandshakeSpec {
        blif_lib: lib.map(|l| daemon_client::absolute(&l)),
        rtl_lib: None,
        path_table: args.path_table.as_deref().map(daemon_client::absolute),
        dialect: args.synth_dialect.into(),
        naming: args.naming.into(),
        func: None,
    }
}

/// The remote cache options of `kiln build` (`--remote-cache URL` builds through the cached
/// query pipeline).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RemoteArgs {
    /// Local cache directory in front of the remote (default: $KILN_CACHE_DIR,
    /// $XDG_CACHE_HOME/kiln, ~/.cache/kiln).
    #[arg(long, requires = "remote_cache")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub remote_options: RemoteOptionArgs,
}

impl RemoteArgs {
    pub fn url(&self) -> Option<&str> {
        self.remote_options.url()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emit_adds_to_every_flows_defaults() {
        assert!(Emit::default().spec_kinds().is_empty());
        let e = Emit {
            kinds: vec![OutputKind::Sv, OutputKind::Aag],
        };
        let k = e.spec_kinds();
        for f in [Flow::Aps, Flow::Blif, Flow::Handshake] {
            assert!(f.default_kinds().iter().all(|d| k.contains(d)), "{f:?}");
        }
        assert!(k.contains(&OutputKind::Sv) && k.contains(&OutputKind::Aag));
        assert_eq!(k.len(), OutputKind::ALL.len());
    }

    #[derive(clap::Parser)]
    struct Cmd {
        #[command(flatten)]
        lints: LintArgs,
    }

    #[test]
    fn lint_flags_keep_their_command_line_order() {
        use clap::Parser;
        let c = Cmd::try_parse_from(["k", "-D", "warnings", "--allow", "W0404", "-W", "w0405"])
            .unwrap();
        let names: Vec<(&str, Level)> = c
            .lints
            .given
            .iter()
            .map(|(l, v)| (l.as_str(), *v))
            .collect();
        assert_eq!(
            names,
            [
                ("warnings", Level::Deny),
                ("W0404", Level::Allow),
                ("W0405", Level::Warn)
            ]
        );
        let lints = c.lints.resolved();
        assert_eq!(
            lints.level(Some(compiler::diag::Code::OpaqueUnit)).0,
            Level::Allow
        );
        assert_eq!(
            lints.level(Some(compiler::diag::Code::FloatAsBits)).0,
            Level::Deny
        );
        assert!(Cmd::try_parse_from(["k", "-A", "E0101"]).is_err());
    }
}

/// The remote cache tier's flags (shared by `kiln daemon` and `kiln build --remote-cache`),
/// each also read from the environment so that an auto-started daemon inherits them; their
/// [`RemoteSettings`](kiln_daemon::server::RemoteSettings) go to the daemon. Header
/// values are credentials: the environment's are hidden from `--help`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RemoteOptionArgs {
    /// Remote cache tier behind the local cache: `http[s]://HOST[:PORT][/PREFIX]` (Bazel
    /// HTTP cache protocol) or `grpc[s]://HOST[:PORT][/INSTANCE]` (REAPI); `https` and
    /// `grpcs` use TLS.
    #[arg(
        long,
        env = "KILN_REMOTE_CACHE",
        value_name = "URL",
        hide_env_values = true
    )]
    pub remote_cache: Option<String>,
    /// Deadline of one remote cache operation (lookup + download, or upload), in seconds
    /// [default: 5]; the first time-out switches the tier off for the build.
    #[arg(long, env = "KILN_REMOTE_TIMEOUT", value_name = "SECS")]
    pub remote_timeout: Option<f64>,
    /// Upload computed entries to the remote cache [default: true] (`--remote-upload=false`:
    /// read-only).
    #[arg(
        long,
        env = "KILN_REMOTE_UPLOAD",
        value_name = "BOOL",
        num_args = 0..=1,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub remote_upload: Option<bool>,
    /// File holding the key for signed remote entries (HMAC-SHA-256; `$KILN_REMOTE_HMAC_KEY`
    /// gives the key itself): uploads are signed, and entries whose signature does not
    /// verify are rejected and recomputed.
    #[arg(long, env = "KILN_REMOTE_HMAC_KEY_FILE", value_name = "FILE")]
    pub remote_hmac_key_file: Option<PathBuf>,
    /// PEM file of the certificate authorities trusted for an `https://` or `grpcs://` cache,
    /// instead of the system's roots.
    #[arg(long, env = "KILN_REMOTE_CA", value_name = "FILE")]
    pub remote_ca: Option<PathBuf>,
    /// Header sent with every remote cache request (HTTP header, gRPC metadata), e.g.
    /// `Authorization=Bearer TOKEN`; repeatable, like Bazel's `--remote_header`.
    /// `$KILN_REMOTE_HEADER` holds one or more, one per line. Values are never logged.
    #[arg(
        long,
        env = "KILN_REMOTE_HEADER",
        value_name = "NAME=VALUE",
        value_delimiter = '\n',
        hide_env_values = true
    )]
    pub remote_header: Vec<String>,
}

impl RemoteOptionArgs {
    /// The settings these flags (and environment variables) give.
    pub fn settings(&self) -> kiln_daemon::server::RemoteSettings {
        kiln_daemon::server::RemoteSettings {
            url: self.remote_cache.clone(),
            timeout: self.remote_timeout,
            upload: self.remote_upload,
            hmac_key_file: self.remote_hmac_key_file.clone(),
            ca: self.remote_ca.clone(),
            headers: self
                .remote_header
                .iter()
                .filter(|h| !h.trim().is_empty())
                .cloned()
                .collect(),
        }
    }

    /// The tier's URL, if one is given.
    pub fn url(&self) -> Option<&str> {
        self.remote_cache.as_deref().filter(|u| !u.is_empty())
    }
}
