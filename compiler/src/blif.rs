//! BLIF reader (Berkeley Logic Interchange Format, as the SIS manual defines it).
//!
//! [`parse`] turns one BLIF text into a [`BlifFile`]: a list of [`Model`]s whose `.subckt`
//! instances stay unflattened, so that each model can be lowered (and cached) on its own by
//! `compiler::aig`. The reader checks everything that is local to one line or one cover
//! (row width, mixed ON/OFF rows, latch syntax); checks that need the whole netlist (double
//! drivers, loops, unknown or recursive models, undriven nets) happen during lowering.
//!
//! Decisions on the format's corners (each on purpose, see the project notes on BLIF):
//! - `.model` and `.end` are optional; text before the first `.model` forms a model named `""`.
//! - `#` starts a comment anywhere; a `\` as the last non-blank character of a line (after
//!   the comment is removed) continues the line; a `\` inside a token is part of the name.
//! - `.names` with no rows is constant 0; a 0-input row may have a leading blank.
//! - `.latch in out [type control] [init]`: type and control are recorded but do not change
//!   the AIG (one global clock); the init defaults to 3 (unknown).
//! - `.conn src dst` (yosys) is a buffer from `src` to `dst`.
//! - `.exdc` sections are skipped with a warning (the care network is kept); timing (every
//!   delay constraint of the SIS manual, and ABC's `.and_gate_delay`) and clock directives,
//!   `.attr`, `.param`, `.latch_order` and `.code` are ignored with one warning per
//!   directive kind; `.cname` names the preceding `.subckt` instance.
//! - `.latch in out type` (a type without its control) is an error, not an init value.
//! - `.gate`, `.mlatch` (need a cell library), `.start_kiss` (FSM), `.search` (file access)
//!   and `.blackbox` (no logic to lower) are errors.

#[cfg(any(test, feature = "generators"))]
pub mod generate;
pub(crate) mod models;

use crate::diag::{Code, Diagnostic, Span};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A reference to a net of the enclosing model (an index into [`Model::nets`]) and the place
/// where this reference is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Net {
    pub(crate) id: u32,
    pub span: Span,
}

/// A name that is not a net of the enclosing model (a model name, a `.subckt` formal pin).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Name {
    pub name: String,
    pub span: Span,
}

/// A whole BLIF file: its models in source order (the first one is the top).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlifFile {
    pub models: Vec<Model>,
}

/// The result of [`parse`]: the file and the warnings found while reading it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Parsed {
    pub file: BlifFile,
    pub warnings: Vec<Diagnostic>,
}

/// One `.model`: its interface and its netlist, with `.subckt` instances unflattened.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Model {
    pub name: String,
    /// The `.model` line (or the first line of an implicit model).
    pub span: Span,
    /// The names of the model's nets, each once, in first-mention order ([`Net::id`]).
    pub(crate) nets: Names,
    pub inputs: Vec<Net>,
    pub outputs: Vec<Net>,
    pub(crate) covers: Vec<Cover>,
    /// The fanins of all covers, back to back (see [`Model::cover_inputs`]).
    pub(crate) fanins: Vec<Net>,
    /// The input planes of all cover rows, back to back (see [`Model::cover_planes`]).
    pub(crate) planes: Vec<u8>,
    pub latches: Vec<Latch>,
    pub subckts: Vec<Subckt>,
    /// The pins of all `.subckt` lines, back to back (see [`Model::subckt_pins`]).
    pub(crate) pins: Vec<Pin>,
    /// The formal names of the pins ([`Pin::formal`]).
    pub(crate) formals: Names,
    /// `.conn src dst` buffers.
    pub(crate) conns: Vec<(Net, Net)>,
    /// Whether an `.exdc` section was skipped.
    pub(crate) had_exdc: bool,
}

impl Model {
    /// The name of a net of this model (only the tests read names back by net).
    #[cfg(test)]
    pub(crate) fn net_name(&self, net: Net) -> &str {
        self.nets.get(net.id as usize)
    }

    /// The fanin nets of `cover`, in column order.
    pub(crate) fn cover_inputs(&self, cover: &Cover) -> &[Net] {
        let s = cover.fanin_start as usize;
        &self.fanins[s..s + cover.fanin_len as usize]
    }

    /// The input planes of all rows of `cover`, `fanin_len` bytes per row, from
    /// `{b'0', b'1', b'-'}`.
    pub(crate) fn cover_planes(&self, cover: &Cover) -> &[u8] {
        let s = cover.plane_start as usize;
        &self.planes[s..s + cover.fanin_len as usize * cover.rows as usize]
    }

    /// The `formal=actual` pins of `subckt`, in source order.
    pub(crate) fn subckt_pins(&self, subckt: &Subckt) -> &[Pin] {
        let s = subckt.pin_start as usize;
        &self.pins[s..s + subckt.pin_len as usize]
    }

    /// The formal name of `pin`.
    pub(crate) fn formal(&self, pin: &Pin) -> &str {
        self.formals.get(pin.formal as usize)
    }
}

/// The net names of one model, each once, indexed by [`Net::id`]: all names back to back in
/// one string (two allocations per model instead of one per net).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Names {
    text: String,
    /// The end of each name in `text` (name `i` starts where name `i - 1` ends).
    ends: Vec<u32>,
}

