//! Operation generators: one scheduled TOR/APS op → expressions and method calls inside
//! the current slot rule. Operands come from the rule-local map (filled from FIFOs by the
//! BBHandler) or are materialised constants; results go back into the map.
//!
//! Arithmetic keeps MLIR semantics exactly: results wrap to the result width, signed
//! predicates compare signed, `shrsi` shifts arithmetically (the original treats both as
//! unsigned).

use super::handlers::RuleCx;
use super::segment::{operand_name, result_names};
use crate::diag::Diagnostic;
use crate::mlir::ast::{Attribute, Operation};
use crate::rules::{DmaMethod, PrimOp, Var, rocc_field};

fn operand(cx: &mut RuleCx, op: &Operation, i: usize) -> Result<(Var, u32), Diagnostic> {
    let o = op.operands.get(i).ok_or_else(|| {
        Diagnostic::error(op.span, format!("`{}` is missing operand {i}", op.name))
    })?;
    let v = operand_name(o);
    let x = cx.value(&v, o.span)?;
    Ok((x, cx.width(&v)))
}

fn result_width(op: &Operation) -> Result<u32, Diagnostic> {
    op.result_types
        .first()
        .map(super::context::type_width)
        .filter(|w| *w > 0)
        .ok_or_else(|| {
            Diagnostic::error(
                op.span,
                format!("`{}` needs an integer result type", op.name),
            )
        })
}

fn set_result(cx: &mut RuleCx, op: &Operation, x: Var) {
    if let Some(r) = result_names(op).first() {
        cx.local.insert(r.clone(), x);
    }
}

fn mismatch(op: &Operation, what: String) -> Diagnostic {
    Diagnostic::error(op.span, format!("width mismatch in `{}`: {what}", op.name))
}

/// The global symbol a memref operand refers to.
fn bank_of(cx: &RuleCx, op: &Operation, i: usize) -> Result<String, Diagnostic> {
    let o = op.operands.get(i).ok_or_else(|| {
        Diagnostic::error(
            op.span,
            format!("`{}` is missing its memref operand", op.name),
        )
    })?;
    let v = operand_name(o);
    let g = cx.seg.values.globals.get(&v).cloned().ok_or_else(|| {
        Diagnostic::error(o.span, format!("`{v}` is not a `memref.get_global` result"))
    })?;
    if !cx.ctx.is_bank(&g) {
        return Err(Diagnostic::error(
            o.span,
            format!("`@{g}` is not a scratchpad bank"),
        ));
    }
    Ok(g)
}

fn cmp_op(op: &Operation) -> Result<PrimOp, Diagnostic> {
    let p = match op.attr("predicate") {
        Some(Attribute::Integer { value, .. }) => match value {
            0 => "eq",
            1 => "ne",
            2 => "slt",
            3 => "sle",
            4 => "sgt",
            5 => "sge",
            6 => "ult",
            7 => "ule",
            8 => "ugt",
            9 => "uge",
            _ => "",
        },
        Some(a) => a.as_str().unwrap_or(""),
        None => "",
    };
    Ok(match p {
        "eq" => PrimOp::Eq,
        "ne" => PrimOp::Ne,
        "slt" => PrimOp::Slt,
        "sle" => PrimOp::Sle,
        "sgt" => PrimOp::Sgt,
        "sge" => PrimOp::Sge,
        "ult" => PrimOp::Ult,
        "ule" => PrimOp::Ule,
        "ugt" => PrimOp::Ugt,
        "uge" => PrimOp::Uge,
        _ => {
            return Err(Diagnostic::error(
                op.span,
                format!("`{}`: unknown predicate", op.name),
            ));
        }
    })
}

fn binary(cx: &mut RuleCx, op: &Operation, p: PrimOp) -> Result<(), Diagnostic> {
    let w = result_width(op)?;
    let (a, wa) = operand(cx, op, 0)?;
    let (b, wb) = operand(cx, op, 1)?;
    let shift = matches!(p, PrimOp::Shl | PrimOp::ShrU | PrimOp::ShrS);
    if wa != w || (!shift && wb != w) {
        return Err(mismatch(
            op,
            format!("operands i{wa}, i{wb} for result i{w}"),
        ));
    }
    let x = cx.b.prim(p, vec![a, b], w);
    set_result(cx, op, x);
    Ok(())
}

