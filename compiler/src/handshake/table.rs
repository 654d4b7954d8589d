//! The path table: which library file implements which unit (notes §4, corrected).
//!
//! A key names a unit variant: the op's short name, a variant the library distinguishes
//! (`buffer.ONE_SLOT_BREAK_DV`, `cmpi.ult`, `constant.1`) and `.dataless` for a zero-width
//! data channel. A value is a path template relative to the library directory, with
//! parameters in braces: `{W}` data width, `{N}` size (ports of a fork/merge/mux), `{S}` mux
//! select width, `{I}` control-merge index width, `{IN}`/`{OUT}` widths of casts, `{A}` address
//! width, `{SLOTS}` buffer slots. The defaults fit the `dataflow-aig-library` layout we have
//! (commit 0594cb9); library layouts drift between versions, so a user can override entries
//! with a file of lines `key = template` (`#` comments; template `-` removes the entry, which
//! sends the unit to its built-in generator or to the opaque fallback).

use crate::diag::{Diagnostic, Span};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The placeholders a template may use.
pub(crate) const PARAMS: &[&str] = &["W", "N", "S", "I", "IN", "OUT", "A", "SLOTS"];

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PathTable {
    pub(crate) entries: BTreeMap<String, String>,
}

const BINARY: &[&str] = &[
    "addi", "andi", "ori", "xori", "subi", "shli", "shrsi", "shrui", "muli", "divsi", "divui",
];

const BUFFERS: &[(&str, &str, &str)] = &[
    // (buffer type, data template, dataless template)
    (
        "ONE_SLOT_BREAK_DV",
        "oehb/{W}/oehb.blif",
        "oehb_dataless/oehb_dataless.blif",
    ),
    (
        "ONE_SLOT_BREAK_R",
        "tehb/{W}/tehb.blif",
        "tehb_dataless/tehb_dataless.blif",
    ),
    (
        "ONE_SLOT_BREAK_DVR",
        "one_slot_break_dvr/{W}/one_slot_break_dvr.blif",
        "one_slot_break_dvr_dataless/one_slot_break_dvr_dataless.blif",
    ),
    (
        "SHIFT_REG_BREAK_DV",
        "shift_reg_break_dv/{SLOTS}/{W}/shift_reg_break_dv.blif",
        "shift_reg_break_dv_dataless/{SLOTS}/shift_reg_break_dv_dataless.blif",
    ),
    (
        "FIFO_BREAK_NONE",
        "tfifo/{SLOTS}/{W}/tfifo.blif",
        "tfifo_dataless/{SLOTS}/tfifo_dataless.blif",
    ),
    (
        "FIFO_BREAK_DV",
        "elastic_fifo_inner/{SLOTS}/{W}/elastic_fifo_inner.blif",
        "elastic_fifo_inner_dataless/{SLOTS}/elastic_fifo_inner_dataless.blif",
    ),
];

const OTHERS: &[(&str, &str)] = &[
    ("cmpi.ult", "cmpi/{W}/cmpi.blif"),
    ("select", "selector/{W}/selector.blif"),
    ("constant.1", "constant/{W}/constant.blif"),
    ("br", "br/{W}/br.blif"),
    ("br.dataless", "br_dataless/br_dataless.blif"),
    ("sink", "sink/{W}/sink.blif"),
    ("sink.dataless", "sink_dataless/sink_dataless.blif"),
    ("source.dataless", "source/source.blif"),
    ("cond_br", "cond_br/{W}/cond_br.blif"),
    ("cond_br.dataless", "cond_br_dataless/cond_br_dataless.blif"),
    (
        "control_merge",
        "control_merge/{N}/{W}/{I}/control_merge.blif",
    ),
    (
        "control_merge.dataless",
        "control_merge_dataless/{N}/{I}/control_merge_dataless.blif",
    ),
    ("extsi", "extsi/{IN}/{OUT}/extsi.blif"),
    ("extui", "extui/{IN}/{OUT}/extui.blif"),
    ("trunci", "trunci/{IN}/{OUT}/trunci.blif"),
    ("fork", "fork_type/{N}/{W}/fork_type.blif"),
    ("fork.dataless", "fork_dataless/{N}/fork_dataless.blif"),
    ("lazy_fork", "lazy_fork/{N}/{W}/lazy_fork.blif"),
    (
        "lazy_fork.dataless",
        "lazy_fork_dataless/{N}/lazy_fork_dataless.blif",
    ),
    ("mux", "mux/{N}/{W}/{S}/mux.blif"),
    ("mux.dataless", "mux_dataless/{N}/{S}/mux_dataless.blif"),
    ("merge", "merge/{N}/{W}/merge.blif"),
    ("merge.dataless", "merge_dataless/{N}/merge_dataless.blif"),
    ("load", "load/{W}/{A}/load.blif"),
    ("store", "store/{W}/{A}/store.blif"),
    ("join.dataless", "join_type/{N}/join_type.blif"),
    ("not", "noti/{W}/noti.blif"),
];

