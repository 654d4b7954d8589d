//! Custom formats of the Handshake dialect (Dynamatic's `handshake.*` ops; their entries are in
//! [`super::ops::TABLE`]), all read by one parser, [`handshake_op`], driven by the shape of the
//! text (`handshake.func` uses the function format of [`super::ops`]):
//!
//! | syntax element (in any order before the type list) | maps to |
//! |---|---|
//! | a leading bare word or string (`cmpi sle, ..`, `handshake.cmpi "slt", ..`) | attr `predicate` (Keyword / String) |
//! | `%a`, `%a#1` | operand, in textual order |
//! | `[%a, %b]`, `(%a, %b)` (mux/control_merge data, load/store/passer/select address or condition, lsq/mem_controller groups) | operands, in textual order |
//! | `[%m : memref<..>]` (mem_controller/lsq memory) | operand; its type is the first operand type |
//! | `[3]` (fork/lazy_fork size) | attr `size` (Integer, untyped) |
//! | `[MC]` (lsq attached to a memory controller) | attr `memInterface` (Keyword) |
//! | `, key = value` after the operands (buffer `bufferType = X, numSlots = N, dvLatency = N`) | attr `key` (Keyword/Integer, untyped) |
//! | `{...}`, before (`end {..} %a`) or after the operands | attributes, in source order |
//!
//! The type list after `:` is `T, [T, T] to T, T` (brackets flatten, `_` is `Opaque("_")`)
//! or one function type. Types are assigned as follows, first rule that applies:
//! 0. `spec_commit`, `spec_save_commit`, `speculating_branch`, `speculator` (their type lists
//!    do not follow the textual operand order): types placed by each op's Dynamatic assembly
//!    format (see `speculation_layout`); a list of any other shape stays as written in
//!    `operand_types`, with no result types;
//! 1. a function type `(A..) -> (R..)`: operand types A, result types R;
//! 2. a `to` separator: types before it are operand types, after it result types;
//! 3. as many types as operands + results: operands first, then results;
//! 4. one type `T`: every operand and every result has `T`, except that the result of
//!    `cmpi`/`cmpf` is `T` with data type `i1`;
//! 5. `control_merge %a, %b : D, I` (older syntax): operands `D`, results `[D, I]`;
//! 6. two types for three operands and one result (`select %c[%t, %f] : <i1>, <i32>`):
//!    operand types `[c, d, d]`, result `d`;
//! 7. as many types as operands: operand types as written; results all take the data type,
//!    which is the last type for `cond_br` and the first for other ops (`passer`);
//! 8. otherwise operand types as written and no result types.
//!
//! Operands and types stay exactly as written otherwise; the memory operand's inline type is
//! prepended to the operand types.

use super::ast::*;
use super::lexer::Kind;
use super::parser::{PResult, Parser};
use crate::diag::Span;

fn named(name: &str, value: Attribute, span: Span) -> NamedAttr {
    NamedAttr {
        name: Name::new(name),
        value,
        span,
    }
}

/// See the module doc.
pub(crate) fn handshake_op(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let mut inline_types = Vec::new();
    parse_predicate(p, op)?;
    loop {
        match p.tok.kind {
            Kind::PercentId if p.peek(0).kind != Kind::Equal => {
                op.operands.push(p.parse_operand()?);
            }
            Kind::LBracket | Kind::LParen => bracket_group(p, op, &mut inline_types)?,
            Kind::LBrace if p.dict_ahead(true) => {
                let d = p.parse_attr_dict()?;
                op.attrs.extend(d);
            }
            Kind::Comma => {
                p.bump();
                if p.at(Kind::BareId) {
                    keyword_param(p, op)?;
                } else if !matches!(p.tok.kind, Kind::PercentId | Kind::LBracket | Kind::LParen) {
                    return Err(p.unexpected("operand"));
                }
            }
            _ => break,
        }
    }
    if !p.eat(Kind::Colon) {
        return Ok(());
    }
    let groups = parse_type_groups(p)?;
    assign_types(op, groups, inline_types);
    Ok(())
}

fn parse_predicate(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let t = p.tok;
    let value = match t.kind {
        Kind::BareId if p.peek(0).kind == Kind::Comma => p.parse_bare_word_attr()?,
        Kind::Str => Attribute::String(p.parse_string()?),
        _ => return Ok(()),
    };
    op.attrs
        .push(named("predicate", value, Span::new(t.start(), p.prev_end)));
    p.expect(Kind::Comma)?;
    Ok(())
}

/// `[3]`, `[MC]`, `[%a, %b]`, `[%m : memref<..>]`, `(%a, %b)`.
fn bracket_group(p: &mut Parser, op: &mut Operation, inline: &mut Vec<Type>) -> PResult<()> {
    let open = p.bump();
    let close = if open.kind == Kind::LBracket {
        Kind::RBracket
    } else {
        Kind::RParen
    };
    match p.tok.kind {
        Kind::Int if open.kind == Kind::LBracket => {
            let start = p.tok.start();
            let n = p.parse_int()?;
            let value = Attribute::Integer { value: n, ty: None };
            op.attrs
                .push(named("size", value, Span::new(start, p.prev_end)));
        }
        Kind::BareId if open.kind == Kind::LBracket => {
            let start = p.tok.start();
            let value = p.parse_bare_word_attr()?;
            op.attrs
                .push(named("memInterface", value, Span::new(start, p.prev_end)));
        }
        _ if p.at(close) => {}
        _ => loop {
            op.operands.push(p.parse_operand()?);
            if p.eat(Kind::Colon) {
                inline.push(p.parse_type()?);
            }
            if !p.eat(Kind::Comma) {
                break;
            }
        },
    }
    p.expect(close)?;
    Ok(())
}