/// Operand `i` as an address of `bank` ([`crate::rules::bank_addr_width`] bits: the bank
/// ignores higher bits).
fn bank_addr(cx: &mut RuleCx, op: &Operation, i: usize, bank: &str) -> Result<Var, Diagnostic> {
    let (x, w) = operand(cx, op, i)?;
    let depth = cx.ctx.globals.get(bank).map_or(1, |g| g.depth()) as u32;
    Ok(cx.fit(x, w, crate::rules::bank_addr_width(depth)))
}

/// The constant value of operand `i` (burst lengths must be constants).
fn const_operand(cx: &RuleCx, op: &Operation, i: usize) -> Result<u128, Diagnostic> {
    let o = op.operands.get(i).ok_or_else(|| {
        Diagnostic::error(op.span, format!("`{}` is missing operand {i}", op.name))
    })?;
    cx.seg
        .values
        .consts
        .get(&operand_name(o))
        .map(|c| c.0)
        .ok_or_else(|| Diagnostic::error(o.span, "burst length must be an `arith.constant`"))
}

/// Burst: `(cpu_addr, isax_addr, length, stride_x, stride_y)` from the banks, start and
/// length operands and the `stride_x`/`stride_y` attributes ([`crate::aps::memory::burst`]).
fn burst_args(
    cx: &mut RuleCx,
    op: &Operation,
    banks: std::ops::Range<usize>,
    start: usize,
    cpu: usize,
    len: usize,
) -> Result<Vec<Var>, Diagnostic> {
    let first = bank_of(cx, op, banks.start)?;
    let entry = cx.ctx.entry_of_bank(&first).cloned().ok_or_else(|| {
        Diagnostic::error(op.span, format!("bank `@{first}` is not in the memory map"))
    })?;
    for i in banks.clone() {
        bank_of(cx, op, i)?;
    }
    let eb = cx.ctx.elem_bytes(&entry);
    let length = const_operand(cx, op, len)?;
    let len_span = op.operands.get(len).map_or(op.span, |o| o.span);
    if length == 0 {
        return Err(Diagnostic::error(
            len_span,
            "burst length is 0: a burst moves at least one element",
        ));
    }
    let log = crate::aps::memory::dma_length(eb, length as u64).ok_or_else(|| {
        Diagnostic::error(
            len_span,
            format!(
                "burst of {length} elements of {eb} bytes does not fit the 4-bit DMA size field (at most 32768 bytes)"
            ),
        )
    })?;
    let (c, wc) = operand(cx, op, cpu)?;
    let cpu_addr = cx.fit(c, wc, 32);
    let (s, ws) = operand(cx, op, start)?;
    let s32 = cx.fit(s, ws, 32);
    let ebv = cx.b.konst(eb as u128, 32);
    let off = cx.b.prim(PrimOp::Mul, vec![s32, ebv], 32);
    let base = cx.b.konst(entry.base as u128, 32);
    let isax = cx.b.prim(PrimOp::Add, vec![base, off], 32);
    let (sx, sy) = crate::aps::memory::strides(op)?;
    let logv = cx.b.konst(log as u128, 4);
    let sxv = cx.b.konst(sx as u128, 8);
    let syv = cx.b.konst(sy as u128, 8);
    Ok(vec![cpu_addr, isax, logv, sxv, syv])
}

