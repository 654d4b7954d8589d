//! Lexical splitting of source files into items whose text does not depend on their position.
//!
//! The daemon keys per-function and per-model work by the item's own text, so that editing a
//! comment between items, or another item, leaves an item's text (and therefore everything
//! computed from it) unchanged. Splitting is lexical and cheap; it runs on every edit.
//! Errors in the items themselves are found later by the real parsers, on each item's text.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One top-level item of a file: its symbol, where it starts, and its exact text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Item {
    pub symbol: String,
    pub offset: usize,
    pub text: String,
}

/// Top-level MLIR operations that define a symbol (`tor.func @f ...`, `func.func @g ...`),
/// found inside the outermost `module { ... }` when there is one. Braces inside strings and
/// `//` comments are ignored. Operations without a `@symbol` are skipped.
pub fn mlir_items(text: &str) -> Vec<Item> {
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

/// A file split into its functions and the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Split {
    /// The file with every function's bytes replaced by spaces (newlines kept), so that
    /// spans into it are spans into the file. Shared: the file may be large, and the
    /// context query hands it on without a copy.
    pub context: Arc<String>,
    /// The `tor.func` operations, in source order.
    pub functions: Vec<Item>,
}

/// Split an APS file into its `tor.func` items (at module level, or inside a `tor.design`
/// at module level) and the design context.
pub fn split_functions(text: &str) -> Split {
    // One scan finds the statements at depths 0, 1 and 2 (the file is large: a scan per
    // depth would triple the cost of every edit).
    let mut functions: Vec<Item> = statements_at_depths(text)
        .into_iter()
        .flatten()
        .filter(|&(s, e)| {
            let t = &text[s..e];
            t.starts_with("tor.func") || t.starts_with("\"tor.func\"")
        })
        .filter_map(|s| item_at(text, s))
        .collect();
    functions.sort_by_key(|i| i.offset);
    functions.dedup_by_key(|i| i.offset);
    let mut context = text.as_bytes().to_vec();
    for f in &functions {
        for b in &mut context[f.offset..f.offset + f.text.len()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    Split {
        context: Arc::new(String::from_utf8(context).unwrap_or_default()),
        functions,
    }
}

fn item_at(text: &str, (start, end): (usize, usize)) -> Option<Item> {
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
        text: body.to_string(),
    })
}

fn statements(text: &str) -> Vec<(usize, usize)> {
    statements_at_depth(text, 0)
}

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

/// [`statements_at_depth`] for depths 0, 1 and 2 at once, in one scan: every step of that
/// scan touches only the statement that starts at the current depth, so the three scans
/// are independent and can share the depth counter.
fn statements_at_depths(text: &str) -> [Vec<(usize, usize)>; 3] {
    let bytes = text.as_bytes();
    let mut out: [Vec<(usize, usize)>; 3] = Default::default();
    let mut start: [Option<usize>; 3] = [None; 3];
    let mut depth = 0usize;
    let mut i = 0;
    // The next `/` at or after `i` (searched again once passed): rare in function bodies.
    let mut next_slash: Option<usize> = None;
    let find = |from: usize, at: Option<usize>| at.map_or(bytes.len(), |k| from + k);
    while i < bytes.len() {
        if depth >= 3 {
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
        let slot = (depth < 3).then_some(depth);
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(bytes.len() - i);
                continue;
            }
            b'"' => {
                if let Some(d) = slot {
                    start[d] = start[d].or(Some(i));
                }
                i = skip_string(bytes, i);
                continue;
            }
            b'\n' => {
                if let Some(d) = slot
                    && let Some(s) = start[d].take()
                {
                    out[d].push((s, i));
                }
            }
            b'{' => {
                if let Some(d) = slot {
                    start[d] = start[d].or(Some(i));
                }
                depth += 1;
            }
            b'}' => {
                if let Some(d) = slot
                    && let Some(s) = start[d].take()
                {
                    out[d].push((s, trim_end(text, i)));
                }
                depth = depth.saturating_sub(1);
            }
            c if c.is_ascii_whitespace() => {}
            _ => {
                if let Some(d) = slot {
                    start[d] = start[d].or(Some(i));
                }
            }
        }
        i += 1;
    }
    for (d, s) in start.into_iter().enumerate() {
        if let Some(s) = s {
            out[d].push((s, trim_end(text, bytes.len())));
        }
    }
    out
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

