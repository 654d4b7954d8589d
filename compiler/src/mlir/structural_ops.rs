//! Custom formats of the CMT2 (`cmt2.*`) and FIRRTL (`firrtl.*`) dialects (their entries are
//! in [`super::ops::TABLE`]), read structurally by one parser, [`structural_op`]. kiln's flows
//! produce these dialects rather than lower them, so reading them back needs no per-op
//! grammar: the parser records what the text says, item by item, until the op ends (at `}`,
//! end of input, a block label, a `%x =` result list, a string or name that starts the next
//! op):
//!
//! | item | maps to |
//! |---|---|
//! | `%a`, `%a#1` | operand, in textual order |
//! | `(%a, %b)` | operands |
//! | `(%a: T, in %b: T, out %c: T)`, `()` | the arguments: entry block args of the first region; `in`/`out` give attr `portDirections` (Array of Keyword) |
//! | `-> (R..)` after an argument list | attr `function_type` = (argument types) -> (R..) |
//! | `@a`, `@a::@b` (also after `:` or `=`) | attr `symbols` (Array of SymbolRef, in order) |
//! | `: T, U` or `: (T) -> R` | types, assigned as in [`super::handshake_ops`] (function type splits; as many types as operands+results splits; one type applies to all) |
//! | `[key = v, ..]` | attr `bindings` (Dict) |
//! | `[%i]` (`firrtl.subaccess %v[%i]`) | operands |
//! | `attributes {..}`, `{key = ..}` | attributes |
//! | `{ ops }`, `{}` | a region (`{}` is an empty region) |
//! | integer literal (`firrtl.constant 1`) | attr `value` (untyped Integer) |
//! | string (`firrtl.circuit "Top"`) | attr `name` |
//! | other bare keyword `k` followed by `[`/`{`/literal/`@` (`with [..]`) | attr `k` with that value |
//! | other bare keyword `k` | attr `k` (Unit) |

use super::ast::*;
use super::lexer::Kind;
use super::ops::resolve;
use super::parser::{PResult, Parser};
use crate::diag::Span;

fn named(name: &str, value: Attribute, span: Span) -> NamedAttr {
    NamedAttr {
        name: Name::new(name),
        value,
        span,
    }
}

/// What [`structural_op`] collects before building the op.
#[derive(Default)]
struct Collected {
    symbols: Vec<Attribute>,
    symbols_span: Option<Span>,
    args: Option<Vec<BlockArg>>,
    directions: Vec<Attribute>,
    types: Vec<Type>,
}

/// See the module doc.
pub(crate) fn structural_op(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let mut c = Collected::default();
    while !op_ends(p) {
        item(p, op, &mut c)?;
    }
    if !c.symbols.is_empty() {
        let span = c.symbols_span.unwrap_or_default();
        op.attrs
            .insert(0, named("symbols", Attribute::Array(c.symbols), span));
    }
    if !c.directions.is_empty() {
        op.attrs.push(named(
            "portDirections",
            Attribute::Array(c.directions),
            Span::default(),
        ));
    }
    if !c.types.is_empty() {
        super::handshake_ops::assign_types(op, vec![c.types], Vec::new());
    }
    if let Some(args) = c.args
        && !args.is_empty()
    {
        attach_args(p, op, args)?;
    }
    Ok(())
}

fn attach_args(p: &Parser, op: &mut Operation, args: Vec<BlockArg>) -> PResult<()> {
    let Some(region) = op.regions.first_mut() else {
        // A declaration without body: keep the argument types in `function_type` only.
        return Ok(());
    };
    match region.blocks.first_mut() {
        Some(b) if b.label.is_none() && b.args.is_empty() => b.args = args,
        Some(_) => {
            return Err(crate::diag::Diagnostic::error(
                region.span,
                "entry block arguments are already defined by the operation",
            ));
        }
        None => region.blocks.push(Block {
            label: None,
            args,
            ops: Vec::new(),
            span: Span::point(p.prev_end),
        }),
    }
    Ok(())
}

fn op_ends(p: &Parser) -> bool {
    match p.tok.kind {
        Kind::RBrace | Kind::Eof | Kind::CaretId => true,
        Kind::PercentId => results_ahead(p),
        Kind::Str => p.peek(0).kind == Kind::LParen,
        Kind::BareId => {
            let w = p.text(p.tok);
            w.contains('.') || resolve(w, p.default_dialect).is_some()
        }
        _ => false,
    }
}

/// Whether a result list `%a, %b:2 =` starts at the current token.
fn results_ahead(p: &Parser) -> bool {
    let mut t = p.tok;
    loop {
        if t.kind != Kind::PercentId {
            return false;
        }
        t = super::lexer::lex_at(p.bytes, t.end());
        if t.kind == Kind::Colon {
            t = super::lexer::lex_at(p.bytes, t.end());
            if t.kind != Kind::Int {
                return false;
            }
            t = super::lexer::lex_at(p.bytes, t.end());
        }
        match t.kind {
            Kind::Equal => return true,
            Kind::Comma => t = super::lexer::lex_at(p.bytes, t.end()),
            _ => return false,
        }
    }
}