pub(crate) fn generate(cx: &mut RuleCx, op: &Operation, _first: bool) -> Result<(), Diagnostic> {
    match op.name.as_str() {
        "tor.addi" | "arith.addi" => binary(cx, op, PrimOp::Add),
        "tor.subi" | "arith.subi" => binary(cx, op, PrimOp::Sub),
        "tor.muli" | "arith.muli" => binary(cx, op, PrimOp::Mul),
        "arith.andi" => binary(cx, op, PrimOp::And),
        "arith.ori" => binary(cx, op, PrimOp::Or),
        "arith.xori" => binary(cx, op, PrimOp::Xor),
        "arith.shli" => binary(cx, op, PrimOp::Shl),
        "arith.shrui" => binary(cx, op, PrimOp::ShrU),
        "arith.shrsi" => binary(cx, op, PrimOp::ShrS),
        "tor.cmpi" | "arith.cmpi" => {
            let p = cmp_op(op)?;
            let (a, wa) = operand(cx, op, 0)?;
            let (b, wb) = operand(cx, op, 1)?;
            if wa != wb {
                return Err(mismatch(op, format!("compares i{wa} with i{wb}")));
            }
            let x = cx.b.prim(p, vec![a, b], 1);
            set_result(cx, op, x);
            Ok(())
        }
        "arith.select" => {
            let w = result_width(op)?;
            let (c, wc) = operand(cx, op, 0)?;
            let (a, wa) = operand(cx, op, 1)?;
            let (b, wb) = operand(cx, op, 2)?;
            if wc != 1 || wa != w || wb != w {
                return Err(mismatch(
                    op,
                    format!("condition i{wc}, arms i{wa}/i{wb}, result i{w}"),
                ));
            }
            let x = cx.b.prim(PrimOp::Mux, vec![c, a, b], w);
            set_result(cx, op, x);
            Ok(())
        }
        "arith.extui" | "arith.extsi" | "arith.trunci" => {
            let w = result_width(op)?;
            let (a, wa) = operand(cx, op, 0)?;
            let trunc = op.name == "arith.trunci";
            if (trunc && wa <= w) || (!trunc && wa >= w) {
                return Err(mismatch(op, format!("i{wa} to i{w}")));
            }
            let p = match op.name.as_str() {
                "arith.extui" => PrimOp::ZExt,
                "arith.extsi" => PrimOp::SExt,
                _ => PrimOp::Bits { lo: 0 },
            };
            let x = cx.b.prim(p, vec![a], w);
            set_result(cx, op, x);
            Ok(())
        }
        "comb.extract" => {
            let w = result_width(op)?;
            let (a, wa) = operand(cx, op, 0)?;
            let lo = op
                .attr("lowBit")
                .or_else(|| op.attr("low_bit"))
                .and_then(Attribute::as_int)
                .ok_or_else(|| Diagnostic::error(op.span, "`comb.extract` needs `lowBit`"))?
                as u32;
            if lo + w > wa {
                return Err(mismatch(op, format!("bits {lo}..{} of i{wa}", lo + w)));
            }
            let x = cx.b.prim(PrimOp::Bits { lo }, vec![a], w);
            set_result(cx, op, x);
            Ok(())
        }
        "aps.readrf" => {
            let Some(cmd) = cx.cmd else {
                return Err(Diagnostic::error(
                    op.span,
                    "`aps.readrf` outside the first slot of the function's first block",
                ));
            };
            let o = op.operands.first().ok_or_else(|| {
                Diagnostic::error(op.span, "`aps.readrf` needs a register operand")
            })?;
            let idx = cx.seg.values.args.iter().position(|a| *a == o.name);
            let field = match idx {
                Some(0) => "rs1data",
                Some(1) => "rs2data",
                _ => {
                    return Err(Diagnostic::error(
                        o.span,
                        "`aps.readrf` reads only the first two function arguments (rs1, rs2)",
                    ));
                }
            };
            let w = result_width(op)?;
            if w != 32 {
                return Err(mismatch(
                    op,
                    format!("register reads are i32, result is i{w}"),
                ));
            }
            let (lo, fw) = rocc_field(field);
            let x = cx.b.prim(PrimOp::Bits { lo }, vec![cmd], fw);
            set_result(cx, op, x);
            Ok(())
        }
        "aps.writerf" => {
            let reg = op.operands.first().ok_or_else(|| {
                Diagnostic::error(op.span, "`aps.writerf` needs a register operand")
            })?;
            if cx.seg.values.arg_field(&operand_name(reg)) != Some("rd") {
                return Err(Diagnostic::error(
                    reg.span,
                    "`aps.writerf` writes the instruction's rd: the function's third argument",
                ));
            }
            let (v, wv) = operand(cx, op, 1)?;
            if wv > 32 {
                return Err(mismatch(
                    op,
                    format!("register writes take at most i32, got i{wv}"),
                ));
            }
            let v32 = cx.fit(v, wv, 32);
            let (rd, wrd) = operand(cx, op, 0)?;
            let rd = cx.fit(rd, wrd, 5);
            cx.b.call("rocc_adapter", "resp_from_user", vec![rd, v32]);
            Ok(())
        }
        "aps.memload" | "aps.spm.load_req" => {
            let bank = bank_of(cx, op, 0)?;
            let i = bank_addr(cx, op, 1, &bank)?;
            let bw = cx.ctx.globals.get(&bank).map(|g| g.width).unwrap_or(32);
            if op.name == "aps.memload" {
                let w = result_width(op)?;
                if w != bw {
                    return Err(mismatch(
                        op,
                        format!("bank `@{bank}` holds i{bw}, result is i{w}"),
                    ));
                }
                let x = cx.b.call_value(&bank, "read", vec![i], w);
                set_result(cx, op, x);
            } else {
                cx.b.call(&bank, "read_0", vec![i]);
            }
            Ok(())
        }
        "aps.spm.load_collect" => {
            let o = op.operands.first().ok_or_else(|| {
                Diagnostic::error(op.span, "`aps.spm.load_collect` needs its request token")
            })?;
            let bank = cx
                .seg
                .values
                .req_banks
                .get(&operand_name(o))
                .cloned()
                .ok_or_else(|| Diagnostic::error(o.span, "not an `aps.spm.load_req` token"))?;
            let w = result_width(op)?;
            let x = cx.b.call_value(&bank, "read_1", vec![], w);
            set_result(cx, op, x);
            Ok(())
        }
        "aps.memstore" => {
            let (v, wv) = operand(cx, op, 0)?;
            let bank = bank_of(cx, op, 1)?;
            let i = bank_addr(cx, op, 2, &bank)?;
            let bw = cx.ctx.globals.get(&bank).map(|g| g.width).unwrap_or(32);
            if wv != bw {
                return Err(mismatch(
                    op,
                    format!("storing i{wv} into bank `@{bank}` of i{bw}"),
                ));
            }
            cx.b.call(&bank, "write", vec![i, v]);
            Ok(())
        }
        "aps.itfc.burst_load_req" => {
            let n = op.operands.len();
            if n < 4 {
                return Err(Diagnostic::error(
                    op.span,
                    "`aps.itfc.burst_load_req` needs cpu address, banks, start and length",
                ));
            }
            let args = burst_args(cx, op, 1..n - 2, n - 2, 0, n - 1)?;
            let channel = crate::aps::segment::dma_channel(op)?;
            let m = DmaMethod::Request {
                to_isax: true,
                channel,
            }
            .name();
            cx.b.call("dma", m, args);
            Ok(())
        }
        "aps.itfc.burst_store_req" => {
            let n = op.operands.len();
            if n < 4 {
                return Err(Diagnostic::error(
                    op.span,
                    "`aps.itfc.burst_store_req` needs banks, start, cpu address and length",
                ));
            }
            let args = burst_args(cx, op, 0..n - 3, n - 3, n - 2, n - 1)?;
            let channel = crate::aps::segment::dma_channel(op)?;
            let m = DmaMethod::Request {
                to_isax: false,
                channel,
            }
            .name();
            cx.b.call("dma", m, args);
            Ok(())
        }
        "aps.itfc.burst_load_collect" | "aps.itfc.burst_store_collect" => {
            // The request's channel (the token links them); a token kiln cannot trace
            // waits for every channel the function uses.
            let token = op.operands.first().map(operand_name);
            let channels = match token.and_then(|t| cx.seg.values.dma_channels.get(&t)) {
                Some(&c) => vec![c],
                None => cx.seg.values.channels_used(),
            };
            for channel in channels {
                let m = DmaMethod::Poll { channel }.name();
                cx.b.call_value("dma", m, vec![], 1);
            }
            Ok(())
        }
        "aps.itfc.load_req" => {
            let (a, wa) = operand(cx, op, 1)?;
            let a32 = cx.fit(a, wa, 32);
            cx.b.call("hellacache_adapter", "load_req", vec![a32]);
            Ok(())
        }
        "aps.itfc.load_collect" => {
            let w = result_width(op)?;
            if w != 32 {
                return Err(mismatch(
                    op,
                    format!("CPU memory loads are i32, result is i{w}"),
                ));
            }
            let x =
                cx.b.call_value("hellacache_adapter", "load_resp", vec![], 32);
            set_result(cx, op, x);
            Ok(())
        }
        "aps.itfc.store_req" => {
            let (v, wv) = operand(cx, op, 0)?;
            if wv != 32 {
                return Err(mismatch(
                    op,
                    format!("CPU memory stores take i32, got i{wv}"),
                ));
            }
            let (a, wa) = operand(cx, op, 2)?;
            let a32 = cx.fit(a, wa, 32);
            cx.b.call("hellacache_adapter", "store_req", vec![a32, v]);
            Ok(())
        }
        "aps.itfc.store_collect" => Ok(()),
        "aps.globalload" | "aps.globalstore" => {
            let g = global_symbol(op)?;
            let gw = cx
                .ctx
                .globals
                .get(&g)
                .filter(|g| g.shape.is_empty() && g.csr_address.is_none())
                .map(|g| g.width)
                .ok_or_else(|| {
                    Diagnostic::error(
                        op.span,
                        format!("`@{g}` is not a rank-0 global register (CSR globals take `aps.readcsr`/`aps.writecsr`)"),
                    )
                })?;
            let inst = format!("glbl_reg_{g}");
            if op.name == "aps.globalload" {
                let w = result_width(op)?;
                if w != gw {
                    return Err(mismatch(
                        op,
                        format!("global `@{g}` is i{gw}, result is i{w}"),
                    ));
                }
                let x = cx.b.call_value(&inst, "read", vec![], w);
                set_result(cx, op, x);
            } else {
                let (v, wv) = operand(cx, op, 0)?;
                if wv != gw {
                    return Err(mismatch(
                        op,
                        format!("storing i{wv} into global `@{g}` of i{gw}"),
                    ));
                }
                cx.b.call(&inst, "write", vec![v]);
            }
            Ok(())
        }
        "aps.readcsr" | "aps.read_csr" => {
            let (g, lane) = csr_lane(cx, op)?;
            let w = result_width(op)?;
            if w > 32 {
                return Err(mismatch(op, format!("CSR values are i32, result is i{w}")));
            }
            // The rule that takes the command reads the value latched when it fired; later
            // rules read the register that rule filled (`keep_arguments`).
            // (In the fifo style, which has no value registers, from the register of the
            // CSR the taking rule filled.)
            let x = match (cx.cmd, cx.seg.style) {
                (Some(_), _) => cx.b.call_value(&lane, "latched", vec![], 32),
                (None, super::Style::Fifo) => {
                    let reg = super::fifo::csr_reg(cx.seg, &g);
                    cx.b.call_value(&reg, "read", vec![], 32)
                }
                (None, super::Style::Fsm) => return Ok(()),
            };
            let x = cx.fit(x, 32, w);
            set_result(cx, op, x);
            Ok(())
        }
        "aps.writecsr" | "aps.write_csr" => {
            let (_, lane) = csr_lane(cx, op)?;
            let (v, wv) = operand(cx, op, 0)?;
            if wv > 32 {
                return Err(mismatch(
                    op,
                    format!("CSR writes take at most i32, got i{wv}"),
                ));
            }
            let v = cx.fit(v, wv, 32);
            cx.b.call(&lane, "set", vec![v]);
            Ok(())
        }
        other => Err(Diagnostic::error(
            op.span,
            format!("no rule generator for operation `{other}`"),
        )),
    }
}

