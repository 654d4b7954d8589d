//! The top's CSR lanes: Rocket custom CSRs as the SoC hands them to the accelerator, one lane
//! per CSR, decoded by Rocket (the top never sees an address; `docs/soc.md#csrs`).
//!
//! A design's lanes come from its CSR globals (`memref.global @g : memref<i32>` with
//! `csr_address`), one per global in ascending address, named after the global, mask all
//! ones, reset value the global's initial value. A lane is the instance `csr_<name>`
//! ([`crate::rules::InstanceKind::Csr`]): `latched()` is the value latched when the command
//! being taken fired, `set(v)` the one-cycle write-back.

use crate::diag::{Diagnostic, Span};
use serde::{Deserialize, Serialize};

/// One CSR lane of the top.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CsrLane {
    /// The port name suffix: ports `csr_<name>_*`.
    pub name: String,
    /// The Rocket CSR address (what software uses).
    pub id: u32,
    /// Bits a write changes (Rocket's `CustomCSR` mask).
    pub mask: u32,
    /// The value after reset (already masked).
    pub init: u32,
    /// The global the design reads and writes it through, if any.
    pub global: Option<String>,
    pub span: Span,
}

impl CsrLane {
    /// The instance of the rule IR (and the prefix of its top ports).
    pub fn instance(&self) -> String {
        format!("csr_{}", self.name)
    }
}

/// A CSR global of the design (a `memref.global` with `csr_address`) as its lane sees it.
pub(crate) struct CsrGlobal<'a> {
    pub name: &'a str,
    /// Its `csr_address`.
    pub id: u32,
    /// Its initial value.
    pub init: u32,
    pub span: Span,
}

/// The lanes of a design without a CSR configuration: one per CSR global, ascending address.
pub(crate) fn lanes_of_globals(globals: &[CsrGlobal<'_>]) -> Result<Vec<CsrLane>, Diagnostic> {
    let mut lanes: Vec<CsrLane> = globals
        .iter()
        .map(|g| CsrLane {
            name: g.name.to_string(),
            id: g.id,
            mask: u32::MAX,
            init: g.init,
            global: Some(g.name.to_string()),
            span: g.span,
        })
        .collect();
    lanes.sort_by_key(|l| l.id);
    for w in lanes.windows(2) {
        if w[0].id == w[1].id {
            return Err(Diagnostic::error(
                w[1].span,
                format!(
                    "CSR globals `@{}` and `@{}` have the same `csr_address` {:#x}",
                    w[0].name, w[1].name, w[1].id
                ),
            ));
        }
    }
    for l in &lanes {
        if !valid_name(&l.name) {
            return Err(Diagnostic::error(
                l.span,
                format!(
                    "CSR global `@{}` names ports `csr_{}_*`: a name needs letters, digits and `_` only",
                    l.name, l.name
                ),
            ));
        }
    }
    Ok(lanes)
}

/// A lane name gives SystemVerilog identifiers `csr_<name>_…`.
fn valid_name(n: &str) -> bool {
    !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The lane read and written through global `g`, with its index.
pub(crate) fn lane_of_global<'a>(lanes: &'a [CsrLane], g: &str) -> Option<(usize, &'a CsrLane)> {
    lanes
        .iter()
        .enumerate()
        .find(|(_, l)| l.global.as_deref() == Some(g))
}

/// The SoC's CSR list (`aps_config.yaml`'s `csrs`, APS-MLIR's format): lane order is list
/// order, every entry gets ports whether or not the design uses it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CsrConfig {
    pub lanes: Vec<CsrLane>,
}

