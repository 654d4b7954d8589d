//! An APS file split into its `tor.func` items and the design context, and re-split after
//! an edit in time proportional to the edit, not to the file.
//!
//! The context is the file with each function cut out (a newline left in its place), so it
//! is unchanged by any edit inside a function, whatever its length: a build daemon's design
//! context is cut off there. [`Split::to_file`] maps the context's spans back to the file.
//!
//! [`resplit`] reuses the last split of the file: the functions before the first changed
//! byte are kept, the scan resumes at the start of the function holding it (from the
//! scanner state recorded there), and stops at the first function start in the unchanged
//! tail where the scanner's state equals the one the last split recorded there (the scan
//! is a pure function of state and remaining bytes, so the rest would be found again,
//! shifted). The result equals [`split_functions`] of the new text exactly; the tests
//! check that over random edits, braces, strings and comments included.

use super::items::{Item, ScanState, Statement, item_at, scan};
use crate::diag::Diagnostic;
use std::sync::Arc;

/// A file split into its functions and the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Split {
    /// The file with every function cut out (replaced by one newline). Shared: the
    /// context query hands it on without a copy.
    pub context: Arc<String>,
    /// Where functions were cut out of the file, in order (nested or overlapping
    /// functions make one cut).
    pub(crate) cuts: Vec<Cut>,
    /// The `tor.func` operations, in source order.
    pub functions: Vec<Item>,
    /// The scanner's state just before each function (for [`resplit`]).
    states: Vec<ScanState>,
}

/// One cut: the file's bytes `start..end` are the context's newline at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Cut {
    pub at: usize,
    pub start: usize,
    pub end: usize,
}

impl Split {
    /// The file offset of the context's byte offset `c`.
    pub(crate) fn file_offset(&self, c: usize) -> usize {
        match self.cuts.partition_point(|k| k.at < c) {
            0 => c,
            n => {
                let k = self.cuts[n - 1];
                c - (k.at + 1) + k.end
            }
        }
    }

    /// A diagnostic on the context, with its span moved to the file.
    pub fn to_file(&self, mut d: Diagnostic) -> Diagnostic {
        if let Some(s) = d.span.as_mut() {
            s.start = self.file_offset(s.start as usize) as u32;
            s.end = self.file_offset(s.end as usize) as u32;
        }
        d
    }

    /// The length of the file this split was made of.
    fn file_len(&self) -> usize {
        let cut: usize = self.cuts.iter().map(|k| k.end - k.start).sum();
        self.context.len() + cut - self.cuts.len()
    }

    /// The file's bytes in order, as slices of the context and of the functions. Only for
    /// splits whose cuts are the functions, one each.
    fn pieces(&self) -> Vec<&[u8]> {
        let ctx = self.context.as_bytes();
        let mut out = Vec::with_capacity(2 * self.cuts.len() + 1);
        let mut from = 0;
        for (k, f) in self.cuts.iter().zip(&self.functions) {
            out.push(&ctx[from..k.at]);
            out.push(f.text.as_bytes());
            from = k.at + 1;
        }
        out.push(&ctx[from..]);
        out
    }
}

/// Split an APS file into its `tor.func` items (at module level, or inside a `tor.design`
/// at module level) and the design context.
pub fn split_functions(text: &str) -> Split {
    let (found, _) = scan(text, 0, ScanState::default(), |_, _| false);
    let mut functions = functions_of(text, &found);
    functions.sort_by_key(|(i, _)| i.offset);
    functions.dedup_by_key(|(i, _)| i.offset);
    assemble(text, functions)
}

/// The `tor.func` statements among `found`, with the scanner state before each.
fn functions_of(text: &str, found: &[Statement]) -> Vec<(Item, ScanState)> {
    found
        .iter()
        .filter(|s| {
            let t = &text[s.span.0..s.span.1];
            t.starts_with("tor.func") || t.starts_with("\"tor.func\"")
        })
        .filter_map(|s| item_at(text, s.span).map(|i| (i, s.before)))
        .collect()
}