impl Names {
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Name `i`; panics when `i >= len()`, like indexing a `Vec`.
    pub(crate) fn get(&self, i: usize) -> &str {
        let end = self.ends[i] as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..end]
    }

    /// Only the tests list a model's names.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }

    fn reserve(&mut self, names: usize, bytes: usize) {
        self.ends.reserve(names);
        self.text.reserve(bytes);
    }

    /// Append `name`; returns its index.
    fn push(&mut self, name: &str) -> u32 {
        self.text.push_str(name);
        self.ends.push(self.text.len() as u32);
        (self.ends.len() - 1) as u32
    }
}

impl std::ops::Index<usize> for Names {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        self.get(i)
    }
}

/// A `.names` single-output cover. Its fanins and row planes live in the model's flat
/// arrays ([`Model::cover_inputs`], [`Model::cover_planes`]): two allocations per model
/// instead of two per cover.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Cover {
    pub output: Net,
    pub(crate) fanin_start: u32,
    pub(crate) fanin_len: u32,
    pub(crate) plane_start: u32,
    pub(crate) rows: u32,
    /// True for an ON-set cover (rows end in `1`), false for an OFF-set cover.
    pub(crate) on_set: bool,
    /// The `.names` line.
    pub span: Span,
}

/// One `formal=actual` pin of a `.subckt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Pin {
    /// The formal name's index in [`Model::formals`].
    pub(crate) formal: u32,
    /// Where the formal name is written.
    pub span: Span,
    pub(crate) actual: Net,
}

/// The latch trigger types of `.latch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LatchKind {
    FallingEdge,
    RisingEdge,
    ActiveHigh,
    ActiveLow,
    Asynchronous,
}

/// A latch's initial value: 0, 1, 2 (don't care) or 3 (unknown, the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Init {
    Zero,
    One,
    DontCare,
    Unknown,
}

impl Init {
    /// The BLIF digit of this init value.
    pub fn digit(self) -> u8 {
        match self {
            Init::Zero => 0,
            Init::One => 1,
            Init::DontCare => 2,
            Init::Unknown => 3,
        }
    }
}

/// A `.latch` line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Latch {
    pub input: Net,
    pub output: Net,
    pub kind: Option<LatchKind>,
    /// The control net; `None` when absent or `NIL`.
    pub(crate) control: Option<Net>,
    pub init: Init,
    pub span: Span,
}

/// A `.subckt model formal=actual ...` instance. Its pins live in the model's flat arrays
/// ([`Model::subckt_pins`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Subckt {
    pub model: Name,
    pub(crate) pin_start: u32,
    pub(crate) pin_len: u32,
    /// The instance name from a following `.cname`, if any.
    pub(crate) instance: Option<String>,
    pub span: Span,
}

/// Directives that carry timing, clock or attribute information only: ignored with a warning.
/// The timing directives are those of the SIS manual's delay constraints, with ABC's
/// `.and_gate_delay`.
const IGNORED: &[&str] = &[
    ".clock",
    ".cycle",
    ".clock_event",
    ".area",
    ".delay",
    ".wire_load_slope",
    ".wire",
    ".input_arrival",
    ".default_input_arrival",
    ".output_required",
    ".default_output_required",
    ".input_drive",
    ".default_input_drive",
    ".output_load",
    ".default_output_load",
    ".max_input_load",
    ".default_max_input_load",
    ".and_gate_delay",
    ".attr",
    ".param",
    ".latch_order",
    ".code",
];

/// One token of a logical line: its text and byte offset in the source.
#[derive(Clone, Copy)]
struct Tok<'a> {
    text: &'a str,
    at: usize,
}

impl Tok<'_> {
    fn span(&self) -> Span {
        Span::new(self.at, self.at + self.text.len())
    }
    fn name(&self) -> Name {
        Name {
            name: self.text.to_string(),
            span: self.span(),
        }
    }
}

/// Byte classes of the tokenizer.
const WORD: u8 = 0;
const BLANK: u8 = 1;
const NEWLINE: u8 = 2;
const COMMENT: u8 = 3;

static CLASS: [u8; 256] = {
    let mut c = [WORD; 256];
    c[b' ' as usize] = BLANK;
    c[b'\t' as usize] = BLANK;
    c[b'\r' as usize] = BLANK;
    c[0x0c] = BLANK;
    c[b'\n' as usize] = NEWLINE;
    c[b'#' as usize] = COMMENT;
    c
};

