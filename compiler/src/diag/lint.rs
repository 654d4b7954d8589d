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
    /// Set `lint` to `level`; a later setting of the same lint wins.
    pub fn set(&mut self, lint: Lint, level: Level) {
        self.levels.insert(lint, level);
    }

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

    /// `messages` under these levels: allowed warnings dropped (their number returned),
    /// denied ones turned into errors with a note naming the setting. Errors and notes pass
    /// unchanged.
    pub fn apply(&self, messages: Vec<Located>) -> (Vec<Located>, u32) {
        if self.is_empty() {
            return (messages, 0);
        }
        let mut allowed = 0u32;
        let kept = messages
            .into_iter()
            .filter_map(|mut m| {
                if m.severity != Severity::Warning {
                    return Some(m);
                }
                match self.level(m.code) {
                    (Level::Allow, _) => {
                        allowed = allowed.saturating_add(1);
                        None
                    }
                    (Level::Warn, _) => Some(m),
                    (Level::Deny, lint) => {
                        m.severity = Severity::Error;
                        let code = m.code.map_or(WARNINGS, Code::as_str);
                        m.notes.push(match lint {
                            Lint::Code(_) => format!("`-D {code}` makes this warning an error"),
                            Lint::Warnings => {
                                format!("`-D {code}` implied by `-D warnings`")
                            }
                        });
                        Some(m)
                    }
                }
            })
            .collect();
        (kept, allowed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(code: Code) -> Located {
        Located::file("f", Severity::Warning, "w").with_code(code)
    }

    #[test]
    fn a_codes_own_level_wins_over_warnings() {
        let mut l = Lints::default();
        l.set(Lint::Warnings, Level::Deny);
        l.set(Lint::Code(Code::LibraryFileIgnored), Level::Allow);
        let msgs = vec![
            warning(Code::LibraryFileIgnored),
            warning(Code::OpaqueUnit),
            Located::file("f", Severity::Error, "e").with_code(Code::NoFlow),
        ];
        let (kept, allowed) = l.apply(msgs);
        assert_eq!(allowed, 1);
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(Located::is_error));
        assert_eq!(kept[0].notes, ["`-D W0404` implied by `-D warnings`"]);
    }

    #[test]
    fn no_levels_change_nothing() {
        let msgs = vec![warning(Code::OpaqueUnit)];
        assert_eq!(Lints::default().apply(msgs.clone()), (msgs, 0));
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
        let mut base = Lints::default();
        base.set(Lint::Code(Code::OpaqueUnit), Level::Deny);
        let mut over = Lints::default();
        over.set(Lint::Code(Code::OpaqueUnit), Level::Allow);
        let merged = base.overridden_by(&over);
        assert_eq!(merged.level(Some(Code::OpaqueUnit)).0, Level::Allow);
        assert_eq!(merged.level(Some(Code::FloatAsBits)).0, Level::Warn);
    }
}
