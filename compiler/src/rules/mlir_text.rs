//! MLIR spellings shared by the CMT2 emitter, its library and its reader: symbol
//! references and string literals.

use std::fmt::Write as _;

/// An IR name as an MLIR symbol reference: `@name`, or `@"name"` when it has characters a
/// bare symbol cannot hold.
pub(crate) fn sym(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 3);
    push_sym(&mut out, name);
    out
}

/// Append [`sym`] of `name` to `out`.
pub(crate) fn push_sym(out: &mut String, name: &str) {
    let bare = name
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'));
    out.push('@');
    if bare {
        out.push_str(name);
    } else {
        push_mlir_str(out, name);
    }
}

/// An MLIR string literal: `"`, `\` and bytes outside printable ASCII escaped (`\XX`).
pub(crate) fn mlir_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_mlir_str(&mut out, s);
    out
}

/// Append [`mlir_str`] of `s` to `out`.
pub(crate) fn push_mlir_str(out: &mut String, s: &str) {
    out.push('"');
    if s.bytes()
        .all(|b| (0x20..=0x7e).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push_str(s);
    } else {
        for b in s.bytes() {
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                0x20..=0x7e => out.push(b as char),
                _ => {
                    let _ = write!(out, "\\{b:02X}");
                }
            }
        }
    }
    out.push('"');
}