/// Eight bytes of `b` from `i` (which must leave room for them), little-endian.
fn word_at(b: &[u8], i: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The end of the token going on at `i`: the first byte from `i` that is blank, a newline or
/// `#`. Eight bytes at a time: a flag for each byte below `0x21` and each `#` (the lowest flag
/// of these bit tricks is exact); a flagged control character that is not blank is part of
/// the token, and the scan goes on after it.
fn word_end(b: &[u8], mut i: usize) -> usize {
    while i + 8 <= b.len() {
        let w = word_at(b, i);
        let low = w.wrapping_sub(0x21 * ONES) & !w & HIGHS;
        let h = w ^ (b'#' as u64 * ONES);
        let hash = h.wrapping_sub(ONES) & !h & HIGHS;
        let m = low | hash;
        if m == 0 {
            i += 8;
            continue;
        }
        i += (m.trailing_zeros() / 8) as usize;
        if CLASS[b[i] as usize] != WORD {
            return i;
        }
        i += 1;
    }
    while i < b.len() && CLASS[b[i] as usize] == WORD {
        i += 1;
    }
    i
}

/// Splits the source into logical lines (comments removed, continuations joined) and their
/// tokens, in one pass over the bytes.
struct Lines<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lines<'a> {
    /// Fills `toks` with the next non-empty logical line; false at end of input.
    fn next_line(&mut self, toks: &mut Vec<Tok<'a>>) -> bool {
        toks.clear();
        let text = self.text;
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut i = self.pos;
        // The first token of the current physical line.
        let mut first = 0;
        loop {
            while i < n && CLASS[bytes[i] as usize] == BLANK {
                i += 1;
            }
            let class = if i < n {
                CLASS[bytes[i] as usize]
            } else {
                NEWLINE
            };
            match class {
                WORD => {
                    let s = i;
                    i = word_end(bytes, i + 1);
                    toks.push(Tok {
                        text: &text[s..i],
                        at: s,
                    });
                }
                COMMENT => {
                    i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |p| i + p);
                }
                _ => {
                    // End of a physical line: a `\` ending its last token continues it.
                    let continued =
                        toks.len() > first && toks.last().is_some_and(|t| t.text.ends_with('\\'));
                    if continued && let Some(t) = toks.last_mut() {
                        t.text = &t.text[..t.text.len() - 1];
                        if t.text.is_empty() {
                            toks.pop();
                        }
                    }
                    let at_end = i >= n;
                    i = (i + 1).min(n);
                    if at_end || (!continued && !toks.is_empty()) {
                        self.pos = i;
                        return !toks.is_empty();
                    }
                    first = toks.len();
                }
            }
        }
    }
}

/// Array sizes for the first model of a text, from its line count: a `.names` cover takes two
/// lines (the gates of netlists written by ABC or yosys: exact), more rows make it generous.
/// Reserved capacity that is never written costs address space, not memory, while arrays
/// grown by doubling touch twice their final size.
struct Hint {
    covers: usize,
    fanins: usize,
    nets: usize,
    name_bytes: usize,
}

impl Hint {
    fn of(text: &str) -> Hint {
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
        let covers = lines / 2;
        Hint {
            covers,
            fanins: 3 * covers,
            nets: covers + 64,
            name_bytes: text.len() / 3,
        }
    }
}

