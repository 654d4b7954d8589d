//! The top's CSR lanes: Rocket custom CSRs as the SoC hands them to the accelerator, one lane
//! per CSR, decoded by Rocket (the top never sees an address; `docs/soc.md#csrs`).
//!
//! A design's lanes come from its CSR globals (`memref.global @g : memref<i32>` with
//! `csr_address`), one per global in ascending address, named after the global, mask all
//! ones, reset value the global's initial value. A lane is the instance `csr_<name>`
//! ([`crate::rules::InstanceKind::Csr`]): `latched()` is the value latched when the command
//! being taken fired, `set(v)` the one-cycle write-back.

use super::context::Global;
use crate::diag::{Diagnostic, Span};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

/// The lanes of a design without a CSR configuration: one per CSR global, ascending address.
pub(crate) fn lanes_of_globals(
    globals: &BTreeMap<String, Global>,
) -> Result<Vec<CsrLane>, Diagnostic> {
    let mut lanes: Vec<CsrLane> = globals
        .values()
        .filter_map(|g| {
            let id = g.csr_address?;
            let init = g.init.first().copied().unwrap_or(0) as u32;
            Some(CsrLane {
                name: g.name.clone(),
                id,
                mask: u32::MAX,
                init,
                global: Some(g.name.clone()),
                span: g.span,
            })
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
