//! `kiln.toml`: the workspace's configuration, read with `toml` + serde.
//!
//! The nearest `kiln.toml` from the working directory up is the configuration, and its
//! directory is the workspace root (the daemon is keyed on it; `$KILN_WORKSPACE`
//! overrides). Paths in it are relative to its directory. Every key is optional; flags
//! override it, and it overrides the defaults:
//!
//! ```toml
//! blif_lib = "lib/dynamatic"      # the BLIF library of Handshake designs
//! out_dir = "build/kiln"          # where build, synth, watch and aig write (default `out`)
//! jobs = 4                        # inputs build and watch compile at once (default: all cores)
//! style = "fifo"                  # APS rules: fsm (default) or fifo
//! aps_config = "aps_config.yaml"  # the SoC's CSR list: APS designs' CSR lanes
//!
//! [limits]                        # see `kiln help`; sizes as bytes or "512K", "1G"
//! max_input_size = "256M"
//! max_int_width = 4096
//!
//! [lints]                         # warning levels: allow, warn or deny (flags win)
//! W0405 = "allow"
//! warnings = "deny"               # every warning; a code's own level wins over it
//!
//! [remote]                        # the remote cache tier
//! url = "grpcs://cache.example.com"
//! timeout = 10                    # seconds
//! upload = false                  # read-only
//! hmac_key_file = "secrets/kiln.key"
//! ca = "certs/ca.pem"
//! headers = { Authorization = "Bearer ..." }
//! ```
//!
//! A file that is not valid TOML, or that has an unknown key or a value of the wrong type,
//! is an error located in the file (code `E0011`).

use crate::io::Failure;
use crate::size;
use compiler::diag::lint::{Level, Lint, Lints};
use compiler::diag::{Code, Diagnostic, Located, Severity, Span};
use compiler::limits::{Limit, Limits};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The file name looked for.
pub const FILE: &str = "kiln.toml";

/// The contents of a `kiln.toml`.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The BLIF library directory of Handshake designs.
    pub blif_lib: Option<PathBuf>,
    /// Dynamatic's Verilog templates (`data/verilog`) for units yosys synthesizes.
    pub rtl_lib: Option<PathBuf>,
    /// The output directory of `build`, `synth`, `watch` and `aig`.
    pub out_dir: Option<PathBuf>,
    /// The inputs `build` and `watch` compile at once (`-j`).
    pub jobs: Option<Jobs>,
    /// The architecture of APS inputs' rules (`--style`).
    pub style: Option<StyleName>,
    /// The SoC's CSR list (`aps_config.yaml`, `--aps-config`).
    pub aps_config: Option<PathBuf>,
    #[serde(default)]
    pub limits: LimitsTable,
    #[serde(default)]
    pub lints: BTreeMap<LintName, LintLevel>,
    #[serde(default)]
    pub remote: RemoteTable,
}

/// The value of `jobs`: a whole number, 1 or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jobs(pub usize);

impl<'de> Deserialize<'de> for Jobs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Jobs, D::Error> {
        match u64::deserialize(d)? {
            0 => Err(serde::de::Error::custom("at least 1 job is needed")),
            n => Ok(Jobs(usize::try_from(n).unwrap_or(usize::MAX))),
        }
    }
}

/// The value of `style`: `fsm` or `fifo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StyleName(pub compiler::aps::Style);

impl<'de> Deserialize<'de> for StyleName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StyleName, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map(StyleName).map_err(serde::de::Error::custom)
    }
}

/// A key of `[lints]`: `warnings` or a warning code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LintName(pub Lint);

impl<'de> Deserialize<'de> for LintName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LintName, D::Error> {
        let name = String::deserialize(d)?;
        Lint::parse(&name)
            .map(LintName)
            .map_err(serde::de::Error::custom)
    }
}

/// A value of `[lints]`: `allow`, `warn` or `deny`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LintLevel(pub Level);

impl<'de> Deserialize<'de> for LintLevel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LintLevel, D::Error> {
        let name = String::deserialize(d)?;
        let e = || format!("unknown lint level `{name}`: expected allow, warn or deny");
        Level::parse(&name)
            .map(LintLevel)
            .ok_or_else(|| serde::de::Error::custom(e()))
    }
}

/// `[limits]`: the keys of [`Limit::key`].
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LimitsTable {
    pub max_input_size: Option<Size>,
    pub max_int_width: Option<u64>,
    pub max_results: Option<u64>,
    pub max_depth: Option<u64>,
    pub max_nodes: Option<u64>,
    pub max_remote_body: Option<Size>,
    pub max_ops: Option<u64>,
    pub max_name_len: Option<u64>,
    pub max_slots: Option<u64>,
}

impl LimitsTable {
    pub fn get(&self, limit: Limit) -> Option<u64> {
        match limit {
            Limit::InputSize => self.max_input_size.map(|s| s.0),
            Limit::IntWidth => self.max_int_width,
            Limit::Results => self.max_results,
            Limit::Depth => self.max_depth,
            Limit::Nodes => self.max_nodes,
            Limit::RemoteBody => self.max_remote_body.map(|s| s.0),
            Limit::Ops => self.max_ops,
            Limit::NameLen => self.max_name_len,
            Limit::Slots => self.max_slots,
        }
    }
}