fn assemble(text: &str, functions: Vec<(Item, ScanState)>) -> Split {
    let (functions, states): (Vec<Item>, Vec<ScanState>) = functions.into_iter().unzip();
    let mut context = String::new();
    let mut cuts: Vec<Cut> = Vec::with_capacity(functions.len());
    let mut cursor = 0;
    for f in &functions {
        let (start, end) = (f.offset, f.offset + f.text.len());
        if start < cursor {
            if let Some(k) = cuts.last_mut().filter(|k| end > k.end) {
                k.end = end;
                cursor = end;
            }
            continue;
        }
        context.push_str(&text[cursor..start]);
        cuts.push(Cut {
            at: context.len(),
            start,
            end,
        });
        context.push('\n');
        cursor = end;
    }
    context.push_str(&text[cursor..]);
    Split {
        context: Arc::new(context),
        cuts,
        functions,
        states,
    }
}

/// [`split_functions`] of `text`, the file `last` was the split of after an edit: in time
/// proportional to the edit (and the functions' count), not to the file. `common`: what the
/// two files share at each end, when the caller compared them already ([`Common::of`] of
/// the old file and `text`); otherwise they are compared here.
pub fn resplit(last: &Split, text: &str, common: Option<Common>) -> Split {
    let one_cut_each = last.cuts.len() == last.functions.len()
        && last.states.len() == last.functions.len()
        && last
            .cuts
            .iter()
            .zip(&last.functions)
            .all(|(k, f)| k.start == f.offset && k.end == f.offset + f.text.len());
    if !one_cut_each {
        return split_functions(text);
    }
    let new = text.as_bytes();
    let old_len = last.file_len();
    let pieces = last.pieces();
    let Common {
        prefix: p,
        suffix: q,
    } = common.unwrap_or_else(|| Common {
        prefix: common_prefix(pieces.iter().copied(), new),
        suffix: common_suffix(pieces.iter().rev().copied(), new),
    });
    if p == old_len && p == new.len() {
        return last.clone();
    }
    let q = q.min(old_len - p).min(new.len() - p);
    // Resume at the last function starting at or before the first changed byte.
    let Some(j) = last
        .functions
        .partition_point(|f| f.offset <= p)
        .checked_sub(1)
    else {
        return split_functions(text);
    };
    let delta = new.len() as isize - old_len as isize;
    let old_tail = old_len - q;
    let new_tail = new.len() - q;
    // An old position in the new text (`None` inside the changed bytes).
    let moved = |x: usize| -> Option<usize> {
        match x {
            x if x < p => Some(x),
            x if x >= old_tail => Some((x as isize + delta) as usize),
            _ => None,
        }
    };
    let moved_state = |s: &ScanState| -> Option<ScanState> {
        let mut m = *s;
        for x in m.start.iter_mut().flatten() {
            *x = moved(*x)?;
        }
        Some(m)
    };
    let mut resume_at = None;
    let (found, stopped) = scan(text, last.functions[j].offset, last.states[j], |i, st| {
        if i < new_tail {
            return false;
        }
        let old = (i as isize - delta) as usize;
        let Ok(m) = last.functions.binary_search_by_key(&old, |f| f.offset) else {
            return false;
        };
        let same = m > j && moved_state(&last.states[m]).is_some_and(|s| s == *st);
        if same {
            resume_at = Some(m);
        }
        same
    });
    let mut functions: Vec<(Item, ScanState)> = last.functions[..j]
        .iter()
        .cloned()
        .zip(last.states[..j].iter().copied())
        .collect();
    let mut rescanned = functions_of(text, &found);
    rescanned.sort_by_key(|(i, _)| i.offset);
    rescanned.dedup_by_key(|(i, _)| i.offset);
    functions.extend(rescanned);
    if let (Some(m), Some(_)) = (resume_at, stopped) {
        for (f, s) in last.functions[m..].iter().zip(&last.states[m..]) {
            let Some(state) = moved_state(s) else {
                return split_functions(text);
            };
            let item = Item {
                offset: (f.offset as isize + delta) as usize,
                ..f.clone()
            };
            functions.push((item, state));
        }
    }
    assemble(text, functions)
}

/// How many bytes a file and the file it replaced have in common at the start and at the
/// end (each counted on its own: together they may exceed the shorter file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Common {
    pub prefix: usize,
    pub suffix: usize,
}

