//! Definitions, references, hover texts, outlines and code lenses of an open document.

use super::queries::{file_symbols, file_values, function_values, model_names};
use crate::db::aps::{function_circuit, function_op, segmentation};
use crate::db::blif::{blif_models, model_aig, model_parsed};
use crate::db::handshake::{handshake_front, handshake_report};
use crate::db::{BlifFile, Db, SourceFile};
use crate::workspace::Overlay;
use compiler::aps::Style;
use compiler::aps::segment::BlockKind;
use compiler::ide::{NameIndex, NameKind, Occurrence};
use compiler::mlir::items::Item;
use compiler::rules::{Circuit, InstanceKind};
use std::ops::Range;

/// The name at a position: where it is defined and used, and a hover text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Navigation {
    /// The name's (or op's) own range.
    pub range: Option<Range<usize>>,
    pub definitions: Vec<Range<usize>>,
    pub references: Vec<Range<usize>>,
    pub hover: Option<Hover>,
}

/// A hover text (Markdown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub range: Range<usize>,
    pub markdown: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutlineKind {
    Function,
    Block,
    Loop,
    Model,
}

/// One entry of a document's outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineItem {
    pub name: String,
    pub kind: OutlineKind,
    pub range: Range<usize>,
    pub selection: Range<usize>,
    pub children: Vec<OutlineItem>,
}

/// A code lens: a title over a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lens {
    pub range: Range<usize>,
    pub title: String,
}

/// An inlay hint: a label shown at a byte offset (the end of an op's line), with a tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub at: usize,
    pub label: String,
    pub tooltip: String,
}

/// A document's outline, code lenses and inlay hints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    pub items: Vec<OutlineItem>,
    pub lenses: Vec<Lens>,
    pub hints: Vec<Hint>,
}