fn item(p: &mut Parser, op: &mut Operation, c: &mut Collected) -> PResult<()> {
    match p.tok.kind {
        Kind::PercentId => {
            // The whole run at once, so `results_ahead` scans each run once (linear time).
            let run = p.parse_operands()?;
            op.operands.extend(run);
        }
        Kind::Comma | Kind::Equal => {
            p.bump();
        }
        Kind::Colon => {
            p.bump();
            if !p.at(Kind::AtId) {
                c.types.extend(p.parse_type_list()?);
            }
        }
        Kind::AtId => {
            let start = p.tok.start();
            let path = p.parse_symbol_ref()?;
            let span = Span::new(start, p.prev_end);
            c.symbols_span = Some(c.symbols_span.map_or(span, |s| s.to(span)));
            c.symbols.push(Attribute::SymbolRef(path));
        }
        Kind::LParen => paren_group(p, op, c)?,
        Kind::LBracket => bracket(p, op)?,
        Kind::LBrace => {
            if p.dict_ahead(false) {
                let d = p.parse_attr_dict()?;
                op.attrs.extend(d);
            } else {
                op.regions.push(p.parse_region(Vec::new())?);
            }
        }
        Kind::Int => {
            let start = p.tok.start();
            let value = p.parse_int()?;
            let a = Attribute::Integer { value, ty: None };
            op.attrs
                .push(named("value", a, Span::new(start, p.prev_end)));
        }
        Kind::Str => {
            let start = p.tok.start();
            let s = p.parse_string()?;
            op.attrs.push(named(
                "name",
                Attribute::String(s),
                Span::new(start, p.prev_end),
            ));
        }
        Kind::BareId => keyword(p, op)?,
        _ => return Err(p.unexpected("operand, symbol, type, attribute or region")),
    }
    Ok(())
}

fn keyword(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let t = p.bump();
    let word = p.text(t);
    if word == "attributes" {
        let d = p.parse_attr_dict()?;
        op.attrs.extend(d);
        return Ok(());
    }
    let takes_value = matches!(
        p.tok.kind,
        Kind::LBracket | Kind::Int | Kind::Str | Kind::Float | Kind::AtId
    ) || p.dict_ahead(false);
    let value = if takes_value {
        p.parse_attr()?
    } else {
        Attribute::Unit
    };
    op.attrs
        .push(named(word, value, Span::new(t.start(), p.prev_end)));
    Ok(())
}

/// `(%a, %b)` operands, or `(%a: T, in %b: T)` / `()` argument definitions.
fn paren_group(p: &mut Parser, op: &mut Operation, c: &mut Collected) -> PResult<()> {
    let t1 = p.peek(0);
    let t2 = p.peek(1);
    let is_operands = t1.kind == Kind::PercentId && t2.kind != Kind::Colon;
    p.bump();
    if is_operands {
        let ops = p.parse_operand_list_until(Kind::RParen)?;
        op.operands.extend(ops);
        p.expect(Kind::RParen)?;
        return Ok(());
    }
    let start = p.prev_end;
    let mut args = Vec::new();
    if !p.at(Kind::RParen) {
        loop {
            if p.at_kw("in") || p.at_kw("out") {
                c.directions
                    .push(Attribute::Keyword(Name::new(p.bump_text())));
            }
            args.push(p.parse_block_arg()?);
            if !p.eat(Kind::Comma) {
                break;
            }
        }
    }
    p.expect(Kind::RParen)?;
    if p.eat(Kind::Arrow) {
        let results = p.parse_result_types()?;
        let inputs = args.iter().map(|a| a.ty.clone()).collect();
        let ty = Attribute::Type(Type::Function { inputs, results });
        op.attrs
            .push(named("function_type", ty, Span::new(start, p.prev_end)));
    }
    c.args.get_or_insert_default().extend(args);
    Ok(())
}

/// `[key = v, ..]` → attr `bindings`; `[%i]` (a dynamic index, `firrtl.subaccess`) →
/// operands; any other `[..]` → an array attribute `bindings`.
fn bracket(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let start = p.tok.start();
    if p.peek(0).kind == Kind::PercentId {
        p.bump();
        let ops = p.parse_operand_list_until(Kind::RBracket)?;
        op.operands.extend(ops);
        p.expect(Kind::RBracket)?;
        return Ok(());
    }
    let is_kv = p.peek(0).kind == Kind::BareId && p.peek(1).kind == Kind::Equal;
    if !is_kv {
        let a = p.parse_attr()?;
        op.attrs
            .push(named("bindings", a, Span::new(start, p.prev_end)));
        return Ok(());
    }
    p.bump();
    let mut entries = Vec::new();
    loop {
        let k = p.expect(Kind::BareId)?;
        p.expect(Kind::Equal)?;
        let v = p.parse_attr()?;
        entries.push(named(p.text(k), v, Span::new(k.start(), p.prev_end)));
        if !p.eat(Kind::Comma) {
            break;
        }
    }
    p.expect(Kind::RBracket)?;
    op.attrs.push(named(
        "bindings",
        Attribute::Dict(entries),
        Span::new(start, p.prev_end),
    ));
    Ok(())
}