/// The roots of the hierarchy above a file's first model, when another model instantiates
/// it: the models that instantiate it (directly or through others) and that no model
/// instantiates, in file order. Empty when no model instantiates the first one (or only
/// models on an instantiation cycle do, which is an error of its own). `names` are the
/// file's models in file order (the first definition of a name counts); `instances(m)`
/// lists the models `m` instantiates. Linear in the models and instances.
pub fn roots_above_first(
    names: &[&str],
    mut instances: impl FnMut(&str) -> Option<Vec<String>>,
) -> Vec<String> {
    let mut index: crate::fxhash::FxHashMap<&str, usize> = Default::default();
    for (i, n) in names.iter().enumerate() {
        index.entry(n).or_insert(i);
    }
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    let mut instantiated = vec![false; names.len()];
    for (i, n) in names.iter().enumerate() {
        if index[n] != i {
            continue;
        }
        for c in instances(n).unwrap_or_default() {
            if let Some(&k) = index.get(c.as_str()) {
                instantiated[k] = true;
                if parents[k].last() != Some(&i) {
                    parents[k].push(i);
                }
            }
        }
    }
    if !instantiated.first().copied().unwrap_or(false) {
        return Vec::new();
    }
    let mut seen = vec![false; names.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(m) = stack.pop() {
        for &p in &parents[m] {
            if !seen[p] {
                seen[p] = true;
                stack.push(p);
            }
        }
    }
    (0..names.len())
        .filter(|&i| seen[i] && !instantiated[i])
        .map(|i| names[i].to_string())
        .collect()
}

/// The warning of a file whose first model (`first`, lowered as the top) is instantiated
/// by another model: the roots of its hierarchy ([`roots_above_first`]) are named, and
/// `--top` suggested.
pub fn first_instantiated_warning(first: &Model, roots: &[String]) -> Diagnostic {
    let shown = some_names(roots);
    let what = match roots.len() {
        1 => format!("the root of its hierarchy is {shown}"),
        n => format!("its hierarchy has {n} roots: {shown}"),
    };
    let root = roots.first().map_or("MODEL", String::as_str);
    Diagnostic::warning(
        first.span,
        format!(
            "the first model `{}` is lowered as the top, but another model instantiates it; \
             {what}",
            first.name
        ),
    )
    .with_note(format!(
        "BLIF takes the first model as the circuit (ABC and yosys lower the root): put \
         `{root}` first, or lower it with `--top {root}`"
    ))
    .with_code(Code::TopInstantiated)
}

/// At most 8 of `names`, quoted (`` `a`, `b` and 3 more ``).
fn some_names(names: &[impl std::fmt::Display]) -> String {
    const SHOWN: usize = 8;
    let mut listed = (names.iter().take(SHOWN))
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        listed.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    listed
}

/// The error of a `--top` model that a file, whose models are `models`, does not define.
pub fn unknown_top(top: &str, models: &[&str]) -> Diagnostic {
    let listed = some_names(models);
    Diagnostic::global_error(format!(
        "no model `{top}` to lower as the top (`--top`); the file defines {listed}"
    ))
    .with_code(Code::UnknownTop)
}

/// Parse a BLIF text. Errors stop at the first problem; warnings are collected.
pub fn parse(text: &str) -> Result<Parsed, Diagnostic> {
    let hint = Hint::of(text);
    let mut p = Parser {
        intern: NetTable::with_capacity(hint.nets),
        hint: Some(hint),
        text: text.as_bytes(),
        models: Vec::with_capacity(memchr::memmem::find_iter(text.as_bytes(), ".model").count()),
        current: None,
        cover: None,
        warnings: Vec::new(),
        warned: BTreeMap::new(),
        in_exdc: false,
    };
    let mut lines = Lines { text, pos: 0 };
    let mut toks = Vec::new();
    while lines.next_line(&mut toks) {
        p.line(&toks)?;
    }
    p.finish_model();
    p.flush_warning_counts();
    if p.models.is_empty() {
        return Err(no_model(text));
    }
    Ok(Parsed {
        file: BlifFile { models: p.models },
        warnings: p.warnings,
    })
}

/// The error of a BLIF text without a model, at its end (after what it does hold).
pub fn no_model(text: &str) -> Diagnostic {
    Diagnostic::error(
        Span::point(text.len()),
        "no model in the BLIF input (expected `.model`, `.inputs`, `.names`, ...)",
    )
    .with_code(Code::NoModel)
}

/// Net name → [`Net::id`] for the model being read: open addressing with linear probing over
/// 8-byte slots (a name's 32-bit hash and its id + 1), the names themselves in the model's
/// [`Names`]. Growing needs no rehashing (the hash is in the slot), and clearing costs the size
/// of the model just read, not of the table, so a file of many small models stays linear.
struct NetTable {
    slots: Vec<u64>,
    len: usize,
}

impl NetTable {
    fn with_capacity(n: usize) -> NetTable {
        NetTable {
            slots: vec![0; (n.max(8) * 2).next_power_of_two()],
            len: 0,
        }
    }

    /// Forget every name.
    fn clear(&mut self) {
        let fits = (self.len.max(8) * 2).next_power_of_two();
        if self.slots.len() > 4 * fits {
            self.slots = vec![0; fits];
        } else {
            self.slots.fill(0);
        }
        self.len = 0;
    }

    /// The id of `s`, which is `text[at..]`, appending it to `names` when new.
    fn intern(&mut self, s: &str, text: &[u8], at: usize, names: &mut Names) -> u32 {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let h = hash_at(text, at, s.len()) as u64;
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let e = self.slots[i];
            if e == 0 {
                let id = names.push(s);
                self.slots[i] = h << 32 | (id as u64 + 1);
                self.len += 1;
                return id;
            }
            if e >> 32 == h {
                let id = (e as u32).wrapping_sub(1);
                if same(names.get(id as usize).as_bytes(), s.as_bytes()) {
                    return id;
                }
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let mut slots = vec![0u64; size];
        for &e in self.slots.iter().filter(|&&e| e != 0) {
            let mut i = (e >> 32) as usize & (size - 1);
            while slots[i] != 0 {
                i = (i + 1) & (size - 1);
            }
            slots[i] = e;
        }
        self.slots = slots;
    }
}

/// A 32-bit hash of `text[at..at + len]` (Fx-style over 8-byte words, murmur finish). The
/// last, partial word is read as a whole word masked to its bytes when the text goes on that
/// far, so short names cost one load.
fn hash_at(text: &[u8], at: usize, len: usize) -> u32 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let (mut h, mut i, end) = (len as u64, at, at + len);
    while i + 8 <= end {
        h = (h.rotate_left(5) ^ word_at(text, i)).wrapping_mul(K);
        i += 8;
    }
    let rest = end - i;
    if rest > 0 {
        let w = if i + 8 <= text.len() {
            word_at(text, i) & (u64::MAX >> (64 - 8 * rest))
        } else {
            let mut w = [0; 8];
            w[..rest].copy_from_slice(&text[i..end]);
            u64::from_le_bytes(w)
        };
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    (h >> 32) as u32
}

/// Byte-string equality, eight bytes at a time (names are short: no call to `memcmp`).
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i + 8 <= a.len() {
        if word_at(a, i) != word_at(b, i) {
            return false;
        }
        i += 8;
    }
    a[i..].iter().zip(&b[i..]).all(|(x, y)| x == y)
}

struct Parser<'a> {
    /// Net name → id, for the current model.
    intern: NetTable,
    /// Sizes for the first model's arrays.
    hint: Option<Hint>,
    text: &'a [u8],
    models: Vec<Model>,
    current: Option<Model>,
    cover: Option<Cover>,
    warnings: Vec<Diagnostic>,
    /// Ignored directive → (first warning index, occurrences).
    warned: BTreeMap<String, (usize, usize)>,
    in_exdc: bool,
}