/// The integer value of attribute `name` on an op's line (`starttime = 3 : i32`).
fn int_attr(line: &str, name: &str) -> Option<u64> {
    let key = format!("{name} = ");
    // The whole name (`starttime`, not the end of `ref_starttime`).
    let at = line.match_indices(&key).map(|(k, _)| k).find(|&k| {
        !line[..k]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })? + key.len();
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// An op's scheduled cycles: its `starttime`/`endtime` attributes, or `on (a to b)`.
fn op_times(line: &str) -> Option<(u64, u64)> {
    if let (Some(a), Some(b)) = (int_attr(line, "starttime"), int_attr(line, "endtime")) {
        return Some((a, b));
    }
    let rest = &line[line.find("on (")? + 4..];
    let (a, rest) = rest.split_once(" to ")?;
    let b = rest.split(')').next()?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// The schedule in a function's text as inlay hints: per scheduled op (`starttime`,
/// `endtime`) its cycles and the slot rule that runs it; per `tor.for` its slots per
/// iteration (and the initiation interval of a pipelined loop). `seg` places ops in their
/// innermost block; `rules` are the function's rule names.
fn schedule_hints(
    item: &Item,
    seg: &compiler::aps::segment::Segmentation,
    rules: &std::collections::HashSet<&str>,
    out: &mut Vec<Hint>,
) {
    // A straight-line block's span is its first op: the block of an op at `off` with a slot
    // at `t` is the nearest block starting at or before it that has that slot's rule (its
    // innermost containing block, for the message, when none has).
    let slot_rule = |off: usize, t: u64| {
        seg.blocks
            .iter()
            .filter(|b| b.span.start as usize <= off)
            .filter_map(|b| {
                let rule = format!("{}_slot_{t}_rule", b.name);
                rules
                    .contains(rule.as_str())
                    .then_some((b.span.start, rule))
            })
            .max_by_key(|(start, _)| *start)
            .map(|(_, rule)| rule)
    };
    let innermost = |off: usize| {
        seg.blocks
            .iter()
            .filter(|b| (b.span.start as usize..b.span.end as usize).contains(&off))
            .min_by_key(|b| b.span.end - b.span.start)
    };
    let mut start = 0;
    for line in item.text.split_inclusive('\n') {
        let here = start;
        start += line.len();
        let body = line.trim_end();
        let op = here + (body.len() - body.trim_start().len());
        let end = item.offset + here + body.len();
        if body.trim_start().starts_with("tor.for")
            && let Some(b) = seg.blocks.iter().find(|b| {
                matches!(b.kind, BlockKind::Loop { .. })
                    && (b.span.start as usize..b.span.end as usize).contains(&op)
                    && b.span.start as usize >= here
            })
        {
            let inner = &item.text[b.span.start as usize..b.span.end as usize];
            // The header (`tor.for … on (a to b) {`) takes one or two lines.
            let head = inner.find('{').map_or(inner, |k| &inner[..k]);
            let window = op_times(head).map_or(String::new(), |(a, b)| format!("@c{a}–c{b} · "));
            let times: std::collections::BTreeSet<u64> = inner[head.len()..]
                .lines()
                .filter_map(|l| op_times(l).map(|t| t.0))
                .collect();
            let ii = match &b.kind {
                BlockKind::Loop { info, .. } => info.pipeline,
                _ => None,
            };
            let label = match ii {
                Some(ii) => format!(
                    "loop {window}{} slots per iteration, pipelined II = {ii}",
                    times.len()
                ),
                None => format!("loop {window}{} slots per iteration", times.len()),
            };
            out.push(Hint {
                at: end,
                label,
                tooltip: format!("loop `{}`: its body's scheduled cycles", b.name),
            });
            continue;
        }
        // A loop header's second line, and globals (no hardware of their own), get none.
        let trimmed = body.trim_start();
        if trimmed.starts_with("on (") || body.contains("memref.get_global") {
            continue;
        }
        let Some((t0, t1)) = op_times(body) else {
            continue;
        };
        let (label, tooltip) = match (slot_rule(op, t0), innermost(op)) {
            (Some(rule), _) => (
                format!("@c{t0}–c{t1} · slot {t0}"),
                format!("cycles {t0} to {t1} of the schedule; runs in rule `{rule}`"),
            ),
            (None, Some(block)) => (
                format!("@c{t0}–c{t1}"),
                format!(
                    "cycles {t0} to {t1} of the schedule, in `{}` (its slot has no rule of its own: a wait)",
                    block.name
                ),
            ),
            (None, None) => continue,
        };
        out.push(Hint {
            at: end,
            label,
            tooltip,
        });
    }
}

fn range(o: &Occurrence, shift: usize) -> Range<usize> {
    o.span.start as usize + shift..o.span.end as usize + shift
}

/// The item (function, model) holding `offset`.
fn item_at(items: &[Item], offset: usize) -> Option<&Item> {
    let i = items.partition_point(|i| i.offset <= offset);
    let item = items.get(i.checked_sub(1)?)?;
    (offset <= item.offset + item.text.len()).then_some(item)
}

/// Definitions and references of the name `o` (of `index`, whose spans are `shift` bytes
/// before the document's).
fn name_in(nav: &mut Navigation, index: &NameIndex, o: &Occurrence, shift: usize) {
    nav.range = Some(range(o, shift));
    for x in index.of(o.kind, &o.name) {
        match x.def {
            true => nav.definitions.push(range(x, shift)),
            false => nav.references.push(range(x, shift)),
        }
    }
}

/// What is at byte `offset` of the document.
pub(crate) fn navigate(db: &Db, overlay: Overlay, offset: usize) -> Navigation {
    let mut nav = Navigation::default();
    match overlay {
        Overlay::Mlir(f, _) => aps_navigate(db, f, offset, &mut nav),
        Overlay::Handshake(j, _) => {
            let f = *j.file(db);
            if !symbol_at(db, f, offset, &mut nav)
                && let Some(index) = file_values(db, f)
                && let Some(o) = index.at(offset)
            {
                name_in(&mut nav, index, o, 0);
            }
            nav.hover = handshake_hover(db, j, offset);
        }
        Overlay::Blif(f, _) => blif_navigate(db, f, offset, &mut nav),
    }
    nav
}

/// An `@symbol` at `offset`: its definitions and uses in the file.
fn symbol_at(db: &Db, f: SourceFile, offset: usize, nav: &mut Navigation) -> bool {
    let symbols = file_symbols(db, f);
    let Some(o) = symbols.at(offset) else {
        return false;
    };
    name_in(nav, symbols, o, 0);
    true
}

fn aps_navigate(db: &Db, f: SourceFile, offset: usize, nav: &mut Navigation) {
    let functions = &f.split(db).functions;
    let item = item_at(functions, offset);
    if let Some(item) = item
        && let Some(index) = function_values(db, f, item.symbol.clone())
        && let Some(o) = index.at(offset - item.offset)
    {
        name_in(nav, index, o, item.offset);
    } else {
        symbol_at(db, f, offset, nav);
    }
    if let Some(item) = item {
        nav.hover = aps_hover(db, f, item, offset - item.offset);
    }
}

/// The rules and FIFOs of a function's circuit.
fn rules_and_fifos(c: &Circuit) -> (usize, usize) {
    let fifos = c
        .instances
        .iter()
        .filter(|i| matches!(i.kind, InstanceKind::Fifo { .. }))
        .count();
    (c.rules.len(), fifos)
}

/// An APS op's schedule: `starttime`/`endtime`, its block and slot, the rules made for
/// them; on the function itself, its rules and FIFOs.
fn aps_hover(db: &Db, f: SourceFile, item: &Item, local: usize) -> Option<Hover> {
    let function = function_op(db, f, item.symbol.clone())
        .as_ref()?
        .as_ref()
        .ok()?;
    let op = compiler::ide::op_at(function, local)?;
    let circuit = function_circuit(db, f, item.symbol.clone(), Style::Fsm)
        .as_ref()?
        .as_ref()
        .ok();
    let at = op.span.start as usize + item.offset..op.span.end as usize + item.offset;
    if std::ptr::eq(op, function) {
        let (rules, fifos) = circuit.map(rules_and_fifos)?;
        let markdown = format!("`@{}`: {rules} rules, {fifos} FIFOs", item.symbol);
        return Some(Hover {
            range: at,
            markdown,
        });
    }
    let time = |k: &str| op.attr(k).and_then(|a| a.as_int());
    let mut md = format!("`{}`", op.name);
    let (Some(start), end) = (time("starttime"), time("endtime")) else {
        return Some(Hover {
            range: at,
            markdown: md,
        });
    };
    md.push_str(&format!("\n\nstarttime {start}"));
    if let Some(e) = end {
        md.push_str(&format!(", endtime {e}"));
    }
    let seg = segmentation(db, f, item.symbol.clone(), Style::Fsm)
        .as_deref()?
        .as_ref()
        .ok()?;
    let block = seg.blocks.iter().find(|b| match &b.kind {
        BlockKind::Basic { ops, .. } => ops.iter().any(|o| o.span == op.span),
        _ => false,
    });
    if let Some(b) = block {
        md.push_str(&format!("\n\nblock `{}`, slot {start}", b.name));
        let slot = format!("{}_slot_{start}_rule", b.name);
        let rules: Vec<String> = circuit
            .iter()
            .flat_map(|c| c.rules.iter())
            .filter(|r| r.origin == b.name && r.name.ends_with(&slot))
            .map(|r| format!("`{}`", r.name))
            .collect();
        if !rules.is_empty() {
            md.push_str(&format!("\n\nrules: {}", rules.join(", ")));
        }
    }
    Some(Hover {
        range: at,
        markdown: md,
    })
}

/// A Handshake op's implementation: its library unit (and path), built-in generator or
/// opaque fallback.
fn handshake_hover(
    db: &Db,
    job: crate::db::handshake::HandshakeJob,
    offset: usize,
) -> Option<Hover> {
    let front = handshake_front(db, job).as_ref().ok()?;
    let o = offset as u32;
    let (i, node) = front
        .circuit
        .ops
        .iter()
        .enumerate()
        .filter(|(_, n)| n.span.start <= o && o <= n.span.end)
        .min_by_key(|(_, n)| n.span.len())?;
    let rows = handshake_report(db, job).as_ref()?;
    let row = rows.get(i)?;
    let lib = job.opts(db).lib_dir.clone();
    let what = match &row.imp {
        compiler::handshake::Impl::Library { path } => {
            let full = lib.map(|d| d.join(path).display().to_string());
            format!(
                "library unit `{path}`{}",
                full.map(|f| format!(" ({f})")).unwrap_or_default()
            )
        }
        compiler::handshake::Impl::Template { about, .. } => {
            format!("Verilog template unit `{about}` (synthesized by yosys)")
        }
        compiler::handshake::Impl::Builtin(b) => format!("built-in generator `{}`", b.model_name()),
        imp @ compiler::handshake::Impl::Managed { .. } => {
            let what = imp.describe();
            what.split_whitespace().collect::<Vec<_>>().join(" ")
        }
        compiler::handshake::Impl::Subckt { looked_for, reason } => match looked_for {
            Some(p) => format!("opaque subckt (looked for `{p}`: {reason})"),
            None => format!("opaque subckt ({reason})"),
        },
    };
    let markdown = format!("`{}` (`{}`, key `{}`): {what}", row.op, row.kind, row.key);
    Some(Hover {
        range: node.span.start as usize..node.span.end as usize,
        markdown,
    })
}

fn blif_navigate(db: &Db, f: BlifFile, offset: usize, nav: &mut Navigation) {
    let models = blif_models(db, f);
    let Some(item) = item_at(models, offset) else {
        return;
    };
    let Some(index) = model_names(db, f, item.symbol.clone()) else {
        return;
    };
    let o = index.at(offset - item.offset);
    match o {
        Some(o) if o.kind == NameKind::Model => {
            // A model: its `.model` line and every `.subckt` of it, file-wide.
            nav.range = Some(range(o, item.offset));
            for m in models {
                let Some(idx) = model_names(db, f, m.symbol.clone()) else {
                    continue;
                };
                for x in idx.of(NameKind::Model, &o.name) {
                    match x.def {
                        true => nav.definitions.push(range(x, m.offset)),
                        false => nav.references.push(range(x, m.offset)),
                    }
                }
            }
            nav.hover = model_hover(db, f, &o.name, range(o, item.offset));
        }
        Some(o) => name_in(nav, index, o, item.offset),
        None => {
            let head = item.offset..item.offset + item.text.find('\n').unwrap_or(0);
            nav.hover = model_hover(db, f, &item.symbol, head);
        }
    }
}

/// A BLIF model's PI / PO / latch / AND counts.
fn model_hover(db: &Db, f: BlifFile, name: &str, at: Range<usize>) -> Option<Hover> {
    let (model, _) = model_parsed(db, f, name.to_string())
        .as_ref()?
        .as_ref()
        .ok()?;
    let ands = match model_aig(db, f, name.to_string()) {
        Ok(l) => l.aig.and_count().to_string(),
        Err(_) => "?".to_string(),
    };
    let markdown = format!(
        "model `{name}`: {} PI, {} PO, {} latches, {ands} ANDs",
        model.inputs.len(),
        model.outputs.len(),
        model.latches.len()
    );
    Some(Hover {
        range: at,
        markdown,
    })
}

/// The document's outline (functions with their blocks and loops; BLIF models) and, for
/// APS, a lens "N rules, M FIFOs" per function.
pub(crate) fn outline(db: &Db, overlay: Overlay) -> Outline {
    let mut out = Outline::default();
    match overlay {
        Overlay::Mlir(f, _) => {
            for item in &f.split(db).functions {
                let name_at = item.offset + item.text.find('@').unwrap_or(0);
                let selection = name_at..name_at + 1 + item.symbol.len();
                let whole = item.offset..item.offset + item.text.len();
                let mut children = Vec::new();
                if let Some(Ok(seg)) =
                    segmentation(db, f, item.symbol.clone(), Style::Fsm).as_deref()
                {
                    for b in seg.blocks.iter().skip(1) {
                        let kind = match b.kind {
                            BlockKind::Loop { .. } => OutlineKind::Loop,
                            _ => OutlineKind::Block,
                        };
                        let r =
                            b.span.start as usize + item.offset..b.span.end as usize + item.offset;
                        children.push(OutlineItem {
                            name: b.name.clone(),
                            kind,
                            range: r.clone(),
                            selection: r.start..r.start,
                            children: Vec::new(),
                        });
                    }
                }
                if let Some(Ok(c)) = function_circuit(db, f, item.symbol.clone(), Style::Fsm) {
                    let (rules, fifos) = rules_and_fifos(c);
                    out.lenses.push(Lens {
                        range: selection.clone(),
                        title: format!("{rules} rules, {fifos} FIFOs"),
                    });
                    if let Some(Ok(seg)) =
                        segmentation(db, f, item.symbol.clone(), Style::Fsm).as_deref()
                    {
                        let names = c.rules.iter().map(|r| r.name.as_str()).collect();
                        schedule_hints(item, seg, &names, &mut out.hints);
                    }
                }
                out.items.push(OutlineItem {
                    name: format!("@{}", item.symbol),
                    kind: OutlineKind::Function,
                    range: whole,
                    selection,
                    children,
                });
            }
        }
        Overlay::Handshake(j, _) => {
            let f = *j.file(db);
            for o in file_symbols(db, f).occurrences.iter().filter(|o| o.def) {
                let r = range(o, 0);
                out.items.push(OutlineItem {
                    name: o.name.clone(),
                    kind: OutlineKind::Function,
                    range: r.clone(),
                    selection: r,
                    children: Vec::new(),
                });
            }
        }
        Overlay::Blif(f, _) => {
            for m in blif_models(db, f) {
                let whole = m.offset..m.offset + m.text.len();
                out.items.push(OutlineItem {
                    name: m.symbol.clone(),
                    kind: OutlineKind::Model,
                    range: whole.clone(),
                    selection: whole.start..whole.start + m.text.find('\n').unwrap_or(0),
                    children: Vec::new(),
                });
            }
        }
    }
    out
}
