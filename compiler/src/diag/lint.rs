//! Lint levels: what a build does with a warning of a given code. `allow` drops it (the
//! build counts what it dropped), `warn` shows it, `deny` makes it an error, so the input
//! fails and its outputs are not written. `-A/-W/-D CODE` and `kiln.toml`'s `[lints]`
//! table set them; the name `warnings` stands for every warning code, and a code's own
//! level wins over it (`-D warnings -A W0405` denies every warning but `W0405`).
//!
//! Only warnings have levels: an error cannot be allowed.

use super::{Code, Located, Severity};
use std::collections::BTreeMap;

/// What a build does with one warning code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    /// `allow`, `warn` or `deny`.
    pub fn parse(name: &str) -> Option<Level> {
        match name.trim().to_ascii_lowercase().as_str() {
            "allow" => Some(Level::Allow),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    /// The command-line flag that sets this level (`-A`, `-W`, `-D`).
    pub fn flag(self) -> &'static str {
        match self {
            Level::Allow => "-A",
            Level::Warn => "-W",
            Level::Deny => "-D",
        }
    }
}

/// The name that stands for every warning code.
pub const WARNINGS: &str = "warnings";

/// A lint name: every warning, or one warning code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lint {
    Warnings,
    Code(Code),
}

impl Lint {
    /// `warnings` or a warning code (`W0405`, case-insensitive); an error code or an
    /// unknown name is refused with the reason.
    pub fn parse(name: &str) -> Result<Lint, String> {
        if name.trim().eq_ignore_ascii_case(WARNINGS) {
            return Ok(Lint::Warnings);
        }
        match Code::parse(name) {
            Some(c) if c.as_str().starts_with('W') => Ok(Lint::Code(c)),
            Some(c) => Err(format!(
                "`{c}` is an error code: only warnings have lint levels (`kiln explain {c}`)"
            )),
            None => Err(format!(
                "unknown lint `{}`: expected `warnings` or a warning code such as `W0405` \
                 (`kiln explain` lists them)",
                super::shorten(name.to_string())
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Lint::Warnings => WARNINGS,
            Lint::Code(c) => c.as_str(),
        }
    }
}

/// The levels a build applies; empty: every warning is shown.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Lints {
    levels: BTreeMap<Lint, Level>,
}

impl Lints {
    /// `self` with every setting of `over` on top.
    pub fn overridden_by(mut self, over: &Lints) -> Lints {
        self.levels
            .extend(over.levels.iter().map(|(l, v)| (*l, *v)));
        self
    }

    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Every setting, by lint name.
    pub fn iter(&self) -> impl Iterator<Item = (Lint, Level)> + '_ {
        self.levels.iter().map(|(l, v)| (*l, *v))
    }

    /// The level of warnings of `code` (their own, else that of `warnings`, else `warn`),
    /// and the setting it comes from.
    pub fn level(&self, code: Option<Code>) -> (Level, Lint) {
        let own = code
            .map(Lint::Code)
            .and_then(|l| Some((*self.levels.get(&l)?, l)));
        let all = || Some((*self.levels.get(&Lint::Warnings)?, Lint::Warnings));
        own.or_else(all).unwrap_or((Level::Warn, Lint::Warnings))
    }

    /// `messages` under these levels: allowed warnings dropped (counted), denied ones
    /// turned into errors with a note naming the setting (counted). Errors and notes pass
    /// unchanged.
    pub fn apply(&self, messages: Vec<Located>) -> Applied {
        let mut out = Applied {
            messages,
            allowed: 0,
            denied: 0,
        };
        if self.is_empty() {
            return out;
        }
        out.messages.retain_mut(|m| {
            if m.severity != Severity::Warning {
                return true;
            }
            match self.level(m.code) {
                (Level::Allow, _) => {
                    out.allowed = out.allowed.saturating_add(1);
                    false
                }
                (Level::Warn, _) => true,
                (Level::Deny, lint) => {
                    out.denied = out.denied.saturating_add(1);
                    m.severity = Severity::Error;
                    let code = m.code.map_or(WARNINGS, Code::as_str);
                    m.notes.push(match lint {
                        Lint::Code(_) => format!("`-D {code}` makes this warning an error"),
                        Lint::Warnings => format!("`-D {code}` implied by `-D warnings`"),
                    });
                    true
                }
            }
        });
        out
    }
}

impl FromIterator<(Lint, Level)> for Lints {
    /// The settings in order, a later one of the same lint winning.
    fn from_iter<I: IntoIterator<Item = (Lint, Level)>>(settings: I) -> Lints {
        Lints {
            levels: settings.into_iter().collect(),
        }
    }
}

/// Messages under lint levels ([`Lints::apply`]).
#[derive(Debug, PartialEq, Eq)]
pub struct Applied {
    pub messages: Vec<Located>,
    /// Warnings allowed (left out of `messages`).
    pub allowed: u32,
    /// Warnings denied (errors in `messages`).
    pub denied: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(code: Code) -> Located {
        Located::file("f", Severity::Warning, "w").with_code(code)
    }

    #[test]
    fn a_codes_own_level_wins_over_warnings() {
        let l: Lints = [
            (Lint::Warnings, Level::Deny),
            (Lint::Code(Code::LibraryFileIgnored), Level::Allow),
        ]
        .into_iter()
        .collect();
        let msgs = vec![
            warning(Code::LibraryFileIgnored),
            warning(Code::OpaqueUnit),
            Located::file("f", Severity::Error, "e").with_code(Code::NoFlow),
        ];
        let Applied {
            messages: kept,
            allowed,
            denied,
        } = l.apply(msgs);
        assert_eq!((allowed, denied), (1, 1));
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(Located::is_error));
        assert_eq!(kept[0].notes, ["`-D W0404` implied by `-D warnings`"]);
    }

    #[test]
    fn no_levels_change_nothing() {
        let msgs = vec![warning(Code::OpaqueUnit)];
        let applied = Lints::default().apply(msgs.clone());
        assert_eq!(
            (applied.messages, applied.allowed, applied.denied),
            (msgs, 0, 0)
        );
    }

    #[test]
    fn errors_and_unknown_names_have_no_level() {
        assert!(Lint::parse("E0101").unwrap_err().contains("error code"));
        assert!(Lint::parse("W9999").unwrap_err().contains("unknown lint"));
        assert_eq!(Lint::parse("w0404"), Ok(Lint::Code(Code::OpaqueUnit)));
        assert_eq!(Lint::parse("Warnings"), Ok(Lint::Warnings));
    }

    #[test]
    fn later_settings_win() {
        let base: Lints = [(Lint::Code(Code::OpaqueUnit), Level::Deny)]
            .into_iter()
            .collect();
        let over: Lints = [
            (Lint::Code(Code::OpaqueUnit), Level::Deny),
            (Lint::Code(Code::OpaqueUnit), Level::Allow),
        ]
        .into_iter()
        .collect();
        let merged = base.overridden_by(&over);
        assert_eq!(merged.level(Some(Code::OpaqueUnit)).0, Level::Allow);
        assert_eq!(merged.level(Some(Code::FloatAsBits)).0, Level::Warn);
    }
}
