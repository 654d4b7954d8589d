//! The lexical scanner behind [`super::split`] and [`crate::blif::models`]: items of a file
//! whose text does not depend on their position.
//!
//! Per-function and per-model work is keyed by the item's own text, so that editing a
//! comment between items, or another item, leaves an item's text (and therefore everything
//! computed from it) unchanged. Scanning is lexical and cheap (braces, strings and `//`
//! comments only); it runs on every edit. Errors in the items themselves are found later by
//! the real parsers, on each item's text.

use std::sync::Arc;

/// One top-level item of a file: its symbol, where it starts, and its exact text (shared:
/// an unchanged item keeps its text across edits of the file without a copy, and compares
/// equal to it by pointer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Item {
    pub symbol: String,
    pub offset: usize,
    pub text: Arc<str>,
}

/// Top-level MLIR operations that define a symbol (`tor.func @f ...`, `func.func @g ...`),
/// found inside the outermost `module { ... }` when there is one. Braces inside strings and
/// `//` comments are ignored. Operations without a `@symbol` are skipped.
#[cfg(test)]
fn mlir_items(text: &str) -> Vec<Item> {
    let spans = statements(text);
    let Some(first) = spans.first() else {
        return Vec::new();
    };
    let first_text = &text[first.0..first.1];
    let inside_module = first_text.trim_start().starts_with("module")
        || first_text.trim_start().starts_with("\"builtin.module\"");
    if !inside_module {
        return spans.iter().filter_map(|s| item_at(text, *s)).collect();
    }
    statements_at_depth(text, 1)
        .into_iter()
        .filter_map(|s| item_at(text, s))
        .collect()
}

pub(crate) fn item_at(text: &str, (start, end): (usize, usize)) -> Option<Item> {
    let body = &text[start..end];
    let at = body.find('@')?;
    let symbol: String = body[at + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-'))
        .collect();
    if symbol.is_empty() {
        return None;
    }
    Some(Item {
        symbol,
        offset: start,
        text: Arc::from(body),
    })
}

#[cfg(test)]
fn statements(text: &str) -> Vec<(usize, usize)> {
    statements_at_depth(text, 0)
}

#[cfg(test)]
/// Spans of the statements that start at brace depth `want`: from the first non-blank,
/// non-comment character to the end of the line on which the depth is back to `want`.
fn statements_at_depth(text: &str, want: usize) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                start = start.or(Some(i).filter(|_| depth == want));
                i = skip_string(bytes, i);
                continue;
            }
            b'\n' => {
                if depth == want
                    && let Some(s) = start.take()
                {
                    out.push((s, i));
                }
            }
            b'{' => {
                start = start.or(Some(i).filter(|_| depth == want));
                depth += 1;
            }
            b'}' => {
                if depth == want
                    && let Some(s) = start.take()
                {
                    out.push((s, trim_end(text, i)));
                }
                depth = depth.saturating_sub(1);
            }
            c if c.is_ascii_whitespace() => {}
            _ => {
                start = start.or(Some(i).filter(|_| depth == want));
            }
        }
        i += 1;
    }
    if let Some(s) = start {
        out.push((s, trim_end(text, bytes.len())));
    }
    out
}

/// The scanner's state between two bytes outside strings and comments: the brace depth,
/// and the start of the statement pending at each depth below 3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct ScanState {
    pub(crate) depth: usize,
    pub(crate) start: [Option<usize>; 3],
}

/// A statement at depth 0, 1 or 2 found by [`scan`]: its span, and the scanner's state
/// just before its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Statement {
    pub(crate) span: (usize, usize),
    pub(crate) depth: usize,
    pub(crate) before: ScanState,
}

/// [`statements_at_depth`] for depths 0, 1 and 2 at once, in one scan: every step of that
/// scan touches only the statement that starts at the current depth, so the three scans
/// are independent and can share the depth counter.
#[cfg(test)]
fn statements_at_depths(text: &str) -> [Vec<(usize, usize)>; 3] {
    let mut out: [Vec<(usize, usize)>; 3] = Default::default();
    for s in scan(text, 0, ScanState::default(), |_, _| false).0 {
        out[s.depth].push(s.span);
    }
    out
}