/// `[remote]`: the remote cache tier.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RemoteTable {
    /// `http(s)://HOST:PORT[/PREFIX]` or `grpc(s)://HOST:PORT[/INSTANCE]`.
    pub url: Option<String>,
    /// Seconds for one remote operation.
    pub timeout: Option<f64>,
    /// `false`: a read-only client.
    pub upload: Option<bool>,
    pub hmac_key_file: Option<PathBuf>,
    /// A CA certificate (PEM) trusted for `https://` / `grpcs://` besides the system roots.
    pub ca: Option<PathBuf>,
    /// Headers sent with every request (e.g. `Authorization`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

/// A size in bytes: an integer, or a string with a unit (`"512K"`, `"1M"`; see [`size`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bytes(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bytes(b) => Ok(Size(b)),
            Raw::Text(t) => size::parse(&t).map(Size).map_err(serde::de::Error::custom),
        }
    }
}

/// A `kiln.toml` found and read.
#[derive(Debug, Default)]
pub struct Found {
    /// The file, and the directory it is in (the workspace root); `None`: no file.
    pub file: Option<PathBuf>,
    pub config: Config,
}

impl Found {
    /// The directory paths in the file are relative to.
    fn dir(&self) -> Option<&Path> {
        self.file.as_deref().and_then(Path::parent)
    }

    /// A path of the file made usable: relative to the file's directory.
    pub fn path(&self, p: &Path) -> PathBuf {
        match self.dir() {
            Some(d) => d.join(p),
            None => p.to_path_buf(),
        }
    }

    /// The workspace root: the directory of the file, if there is one.
    pub fn root(&self) -> Option<&Path> {
        self.dir()
    }

    /// The BLIF library of the file, relative to it.
    pub fn blif_lib(&self) -> Option<PathBuf> {
        self.config.blif_lib.as_deref().map(|p| self.path(p))
    }

    /// The Verilog template directory of the file, relative to it.
    pub fn rtl_lib(&self) -> Option<PathBuf> {
        self.config.rtl_lib.as_deref().map(|p| self.path(p))
    }

    /// The output directory of the file (relative to it), else `out`.
    pub fn out_dir(&self) -> PathBuf {
        match &self.config.out_dir {
            Some(p) => self.path(p),
            None => PathBuf::from("out"),
        }
    }

    /// The SoC's CSR list of the file, relative to it.
    pub fn aps_config(&self) -> Option<PathBuf> {
        self.config.aps_config.as_deref().map(|p| self.path(p))
    }

    /// The style of APS rules, if the file sets it.
    pub fn style(&self) -> Option<compiler::aps::Style> {
        self.config.style.map(|s| s.0)
    }

    /// The number of jobs of `build` and `watch`, if the file sets it.
    pub fn jobs(&self) -> Option<usize> {
        self.config.jobs.map(|j| j.0)
    }

    /// The lint levels of `[lints]`.
    pub fn lints(&self) -> Lints {
        (self.config.lints.iter())
            .map(|(name, level)| (name.0, level.0))
            .collect()
    }

    /// The limits: the defaults overridden by `[limits]`.
    pub fn limits(&self) -> Limits {
        let mut limits = Limits::DEFAULT;
        for l in Limit::ALL {
            if let Some(v) = self.config.limits.get(l) {
                limits.set(l, v);
            }
        }
        limits
    }
}

static FOUND: OnceLock<Found> = OnceLock::new();

/// Find and read the configuration of `cwd` (the nearest `kiln.toml` up from it) for this
/// process, once; later calls return the first result.
pub fn load(cwd: &Path) -> Result<&'static Found, Failure> {
    if let Some(f) = FOUND.get() {
        return Ok(f);
    }
    let found = find(cwd)?;
    Ok(FOUND.get_or_init(|| found))
}

/// This process's configuration ([`load`]; nothing if it was not loaded).
pub fn get() -> &'static Found {
    FOUND.get_or_init(Found::default)
}

/// The nearest `kiln.toml` from `cwd` up, read.
pub fn find(cwd: &Path) -> Result<Found, Failure> {
    for dir in cwd.ancestors() {
        let file = dir.join(FILE);
        if !file.exists() {
            continue;
        }
        // A kiln.toml is small; a special file or a huge one is not read.
        let bytes = kiln_daemon::input::read_bounded_file(&file, 1 << 20).map_err(|e| {
            let m = Located::file(file.display().to_string(), Severity::Error, e.to_string());
            usage(vec![m.with_code(Code::Config)])
        })?;
        let config = parse(&file.display().to_string(), &bytes)?;
        return Ok(Found {
            file: Some(file),
            config,
        });
    }
    Ok(Found::default())
}