impl Common {
    /// The bytes `old` and `new` have in common at each end (equal texts are compared
    /// once, not again from the end).
    pub fn of(old: &[u8], new: &[u8]) -> Common {
        let prefix = prefix_len(old, new);
        let suffix = match prefix == old.len() && prefix == new.len() {
            true => prefix,
            false => suffix_len(old, new),
        };
        Common { prefix, suffix }
    }
}

/// How many bytes `b` and the concatenation of `pieces` have in common at the start.
fn common_prefix<'a>(pieces: impl Iterator<Item = &'a [u8]>, b: &[u8]) -> usize {
    let mut n = 0;
    for piece in pieces {
        let rest = &b[n..];
        let k = prefix_len(piece, rest);
        n += k;
        if k < piece.len() {
            break;
        }
    }
    n
}

/// How many bytes `b` and the concatenation of `pieces` (given last first) have in common
/// at the end.
fn common_suffix<'a>(pieces: impl Iterator<Item = &'a [u8]>, b: &[u8]) -> usize {
    let mut n = 0;
    for piece in pieces {
        let rest = &b[..b.len() - n];
        let k = suffix_len(piece, rest);
        n += k;
        if k < piece.len() {
            break;
        }
    }
    n
}

/// Block sizes for [`prefix_len`] and [`suffix_len`]: the equal part is compared in large
/// blocks (few `memcmp` calls), the block that differs in small ones, then byte by byte.
const BLOCKS: [usize; 2] = [64 << 10, 256];

