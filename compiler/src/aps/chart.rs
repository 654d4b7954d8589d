//! The schedule picture of one command (`kiln graph --schedule`): for every slot rule of the
//! function, the cycle the schedule planned for it (`…_slot_<t>_rule`: its `starttime`)
//! beside the cycles in which the rule simulator fired it, and under them the cycles spent
//! waiting for DMA (nothing of the function fired, a transfer was in flight) and the other
//! overhead (nothing fired and no transfer: control rules, waits on responses), so the
//! overhead over the schedule shows at a glance. A Graphviz DOT text (one HTML-like table);
//! `dot -Tsvg` or `-Tpng` renders it.

use crate::rules::Circuit;
use crate::rules::sim::Trace;
use std::fmt::Write as _;

/// The planned cycle of a slot rule: `t` of its `…_slot_<t>_rule` name.
fn planned(name: &str) -> Option<u64> {
    let head = name.strip_suffix("_rule")?;
    let (_, t) = head.rsplit_once("_slot_")?;
    t.parse().ok()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const PLAN: &str = "#9ecae1";
const FIRED: &str = "#31a354";
const DMA: &str = "#bdbdbd";
const OVERHEAD: &str = "#fc9272";

/// What each cycle of the run was, for the last two rows and the caption.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cycle {
    Slot,
    Dma,
    Overhead,
}

/// The picture of `circuit`'s one function run as `trace` recorded it; at most `max_cycles`
/// columns (a last column says how many more cycles the run had).
pub fn schedule_dot(circuit: &Circuit, trace: &Trace, title: &str, max_cycles: usize) -> String {
    let mut slots: Vec<(u64, usize)> = circuit
        .rules
        .iter()
        .enumerate()
        .filter_map(|(i, r)| planned(&r.name).map(|t| (t, i)))
        .collect();
    slots.sort();
    // The run's cycles: up to its last firing (the simulator also records the idle cycle
    // that shows the run is over).
    let cycles = trace
        .fired
        .iter()
        .rposition(|f| !f.is_empty())
        .map_or(0, |c| c + 1);
    let shown = cycles.min(max_cycles.max(1));
    let is_slot: Vec<bool> = (0..circuit.rules.len())
        .map(|i| planned(&circuit.rules[i].name).is_some())
        .collect();
    let kinds: Vec<Cycle> = (0..cycles)
        .map(|c| {
            if trace.fired[c].iter().any(|&i| is_slot[i as usize]) {
                Cycle::Slot
            } else if trace.dma_busy.get(c).copied().unwrap_or(false) {
                Cycle::Dma
            } else {
                Cycle::Overhead
            }
        })
        .collect();
    let count = |k: Cycle| kinds.iter().filter(|x| **x == k).count();
    let schedule_len = slots.iter().map(|s| s.0 + 1).max().unwrap_or(0);
    let mut out = String::from(
        "digraph schedule {\n  node [shape=plaintext, fontname=\"Helvetica\", fontsize=10];\n  chart [label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"2\">\n",
    );
    let more = cycles > shown;
    let span = shown + 2 + usize::from(more);
    let _ = writeln!(
        out,
        "    <TR><TD COLSPAN=\"{span}\" ALIGN=\"LEFT\"><B>{}</B>: {cycles} cycles = {} with a slot firing + {} waiting for DMA + {} other; the schedule plans {schedule_len} slot cycles</TD></TR>",
        escape(title),
        count(Cycle::Slot),
        count(Cycle::Dma),
        count(Cycle::Overhead),
    );
    let _ = writeln!(
        out,
        "    <TR><TD COLSPAN=\"{span}\" ALIGN=\"LEFT\"><FONT COLOR=\"{PLAN}\">&#9632;</FONT> planned (starttime)  <FONT COLOR=\"{FIRED}\">&#9632;</FONT> fired  <FONT COLOR=\"{DMA}\">&#9632;</FONT> waiting for DMA  <FONT COLOR=\"{OVERHEAD}\">&#9632;</FONT> other overhead</TD></TR>",
    );
    // Header: cycle numbers every 5 cycles.
    out.push_str("    <TR><TD ALIGN=\"LEFT\"><B>block, slot</B></TD><TD></TD>");
    for c in 0..shown {
        match c % 5 {
            0 => {
                let _ = write!(out, "<TD><FONT POINT-SIZE=\"7\">{c}</FONT></TD>");
            }
            _ => out.push_str("<TD> </TD>"),
        }
    }
    if more {
        out.push_str("<TD> </TD>");
    }
    out.push_str("</TR>\n");
    let cell = |out: &mut String, colour: Option<&str>| match colour {
        Some(c) => {
            let _ = write!(out, "<TD BGCOLOR=\"{c}\" WIDTH=\"9\"> </TD>");
        }
        None => out.push_str("<TD WIDTH=\"9\"> </TD>"),
    };
    let tail = |out: &mut String, n: usize| {
        if more {
            let _ = write!(out, "<TD><FONT POINT-SIZE=\"7\">+{n}</FONT></TD>");
        }
        out.push_str("</TR>\n");
    };
    for (t, i) in &slots {
        let rule = &circuit.rules[*i];
        let block = rule
            .origin
            .split_once('_')
            .map_or(rule.origin.as_str(), |(_, rest)| rest);
        let _ = write!(
            out,
            "    <TR><TD ALIGN=\"LEFT\" ROWSPAN=\"2\">{} slot {t}</TD><TD><FONT POINT-SIZE=\"7\">plan</FONT></TD>",
            escape(block)
        );
        for c in 0..shown {
            cell(&mut out, (c as u64 == *t).then_some(PLAN));
        }
        tail(&mut out, 0);
        out.push_str("    <TR><TD><FONT POINT-SIZE=\"7\">run</FONT></TD>");
        let fired = |c: usize| trace.fired[c].contains(&(*i as u32));
        for c in 0..shown {
            cell(&mut out, fired(c).then_some(FIRED));
        }
        tail(&mut out, (shown..cycles).filter(|&c| fired(c)).count());
    }
    for (label, kind, colour) in [
        ("waiting for DMA", Cycle::Dma, DMA),
        ("other overhead", Cycle::Overhead, OVERHEAD),
    ] {
        let _ = write!(
            out,
            "    <TR><TD ALIGN=\"LEFT\" COLSPAN=\"2\"><I>{label}</I></TD>"
        );
        for k in &kinds[..shown] {
            cell(&mut out, (*k == kind).then_some(colour));
        }
        tail(
            &mut out,
            kinds[shown..].iter().filter(|k| **k == kind).count(),
        );
    }
    out.push_str("  </TABLE>>];\n}\n");
    out
}