/// The statements at depths 0, 1 and 2 of `text[from..]`, scanned from `state` (the state
/// of an earlier scan of the same bytes before `from`), in the order they end. `stop(i,
/// state)` is asked before each statement start at depth < 3; when it answers `true` the
/// scan ends there, and `i` is returned with the statements ended before it. The scan is
/// a pure function of the state and the bytes that follow: equal states before equal
/// remainders find equal statements (what re-splitting an edited file relies on).
pub(crate) fn scan(
    text: &str,
    from: usize,
    mut state: ScanState,
    mut stop: impl FnMut(usize, &ScanState) -> bool,
) -> (Vec<Statement>, Option<usize>) {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut before = [ScanState::default(); 3];
    let mut i = from;
    // The next `/` at or after `i` (searched again once passed): rare in function bodies.
    let mut next_slash: Option<usize> = None;
    let find = |from: usize, at: Option<usize>| at.map_or(bytes.len(), |k| from + k);
    // A statement may start at `i` at depth `d`: ask `stop` first.
    macro_rules! begin {
        ($d:expr) => {
            if let Some(d) = $d
                && state.start[d].is_none()
            {
                if stop(i, &state) {
                    return (out, Some(i));
                }
                before[d] = state;
                state.start[d] = Some(i);
            }
        };
    }
    let end = |out: &mut Vec<Statement>, d: usize, s: usize, e: usize, b: &[ScanState; 3]| {
        out.push(Statement {
            span: (s, e),
            depth: d,
            before: b[d],
        })
    };
    while i < bytes.len() {
        if state.depth >= 3 {
            // Inside a statement's braces only comments, strings and braces matter: skip
            // to the next of those (most of a file is function bodies).
            if next_slash.is_none_or(|s| s < i) {
                next_slash = Some(find(i, memchr::memchr(b'/', &bytes[i..])));
            }
            let other = find(i, memchr::memchr3(b'"', b'{', b'}', &bytes[i..]));
            i = other.min(next_slash.unwrap_or(bytes.len()));
            if i >= bytes.len() {
                break;
            }
        }
        let c = bytes[i];
        let slot = (state.depth < 3).then_some(state.depth);
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(bytes.len() - i);
                continue;
            }
            b'"' => {
                begin!(slot);
                i = skip_string(bytes, i);
                continue;
            }
            b'\n' => {
                if let Some(d) = slot
                    && let Some(s) = state.start[d].take()
                {
                    end(&mut out, d, s, i, &before);
                }
            }
            b'{' => {
                begin!(slot);
                state.depth += 1;
            }
            b'}' => {
                if let Some(d) = slot
                    && let Some(s) = state.start[d].take()
                {
                    end(&mut out, d, s, trim_end(text, i), &before);
                }
                state.depth = state.depth.saturating_sub(1);
            }
            c if c.is_ascii_whitespace() => {}
            _ => begin!(slot),
        }
        i += 1;
    }
    for d in 0..3 {
        if let Some(s) = state.start[d] {
            end(&mut out, d, s, trim_end(text, bytes.len()), &before);
        }
    }
    (out, None)
}

fn trim_end(text: &str, end: usize) -> usize {
    text[..end].trim_end().len()
}

/// Index just past the string literal starting at `i` (which holds `"`).
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"// header comment { not a brace
module {
  tor.func @alpha(%a: i32) -> i32 attributes {name = "a{"} {
    %0 = arith.addi %a, %a : i32 // body comment }
    tor.return %0 : i32
  }
  // between
  func.func @beta() {
    return
  }
  tor.design @gamma
}
"#;

    #[test]
    fn mlir_items_are_exact_slices() {
        let items = mlir_items(MODULE);
        let names: Vec<&str> = items.iter().map(|i| i.symbol.as_str()).collect();
        assert_eq!(names, ["alpha", "beta", "gamma"]);
        for it in &items {
            assert_eq!(&MODULE[it.offset..it.offset + it.text.len()], &*it.text);
        }
        assert!(items[0].text.starts_with("tor.func @alpha"));
        assert!(items[0].text.ends_with('}'));
        assert_eq!(&*items[2].text, "tor.design @gamma");
    }

    #[test]
    fn comment_edit_keeps_item_texts() {
        let edited = MODULE.replace("// between", "// between, now longer");
        let a = mlir_items(MODULE);
        let b = mlir_items(&edited);
        let texts = |v: &[Item]| v.iter().map(|i| i.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts(&a), texts(&b));
        assert_ne!(a[1].offset, b[1].offset);
    }

    #[test]
    fn one_scan_equals_a_scan_per_depth() {
        let text = "module {\n  aps.memorymap {\n  }\n  tor.design @d {\n    tor.func @f() { \"}\" // }\n    }\n    x\n  }\n  y = \"{\"\n}\nz {";
        let generated = crate::aps::workload::generate(30, 5);
        for text in [text, "a { b { c { d / e \"{\" // {\n } } } f", &generated] {
            let all = statements_at_depths(text);
            assert!(all.iter().any(|v| !v.is_empty()));
            for (d, v) in all.iter().enumerate() {
                assert_eq!(*v, statements_at_depth(text, d), "depth {d}");
            }
        }
    }

    #[test]
    fn items_without_module_wrapper() {
        let items = mlir_items("func.func @f() {\n  return\n}\nfunc.func @g() {\n}\n");
        let names: Vec<&str> = items.iter().map(|i| i.symbol.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
    }
}
