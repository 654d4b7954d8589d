//! Generic-form printer: `"dialect.op"(%a, %b) [^succ] ({regions}) {attrs} : (T) -> (R)`.
//!
//! The output is read back by [`super::parse`] into a tree equal to the printed one (spans
//! aside). It is also valid MLIR for trees whose operand/result type lists are complete.
//! Entry blocks with arguments print as `^bb0(...)` (the parser drops entry labels); entry
//! blocks without arguments and ops print nothing, so `{}` stays an empty region.

use super::ast::*;
use super::lexer::{is_id_char, is_id_start};
use std::fmt::Write as _;

pub(crate) fn print_module(m: &ModuleAst) -> String {
    let mut out = String::new();
    for op in &m.ops {
        print_op(&mut out, op, 0);
    }
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn print_op(out: &mut String, op: &Operation, level: usize) {
    indent(out, level);
    if !op.results.is_empty() {
        separated(out, &op.results, ", ", |out, r| {
            out.push_str(&r.name);
            if r.count != 1 {
                let _ = write!(out, ":{}", r.count);
            }
        });
        out.push_str(" = ");
    }
    print_string(out, &op.name);
    out.push('(');
    print_operands(out, &op.operands);
    out.push(')');
    if !op.successors.is_empty() {
        out.push('[');
        separated(out, &op.successors, ", ", |out, s| {
            out.push_str(&s.label);
            if !s.args.is_empty() {
                out.push('(');
                print_operands(out, &s.args);
                out.push(')');
            }
        });
        out.push(']');
    }
    if !op.regions.is_empty() {
        out.push_str(" (");
        separated(out, &op.regions, ", ", |out, r| {
            print_region(out, r, level);
        });
        out.push(')');
    }
    if !op.attrs.is_empty() {
        out.push(' ');
        print_dict(out, &op.attrs);
    }
    out.push_str(" : ");
    print_type_list_parens(out, &op.operand_types);
    out.push_str(" -> ");
    print_type_list_parens(out, &op.result_types);
    out.push('\n');
}

/// `items`, each printed by `print`, with `sep` between them.
fn separated<T>(out: &mut String, items: &[T], sep: &str, mut print: impl FnMut(&mut String, &T)) {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        print(out, x);
    }
}

fn print_operands(out: &mut String, operands: &[Operand]) {
    separated(out, operands, ", ", |out, o| {
        out.push_str(&o.name);
        if let Some(n) = o.index {
            let _ = write!(out, "#{n}");
        }
    });
}

fn print_region(out: &mut String, r: &Region, level: usize) {
    out.push_str("{\n");
    for (i, b) in r.blocks.iter().enumerate() {
        let label = match (&b.label, i) {
            (Some(l), _) => Some(l.as_str()),
            (None, 0) if b.args.is_empty() && !b.ops.is_empty() => None,
            (None, _) => Some("^bb0"),
        };
        if let Some(label) = label {
            indent(out, level + 1);
            out.push_str(label);
            if !b.args.is_empty() {
                out.push('(');
                for (j, a) in b.args.iter().enumerate() {
                    if j > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{}: ", a.name);
                    print_type(out, &a.ty);
                }
                out.push(')');
            }
            out.push_str(":\n");
        }
        for op in &b.ops {
            print_op(out, op, level + 2);
        }
    }
    indent(out, level);
    out.push('}');
}

pub(crate) fn print_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn is_bare_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && is_id_start(b[0]) && b.iter().all(|&c| is_id_char(c))
}

fn print_dict(out: &mut String, attrs: &[NamedAttr]) {
    out.push('{');
    separated(out, attrs, ", ", |out, a| {
        if is_bare_id(&a.name) {
            out.push_str(&a.name);
        } else {
            print_string(out, &a.name);
        }
        if a.value != Attribute::Unit {
            out.push_str(" = ");
            print_attr(out, &a.value);
        }
    });
    out.push('}');
}

fn print_symbol(out: &mut String, name: &str) {
    out.push('@');
    if name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'))
        && !name.is_empty()
    {
        out.push_str(name);
    } else {
        print_string(out, name);
    }
}

pub(crate) fn print_attr(out: &mut String, a: &Attribute) {
    match a {
        Attribute::Integer { value, ty } => {
            let _ = write!(out, "{value}");
            print_opt_type(out, ty);
        }
        Attribute::Float { text, ty } => {
            out.push_str(text);
            print_opt_type(out, ty);
        }
        Attribute::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Attribute::String(s) => print_string(out, s),
        Attribute::Unit => out.push_str("unit"),
        Attribute::Array(items) => {
            out.push('[');
            separated(out, items, ", ", print_attr);
            out.push(']');
        }
        Attribute::Dict(entries) => print_dict(out, entries),
        Attribute::Dense { elems, ty } => {
            out.push_str("dense<[");
            separated(out, elems, ", ", print_attr);
            out.push_str("]>");
            print_opt_type(out, ty);
        }
        Attribute::Uninitialized => out.push_str("uninitialized"),
        Attribute::SymbolRef(path) => {
            separated(out, path, "::", |out, s| {
                print_symbol(out, s);
            });
        }
        Attribute::Type(t) => print_type(out, t),
        Attribute::Keyword(k) => out.push_str(k),
        Attribute::Opaque(k) => out.push_str(k),
    }
}

fn print_opt_type(out: &mut String, ty: &Option<Type>) {
    if let Some(t) = ty {
        out.push_str(" : ");
        print_type(out, t);
    }
}

fn print_type_list_parens(out: &mut String, types: &[Type]) {
    out.push('(');
    print_type_list(out, types);
    out.push(')');
}

fn print_type_list(out: &mut String, types: &[Type]) {
    separated(out, types, ", ", print_type);
}

pub(crate) fn print_type(out: &mut String, t: &Type) {
    match t {
        Type::Integer { width, signedness } => {
            let prefix = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            let _ = write!(out, "{prefix}{width}");
        }
        Type::Float(w) => {
            let _ = write!(out, "f{w}");
        }
        Type::Index => out.push_str("index"),
        Type::None => out.push_str("none"),
        Type::MemRef { shape, elem, rest } => {
            out.push_str("memref<");
            for d in shape {
                match d {
                    Some(n) => {
                        let _ = write!(out, "{n}x");
                    }
                    None => out.push_str("?x"),
                }
            }
            print_type(out, elem);
            for r in rest {
                out.push_str(", ");
                out.push_str(r);
            }
            out.push('>');
        }
        Type::Function { inputs, results } => {
            print_type_list_parens(out, inputs);
            out.push_str(" -> ");
            print_type_list_parens(out, results);
        }
        Type::Channel { data, extra } => {
            out.push_str("!handshake.channel<");
            print_type(out, data);
            if !extra.is_empty() {
                out.push_str(", ");
                print_extra(out, extra);
            }
            out.push('>');
        }
        Type::Control { extra } => {
            out.push_str("!handshake.control<");
            print_extra(out, extra);
            out.push('>');
        }
        Type::Tuple(elems) => {
            out.push_str("tuple<");
            print_type_list(out, elems);
            out.push('>');
        }
        Type::Opaque(text) => out.push_str(text),
    }
}

fn print_extra(out: &mut String, extra: &[ExtraSignal]) {
    if extra.is_empty() {
        return;
    }
    out.push('[');
    separated(out, extra, ", ", |out, e| {
        let _ = write!(out, "{}: ", e.name);
        print_type(out, &e.ty);
        if e.upstream {
            out.push_str(" (U)");
        }
    });
    out.push(']');
}