#[derive(Deserialize)]
struct ConfigFile {
    #[serde(default)]
    csrs: Vec<serde_saphyr::Spanned<ConfigEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigEntry {
    id: u32,
    name: serde_saphyr::Spanned<String>,
    #[serde(default = "all_ones")]
    mask: u64,
    #[serde(default)]
    init: u64,
}

fn all_ones() -> u64 {
    u32::MAX as u64
}

/// The span of a YAML location (its line start when the byte offset is unknown).
fn span_at(text: &str, loc: serde_saphyr::Location) -> Span {
    if let Some(b) = loc.span().byte_offset() {
        let b = (b as usize).min(text.len());
        return Span::new(b, b + 1);
    }
    let line = loc.line().saturating_sub(1) as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let col = loc.column().saturating_sub(1) as usize;
    let b = (start + col).min(text.len());
    Span::new(b, b + 1)
}

/// Parse `aps_config.yaml`: `csrs: [{id, name, mask, init}]` (other top-level keys, the rest
/// of APS's configuration, are ignored). Checks: ids in 0..=0xfff and unique, names of
/// letters, digits and `_`, unique, mask and init of 32 bits.
pub fn parse_config(text: &str) -> Result<CsrConfig, Diagnostic> {
    let file: ConfigFile = serde_saphyr::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let first = msg.lines().next().unwrap_or("malformed YAML").to_string();
        match e.location() {
            Some(loc) => Diagnostic::error(span_at(text, loc), first),
            None => Diagnostic::global_error(first),
        }
    })?;
    let mut lanes: Vec<CsrLane> = Vec::new();
    for entry in file.csrs {
        let span = span_at(text, entry.referenced);
        let e = entry.value;
        let name_span = span_at(text, e.name.referenced);
        let name = e.name.value;
        if e.id > 0xfff {
            return Err(Diagnostic::error(
                span,
                format!(
                    "CSR `{name}`: id {:#x} is not a CSR address (0..=0xfff)",
                    e.id
                ),
            ));
        }
        if !valid_name(&name) {
            return Err(Diagnostic::error(
                name_span,
                format!(
                    "CSR name `{name}` names ports `csr_{name}_*`: letters, digits and `_` only"
                ),
            ));
        }
        let (Ok(mask), Ok(init)) = (u32::try_from(e.mask), u32::try_from(e.init)) else {
            return Err(Diagnostic::error(
                span,
                format!("CSR `{name}`: mask and init are 32-bit values"),
            ));
        };
        if let Some(first) = lanes.iter().find(|l| l.name == name || l.id == e.id) {
            let what = match first.name == name {
                true => format!("name `{name}`"),
                false => format!("id {:#x}", e.id),
            };
            return Err(Diagnostic::error(span, format!("a second CSR with {what}"))
                .with_related(first.span, "the first one is here"));
        }
        lanes.push(CsrLane {
            name,
            id: e.id,
            mask,
            init: init & mask,
            global: None,
            span,
        });
    }
    Ok(CsrConfig { lanes })
}

/// The lanes of a design under a CSR configuration: the configuration's, each CSR global
/// attached to the lane of its address; a CSR global whose address the configuration does
/// not list is an error (at the global).
pub(crate) fn lanes_with_config(
    globals: &[CsrGlobal<'_>],
    config: &CsrConfig,
) -> Result<Vec<CsrLane>, Diagnostic> {
    let mut lanes = config.lanes.clone();
    for g in globals {
        let id = g.id;
        let Some(l) = lanes.iter_mut().find(|l| l.id == id) else {
            return Err(Diagnostic::error(
                g.span,
                format!(
                    "CSR global `@{}` has `csr_address` {id:#x}, which the CSR configuration does not list",
                    g.name
                ),
            ));
        };
        if let Some(other) = &l.global {
            return Err(Diagnostic::error(
                g.span,
                format!(
                    "CSR globals `@{other}` and `@{}` have the same `csr_address` {id:#x}",
                    g.name
                ),
            ));
        }
        l.global = Some(g.name.to_string());
    }
    Ok(lanes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_gives_lanes_in_list_order() {
        let text = "# APS config\naccel: {name: x}\ncsrs:\n  - id: 0x811\n    name: status\n  - {id: 0x810, name: \"0\", mask: 0xff, init: 0x1ff}\n";
        let c = parse_config(text).unwrap();
        let lanes: Vec<(&str, u32, u32, u32)> = (c.lanes.iter())
            .map(|l| (l.name.as_str(), l.id, l.mask, l.init))
            .collect();
        assert_eq!(
            lanes,
            [("status", 0x811, u32::MAX, 0), ("0", 0x810, 0xff, 0xff)]
        );
    }

    #[test]
    fn a_wrong_config_is_located() {
        for (text, want, line) in [
            (
                "csrs:\n  - {id: 0x1000, name: a}\n",
                "is not a CSR address",
                2,
            ),
            ("csrs:\n  - {id: 1, name: a-b}\n", "letters, digits", 2),
            (
                "csrs:\n  - {id: 1, name: a}\n  - {id: 1, name: b}\n",
                "a second CSR with id",
                3,
            ),
            (
                "csrs:\n  - {id: 1, name: a}\n  - {id: 2, name: a}\n",
                "a second CSR with name",
                3,
            ),
            (
                "csrs:\n  - {id: 1, name: a, mask: 0x100000000}\n",
                "32-bit",
                2,
            ),
            ("csrs:\n  - {id: 1, name: a, colour: red}\n", "colour", 2),
            ("csrs:\n  - {id: one, name: a}\n", "", 2),
            ("csrs: [\n", "", 0),
        ] {
            let d = parse_config(text).unwrap_err();
            assert!(d.message.contains(want), "{text:?}: {}", d.message);
            if line > 0 {
                let at = crate::diag::LineIndex::new(text)
                    .position(text, d.span.unwrap().start as usize)
                    .line;
                assert_eq!(at, line, "{text:?}: {}", d.message);
            }
        }
    }
}