/// `key = value` (buffer parameters); integers stay untyped so `: <T>` is not absorbed.
fn keyword_param(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let t = p.bump();
    p.expect(Kind::Equal)?;
    let value = match p.tok.kind {
        Kind::Int => Attribute::Integer {
            value: p.parse_int()?,
            ty: None,
        },
        Kind::Float => Attribute::Float {
            text: p.bump_text().to_string(),
            ty: None,
        },
        _ => p.parse_attr()?,
    };
    let key = p.text(t);
    op.attrs
        .push(named(key, value, Span::new(t.start(), p.prev_end)));
    Ok(())
}

/// `A, [B, C] to D, E` → `[[A, B, C], [D, E]]`.
fn parse_type_groups(p: &mut Parser) -> PResult<Vec<Vec<Type>>> {
    let mut groups = vec![Vec::new()];
    loop {
        let group = groups.last_mut().expect("non-empty");
        if p.eat(Kind::LBracket) {
            if !p.at(Kind::RBracket) {
                group.extend(p.parse_type_list()?);
            }
            p.expect(Kind::RBracket)?;
        } else {
            group.push(p.parse_type()?);
        }
        if p.eat(Kind::Comma) {
            continue;
        }
        if p.eat_kw("to") {
            groups.push(Vec::new());
            continue;
        }
        return Ok(groups);
    }
}

/// Speculation ops list their types in their own order (rule 0 in the module doc), given
/// here as (operand type indices, result type indices) into the written list, for the
/// textual operands `[%a] %b`. Dynamatic's assembly formats:
/// `spec_commit[%ctrl] %data : dataIn, dataOut, ctrl`;
/// `spec_save_commit[%ctrl] %data : data, ctrl`;
/// `speculating_branch[%spec] %cond : spec, cond, true, false`;
/// `speculator[%in] %trigger : in, trigger, dataOut, saveCtrl, commitCtrl, SCSaveCtrl,
/// SCCommitCtrl, SCIsMisspec`.
fn speculation_layout(name: &str) -> Option<(&'static [usize], &'static [usize])> {
    Some(match name {
        "handshake.spec_commit" => (&[2, 0], &[1]),
        "handshake.spec_save_commit" => (&[1, 0], &[0]),
        "handshake.speculating_branch" => (&[0, 1], &[2, 3]),
        "handshake.speculator" => (&[0, 1], &[2, 3, 4, 5, 6, 7]),
        _ => return None,
    })
}

pub(crate) fn assign_types(op: &mut Operation, mut groups: Vec<Vec<Type>>, inline: Vec<Type>) {
    let n_ops = op.operands.len() - inline.len();
    let n_res = op.num_results();
    op.operand_types = inline;
    if groups.len() > 1 {
        let results = groups.split_off(1).into_iter().flatten().collect();
        op.operand_types.extend(groups.into_iter().flatten());
        op.result_types = results;
        return;
    }
    let types = groups.into_iter().flatten().collect::<Vec<_>>();
    if let Some((operands, results)) = speculation_layout(&op.name) {
        let fits = |idx: &[usize]| idx.iter().all(|&i| i < types.len());
        if fits(operands) && fits(results) && n_ops == operands.len() && n_res == results.len() {
            op.operand_types
                .extend(operands.iter().map(|&i| types[i].clone()));
            op.result_types = results.iter().map(|&i| types[i].clone()).collect();
            return;
        }
        // Any other shape: keep the types as written, as operand types.
        op.operand_types.extend(types);
        return;
    }
    if let [Type::Function { inputs, results }] = types.as_slice() {
        op.operand_types.extend(inputs.iter().cloned());
        op.result_types = results.clone();
        return;
    }
    let n = types.len();
    if n == n_ops + n_res {
        op.operand_types.extend(types[..n_ops].iter().cloned());
        op.result_types = types[n_ops..].to_vec();
        return;
    }
    if let [t] = types.as_slice() {
        op.operand_types.extend(vec![t.clone(); n_ops]);
        let res = if matches!(op.name.as_str(), "handshake.cmpi" | "handshake.cmpf") {
            with_data(t, Type::int(1))
        } else {
            t.clone()
        };
        op.result_types = vec![res; n_res];
        return;
    }
    if n == 2 && op.name == "handshake.control_merge" {
        let (d, i) = (types[0].clone(), types[1].clone());
        op.operand_types.extend(vec![d.clone(); n_ops]);
        op.result_types = vec![d, i];
        return;
    }
    if n == 2 && n_ops == 3 && n_res == 1 {
        let (c, d) = (types[0].clone(), types[1].clone());
        op.operand_types.extend([c, d.clone(), d.clone()]);
        op.result_types = vec![d];
        return;
    }
    if n == n_ops && n > 0 {
        let data = if op.name == "handshake.cond_br" {
            types[n - 1].clone()
        } else {
            types[0].clone()
        };
        op.operand_types.extend(types);
        op.result_types = vec![data; n_res];
        return;
    }
    op.operand_types.extend(types);
}

/// `t` with its data type replaced (channels keep their extra signals).
fn with_data(t: &Type, data: Type) -> Type {
    match t {
        Type::Channel { extra, .. } => Type::Channel {
            data: Box::new(data),
            extra: extra.clone(),
        },
        _ => data,
    }
}
