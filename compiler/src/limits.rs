//! The resource limits kiln applies to what it reads: one policy, plain data.
//!
//! Every count or width taken from an input (a result group `%r:N`, an integer type `iN`, a
//! BLIF hierarchy's depth and size, a file's length, a remote cache body) is checked against
//! a [`Limits`] value *before* it sizes anything, so that hostile input gets a diagnostic
//! instead of an allocation failure, a stack overflow or a run that never ends.
//!
//! The compiler never decides the policy: callers pass a `Limits` in (the CLI fills it from
//! its flags, `[limits]` in `kiln.toml` and the defaults below). A limit that is hit names
//! itself, its value, and how to raise it ([`Limit::exceeded`]).
//!
//! | limit | default | flag | `kiln.toml` |
//! |---|---|---|---|
//! | input file size | 1 GiB | `--max-input-size` | `limits.max_input_size` |
//! | integer width (`iN`) | 1024 bits | `--max-int-width` | `limits.max_int_width` |
//! | results, outputs or slots of one op (`%r:N`, buffer slots) | 4,096 | `--max-results` | `limits.max_results` |
//! | BLIF hierarchy depth | 100,000 | `--max-depth` | `limits.max_depth` |
//! | AIG nodes of one model | 20,000,000 | `--max-nodes` | `limits.max_nodes` |
//! | operations of one `handshake.func` | 50,000 | `--max-ops` | `limits.max_ops` |
//! | a name that reaches an output (op, port, function) | 1,024 bytes | `--max-name-len` | `limits.max_name_len` |
//! | remote cache body (action results) | 1 MiB | `--max-remote-body` | `limits.max_remote_body` |
//! | slots of one APS function (time steps of its straight-line code) | 100,000 | `--max-slots` | `limits.max_slots` |

use crate::diag::{Code, Diagnostic, Span};
use serde::{Deserialize, Serialize};

/// The resource limits of one run. `Limits::default()` is the documented policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Limits {
    /// Largest input file read, in bytes.
    pub max_input_size: u64,
    /// Widest integer type accepted (`iN`, `siN`, `uiN`), in bits.
    pub max_int_width: u32,
    /// Most results one operation may define (`%r:N`), or slots one buffer may have.
    pub max_results: u32,
    /// Deepest BLIF model hierarchy (instantiation chain).
    pub max_depth: u32,
    /// Most AIG nodes (inputs, latches, ANDs) of one lowered model.
    pub max_nodes: u64,
    /// Largest remote cache body whose size no digest states (an `ActionResult`), in bytes.
    pub max_remote_body: u64,
    /// Most operations in the body of one `handshake.func`.
    pub max_ops: u64,
    /// Longest name that becomes part of an output (a Handshake op's `handshake.name`, a
    /// port or function name), in bytes.
    pub max_name_len: u64,
    /// Most slots (time steps of straight-line code, one rule each) of one APS function.
    pub max_slots: u32,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        max_input_size: 1 << 30,
        max_int_width: 1024,
        max_results: 4096,
        max_depth: 100_000,
        max_nodes: 20_000_000,
        max_remote_body: 1 << 20,
        // Dynamatic's largest benchmarks have a few hundred ops; a chain of 40,000 32-bit
        // buffers writes 788 MB of outputs and peaks at 1.04 GB (README, *Hostile input*).
        max_ops: 50_000,
        // The shortest identifier length every Verilog tool must accept (IEEE 1364 §3.7):
        // the names become RTL and netlist identifiers downstream.
        max_name_len: 1024,
        max_slots: 100_000,
    };

    /// The current value of `limit`.
    pub fn get(&self, limit: Limit) -> u64 {
        match limit {
            Limit::InputSize => self.max_input_size,
            Limit::IntWidth => u64::from(self.max_int_width),
            Limit::Results => u64::from(self.max_results),
            Limit::Depth => u64::from(self.max_depth),
            Limit::Nodes => self.max_nodes,
            Limit::RemoteBody => self.max_remote_body,
            Limit::Ops => self.max_ops,
            Limit::NameLen => self.max_name_len,
            Limit::Slots => u64::from(self.max_slots),
        }
    }

    /// Set `limit` to `value` (saturating for the 32-bit limits).
    pub fn set(&mut self, limit: Limit, value: u64) {
        let v32 = u32::try_from(value).unwrap_or(u32::MAX);
        match limit {
            Limit::InputSize => self.max_input_size = value,
            Limit::IntWidth => self.max_int_width = v32,
            Limit::Results => self.max_results = v32,
            Limit::Depth => self.max_depth = v32,
            Limit::Nodes => self.max_nodes = value,
            Limit::RemoteBody => self.max_remote_body = value,
            Limit::Ops => self.max_ops = value,
            Limit::NameLen => self.max_name_len = value,
            Limit::Slots => self.max_slots = v32,
        }
    }

    /// `Err(message)` when `value` exceeds `limit` (see [`Limit::exceeded`]).
    pub(crate) fn check(&self, limit: Limit, value: u64) -> Result<(), String> {
        if value > self.get(limit) {
            Err(limit.exceeded(value, self.get(limit)))
        } else {
            Ok(())
        }
    }

    /// [`Limits::check`] as a diagnostic at `span` ([`Limit::exceeded_at`]).
    pub(crate) fn check_at(
        &self,
        limit: Limit,
        value: u64,
        span: Span,
        what: &str,
    ) -> Result<(), Diagnostic> {
        match value > self.get(limit) {
            true => Err(limit.exceeded_at(value, self.get(limit), span, what)),
            false => Ok(()),
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::DEFAULT
    }
}

