//! The architecture a function's rules follow ([`Style`]).

use serde::{Deserialize, Serialize};

/// How a non-pipelined function becomes rules.
///
/// - [`Style::Fsm`] (the default): one program-counter state machine per function, values
///   used outside their slot in registers ([`super::segment`], [`super::handlers`]).
/// - [`Style::Fifo`]: the dataflow architecture of BBHandler and BlockHandler
///   ([`super::fifo`]): per-slot rules chained by token FIFOs, cross-slot and cross-block
///   FIFOs, an input distribution rule where sub-blocks need a container's inputs.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Style {
    #[default]
    Fsm,
    Fifo,
}

impl Style {
    pub const ALL: [Style; 2] = [Style::Fsm, Style::Fifo];

    /// The name on the command line and in `kiln.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Style::Fsm => "fsm",
            Style::Fifo => "fifo",
        }
    }

    /// The style named `s` (`fsm`, `fifo`).
    pub fn parse(s: &str) -> Option<Style> {
        Style::ALL.into_iter().find(|x| x.name() == s)
    }
}

impl std::fmt::Display for Style {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Style {
    type Err = String;
    fn from_str(s: &str) -> Result<Style, String> {
        Style::parse(s).ok_or_else(|| format!("unknown style `{s}` (fsm, fifo)"))
    }
}