/// The configuration in `bytes`, the contents of the file `shown`.
pub fn parse(shown: &str, bytes: &[u8]) -> Result<Config, Failure> {
    let text = compiler::diag::decode_utf8(bytes)
        .map_err(|d| usage(vec![d.locate(shown, &String::from_utf8_lossy(bytes))]))?;
    toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let message = e.message().trim_end().to_string();
        let d = Diagnostic::error(Span::new(span.start, span.end), message).with_code(Code::Config);
        let located = match e.span() {
            Some(_) => d.locate(shown, text),
            None => Diagnostic { span: None, ..d }.locate(shown, text),
        };
        usage(vec![located])
    })
}

/// A bad configuration is a usage error (exit code 2), shown as diagnostics.
fn usage(located: Vec<Located>) -> Failure {
    Failure {
        code: 2,
        ..Failure::located(located)
    }
}

/// Export the `[remote]` table to the environment variables the remote tier's flags read
/// (`$KILN_REMOTE_CACHE`, `$KILN_REMOTE_TIMEOUT`, `$KILN_REMOTE_UPLOAD`,
/// `$KILN_REMOTE_HMAC_KEY_FILE`, and `$KILN_REMOTE_CA` / `$KILN_REMOTE_HEADER` for
/// `--remote-ca` / `--remote-header`), where they are not set: flags override the
/// environment, which overrides `kiln.toml`, and a daemon this client starts inherits them.
/// This is the one place the table is applied.
///
/// Called by `main` before the arguments are parsed and before any thread is started.
pub fn apply_remote(found: &Found) {
    let r = &found.config.remote;
    let path = |p: &PathBuf| found.path(p).display().to_string();
    let headers: Vec<String> = r.headers.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let vars = [
        ("KILN_REMOTE_CACHE", r.url.clone()),
        ("KILN_REMOTE_TIMEOUT", r.timeout.map(|t| t.to_string())),
        ("KILN_REMOTE_UPLOAD", r.upload.map(|u| u.to_string())),
        (
            "KILN_REMOTE_HMAC_KEY_FILE",
            r.hmac_key_file.as_ref().map(path),
        ),
        ("KILN_REMOTE_CA", r.ca.as_ref().map(path)),
        (
            "KILN_REMOTE_HEADER",
            (!headers.is_empty()).then(|| headers.join("\n")),
        ),
    ];
    for (name, value) in vars {
        let Some(value) = value else { continue };
        if std::env::var_os(name).is_some() {
            continue;
        }
        // SAFETY: called from `main` before any other thread exists (see above), so no
        // other thread reads or writes the environment concurrently.
        unsafe { std::env::set_var(name, value) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_key_parses() {
        let text = r#"
blif_lib = 'lib'
out_dir = "build/kiln"
jobs = 3
style = "fifo"
[limits]
max_input_size = "256M"
max_int_width = 4_096
max_remote_body = 2048
[lints]
W0405 = "allow"
warnings = "deny"
[remote]
url = "grpcs://cache.example.com"
timeout = 10
upload = false
hmac_key_file = "k"
ca = "ca.pem"
headers = { Authorization = "Bearer x", "x-team" = "hw" }
"#;
        let c = parse("kiln.toml", text.as_bytes()).unwrap();
        assert_eq!(c.blif_lib.as_deref(), Some(Path::new("lib")));
        assert_eq!(c.jobs, Some(Jobs(3)));
        assert_eq!(c.style, Some(StyleName(compiler::aps::Style::Fifo)));
        assert_eq!(c.limits.max_input_size, Some(Size(256 << 20)));
        assert_eq!(c.limits.max_int_width, Some(4096));
        assert_eq!(c.limits.max_remote_body, Some(Size(2048)));
        assert_eq!(c.remote.upload, Some(false));
        assert_eq!(c.lints.len(), 2);
        assert_eq!(c.remote.headers["Authorization"], "Bearer x");
    }

    #[test]
    fn errors_are_located_in_the_file() {
        for (text, line) in [
            ("blif_lib = 'a'\n[limits]\nmax_bogus = 1\n", 3),
            ("out_dir = \n", 1),
            ("out_dir = 'o'\njobs = 0\n", 2),
            ("jobs = -2\n", 1),
            ("jobs = 'all'\n", 1),
            ("jobs = 2\nstyle = 'dataflow'\n", 2),
            ("[limits]\nmax_input_size = \"12Q\"\n", 2),
            ("[remote]\nupload = \"yes\"\n", 2),
            ("[lints]\nW0405 = \"forbid\"\n", 2),
            ("[lints]\nE0101 = \"allow\"\n", 2),
        ] {
            let e = parse("kiln.toml", text.as_bytes()).unwrap_err();
            let m = &e.located[0];
            assert_eq!(m.code, Some(Code::Config), "{text}");
            assert_eq!(m.at.as_ref().map(|a| a.line), Some(line), "{text}: {m:?}");
        }
    }

    #[test]
    fn found_upwards_and_paths_relative_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE),
            "blif_lib = 'lib'\n[limits]\nmax_depth = 7\n",
        )
        .unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let f = find(&sub).unwrap();
        assert_eq!(f.root(), Some(dir.path()));
        assert_eq!(f.blif_lib(), Some(dir.path().join("lib")));
        assert_eq!(f.out_dir(), PathBuf::from("out"));
        assert_eq!(f.limits().max_depth, 7);
    }
}