impl Default for PathTable {
    fn default() -> PathTable {
        let mut entries = BTreeMap::new();
        for op in BINARY {
            entries.insert(op.to_string(), format!("{op}/{{W}}/{op}.blif"));
        }
        for (ty, data, dataless) in BUFFERS {
            entries.insert(format!("buffer.{ty}"), data.to_string());
            entries.insert(format!("buffer.{ty}.dataless"), dataless.to_string());
        }
        for (k, v) in OTHERS {
            entries.insert(k.to_string(), v.to_string());
        }
        PathTable { entries }
    }
}

impl PathTable {
    /// The default table with the entries of override file `text` applied. Errors point
    /// into `text`.
    pub(crate) fn with_overrides(text: &str) -> Result<PathTable, Diagnostic> {
        let mut table = PathTable::default();
        table.apply_overrides(text)?;
        Ok(table)
    }

    /// Applies override lines `key = template` (`-` removes the key).
    pub(crate) fn apply_overrides(&mut self, text: &str) -> Result<(), Diagnostic> {
        let mut offset = 0;
        for raw in text.split_inclusive('\n') {
            let start = offset;
            offset += raw.len();
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let span = Span::new(start, start + raw.trim_end().len());
            let Some((key, value)) = line.split_once('=') else {
                return Err(Diagnostic::error(span, "expected `key = template`"));
            };
            let key = key.trim();
            let value = value.trim().trim_matches('"');
            if key.is_empty()
                || !key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.".contains(c))
            {
                return Err(Diagnostic::error(span, format!("bad table key `{key}`")));
            }
            if value == "-" {
                self.entries.remove(key);
                continue;
            }
            check_template(value).map_err(|m| Diagnostic::error(span, m))?;
            self.entries.insert(key.to_string(), value.to_string());
        }
        Ok(())
    }

    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(String::as_str)
    }

    /// The table as override-file text (every entry; round-trips through `with_overrides`).
    /// Only the round-trip test uses it.
    #[cfg(test)]
    pub(crate) fn to_text(&self) -> String {
        self.entries
            .iter()
            .map(|(k, v)| format!("{k} = {v}\n"))
            .collect()
    }
}

fn check_template(t: &str) -> Result<(), String> {
    if t.is_empty() {
        return Err("empty template".into());
    }
    let mut rest = t;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("unclosed `{{` in template `{t}`"));
        };
        let name = &rest[open + 1..open + close];
        if !PARAMS.contains(&name) {
            return Err(format!(
                "unknown parameter `{{{name}}}` in `{t}` (known: {})",
                PARAMS.join(", ")
            ));
        }
        rest = &rest[open + close + 1..];
    }
    Ok(())
}

/// Fills the placeholders of `template`; the error names a parameter the op does not have.
pub(crate) fn expand(template: &str, params: &BTreeMap<String, u64>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{template}`"))?;
        let name = &rest[open + 1..open + close];
        let v = params.get(name).ok_or_else(|| {
            format!("template `{template}` needs {{{name}}}, which this op lacks")
        })?;
        out.push_str(&v.to_string());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_cover_the_buffer_types() {
        let t = PathTable::default();
        assert_eq!(
            t.get("buffer.FIFO_BREAK_NONE"),
            Some("tfifo/{SLOTS}/{W}/tfifo.blif")
        );
        assert_eq!(t.get("select"), Some("selector/{W}/selector.blif"));
        assert_eq!(t.get("addi"), Some("addi/{W}/addi.blif"));
    }

    #[test]
    fn overrides_replace_and_remove() {
        let t = PathTable::with_overrides("# c\naddi = x/{W}.blif\n\nselect = -\n").unwrap();
        assert_eq!(t.get("addi"), Some("x/{W}.blif"));
        assert_eq!(t.get("select"), None);
        let round = PathTable::with_overrides(&t.to_text()).unwrap();
        assert_eq!(round.entries.len(), t.entries.len() + 1);
    }

    #[test]
    fn override_errors_are_located() {
        let e = PathTable::with_overrides("addi = a\nmux = m/{Q}.blif\n").unwrap_err();
        assert_eq!(e.span, Some(Span::new(9, 25)));
        assert!(e.message.contains("{Q}"));
        assert!(PathTable::with_overrides("novalue\n").is_err());
    }

    #[test]
    fn expand_fills_params() {
        let p = BTreeMap::from([("W".to_string(), 8), ("N".to_string(), 2)]);
        assert_eq!(
            expand("fork_type/{N}/{W}/f.blif", &p).unwrap(),
            "fork_type/2/8/f.blif"
        );
        assert!(expand("x/{S}", &p).is_err());
    }
}