/// Whether `op` reads a CSR (`aps.readcsr` or its future name `aps.read_csr`).
pub(crate) fn is_csr_read(op: &Operation) -> bool {
    matches!(op.name.as_str(), "aps.readcsr" | "aps.read_csr")
}

/// The CSR global an `aps.readcsr/writecsr` names, and its lane's instance (`csr_<name>`).
fn csr_lane(cx: &RuleCx, op: &Operation) -> Result<(String, String), Diagnostic> {
    let g = global_symbol(op)?;
    let (_, lane) = super::csr::lane_of_global(&cx.ctx.csrs, &g).ok_or_else(|| {
        Diagnostic::error(
            op.span,
            format!("`@{g}` is not a CSR global (a `memref.global` with `csr_address`)"),
        )
    })?;
    let instance = lane.instance();
    Ok((g, instance))
}

/// The `@g` of `aps.globalload/globalstore` (an attribute holding a symbol reference).
pub(crate) fn global_symbol(op: &Operation) -> Result<String, Diagnostic> {
    op.attrs
        .iter()
        .find_map(|a| match &a.value {
            Attribute::SymbolRef(p) => p.last().cloned(),
            _ => None,
        })
        .ok_or_else(|| Diagnostic::error(op.span, format!("`{}` needs a global symbol", op.name)))
}