impl<'a> Parser<'a> {
    /// The net `t` names in the current model (interned).
    fn net(&mut self, t: &Tok<'a>) -> Net {
        let m = self
            .current
            .get_or_insert_with(|| open(&mut self.hint, String::new(), t.span()));
        let id = self.intern.intern(t.text, self.text, t.at, &mut m.nets);
        Net { id, span: t.span() }
    }

    fn nets(&mut self, toks: &[Tok<'a>]) -> Vec<Net> {
        toks.iter().map(|t| self.net(t)).collect()
    }

    fn line(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        let head = toks[0];
        if self.in_exdc {
            if head.text == ".end" || head.text == ".model" {
                self.in_exdc = false;
            } else {
                return Ok(());
            }
        }
        if !head.text.starts_with('.') {
            return self.row(toks);
        }
        self.end_cover();
        if head.text == ".names" {
            return self.names(toks);
        }
        match head.text {
            ".model" => self.model(toks),
            ".end" => {
                self.finish_model();
                Ok(())
            }
            ".inputs" => {
                let nets = self.nets(&toks[1..]);
                append(&mut self.model_mut(head).inputs, nets);
                Ok(())
            }
            ".outputs" => {
                let nets = self.nets(&toks[1..]);
                append(&mut self.model_mut(head).outputs, nets);
                Ok(())
            }
            ".names" => self.names(toks),
            ".latch" => self.latch(toks),
            ".subckt" => self.subckt(toks),
            ".conn" => self.conn(toks),
            ".cname" => self.cname(toks),
            ".exdc" => {
                self.model_mut(head).had_exdc = true;
                self.in_exdc = true;
                self.warnings.push(Diagnostic::warning(
                    head.span(),
                    "`.exdc` external don't-care network ignored (only the care network is lowered)",
                ).with_code(Code::ExdcIgnored));
                Ok(())
            }
            ".gate" | ".mlatch" => Err(Diagnostic::error(
                head.span(),
                format!(
                    "`{}` needs a cell library, which BLIF→AIG does not have",
                    head.text
                ),
            )),
            ".start_kiss" | ".end_kiss" => Err(Diagnostic::error(
                head.span(),
                "`.start_kiss` FSM descriptions are not supported (encode the FSM first)",
            )),
            ".search" => Err(Diagnostic::error(
                head.span(),
                "`.search` is not supported: pass the referenced file explicitly",
            )),
            ".blackbox" => Err(Diagnostic::error(
                head.span(),
                "`.blackbox` models have no logic to lower into an AIG",
            )),
            d if IGNORED.contains(&d) => {
                self.ignored(head);
                Ok(())
            }
            d => Err(Diagnostic::error(
                head.span(),
                format!("unknown BLIF directive `{d}`"),
            )),
        }
    }

    fn ignored(&mut self, head: Tok) {
        if let Some((_, n)) = self.warned.get_mut(head.text) {
            *n += 1;
            return;
        }
        self.warned
            .insert(head.text.to_string(), (self.warnings.len(), 1));
        self.warnings.push(
            Diagnostic::warning(
                head.span(),
                format!("`{}` ignored (no effect on the logic)", head.text),
            )
            .with_code(Code::DirectiveIgnored),
        );
    }

    fn flush_warning_counts(&mut self) {
        for (&(idx, n), name) in self.warned.values().zip(self.warned.keys()) {
            if n > 1 {
                let note = format!("{} more `{name}` lines ignored", n - 1);
                self.warnings[idx].notes.push(note);
            }
        }
    }

    fn model_mut(&mut self, at: Tok) -> &mut Model {
        self.current
            .get_or_insert_with(|| open(&mut self.hint, String::new(), at.span()))
    }

    fn model(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        self.finish_model();
        let Some(name) = toks.get(1) else {
            return Err(Diagnostic::error(toks[0].span(), "`.model` needs a name"));
        };
        let span = toks[0].span().to(name.span());
        self.current = Some(open(&mut self.hint, name.text.to_string(), span));
        Ok(())
    }

    fn finish_model(&mut self) {
        self.end_cover();
        self.in_exdc = false;
        if let Some(m) = self.current.take() {
            self.intern.clear();
            self.models.push(m);
        }
    }

    fn end_cover(&mut self) {
        if let Some(c) = self.cover.take() {
            push_small(&mut self.model_mut(Tok { text: "", at: 0 }).covers, c);
        }
    }

    fn names(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        let Some((out, ins)) = toks[1..].split_last() else {
            return Err(Diagnostic::error(
                toks[0].span(),
                "`.names` needs an output net",
            ));
        };
        let output = self.net(out);
        let mut fanins = std::mem::take(&mut self.model_mut(toks[0]).fanins);
        let fanin_start = fanins.len() as u32;
        fanins.extend(ins.iter().map(|t| self.net(t)));
        let m = self.model_mut(toks[0]);
        m.fanins = fanins;
        let plane_start = m.planes.len() as u32;
        self.cover = Some(Cover {
            output,
            fanin_start,
            fanin_len: ins.len() as u32,
            plane_start,
            rows: 0,
            on_set: true,
            span: toks[0].span().to(out.span()),
        });
        Ok(())
    }

    fn row(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        let Some(cover) = self.cover.as_mut() else {
            return Err(Diagnostic::error(
                toks[0].span(),
                format!(
                    "unexpected `{}`: cover rows must follow a `.names` line",
                    toks[0].text
                ),
            ));
        };
        let n = cover.fanin_len as usize;
        let line_span = toks[0].span().to(toks[toks.len() - 1].span());
        let (plane, value) = match (n, toks) {
            (0, [v]) => ("", *v),
            (_, [p, v]) if n > 0 => (p.text, *v),
            _ => {
                return Err(Diagnostic::error(
                    line_span,
                    format!(
                        "cover row has {} field(s), expected {} (an input plane of {n} and an output value)",
                        toks.len(),
                        if n == 0 { "1" } else { "2" }
                    ),
                ));
            }
        };
        if plane.len() != n {
            return Err(Diagnostic::error(
                toks[0].span(),
                format!(
                    "cover row `{plane}` has width {}, but `.names` has {n} input(s)",
                    plane.len()
                ),
            ));
        }
        if let Some(bad) = plane.bytes().position(|b| !matches!(b, b'0' | b'1' | b'-')) {
            let at = toks[0].at + bad;
            return Err(Diagnostic::error(
                Span::new(at, at + 1),
                "cover plane characters must be `0`, `1` or `-`",
            ));
        }
        let on = match value.text {
            "1" => true,
            "0" => false,
            _ => {
                return Err(Diagnostic::error(
                    value.span(),
                    format!(
                        "cover output value must be `0` or `1`, found `{}`",
                        value.text
                    ),
                ));
            }
        };
        if cover.rows > 0 && cover.on_set != on {
            return Err(Diagnostic::error(
                value.span(),
                "cover mixes ON-set (`1`) and OFF-set (`0`) rows",
            )
            .with_note("all rows of one `.names` cover must have the same output value"));
        }
        cover.on_set = on;
        cover.rows += 1;
        if let Some(m) = self.current.as_mut() {
            m.planes.extend_from_slice(plane.as_bytes());
        }
        Ok(())
    }

    fn latch(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        let span = toks[0].span().to(toks[toks.len() - 1].span());
        let (input, output, rest) = match toks {
            [_, i, o, rest @ ..] => (self.net(i), self.net(o), rest),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "`.latch` needs an input and an output net",
                ));
            }
        };
        let (kind, control, init) = match rest {
            [] => (None, None, None),
            [k] if latch_kind(*k).is_ok() => {
                return Err(Diagnostic::error(
                    k.span(),
                    format!(
                        "`.latch` of type `{}` needs a control net after the type (a clock, \
                         or `NIL`)",
                        k.text
                    ),
                )
                .with_note("`.latch` takes `input output [type control] [init]`"));
            }
            [init] => (None, None, Some(*init)),
            [k, c] => (Some(*k), Some(*c), None),
            [k, c, init] => (Some(*k), Some(*c), Some(*init)),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "`.latch` takes `input output [type control] [init]`",
                ));
            }
        };
        let kind = kind.map(latch_kind).transpose()?;
        let control = control.filter(|c| c.text != "NIL").map(|c| self.net(&c));
        let init = match init.map(|t| (t.text, t)) {
            None => Init::Unknown,
            Some(("0", _)) => Init::Zero,
            Some(("1", _)) => Init::One,
            Some(("2", _)) => Init::DontCare,
            Some(("3", _)) => Init::Unknown,
            Some((s, t)) => {
                return Err(Diagnostic::error(
                    t.span(),
                    format!("latch init value must be 0, 1, 2 or 3, found `{s}`"),
                ));
            }
        };
        let latch = Latch {
            input,
            output,
            kind,
            control,
            init,
            span,
        };
        push_small(&mut self.model_mut(toks[0]).latches, latch);
        Ok(())
    }

    fn subckt(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        let Some(model) = toks.get(1) else {
            return Err(Diagnostic::error(
                toks[0].span(),
                "`.subckt` needs a model name",
            ));
        };
        let m = self.model_mut(toks[0]);
        let pin_start = m.pins.len() as u32;
        m.pins.reserve(toks.len() - 2);
        for t in &toks[2..] {
            let Some(eq) = t.text.find('=') else {
                return Err(Diagnostic::error(
                    t.span(),
                    format!("`.subckt` pin `{}` is not `formal=actual`", t.text),
                ));
            };
            let (f, a) = (&t.text[..eq], &t.text[eq + 1..]);
            if f.is_empty() || a.is_empty() {
                return Err(Diagnostic::error(
                    t.span(),
                    "`.subckt` pin needs both a formal and an actual name",
                ));
            }
            let actual = self.net(&Tok {
                text: a,
                at: t.at + eq + 1,
            });
            let m = self.model_mut(toks[0]);
            let formal = m.formals.push(f);
            m.pins.push(Pin {
                formal,
                span: Span::new(t.at, t.at + eq),
                actual,
            });
        }
        let span = toks[0].span().to(model.span());
        let m = self.model_mut(toks[0]);
        let subckt = Subckt {
            model: model.name(),
            pin_start,
            pin_len: m.pins.len() as u32 - pin_start,
            instance: None,
            span,
        };
        push_small(&mut m.subckts, subckt);
        Ok(())
    }

    fn conn(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        let [_, src, dst] = toks else {
            return Err(Diagnostic::error(
                toks[0].span(),
                "`.conn` takes `source destination`",
            ));
        };
        let pair = (self.net(src), self.net(dst));
        push_small(&mut self.model_mut(toks[0]).conns, pair);
        Ok(())
    }

    fn cname(&mut self, toks: &[Tok<'a>]) -> Result<(), Diagnostic> {
        let m = self.model_mut(toks[0]);
        match (m.subckts.last_mut(), toks.get(1)) {
            (Some(s), Some(n)) if s.instance.is_none() => s.instance = Some(n.text.to_string()),
            _ => self.ignored(toks[0]),
        }
        Ok(())
    }
}