/// One limit of the policy, with the names users raise it by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    InputSize,
    IntWidth,
    Results,
    Depth,
    Nodes,
    RemoteBody,
    Ops,
    NameLen,
    Slots,
}

impl Limit {
    pub const ALL: [Limit; 9] = [
        Limit::InputSize,
        Limit::IntWidth,
        Limit::Results,
        Limit::Depth,
        Limit::Nodes,
        Limit::RemoteBody,
        Limit::Ops,
        Limit::NameLen,
        Limit::Slots,
    ];

    /// The key under `[limits]` in `kiln.toml`; the flag is the same with dashes.
    pub fn key(self) -> &'static str {
        match self {
            Limit::InputSize => "max_input_size",
            Limit::IntWidth => "max_int_width",
            Limit::Results => "max_results",
            Limit::Depth => "max_depth",
            Limit::Nodes => "max_nodes",
            Limit::RemoteBody => "max_remote_body",
            Limit::Ops => "max_ops",
            Limit::NameLen => "max_name_len",
            Limit::Slots => "max_slots",
        }
    }

    /// The limit whose [`Limit::key`] is `key`.
    pub fn from_key(key: &str) -> Option<Limit> {
        Limit::ALL.into_iter().find(|l| l.key() == key)
    }

    /// The command-line flag that sets this limit.
    pub(crate) fn flag(self) -> String {
        format!("--{}", self.key().replace('_', "-"))
    }

    /// What is limited, in words.
    pub(crate) fn what(self) -> &'static str {
        match self {
            Limit::InputSize => "input file size (bytes)",
            Limit::IntWidth => "integer width (bits)",
            Limit::Results => "results or slots of one operation",
            Limit::Depth => "hierarchy depth",
            Limit::Nodes => "AIG nodes of one model",
            Limit::RemoteBody => "remote cache body (bytes)",
            Limit::Ops => "operations of one handshake.func",
            Limit::NameLen => "name length (bytes)",
            Limit::Slots => "slots of one APS function",
        }
    }

    /// The diagnostic of `value` over `max` at `span`: `{what}: {message}` (code E0004).
    pub(crate) fn exceeded_at(self, value: u64, max: u64, span: Span, what: &str) -> Diagnostic {
        let message = format!("{what}: {}", self.exceeded(value, max));
        Diagnostic::error(span, message).with_code(Code::LimitExceeded)
    }

    /// The message of a diagnostic for `value` over `max`: names the limit and how to raise it.
    pub fn exceeded(self, value: u64, max: u64) -> String {
        format!(
            "{value} exceeds the limit on {} ({max}); raise it with {} or `{}` under [limits] in kiln.toml",
            self.what(),
            self.flag(),
            self.key()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_round_trips_and_names_its_flag_and_key() {
        for l in Limit::ALL {
            let mut lim = Limits::DEFAULT;
            lim.set(l, 7);
            assert_eq!(lim.get(l), 7);
            let e = lim.check(l, 8).unwrap_err();
            assert!(e.contains(&l.flag()) && e.contains(l.key()), "{e}");
            assert!(lim.check(l, 7).is_ok());
            assert_eq!(Limit::from_key(l.key()), Some(l));
        }
    }
}