/// BLIF models: from a `.model` line to its `.end` line (inclusive) or to the next `.model`.
/// Text before the first `.model` that holds anything but comments forms a model named `""`.
pub fn blif_models(text: &str) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut current: Option<(String, usize)> = None;
    let mut implicit_start: Option<usize> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("").trim();
        let mut words = code.split_whitespace();
        match words.next() {
            Some(".model") => {
                close(text, &mut out, current.take(), offset);
                if let Some(s) = implicit_start.take() {
                    push(text, &mut out, String::new(), s, offset);
                }
                current = Some((words.next().unwrap_or("").to_string(), offset));
            }
            Some(".end") => {
                close(text, &mut out, current.take(), offset + line.len());
            }
            Some(_) if current.is_none() && out.is_empty() => {
                implicit_start = implicit_start.or(Some(offset));
            }
            _ => {}
        }
        offset += line.len();
    }
    close(text, &mut out, current.take(), text.len());
    if let Some(s) = implicit_start {
        push(text, &mut out, String::new(), s, text.len());
    }
    out
}

fn close(text: &str, out: &mut Vec<Item>, current: Option<(String, usize)>, end: usize) {
    if let Some((name, start)) = current {
        push(text, out, name, start, end);
    }
}

fn push(text: &str, out: &mut Vec<Item>, symbol: String, start: usize, end: usize) {
    out.push(Item {
        symbol,
        offset: start,
        text: text[start..end].to_string(),
    });
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
            assert_eq!(&MODULE[it.offset..it.offset + it.text.len()], it.text);
        }
        assert!(items[0].text.starts_with("tor.func @alpha"));
        assert!(items[0].text.ends_with('}'));
        assert_eq!(items[2].text, "tor.design @gamma");
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
    fn aps_functions_and_context() {
        let text = "module {\n  aps.memorymap {\n  }\n  tor.design @d {\n    %c = arith.constant 1 : i32\n    tor.func @f(%a: i5) attributes {opcode = 1 : i32} {\n      tor.return\n    }\n    // note\n    tor.func @g() {\n    }\n  }\n}\n";
        let split = split_functions(text);
        let names: Vec<&str> = split.functions.iter().map(|i| i.symbol.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
        assert_eq!(split.context.len(), text.len());
        assert!(!split.context.contains("tor.func"));
        assert!(split.context.contains("// note"));
        assert!(split.context.contains("arith.constant"));
        assert_eq!(split.context.lines().count(), text.lines().count());
    }

    #[test]
    fn one_scan_equals_a_scan_per_depth() {
        let text = "module {\n  aps.memorymap {\n  }\n  tor.design @d {\n    tor.func @f() { \"}\" // }\n    }\n    x\n  }\n  y = \"{\"\n}\nz {";
        let generated = compiler::aps::workload::generate(30, 5);
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

    #[test]
    fn blif_models_split() {
        let text = "# lib\n.model a\n.inputs x\n.outputs y\n.names x y\n1 1\n.end\n\n.model b\n.inputs x\n.outputs y\n.subckt a x=x y=y\n";
        let models = blif_models(text);
        assert_eq!(models.len(), 2);
        assert_eq!(models[0].symbol, "a");
        assert!(models[0].text.ends_with(".end\n"));
        assert_eq!(models[1].symbol, "b");
        assert!(models[1].text.ends_with("y=y\n"));
    }

    #[test]
    fn blif_implicit_model() {
        let models = blif_models(".inputs x\n.outputs y\n.names x y\n1 1\n");
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].symbol, "");
    }
}