/// Length of the common prefix of `a` and `b`.
fn prefix_len(a: &[u8], b: &[u8]) -> usize {
    let len = a.len().min(b.len());
    if a[..len] == b[..len] {
        return len;
    }
    let mut i = 0;
    for block in BLOCKS {
        while i + block <= len && a[i..i + block] == b[i..i + block] {
            i += block;
        }
    }
    while i < len && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Length of the common suffix of `a` and `b` (as [`prefix_len`], from the end).
fn suffix_len(a: &[u8], b: &[u8]) -> usize {
    let len = a.len().min(b.len());
    let (a, b) = (&a[a.len() - len..], &b[b.len() - len..]);
    if a == b {
        return len;
    }
    let mut i = 0;
    for block in BLOCKS {
        while i + block <= len && a[len - i - block..len - i] == b[len - i - block..len - i] {
            i += block;
        }
    }
    while i < len && a[len - i - 1] == b[len - i - 1] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aps_functions_and_context() {
        let text = "module {\n  aps.memorymap {\n  }\n  tor.design @d {\n    %c = arith.constant 1 : i32\n    tor.func @f(%a: i5) attributes {opcode = 1 : i32} {\n      tor.return\n    }\n    // note\n    tor.func @g() {\n    }\n  }\n}\n";
        let split = split_functions(text);
        let names: Vec<&str> = split.functions.iter().map(|i| i.symbol.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
        assert!(!split.context.contains("tor.func"));
        assert!(split.context.contains("// note"));
        assert!(split.context.contains("arith.constant"));
        assert_eq!(split.file_len(), text.len());
        let whole: Vec<u8> = split.pieces().concat();
        assert_eq!(whole, text.as_bytes());
        // Context offsets map back to the same bytes of the file.
        for (c, b) in split.context.bytes().enumerate() {
            let f = split.file_offset(c);
            if split.cuts.iter().all(|k| k.at != c) {
                assert_eq!(text.as_bytes()[f], b, "context byte {c}");
            }
        }
        let note = split.context.find("// note").unwrap();
        assert_eq!(split.file_offset(note), text.find("// note").unwrap());
    }

    #[test]
    fn edits_inside_a_function_keep_the_context() {
        let text = crate::aps::workload::generate(5, 3);
        let split = split_functions(&text);
        let f = &split.functions[2];
        // A longer line in the body.
        let at = f.offset + f.text.find('\n').unwrap();
        let edited = format!("{} // longer{}", &text[..at], &text[at..]);
        let again = resplit(&split, &edited, None);
        assert_eq!(again, split_functions(&edited));
        assert_eq!(again.context, split.context);
        assert_ne!(again.functions[2].text, split.functions[2].text);
        // Unchanged functions keep their shared text.
        for k in [0, 1, 3, 4] {
            assert!(Arc::ptr_eq(
                &again.functions[k].text,
                &split.functions[k].text
            ));
        }
    }

    /// The random edits' source (xorshift64*): `below(n)` is in `0..n`.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            let x = &mut self.0;
            *x ^= *x >> 12;
            *x ^= *x << 25;
            *x ^= *x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1) as u64) as usize
        }
    }

    #[test]
    fn common_ends_of_two_texts() {
        let old = "a".repeat(200_000) + "middle" + &"z".repeat(100_000);
        let new = "a".repeat(200_000) + "MIDDLE!" + &"z".repeat(100_000);
        let c = Common::of(old.as_bytes(), new.as_bytes());
        assert_eq!((c.prefix, c.suffix), (200_000, 100_000));
        // Each end counted on its own: "aaa" in "aaaa" is both a prefix and a suffix.
        let c = Common::of(b"aaa", b"aaaa");
        assert_eq!((c.prefix, c.suffix), (3, 3));
        let c = Common::of(b"", b"x");
        assert_eq!((c.prefix, c.suffix), (0, 0));
    }

    const SNIPPETS: [&str; 16] = [
        "{",
        "}",
        "\"",
        "//",
        "\n",
        " ",
        "x",
        "tor.func @z() {\n}\n",
        "}\n",
        "\"}\"",
        "// }\n",
        "tor.func",
        "@",
        "tor.func @q(",
        "{\n",
        "\\",
    ];

    /// Re-splitting after random edits (single bytes, braces, quotes, comments, whole
    /// functions inserted or deleted, chains of edits) equals splitting from scratch.
    #[test]
    fn resplit_equals_split_after_random_edits() {
        let mut rng = Rng(7);
        for seed in 0..6 {
            let mut text = crate::aps::workload::generate(12, seed);
            let mut split = split_functions(&text);
            for _ in 0..400 {
                let at = rng.below(text.len() + 1);
                let at = (0..=at)
                    .rev()
                    .find(|&k| text.is_char_boundary(k))
                    .unwrap_or(0);
                let edited = match rng.below(4) {
                    0 => {
                        let end = (at + rng.below(40)).min(text.len());
                        let end = (end..=text.len())
                            .find(|&k| text.is_char_boundary(k))
                            .unwrap_or(text.len());
                        format!("{}{}", &text[..at], &text[end..])
                    }
                    1 => {
                        // Copy a piece of the file elsewhere (whole functions included).
                        let from = rng.below(text.len());
                        let from = (0..=from)
                            .rev()
                            .find(|&k| text.is_char_boundary(k))
                            .unwrap_or(0);
                        let len = rng.below(3000).min(text.len() - from);
                        let end = (from + len..=text.len())
                            .find(|&k| text.is_char_boundary(k))
                            .unwrap_or(text.len());
                        format!("{}{}{}", &text[..at], &text[from..end], &text[at..])
                    }
                    _ => {
                        let s = SNIPPETS[rng.below(SNIPPETS.len())];
                        format!("{}{s}{}", &text[..at], &text[at..])
                    }
                };
                let fresh = split_functions(&edited);
                let again = resplit(&split, &edited, None);
                assert_eq!(again, fresh, "seed {seed}, edit at {at}");
                // The same with the ends compared by the caller (as the workspace does).
                let common = Common::of(text.as_bytes(), edited.as_bytes());
                let given = resplit(&split, &edited, Some(common));
                assert_eq!(given, fresh, "seed {seed}, edit at {at}, common given");
                // Keep the file from drifting into one unbalanced mess: sometimes restart.
                if rng.below(20) == 0 {
                    text = crate::aps::workload::generate(12, seed);
                    split = split_functions(&text);
                } else {
                    text = edited;
                    split = again;
                }
            }
        }
    }

    #[test]
    fn unchanged_text_reuses_the_split() {
        let text = crate::aps::workload::generate(4, 1);
        let split = split_functions(&text);
        let again = resplit(&split, &text, None);
        assert!(Arc::ptr_eq(&again.context, &split.context));
        assert_eq!(again, split);
    }
}