/// Push onto one of a model's arrays, growing from one element instead of four: most models
/// of a hierarchy hold one or two of each (a chain's model: two covers, one instance), and a
/// file may hold 100,000 of them.
fn push_small<T>(v: &mut Vec<T>, x: T) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len().max(1));
    }
    v.push(x);
}

/// `items` appended to `v` (moved whole, at its exact size, when `v` is empty).
fn append<T>(v: &mut Vec<T>, items: Vec<T>) {
    if v.is_empty() {
        *v = items;
    } else {
        v.extend(items);
    }
}

/// A new, empty model; the first one gets the arrays of the [`Hint`].
fn open(hint: &mut Option<Hint>, name: String, span: Span) -> Model {
    let mut m = Model {
        name,
        span,
        ..Model::default()
    };
    if let Some(h) = hint.take() {
        m.nets.reserve(h.nets, h.name_bytes);
        m.covers.reserve(h.covers);
        m.fanins.reserve(h.fanins);
        m.planes.reserve(h.fanins);
    }
    m
}

fn latch_kind(t: Tok) -> Result<LatchKind, Diagnostic> {
    Ok(match t.text {
        "fe" => LatchKind::FallingEdge,
        "re" => LatchKind::RisingEdge,
        "ah" => LatchKind::ActiveHigh,
        "al" => LatchKind::ActiveLow,
        "as" => LatchKind::Asynchronous,
        s => {
            return Err(Diagnostic::error(
                t.span(),
                format!("latch type must be fe, re, ah, al or as, found `{s}`"),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Model {
        parse(text).unwrap().file.models.into_iter().next().unwrap()
    }

    #[test]
    fn continuation_comments_crlf_tabs() {
        let m = one(
            ".model t # c\r\n.inputs a \\  \r\n\tb\r\n.outputs y\r\n.names a b y # x\r\n11 1\r\n.end\r\n",
        );
        assert_eq!(
            m.inputs.iter().map(|n| m.net_name(*n)).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(m.covers.len(), 1);
        assert_eq!(m.covers[0].rows, 1);
    }

    #[test]
    fn constants_with_leading_blank_and_empty_cover() {
        let m = one(".names c\n 1\n.names z\n.names a e0\n");
        assert_eq!(m.name, "");
        assert_eq!(m.covers[0].rows, 1);
        assert_eq!(m.covers[1].rows, 0);
        assert_eq!(m.covers[2].rows, 0);
    }

    #[test]
    fn latch_forms() {
        let m = one(".latch a q\n.latch a q 1\n.latch a q re clk\n.latch a q as NIL 0\n");
        let inits: Vec<_> = m.latches.iter().map(|l| l.init).collect();
        assert_eq!(inits, [Init::Unknown, Init::One, Init::Unknown, Init::Zero]);
        assert_eq!(m.net_name(m.latches[2].control.unwrap()), "clk");
        assert!(m.latches[3].control.is_none());
    }

    #[test]
    fn rejects_mixed_and_width() {
        let e = parse(".names a y\n1 1\n0 0\n").unwrap_err();
        assert!(e.message.contains("mixes"));
        assert_eq!(e.span, Some(Span::new(17, 18)));
        let e = parse(".names a b y\n1 1\n").unwrap_err();
        assert!(e.message.contains("width 1"));
    }

    #[test]
    fn odd_names_and_subckt() {
        let m = one(".model m\n.subckt c x=$a\\b[0] y='q<1>'\n.cname u1\n");
        let pins = m.subckt_pins(&m.subckts[0]);
        assert_eq!(m.net_name(pins[0].actual), "$a\\b[0]");
        assert_eq!(m.formal(&pins[1]), "y");
        assert_eq!(m.subckts[0].instance.as_deref(), Some("u1"));
    }

    #[test]
    fn continued_token_is_the_same_net() {
        let m = one(".inputs a\\\n b\n.outputs y\n.names a b y\n11 1\n");
        assert_eq!(m.nets.iter().collect::<Vec<_>>(), ["a", "b", "y"]);
        let m = one(".model m\n.subckt c x=abcdefghijkl y=abcdefghijkl\n");
        assert_eq!(m.nets.len(), 1);
    }

    /// Names with numbers in them (with and without leading zeros, digits only, one number
    /// under several prefixes) and without: each spelling keeps one id, whatever the order of
    /// lookups, in each model.
    #[test]
    fn net_names_keep_one_id_each() {
        let names = [
            "n7",
            "n07",
            "7",
            "a[3]",
            "b[3]",
            "x",
            "n123456789",
            "n1234567890",
            "q0",
            "q00",
            "n8",
            "n300",
            "a[2]",
            "07",
            "0",
        ];
        let text = names.join(" ");
        let mut at = Vec::new();
        let mut pos = 0;
        for n in names {
            at.push(pos);
            pos += n.len() + 1;
        }
        for capacity in [2, 1 << 10] {
            let mut t = NetTable::with_capacity(capacity);
            for _model in 0..2 {
                let mut arena = Names::default();
                let mut intern = |k: usize| t.intern(names[k], text.as_bytes(), at[k], &mut arena);
                let ids: Vec<u32> = (0..names.len()).map(&mut intern).collect();
                let again: Vec<u32> = (0..names.len()).rev().map(&mut intern).collect();
                assert_eq!(
                    ids,
                    again.into_iter().rev().collect::<Vec<_>>(),
                    "capacity {capacity}"
                );
                assert_eq!(ids, (0..names.len() as u32).collect::<Vec<_>>());
                assert_eq!(arena.iter().collect::<Vec<_>>(), names);
                t.clear();
            }
        }
    }

    /// `.latch in out type` lacks the control net: the error says so, rather than reading
    /// the type as a bad init value.
    #[test]
    fn latch_type_without_control() {
        for kind in ["fe", "re", "ah", "al", "as"] {
            let text = format!(".model l\n.inputs a\n.outputs q\n.latch a q {kind}\n.end\n");
            let e = parse(&text).unwrap_err();
            assert!(e.message.contains("needs a control net"), "{}", e.message);
            assert!(!e.message.contains("init"), "{}", e.message);
            let at = text.find(kind).unwrap();
            assert_eq!(e.span, Some(Span::new(at, at + 2)));
        }
        // A bad init is still reported as one.
        let e = parse(".latch a q 7\n").unwrap_err();
        assert!(e.message.contains("init value"), "{}", e.message);
    }

    /// Every timing directive of the SIS manual (and ABC's `.and_gate_delay`) is ignored
    /// with one warning per directive kind, `.default_max_input_load` as `.max_input_load`.
    #[test]
    fn timing_directives_are_ignored_with_one_warning_each() {
        let timing = [
            ".area 10",
            ".delay a NINV 1 1 1 1 1 1",
            ".wire_load_slope 0.1",
            ".wire 1 2",
            ".input_arrival a 1 1",
            ".default_input_arrival 0 0",
            ".output_required y 1 1",
            ".default_output_required 1 1",
            ".input_drive a 1 1",
            ".default_input_drive 1 1",
            ".output_load y 1",
            ".default_output_load 1",
            ".max_input_load 2 a",
            ".default_max_input_load 2",
            ".and_gate_delay 1",
        ];
        let mut text = String::from(".model t\n.inputs a\n.outputs y\n");
        for t in timing {
            text.push_str(&format!("{t}\n{t}\n"));
        }
        text.push_str(".names a y\n1 1\n.end\n");
        let p = parse(&text).unwrap();
        assert_eq!(p.warnings.len(), timing.len());
        for (w, t) in p.warnings.iter().zip(timing) {
            let name = t.split(' ').next().unwrap();
            assert_eq!(
                w.message,
                format!("`{name}` ignored (no effect on the logic)")
            );
            assert_eq!(w.code, Some(Code::DirectiveIgnored));
            assert_eq!(w.notes, [format!("1 more `{name}` lines ignored")]);
        }
    }

    #[test]
    fn roots_above_the_first_model() {
        let kids = |m: &str| -> Option<Vec<String>> {
            let v: &[&str] = match m {
                "leaf" => &[],
                "mid" => &["leaf", "leaf"],
                "top" => &["mid"],
                "other" => &["leaf"],
                "alone" => &[],
                "x" => &["nope"],
                _ => return None,
            };
            Some(v.iter().map(|s| s.to_string()).collect())
        };
        let names = ["leaf", "alone", "mid", "top", "other", "x"];
        assert_eq!(roots_above_first(&names, kids), ["top", "other"]);
        assert!(roots_above_first(&["top", "mid", "leaf"], kids).is_empty());
        assert!(roots_above_first(&["leaf"], kids).is_empty());
        // Only instantiated by a cycle (an error of its own): no root to name.
        let cyc = |m: &str| Some(vec![if m == "a" { "b" } else { "a" }.to_string()]);
        assert!(roots_above_first(&["a", "b"], cyc).is_empty());
    }

    #[test]
    fn exdc_is_skipped_with_warning() {
        let p = parse(
            ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.exdc\n.names a y\n0 1\n.end\n",
        )
        .unwrap();
        assert_eq!(p.file.models[0].covers.len(), 1);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].code, Some(Code::ExdcIgnored));
    }
}
