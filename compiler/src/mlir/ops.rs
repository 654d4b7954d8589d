//! Custom assembly formats: ONE table from op name to parser function ([`TABLE`]).
//!
//! Adding an op is one table entry. A custom-form op whose name is not in the table is an
//! error ("unknown operation 'x.y' in custom form"). Unqualified names (`fork`, `return`)
//! resolve against the enclosing op's default dialect (`handshake` inside `handshake.func`,
//! `func` inside `func.func`), then against `builtin` (`module`).
//!
//! Every format maps onto the generic tree as follows (`T` = type, `%x` = operand; "dict" is
//! the optional attribute dictionary, appended to the attributes in source position; the
//! `on (a to b)` clause adds `starttime = a : i32`, `endtime = b : i32` after the dict unless
//! the dict already has them).
//!
//! | custom syntax | operands | attributes | regions | types |
//! |---|---|---|---|---|
//! | `module @n? attributes {..}? {..}` | – | `sym_name` (String) if named, dict | body | – |
//! | `tor.design @n {..} dict` | – | `sym_name`, dict | body | – |
//! | `tor.func @n(%a: T, ..., ...) (-> R)? attributes {..} {..}` (same for `func.func`, `handshake.func`; optional visibility keyword) | – | `sym_name`, `function_type` (Type), `variadic` (Unit, for a trailing `...`), `sym_visibility` (String), `arg_attrs`/`res_attrs` (Array of Dict, only if some argument/result has a dict), dict | body, entry block args = arguments | – |
//! | `tor.timegraph (a to b) {..}` | – | `starttime`, `endtime`, dict | body | – |
//! | `tor.succ N : [points] [edges]` | – | `name` (N : i32), `points`, `edges` (Arrays), dict | – | – |
//! | `tor.for %i = (%lb : T) to (%ub : T) step (%s : T) on (a to b) iter_args(%x = %init (: T)?, ..)? (-> (R))? {..} dict` (`on` and `iter_args` in either order) | lb, ub, step, inits | `starttime`, `endtime`, dict | body, entry args `%i : T` then one per iter arg (its `: T`, else the matching result type) | operand_types: T, T, T, then the iter args' stated types; result_types R |
//! | `tor.if %c on (a to b) (-> (R))? then {..} (else {..})? dict` | c | `starttime`, `endtime`, dict | then, else (optional) | result_types R |
//! | `tor.load %m[%i, ..] on (a to b) dict : M[I, ..]` | m, indices | on clause, dict | – | operand_types M, I..; result = element type of M (`memref` or `!tor.memref`) |
//! | `tor.store %v to %m[%i, ..] on (a to b) dict : (T, M[I, ..])` | v, m, indices | on clause, dict | – | T, M, I.. |
//! | `tor.stream_read %s dict : S -> T` (as the aps ops) / `tor.stream_write %v to %s dict : T, S` | in order | dict | – | as written (a short `<f32>` stream type reads as a Handshake channel type) |
//! | `tor.alloc dict : M` / `tor.stream_create dict : S[N]` | – | dict, `depth` = N | – | result M / S |
//! | `tor.call @f(%a, ..) on (a to b) dict : (T..) -> R` | in order | `callee` (SymbolRef), on clause, dict | – | from the type |
//! | `tor.while (%x = %init, ..)? : (T..) -> (R..) on (a to b) {..} do {..} dict` | inits | `starttime`, `endtime`, dict | before, after | as written |
//! | `tor.addi %a %b on (a to b) dict : (T, T) -> R` (all binary/compare ops of the table; comma between operands optional; `: T` alone means all operands and the result have T) | a, b | (`predicate` for `cmpi`/`cmpf`: Keyword, or String if quoted), `starttime`, `endtime`, dict | – | from the type |
//! | `tor.return/yield/condition %a, .. on (..)? dict : T, ..` | in order | on clause, dict | – | operand_types |
//! | `arith.constant dict? V (: T)?` | – | `value` (as written, with its type), dict | – | result = V's type (`i1` for `true`/`false`) |
//! | `arith.addi %a, %b (overflow<..>/fastmath<..>)? dict : T` | a, b | `overflowFlags`/`fastmath` (Opaque), dict | – | operands and result T |
//! | `arith.cmpi pred, %a, %b dict : T` (`cmpf` too) | a, b | `predicate` (Keyword), dict | – | operands T, result `i1` |
//! | `arith.extsi %a dict : A to B` (all casts) | a | dict | – | A → B |
//! | `arith.select %c, %a, %b dict : T` (or `: i1, T`) | c, a, b | dict | – | (i1, T, T) → T |
//! | `memref.global "vis"? constant? @n : T (= dense<..>/uninitialized)? dict` | – | `sym_visibility`, `constant` (Unit), `sym_name`, `type` (Type), `initial_value`, dict | – | – |
//! | `memref.get_global @n : T dict` | – | `name` (SymbolRef), dict | – | result T |
//! | `memref.load %m[%i, ..] dict : T` / `memref.store %v, %m[%i] dict : T` | (v,) m, indices | dict | – | operand_types: (elem,) T, indices `index` |
//! | `aps.*` (every aps op except the memory map) `%a, %m[%i], (%b, %c) [%d], .. dict : A, (B, C), D -> R` | textual order, index lists and bracket/paren groups flattened | dict | – | types before `->` flattened to operand_types, after to result_types |
//! | `aps.readcsr @g dict : T` / `aps.writecsr %v, @g dict : T` (also `aps.globalload`/`globalstore`, `aps.read_csr`/`write_csr`) | (v) | `global_name` (SymbolRef), dict | – | result T / operand_types T |
//! | `aps.memorymap {..}` | – | dict | body | – |
//! | `aps.mem_entry "n" : banks([@a, ..]), base(0), size(64), count(4), cyclic(1)` | – | `name` (String), then one attribute per `key(value)` | – | – |
//! | `aps.mem_finish dict` | – | dict | – | – |
//! | `scf.if %c (-> (R))? {..} (else {..})? dict` | c | dict | then, else | result_types R |
//! | `scf.for %i = %lb to %ub step %s iter_args(%x = %v, ..)? (: T)? (-> (R))? {..}` | lb, ub, step, inits | dict | body, entry args `%i` (T or `index`) then iter args | results R |
//! | `scf.while (%x = %v, ..) : (T..) -> (R..) {..} do {..} dict` | inits | dict | before (entry args = `%x : T`), after | operand_types T, result_types R |
//! | `scf.condition(%c) %a, .. dict : T, ..` | c, a, .. | dict | – | (i1, T..) |
//! | `scf.yield`/`func.return`/`hw.output`/`seq.yield` `%a, .. dict : T, ..` | in order | dict | – | operand_types |
//! | `func.call @f(%a, ..) dict : (T) -> R` | in order | `callee` (SymbolRef), dict | – | from the type |
//! | `comb.extract %a from N dict : (T) -> R` | a | `lowBit` (N : i32), dict | – | T → R |
//! | `comb.add bin? %a, %b, .. dict : T` (variadic/binary comb ops) | in order | `twoState` (Unit) if `bin`, dict | – | all T |
//! | `comb.icmp bin? pred %a, %b dict : T` | a, b | `predicate` (Keyword), dict | – | operands T, result i1 |
//! | `comb.mux bin? %c, %a, %b dict : T` | c, a, b | dict | – | (i1, T, T) → T |
//! | `hw.constant V dict` (`true`, `false`, `42 : i8`) | – | `value`, dict | – | result = V's type |
//! | `seq.compreg %d, %clk (reset %r, %v)? (initial %i)? dict : T` | d, clk, (r, v), (i) | `reset`/`initial` (Unit) when present, dict | – | result T |
//! | `seq.initial (%a, ..)? {..} : (T..) -> R` | in order | dict | body | from the type |
//!
//! The handshake, CMT2 and FIRRTL formats are implemented and documented in
//! [`super::handshake_ops`] and [`super::structural_ops`]; their ops are entries of this table.

use super::ast::*;
use super::lexer::Kind;
use super::parser::{PResult, Parser, i32_attr, merge_absent};
use super::{handshake_ops, structural_ops};
use crate::diag::{Diagnostic, Span};

/// A custom-format parser: called after the op name; fills operands, attributes, regions
/// and types of `op` (whose name and results are already set).
pub(crate) type OpParser = fn(&mut Parser, &mut Operation) -> PResult<()>;

/// THE op table: op name → custom-format parser, for every dialect, sorted by name (checked
/// by a unit test; looked up through a hash index built once). Adding an op is one entry here.
pub(crate) static TABLE: &[(&str, OpParser)] = &[
    ("aps.globalload", aps_global_access),
    ("aps.globalstore", aps_global_access),
    ("aps.itfc.burst_load_collect", aps_generic),
    ("aps.itfc.burst_load_req", aps_generic),
    ("aps.itfc.burst_store_collect", aps_generic),
    ("aps.itfc.burst_store_req", aps_generic),
    ("aps.mem_entry", aps_mem_entry),
    ("aps.mem_finish", attrs_only),
    ("aps.memload", aps_generic),
    ("aps.memorymap", region_then_attrs),
    ("aps.memstore", aps_generic),
    ("aps.read_csr", aps_global_access),
    ("aps.readcsr", aps_global_access),
    ("aps.readrf", aps_generic),
    ("aps.write_csr", aps_global_access),
    ("aps.writecsr", aps_global_access),
    ("aps.writerf", aps_generic),
    ("arith.addf", arith_binary),
    ("arith.addi", arith_binary),
    ("arith.andi", arith_binary),
    ("arith.bitcast", arith_cast),
    ("arith.cmpf", arith_cmp),
    ("arith.cmpi", arith_cmp),
    ("arith.constant", constant_like),
    ("arith.divf", arith_binary),
    ("arith.divsi", arith_binary),
    ("arith.divui", arith_binary),
    ("arith.extf", arith_cast),
    ("arith.extsi", arith_cast),
    ("arith.extui", arith_cast),
    ("arith.fptosi", arith_cast),
    ("arith.fptoui", arith_cast),
    ("arith.index_cast", arith_cast),
    ("arith.maxsi", arith_binary),
    ("arith.maxui", arith_binary),
    ("arith.minsi", arith_binary),
    ("arith.minui", arith_binary),
    ("arith.mulf", arith_binary),
    ("arith.muli", arith_binary),
    ("arith.negf", arith_binary),
    ("arith.ori", arith_binary),
    ("arith.remsi", arith_binary),
    ("arith.remui", arith_binary),
    ("arith.select", select_like),
    ("arith.shli", arith_binary),
    ("arith.shrsi", arith_binary),
    ("arith.shrui", arith_binary),
    ("arith.sitofp", arith_cast),
    ("arith.subf", arith_binary),
    ("arith.subi", arith_binary),
    ("arith.truncf", arith_cast),
    ("arith.trunci", arith_cast),
    ("arith.uitofp", arith_cast),
    ("arith.xori", arith_binary),
    ("builtin.module", module),
    ("cmt2.bind.bare", structural_ops::structural_op),
    ("cmt2.bind.method", structural_ops::structural_op),
    ("cmt2.bind.value", structural_ops::structural_op),
    ("cmt2.call", structural_ops::structural_op),
    ("cmt2.circuit", structural_ops::structural_op),
    ("cmt2.if", structural_ops::structural_op),
    ("cmt2.instance", structural_ops::structural_op),
    ("cmt2.interface", structural_ops::structural_op),
    ("cmt2.interface.decl", structural_ops::structural_op),
    ("cmt2.interface.def", structural_ops::structural_op),
    ("cmt2.method", structural_ops::structural_op),
    ("cmt2.module", structural_ops::structural_op),
    ("cmt2.module.extern.firrtl", structural_ops::structural_op),
    ("cmt2.module.extern.hw", structural_ops::structural_op),
    ("cmt2.return", structural_ops::structural_op),
    ("cmt2.rule", structural_ops::structural_op),
    ("cmt2.value", structural_ops::structural_op),
    ("cmt2.yield", structural_ops::structural_op),
    ("comb.add", comb_variadic),
    ("comb.and", comb_variadic),
    ("comb.divs", comb_variadic),
    ("comb.divu", comb_variadic),
    ("comb.extract", comb_extract),
    ("comb.icmp", comb_icmp),
    ("comb.mods", comb_variadic),
    ("comb.modu", comb_variadic),
    ("comb.mul", comb_variadic),
    ("comb.mux", select_like),
    ("comb.or", comb_variadic),
    ("comb.shl", comb_variadic),
    ("comb.shrs", comb_variadic),
    ("comb.shru", comb_variadic),
    ("comb.sub", comb_variadic),
    ("comb.xor", comb_variadic),
    ("firrtl.add", structural_ops::structural_op),
    ("firrtl.aggregateconstant", structural_ops::structural_op),
    ("firrtl.and", structural_ops::structural_op),
    ("firrtl.andr", structural_ops::structural_op),
    ("firrtl.asSInt", structural_ops::structural_op),
    ("firrtl.asUInt", structural_ops::structural_op),
    ("firrtl.bits", structural_ops::structural_op),
    ("firrtl.cat", structural_ops::structural_op),
    ("firrtl.circuit", structural_ops::structural_op),
    ("firrtl.connect", structural_ops::structural_op),
    ("firrtl.constant", structural_ops::structural_op),
    ("firrtl.div", structural_ops::structural_op),
    ("firrtl.dshl", structural_ops::structural_op),
    ("firrtl.dshr", structural_ops::structural_op),
    ("firrtl.eq", structural_ops::structural_op),
    ("firrtl.extmodule", structural_ops::structural_op),
    ("firrtl.geq", structural_ops::structural_op),
    ("firrtl.gt", structural_ops::structural_op),
    ("firrtl.head", structural_ops::structural_op),
    ("firrtl.leq", structural_ops::structural_op),
    ("firrtl.lt", structural_ops::structural_op),
    ("firrtl.matchingconnect", structural_ops::structural_op),
    ("firrtl.module", structural_ops::structural_op),
    ("firrtl.mul", structural_ops::structural_op),
    ("firrtl.mux", structural_ops::structural_op),
    ("firrtl.neq", structural_ops::structural_op),
    ("firrtl.node", structural_ops::structural_op),
    ("firrtl.not", structural_ops::structural_op),
    ("firrtl.or", structural_ops::structural_op),
    ("firrtl.orr", structural_ops::structural_op),
    ("firrtl.pad", structural_ops::structural_op),
    ("firrtl.reg", structural_ops::structural_op),
    ("firrtl.regreset", structural_ops::structural_op),
    ("firrtl.rem", structural_ops::structural_op),
    ("firrtl.shl", structural_ops::structural_op),
    ("firrtl.shr", structural_ops::structural_op),
    ("firrtl.sub", structural_ops::structural_op),
    ("firrtl.subaccess", structural_ops::structural_op),
    ("firrtl.subindex", structural_ops::structural_op),
    ("firrtl.tail", structural_ops::structural_op),
    ("firrtl.when", structural_ops::structural_op),
    ("firrtl.wire", structural_ops::structural_op),
    ("firrtl.xor", structural_ops::structural_op),
    ("firrtl.xorr", structural_ops::structural_op),
    ("func.call", func_call),
    ("func.func", func_like),
    ("func.return", return_like),
    ("handshake.absf", handshake_ops::handshake_op),
    ("handshake.addf", handshake_ops::handshake_op),
    ("handshake.addi", handshake_ops::handshake_op),
    ("handshake.andi", handshake_ops::handshake_op),
    ("handshake.blocker", handshake_ops::handshake_op),
    ("handshake.br", handshake_ops::handshake_op),
    ("handshake.buffer", handshake_ops::handshake_op),
    ("handshake.bundle", handshake_ops::handshake_op),
    ("handshake.cmpf", handshake_ops::handshake_op),
    ("handshake.cmpi", handshake_ops::handshake_op),
    ("handshake.cond_br", handshake_ops::handshake_op),
    ("handshake.constant", handshake_ops::handshake_op),
    ("handshake.control_merge", handshake_ops::handshake_op),
    ("handshake.divf", handshake_ops::handshake_op),
    ("handshake.divsi", handshake_ops::handshake_op),
    ("handshake.divui", handshake_ops::handshake_op),
    ("handshake.end", handshake_ops::handshake_op),
    ("handshake.extf", handshake_ops::handshake_op),
    ("handshake.extsi", handshake_ops::handshake_op),
    ("handshake.extui", handshake_ops::handshake_op),
    ("handshake.fork", handshake_ops::handshake_op),
    ("handshake.fptosi", handshake_ops::handshake_op),
    ("handshake.func", func_like),
    ("handshake.init", handshake_ops::handshake_op),
    ("handshake.join", handshake_ops::handshake_op),
    ("handshake.lazy_fork", handshake_ops::handshake_op),
    ("handshake.load", handshake_ops::handshake_op),
    ("handshake.lsq", handshake_ops::handshake_op),
    ("handshake.maximumf", handshake_ops::handshake_op),
    ("handshake.maxsi", handshake_ops::handshake_op),
    ("handshake.maxui", handshake_ops::handshake_op),
    ("handshake.mem_controller", handshake_ops::handshake_op),
    ("handshake.merge", handshake_ops::handshake_op),
    ("handshake.minimumf", handshake_ops::handshake_op),
    ("handshake.minsi", handshake_ops::handshake_op),
    ("handshake.minui", handshake_ops::handshake_op),
    ("handshake.mulf", handshake_ops::handshake_op),
    ("handshake.muli", handshake_ops::handshake_op),
    ("handshake.mux", handshake_ops::handshake_op),
    ("handshake.negf", handshake_ops::handshake_op),
    ("handshake.non_spec", handshake_ops::handshake_op),
    ("handshake.not", handshake_ops::handshake_op),
    ("handshake.ori", handshake_ops::handshake_op),
    ("handshake.passer", handshake_ops::handshake_op),
    ("handshake.remsi", handshake_ops::handshake_op),
    ("handshake.select", handshake_ops::handshake_op),
    ("handshake.shli", handshake_ops::handshake_op),
    ("handshake.shrsi", handshake_ops::handshake_op),
    ("handshake.shrui", handshake_ops::handshake_op),
    ("handshake.sink", handshake_ops::handshake_op),
    ("handshake.sitofp", handshake_ops::handshake_op),
    ("handshake.source", handshake_ops::handshake_op),
    ("handshake.spec_commit", handshake_ops::handshake_op),
    ("handshake.spec_save_commit", handshake_ops::handshake_op),
    (
        "handshake.spec_v2_repeating_init",
        handshake_ops::handshake_op,
    ),
    ("handshake.spec_v2_resolver", handshake_ops::handshake_op),
    ("handshake.speculating_branch", handshake_ops::handshake_op),
    ("handshake.speculator", handshake_ops::handshake_op),
    ("handshake.store", handshake_ops::handshake_op),
    ("handshake.subf", handshake_ops::handshake_op),
    ("handshake.subi", handshake_ops::handshake_op),
    ("handshake.truncf", handshake_ops::handshake_op),
    ("handshake.trunci", handshake_ops::handshake_op),
    ("handshake.uitofp", handshake_ops::handshake_op),
    ("handshake.unbundle", handshake_ops::handshake_op),
    ("handshake.xori", handshake_ops::handshake_op),
    ("hw.constant", constant_like),
    ("hw.output", return_like),
    ("memref.get_global", memref_get_global),
    ("memref.global", memref_global),
    ("memref.load", memref_load),
    ("memref.store", memref_store),
    ("scf.condition", scf_condition),
    ("scf.for", scf_for),
    ("scf.if", scf_if),
    ("scf.while", while_like),
    ("scf.yield", return_like),
    ("seq.compreg", seq_compreg),
    ("seq.initial", seq_initial),
    ("seq.yield", return_like),
    ("tor.addf", tor_binary),
    ("tor.addi", tor_binary),
    ("tor.alloc", tor_alloc_like),
    ("tor.andi", tor_binary),
    ("tor.call", tor_call),
    ("tor.cmpf", tor_cmp),
    ("tor.cmpi", tor_cmp),
    ("tor.condition", tor_terminator),
    ("tor.design", tor_design),
    ("tor.divf", tor_binary),
    ("tor.divsi", tor_binary),
    ("tor.divui", tor_binary),
    ("tor.for", tor_for),
    ("tor.func", func_like),
    ("tor.if", tor_if),
    ("tor.load", tor_load),
    ("tor.mulf", tor_binary),
    ("tor.muli", tor_binary),
    ("tor.ori", tor_binary),
    ("tor.remsi", tor_binary),
    ("tor.remui", tor_binary),
    ("tor.return", tor_terminator),
    ("tor.shli", tor_binary),
    ("tor.shrsi", tor_binary),
    ("tor.shrui", tor_binary),
    ("tor.store", tor_store),
    ("tor.stream_create", tor_alloc_like),
    ("tor.stream_read", aps_generic),
    ("tor.stream_write", tor_stream_write),
    ("tor.subf", tor_binary),
    ("tor.subi", tor_binary),
    ("tor.succ", tor_succ),
    ("tor.timegraph", tor_timegraph),
    ("tor.while", while_like),
    ("tor.xori", tor_binary),
    ("tor.yield", tor_terminator),
];

/// The parser of the op called `name` (fully qualified).
pub(crate) fn lookup(name: &str) -> Option<OpParser> {
    index().get(name).copied()
}

type NameHash = std::hash::BuildHasherDefault<Fnv1a>;

/// [`TABLE`] as a hash map, built once: one lookup per parsed op, where a binary search
/// costs a string comparison per probe. Only looked up, never iterated.
fn index() -> &'static std::collections::HashMap<&'static str, OpParser, NameHash> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<&'static str, OpParser, NameHash>> =
        std::sync::OnceLock::new();
    INDEX.get_or_init(|| TABLE.iter().copied().collect())
}

/// FNV-1a: op names are short, trusted keys, so a fast non-keyed hash is enough.
#[derive(Default)]
struct Fnv1a(u64);

impl std::hash::Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Resolve a custom-form op name as written to its full name and parser.
pub(crate) fn resolve(written: &str, default_dialect: &str) -> Option<(Name, OpParser)> {
    if written.bytes().any(|b| b == b'.') {
        return lookup(written).map(|p| (Name::new(written), p));
    }
    for dialect in [default_dialect, "builtin"] {
        let full = compact_str::format_compact!("{dialect}.{written}");
        if let Some(p) = lookup(&full) {
            return Some((full, p));
        }
    }
    None
}

// ----- shared pieces ---------------------------------------------------------------------------

fn attrs_only(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.parse_opt_attr_dict(&mut op.attrs)
}

fn region_then_attrs(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.regions.push(p.parse_region(Vec::new())?);
    p.parse_opt_attr_dict(&mut op.attrs)
}

fn string_attr(name: &str, value: Name, span: Span) -> NamedAttr {
    NamedAttr {
        name: Name::new(name),
        value: Attribute::String(value),
        span,
    }
}

fn named(name: &str, value: Attribute, span: Span) -> NamedAttr {
    NamedAttr {
        name: Name::new(name),
        value,
        span,
    }
}

/// `@name` → `sym_name` attribute.
fn sym_name(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let start = p.tok.start();
    let name = p.parse_symbol_name()?;
    op.attrs.push(string_attr(
        "sym_name",
        Name::from(name),
        Span::new(start, p.prev_end),
    ));
    Ok(())
}

/// `: T` where one type applies to every operand and result.
fn same_type(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.expect(Kind::Colon)?;
    let ty = p.parse_type()?;
    op.operand_types = vec![ty.clone(); op.operands.len()];
    op.result_types = vec![ty; op.num_results()];
    Ok(())
}

/// `: (T, U) -> R` or `: T` (all operands and the result T).
fn fn_or_same_type(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    if p.at(Kind::Colon) && p.peek(0).kind == Kind::LParen {
        return function_type(p, op);
    }
    same_type(p, op)
}

/// Optional `: T, U` as operand types.
fn opt_operand_types(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    if p.eat(Kind::Colon) {
        op.operand_types = p.parse_type_list()?;
    }
    Ok(())
}

/// `%a = %init, ...` inside parentheses: returns block args (types filled later) and inits.
type Bindings = (Vec<(Name, Span)>, Vec<Operand>);

fn parse_iter_bindings(p: &mut Parser) -> PResult<Bindings> {
    p.expect(Kind::LParen)?;
    let mut names = Vec::new();
    let mut inits = Vec::new();
    if p.eat(Kind::RParen) {
        return Ok((names, inits));
    }
    loop {
        let t = p.expect(Kind::PercentId)?;
        names.push((Name::new(p.text(t)), p.span(t)));
        p.expect(Kind::Equal)?;
        inits.push(p.parse_operand()?);
        if !p.eat(Kind::Comma) {
            break;
        }
    }
    p.expect(Kind::RParen)?;
    Ok((names, inits))
}

fn block_args(names: Vec<(Name, Span)>, types: &[Type], at: Span) -> PResult<Vec<BlockArg>> {
    if names.len() != types.len() {
        return Err(Diagnostic::error(
            at,
            format!("expected {} types, found {}", names.len(), types.len()),
        ));
    }
    Ok(names
        .into_iter()
        .zip(types)
        .map(|((name, span), ty)| BlockArg {
            name,
            ty: ty.clone(),
            span,
        })
        .collect())
}

/// Optional `-> (T, U)` or `-> T`.
fn opt_arrow_results(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    if p.eat(Kind::Arrow) {
        op.result_types = p.parse_result_types()?;
    }
    Ok(())
}

/// `: (T, U) -> R` as operand and result types.
fn function_type(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.expect(Kind::Colon)?;
    let (ins, outs) = p.parse_function_type()?;
    op.operand_types = ins;
    op.result_types = outs;
    Ok(())
}

/// `(%a, %b, ..)`.
fn paren_operands(p: &mut Parser) -> PResult<Vec<Operand>> {
    p.expect(Kind::LParen)?;
    let operands = p.parse_operand_list_until(Kind::RParen)?;
    p.expect(Kind::RParen)?;
    Ok(operands)
}

/// `@f` → `callee` attribute.
fn callee(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let start = p.tok.start();
    let callee = p.parse_symbol_ref()?;
    let span = Span::new(start, p.prev_end);
    op.attrs
        .push(named("callee", Attribute::SymbolRef(callee), span));
    Ok(())
}

/// `on (a to b)? dict`: the clause's times go after the dict unless the dict has them.
fn on_clause_then_attrs(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let on = p.parse_on_clause()?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    merge_absent(&mut op.attrs, on.into_iter().flatten());
    Ok(())
}

/// `: T` of a comparison: every operand has T, the result is `i1`.
fn compare_type(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.expect(Kind::Colon)?;
    let ty = p.parse_type()?;
    op.operand_types = vec![ty; op.operands.len()];
    op.result_types = vec![Type::int(1)];
    Ok(())
}

/// An argument's or result's optional `{dict}` (empty when absent).
fn opt_dict(p: &mut Parser) -> PResult<Vec<NamedAttr>> {
    if p.at(Kind::LBrace) {
        p.parse_attr_dict()
    } else {
        Ok(Vec::new())
    }
}

// ----- builtin / func ----------------------------------------------------------------------------

fn module(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    if p.at(Kind::AtId) {
        sym_name(p, op)?;
    }
    p.parse_opt_attributes_kw(&mut op.attrs)?;
    op.regions.push(p.parse_region(Vec::new())?);
    Ok(())
}

/// `tor.func`, `func.func`, `handshake.func`: see the table in the module doc.
pub(crate) fn func_like(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    if p.at(Kind::BareId) && matches!(p.text(p.tok), "private" | "public" | "nested") {
        let t = p.bump();
        op.attrs.push(string_attr(
            "sym_visibility",
            Name::new(p.text(t)),
            p.span(t),
        ));
    }
    sym_name(p, op)?;
    let sig_start = p.tok.start();
    let (args, arg_attrs, variadic) = parse_func_args(p)?;
    let mut results = Vec::new();
    let mut res_attrs = Vec::new();
    if p.eat(Kind::Arrow) {
        (results, res_attrs) = parse_func_results(p)?;
    }
    let sig_span = Span::new(sig_start, p.prev_end);
    let inputs = args.iter().map(|a| a.ty.clone()).collect();
    op.attrs.push(named(
        "function_type",
        Attribute::Type(Type::Function { inputs, results }),
        sig_span,
    ));
    if let Some(span) = variadic {
        op.attrs.push(named("variadic", Attribute::Unit, span));
    }
    push_dict_list(op, "arg_attrs", arg_attrs, sig_span);
    push_dict_list(op, "res_attrs", res_attrs, sig_span);
    p.parse_opt_attributes_kw(&mut op.attrs)?;
    if !p.at(Kind::LBrace) {
        return Ok(());
    }
    let dialect = match op.name.as_str() {
        "handshake.func" => "handshake",
        "func.func" => "func",
        _ => p.default_dialect,
    };
    op.regions.push(p.parse_region_in(dialect, args)?);
    Ok(())
}

fn push_dict_list(op: &mut Operation, name: &str, dicts: Vec<Vec<NamedAttr>>, span: Span) {
    if dicts.iter().all(Vec::is_empty) {
        return;
    }
    let items = dicts.into_iter().map(Attribute::Dict).collect();
    op.attrs.push(named(name, Attribute::Array(items), span));
}

type FuncArgs = (Vec<BlockArg>, Vec<Vec<NamedAttr>>, Option<Span>);

/// `(%a: T {dict}?, ..., ...)`.
fn parse_func_args(p: &mut Parser) -> PResult<FuncArgs> {
    p.expect(Kind::LParen)?;
    let mut args = Vec::new();
    let mut attrs = Vec::new();
    let mut variadic = None;
    if p.eat(Kind::RParen) {
        return Ok((args, attrs, variadic));
    }
    loop {
        if p.at(Kind::Ellipsis) {
            variadic = Some(p.bump_span());
            break;
        }
        args.push(p.parse_block_arg()?);
        attrs.push(opt_dict(p)?);
        if !p.eat(Kind::Comma) {
            break;
        }
    }
    p.expect(Kind::RParen)?;
    Ok((args, attrs, variadic))
}

/// After `->`: `(T {dict}?, ...)` or a single `T`.
fn parse_func_results(p: &mut Parser) -> PResult<(Vec<Type>, Vec<Vec<NamedAttr>>)> {
    let mut types = Vec::new();
    let mut attrs = Vec::new();
    if !p.eat(Kind::LParen) {
        types.push(p.parse_type()?);
        attrs.push(Vec::new());
        return Ok((types, attrs));
    }
    if p.eat(Kind::RParen) {
        return Ok((types, attrs));
    }
    loop {
        types.push(p.parse_type()?);
        attrs.push(opt_dict(p)?);
        if !p.eat(Kind::Comma) {
            break;
        }
    }
    p.expect(Kind::RParen)?;
    Ok((types, attrs))
}

fn return_like(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands = p.parse_operands()?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    opt_operand_types(p, op)
}

fn func_call(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    callee(p, op)?;
    op.operands = paren_operands(p)?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    function_type(p, op)
}

/// `arith.constant` / `hw.constant`: `dict? value (: T)? dict?`.
fn constant_like(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.parse_opt_attr_dict(&mut op.attrs)?;
    let start = p.tok.start();
    let value = p.parse_attr()?;
    let span = Span::new(start, p.prev_end);
    let ty = match &value {
        Attribute::Integer { ty: Some(t), .. }
        | Attribute::Float { ty: Some(t), .. }
        | Attribute::Dense { ty: Some(t), .. } => Some(t.clone()),
        Attribute::Bool(_) => Some(Type::int(1)),
        _ => None,
    };
    op.attrs.insert(0, named("value", value, span));
    let ty = match ty {
        Some(t) => t,
        None => {
            p.expect(Kind::Colon)?;
            p.parse_type()?
        }
    };
    op.result_types = vec![ty];
    p.parse_opt_attr_dict(&mut op.attrs)
}

// ----- arith ---------------------------------------------------------------------------------

fn arith_binary(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands = p.parse_operands()?;
    for flag in ["overflow", "fastmath"] {
        if p.at_kw(flag) {
            let t = p.bump();
            let end = p.scan_adjacent_angle(t.end())?;
            let text = p.src[t.start()..end].to_string();
            let name = if flag == "overflow" {
                "overflowFlags"
            } else {
                "fastmath"
            };
            op.attrs.push(named(
                name,
                Attribute::Opaque(text),
                Span::new(t.start(), end),
            ));
        }
    }
    p.parse_opt_attr_dict(&mut op.attrs)?;
    same_type(p, op)
}

fn keyword_predicate(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let t = p.tok;
    let value = match t.kind {
        Kind::BareId => p.parse_bare_word_attr()?,
        Kind::Str => Attribute::String(p.parse_string()?),
        Kind::Int => Attribute::Integer {
            value: p.parse_int()?,
            ty: None,
        },
        _ => return Err(p.unexpected("comparison predicate")),
    };
    op.attrs
        .push(named("predicate", value, Span::new(t.start(), p.prev_end)));
    Ok(())
}

fn arith_cmp(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    keyword_predicate(p, op)?;
    p.expect(Kind::Comma)?;
    op.operands = p.parse_operands()?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    compare_type(p, op)
}

fn arith_cast(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands = p.parse_operands()?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    p.expect(Kind::Colon)?;
    op.operand_types = vec![p.parse_type()?];
    p.expect_kw("to")?;
    op.result_types = vec![p.parse_type()?];
    Ok(())
}

/// `%c, %a, %b : T` or `: i1, T` (arith.select, comb.mux; comb's `bin` flag accepted).
fn select_like(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    comb_bin_flag(p, op);
    op.operands = p.parse_operands()?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    p.expect(Kind::Colon)?;
    let types = p.parse_type_list()?;
    let (cond, ty) = match types.as_slice() {
        [t] => (Type::int(1), t.clone()),
        [c, t] => (c.clone(), t.clone()),
        _ => {
            return Err(Diagnostic::error(
                Span::point(p.prev_end),
                "expected one or two types",
            ));
        }
    };
    op.operand_types = vec![cond, ty.clone(), ty.clone()];
    op.result_types = vec![ty];
    Ok(())
}

// ----- memref --------------------------------------------------------------------------------

fn memref_global(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    if p.at(Kind::Str) {
        let start = p.tok.start();
        let vis = p.parse_string()?;
        op.attrs.push(string_attr(
            "sym_visibility",
            vis,
            Span::new(start, p.prev_end),
        ));
    }
    if p.at_kw("constant") {
        let t = p.bump();
        op.attrs.push(named("constant", Attribute::Unit, p.span(t)));
    }
    sym_name(p, op)?;
    p.expect(Kind::Colon)?;
    let start = p.tok.start();
    let ty = p.parse_type()?;
    op.attrs.push(named(
        "type",
        Attribute::Type(ty),
        Span::new(start, p.prev_end),
    ));
    if p.eat(Kind::Equal) {
        let start = p.tok.start();
        let init = p.parse_attr()?;
        op.attrs
            .push(named("initial_value", init, Span::new(start, p.prev_end)));
    }
    p.parse_opt_attr_dict(&mut op.attrs)
}

fn memref_get_global(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let start = p.tok.start();
    let sym = p.parse_symbol_ref()?;
    op.attrs.push(named(
        "name",
        Attribute::SymbolRef(sym),
        Span::new(start, p.prev_end),
    ));
    p.expect(Kind::Colon)?;
    op.result_types = vec![p.parse_type()?];
    p.parse_opt_attr_dict(&mut op.attrs)
}

/// `[%i, %j]` appended to the operands; returns how many.
fn index_list(p: &mut Parser, op: &mut Operation) -> PResult<usize> {
    p.expect(Kind::LBracket)?;
    let idx = p.parse_operand_list_until(Kind::RBracket)?;
    p.expect(Kind::RBracket)?;
    let n = idx.len();
    op.operands.extend(idx);
    Ok(n)
}

/// `: memref<..xT>`: the memref type and its element type `T`.
fn memref_type(p: &mut Parser) -> PResult<(Type, Type)> {
    p.expect(Kind::Colon)?;
    let ty = p.parse_type()?;
    match &ty {
        Type::MemRef { elem, .. } => {
            let elem = (**elem).clone();
            Ok((ty, elem))
        }
        _ => Err(Diagnostic::error(
            Span::point(p.prev_end),
            "expected a memref type",
        )),
    }
}

fn memref_load(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    let n = index_list(p, op)?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    let (ty, elem) = memref_type(p)?;
    op.operand_types = vec![ty];
    op.operand_types.extend(vec![Type::Index; n]);
    op.result_types = vec![elem];
    Ok(())
}

fn memref_store(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    p.expect(Kind::Comma)?;
    op.operands.push(p.parse_operand()?);
    let n = index_list(p, op)?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    let (ty, elem) = memref_type(p)?;
    op.operand_types = vec![elem, ty];
    op.operand_types.extend(vec![Type::Index; n]);
    Ok(())
}

// ----- aps -----------------------------------------------------------------------------------

/// Operands in textual order with `%m[%i]`, `(%a, %b)` and `[%c]` groups flattened, then
/// the dict, then `: A, (B, C), D -> R` with parenthesized groups flattened.
fn aps_generic(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    // Operands and types collect on the parser's stacks, so each list is one exact-size
    // allocation.
    let base = p.operand_stack.len();
    loop {
        match p.tok.kind {
            Kind::PercentId => {
                let o = p.parse_operand()?;
                p.operand_stack.push(o);
                if p.eat(Kind::LBracket) {
                    p.push_operand_list_until(Kind::RBracket)?;
                    p.expect(Kind::RBracket)?;
                }
            }
            Kind::LBracket | Kind::LParen if p.peek(0).kind == Kind::PercentId => {
                let close = if p.at(Kind::LBracket) {
                    Kind::RBracket
                } else {
                    Kind::RParen
                };
                p.bump();
                p.push_operand_list_until(close)?;
                p.expect(close)?;
            }
            _ => break,
        }
        if p.at(Kind::Comma) {
            p.bump();
            if !matches!(p.tok.kind, Kind::PercentId | Kind::LParen | Kind::LBracket) {
                return Err(p.unexpected("operand"));
            }
        }
    }
    // `collect`, not `extend`: an exact-size list (the op's lists are empty here).
    op.operands = p.operand_stack.drain(base..).collect();
    p.parse_opt_attr_dict(&mut op.attrs)?;
    if !p.eat(Kind::Colon) {
        return Ok(());
    }
    let base = p.type_stack.len();
    loop {
        if p.eat(Kind::LParen) {
            p.push_type_list()?;
            p.expect(Kind::RParen)?;
        } else {
            let t = p.parse_type()?;
            p.type_stack.push(t);
        }
        if !p.eat(Kind::Comma) {
            break;
        }
    }
    op.operand_types = p.type_stack.drain(base..).collect();
    if p.eat(Kind::Arrow) {
        op.result_types = p.parse_result_types()?;
    }
    Ok(())
}

/// `@g dict : T` (a read, with a result) or `%v, @g dict : T` (a write): the scalar global
/// accesses in `aps.globalload`'s format.
fn aps_global_access(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let write = p.at(Kind::PercentId);
    if write {
        op.operands = vec![p.parse_operand()?];
        p.expect(Kind::Comma)?;
    }
    let start = p.tok.start();
    let sym = p.parse_symbol_ref()?;
    op.attrs.push(named(
        "global_name",
        Attribute::SymbolRef(sym),
        Span::new(start, p.prev_end),
    ));
    p.parse_opt_attr_dict(&mut op.attrs)?;
    p.expect(Kind::Colon)?;
    let t = p.parse_type()?;
    match write {
        true => op.operand_types = vec![t],
        false => op.result_types = vec![t],
    }
    Ok(())
}

/// `"name" : key(value), key(value), ...`.
fn aps_mem_entry(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let start = p.tok.start();
    let name = p.parse_string()?;
    op.attrs
        .push(string_attr("name", name, Span::new(start, p.prev_end)));
    p.expect(Kind::Colon)?;
    loop {
        let t = p.expect(Kind::BareId)?;
        p.expect(Kind::LParen)?;
        let value = p.parse_attr()?;
        p.expect(Kind::RParen)?;
        let key = p.text(t);
        op.attrs
            .push(named(key, value, Span::new(t.start(), p.prev_end)));
        if !p.eat(Kind::Comma) {
            break;
        }
    }
    p.parse_opt_attr_dict(&mut op.attrs)
}

// ----- tor -----------------------------------------------------------------------------------

fn tor_design(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    sym_name(p, op)?;
    region_then_attrs(p, op)
}

fn tor_timegraph(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.expect(Kind::LParen)?;
    let (a, sa) = p.parse_spanned_int()?;
    p.expect_kw("to")?;
    let (b, sb) = p.parse_spanned_int()?;
    p.expect(Kind::RParen)?;
    op.attrs.push(i32_attr("starttime", a, sa));
    op.attrs.push(i32_attr("endtime", b, sb));
    region_then_attrs(p, op)
}

fn tor_succ(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let (n, span) = p.parse_spanned_int()?;
    op.attrs.push(i32_attr("name", n, span));
    p.expect(Kind::Colon)?;
    for key in ["points", "edges"] {
        if !p.at(Kind::LBracket) {
            return Err(p.unexpected("'['"));
        }
        let start = p.tok.start();
        let v = p.parse_attr()?;
        op.attrs.push(named(key, v, Span::new(start, p.prev_end)));
    }
    p.parse_opt_attr_dict(&mut op.attrs)
}

/// `(%x : T)`.
fn paren_typed_operand(p: &mut Parser, op: &mut Operation) -> PResult<Type> {
    p.expect(Kind::LParen)?;
    op.operands.push(p.parse_operand()?);
    p.expect(Kind::Colon)?;
    let ty = p.parse_type()?;
    p.expect(Kind::RParen)?;
    op.operand_types.push(ty.clone());
    Ok(ty)
}

fn tor_for(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let iv = p.expect(Kind::PercentId)?;
    let iv_name = Name::new(p.text(iv));
    p.expect(Kind::Equal)?;
    let ty = paren_typed_operand(p, op)?;
    p.expect_kw("to")?;
    paren_typed_operand(p, op)?;
    p.expect_kw("step")?;
    paren_typed_operand(p, op)?;
    // `on (..)` and `iter_args(..)` come in either order.
    let mut on = p.parse_on_clause()?;
    let mut iters = Vec::new();
    if p.eat_kw("iter_args") {
        iters = iter_args(p, op)?;
    }
    if on.is_none() {
        on = p.parse_on_clause()?;
    }
    opt_arrow_results(p, op)?;
    let mut args = vec![BlockArg {
        name: iv_name,
        ty,
        span: p.span(iv),
    }];
    args.extend(iter_block_args(op, iters)?);
    op.regions.push(p.parse_region(args)?);
    p.parse_opt_attr_dict(&mut op.attrs)?;
    merge_absent(&mut op.attrs, on.into_iter().flatten());
    Ok(())
}

/// One `%x = %init (: T)?` binding of `iter_args(...)`.
struct IterArg {
    name: Name,
    span: Span,
    ty: Option<Type>,
}

/// `(%x = %init (: T)?, ...)`: the inits become operands (with their types when stated).
fn iter_args(p: &mut Parser, op: &mut Operation) -> PResult<Vec<IterArg>> {
    p.expect(Kind::LParen)?;
    let mut out = Vec::new();
    loop {
        let t = p.expect(Kind::PercentId)?;
        p.expect(Kind::Equal)?;
        op.operands.push(p.parse_operand()?);
        let mut ty = None;
        if p.eat(Kind::Colon) {
            let t = p.parse_type()?;
            op.operand_types.push(t.clone());
            ty = Some(t);
        }
        out.push(IterArg {
            name: Name::new(p.text(t)),
            span: p.span(t),
            ty,
        });
        if !p.eat(Kind::Comma) {
            break;
        }
    }
    p.expect(Kind::RParen)?;
    Ok(out)
}

/// Block arguments for iter args: their stated type, else the matching result type.
fn iter_block_args(op: &Operation, iters: Vec<IterArg>) -> PResult<Vec<BlockArg>> {
    let mut out = Vec::new();
    for (i, it) in iters.into_iter().enumerate() {
        let Some(ty) = it.ty.or_else(|| op.result_types.get(i).cloned()) else {
            return Err(Diagnostic::error(
                it.span,
                "iter_args value needs a type (`: T` or a `-> (T)` result list)",
            ));
        };
        out.push(BlockArg {
            name: it.name,
            ty,
            span: it.span,
        });
    }
    Ok(out)
}

/// `%m[%i, ..] on (a to b) dict : M[I, ..]`: result = element type of `M`.
fn tor_load(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    index_list(p, op)?;
    on_clause_then_attrs(p, op)?;
    p.expect(Kind::Colon)?;
    let (mem, idx) = memory_with_index_types(p)?;
    if let Some(elem) = memory_elem_type(&mem) {
        op.result_types = vec![elem];
    }
    op.operand_types = vec![mem];
    op.operand_types.extend(idx);
    Ok(())
}

/// `%v to %m[%i, ..] on (a to b) dict : (T, M[I, ..])`.
fn tor_store(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    p.expect_kw("to")?;
    op.operands.push(p.parse_operand()?);
    index_list(p, op)?;
    on_clause_then_attrs(p, op)?;
    p.expect(Kind::Colon)?;
    p.expect(Kind::LParen)?;
    op.operand_types.push(p.parse_type()?);
    p.expect(Kind::Comma)?;
    let (mem, idx) = memory_with_index_types(p)?;
    p.expect(Kind::RParen)?;
    op.operand_types.push(mem);
    op.operand_types.extend(idx);
    Ok(())
}

/// `M[I, ..]`: a memory type followed by the index types.
fn memory_with_index_types(p: &mut Parser) -> PResult<(Type, Vec<Type>)> {
    let mem = p.parse_type()?;
    let mut idx = Vec::new();
    if p.eat(Kind::LBracket) {
        if !p.at(Kind::RBracket) {
            idx = p.parse_type_list()?;
        }
        p.expect(Kind::RBracket)?;
    }
    Ok((mem, idx))
}

/// The element type of `memref<..xT>` or `!tor.memref<..xT, ..>`.
fn memory_elem_type(t: &Type) -> Option<Type> {
    match t {
        Type::MemRef { elem, .. } => Some((**elem).clone()),
        Type::Opaque(text) => {
            let body = text.strip_prefix("!tor.memref<")?;
            let mut rest = body.trim_start();
            while let Some(x) = rest.find('x') {
                let dim = &rest[..x];
                if dim.is_empty() || !dim.bytes().all(|b| b.is_ascii_digit() || b == b'?') {
                    break;
                }
                rest = &rest[x + 1..];
            }
            let mut sub = Parser::new(rest);
            sub.parse_type().ok()
        }
        _ => None,
    }
}

/// `%v to %s dict : T, S`.
fn tor_stream_write(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    p.expect_kw("to")?;
    op.operands.push(p.parse_operand()?);
    on_clause_then_attrs(p, op)?;
    opt_operand_types(p, op)
}

/// `dict : T` (`tor.alloc`), `dict : S[depth]` (`tor.stream_create`: attr `depth`).
fn tor_alloc_like(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.parse_opt_attr_dict(&mut op.attrs)?;
    p.expect(Kind::Colon)?;
    op.result_types = vec![p.parse_type()?];
    if p.eat(Kind::LBracket) {
        let (depth, span) = p.parse_spanned_int()?;
        p.expect(Kind::RBracket)?;
        let value = Attribute::Integer {
            value: depth,
            ty: None,
        };
        op.attrs.push(named("depth", value, span));
    }
    Ok(())
}

/// `@f(%a, ..) on (a to b) dict : (T..) -> R`.
fn tor_call(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    callee(p, op)?;
    op.operands = paren_operands(p)?;
    on_clause_then_attrs(p, op)?;
    function_type(p, op)
}

fn tor_if(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    let on = p.parse_on_clause()?;
    opt_arrow_results(p, op)?;
    p.expect_kw("then")?;
    op.regions.push(p.parse_region(Vec::new())?);
    if p.eat_kw("else") {
        op.regions.push(p.parse_region(Vec::new())?);
    }
    p.parse_opt_attr_dict(&mut op.attrs)?;
    merge_absent(&mut op.attrs, on.into_iter().flatten());
    Ok(())
}

fn tor_terminator(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands = p.parse_operands()?;
    on_clause_then_attrs(p, op)?;
    opt_operand_types(p, op)
}

fn tor_binary(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    p.eat(Kind::Comma);
    op.operands.push(p.parse_operand()?);
    on_clause_then_attrs(p, op)?;
    fn_or_same_type(p, op)
}

fn tor_cmp(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    keyword_predicate(p, op)?;
    p.eat(Kind::Comma);
    tor_binary(p, op)?;
    if op.result_types.len() == 1
        && op.operand_types.len() == 2
        && op.operand_types[0] == op.result_types[0]
    {
        // `: T` alone states the operand type; the comparison yields i1.
        op.result_types = vec![Type::int(1)];
    }
    Ok(())
}

// ----- scf / while -----------------------------------------------------------------------------

fn scf_if(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    opt_arrow_results(p, op)?;
    op.regions.push(p.parse_region(Vec::new())?);
    if p.eat_kw("else") {
        op.regions.push(p.parse_region(Vec::new())?);
    }
    p.parse_opt_attr_dict(&mut op.attrs)
}

fn scf_for(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let iv = p.expect(Kind::PercentId)?;
    p.expect(Kind::Equal)?;
    op.operands.push(p.parse_operand()?);
    p.expect_kw("to")?;
    op.operands.push(p.parse_operand()?);
    p.expect_kw("step")?;
    op.operands.push(p.parse_operand()?);
    let mut names = Vec::new();
    if p.eat_kw("iter_args") {
        let (n, inits) = parse_iter_bindings(p)?;
        names = n;
        op.operands.extend(inits);
    }
    let mut iv_ty = Type::Index;
    if p.eat(Kind::Colon) {
        iv_ty = p.parse_type()?;
    }
    opt_arrow_results(p, op)?;
    let mut args = vec![BlockArg {
        name: Name::new(p.text(iv)),
        ty: iv_ty,
        span: p.span(iv),
    }];
    args.extend(block_args(
        names,
        &op.result_types,
        Span::point(p.prev_end),
    )?);
    op.regions.push(p.parse_region(args)?);
    p.parse_opt_attr_dict(&mut op.attrs)
}

/// `scf.while` / `tor.while`: `(%x = %v, ..) : (T..) -> (R..) on (..)? {..} do {..} dict`.
fn while_like(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    let mut names = Vec::new();
    if p.at(Kind::LParen) {
        let (n, inits) = parse_iter_bindings(p)?;
        names = n;
        op.operands = inits;
    }
    p.expect(Kind::Colon)?;
    let at = p.tok.start();
    let (ins, outs) = p.parse_function_type()?;
    let args = block_args(names, &ins, Span::point(at))?;
    op.operand_types = ins;
    op.result_types = outs;
    let on = p.parse_on_clause()?;
    op.regions.push(p.parse_region(args)?);
    p.expect_kw("do")?;
    op.regions.push(p.parse_region(Vec::new())?);
    p.parse_opt_attr_dict(&mut op.attrs)?;
    merge_absent(&mut op.attrs, on.into_iter().flatten());
    Ok(())
}

fn scf_condition(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    p.expect(Kind::LParen)?;
    op.operands.push(p.parse_operand()?);
    p.expect(Kind::RParen)?;
    op.operands.extend(p.parse_operands()?);
    p.parse_opt_attr_dict(&mut op.attrs)?;
    op.operand_types = vec![Type::int(1)];
    if p.eat(Kind::Colon) {
        op.operand_types.extend(p.parse_type_list()?);
    }
    Ok(())
}

// ----- comb / hw / seq ---------------------------------------------------------------------------

fn comb_bin_flag(p: &mut Parser, op: &mut Operation) {
    if p.at_kw("bin") {
        let t = p.bump();
        op.attrs.push(named("twoState", Attribute::Unit, p.span(t)));
    }
}

fn comb_variadic(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    comb_bin_flag(p, op);
    op.operands = p.parse_operands()?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    same_type(p, op)
}

fn comb_icmp(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    comb_bin_flag(p, op);
    keyword_predicate(p, op)?;
    op.operands = p.parse_operands()?;
    p.parse_opt_attr_dict(&mut op.attrs)?;
    compare_type(p, op)
}

fn comb_extract(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    p.expect_kw("from")?;
    let (low, span) = p.parse_spanned_int()?;
    op.attrs.push(i32_attr("lowBit", low, span));
    p.parse_opt_attr_dict(&mut op.attrs)?;
    function_type(p, op)
}

fn seq_compreg(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands.push(p.parse_operand()?);
    p.expect(Kind::Comma)?;
    op.operands.push(p.parse_operand()?);
    for kw in ["reset", "initial"] {
        if p.at_kw(kw) {
            let t = p.bump();
            op.attrs.push(named(kw, Attribute::Unit, p.span(t)));
            op.operands.extend(p.parse_operands()?);
        }
    }
    p.parse_opt_attr_dict(&mut op.attrs)?;
    p.expect(Kind::Colon)?;
    op.result_types = vec![p.parse_type()?];
    Ok(())
}

fn seq_initial(p: &mut Parser, op: &mut Operation) -> PResult<()> {
    op.operands = paren_operands(p)?;
    op.regions.push(p.parse_region(Vec::new())?);
    p.parse_opt_attr_dict(&mut op.attrs)?;
    function_type(p, op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in TABLE.windows(2) {
            assert!(w[0].0 < w[1].0, "{} !< {}", w[0].0, w[1].0);
        }
    }

    #[test]
    fn resolves_default_dialect_and_module() {
        assert_eq!(
            resolve("module", "builtin").map(|r| r.0).as_deref(),
            Some("builtin.module")
        );
        assert_eq!(
            resolve("return", "func").map(|r| r.0).as_deref(),
            Some("func.return")
        );
        assert!(resolve("return", "builtin").is_none());
        assert!(resolve("tor.nope", "builtin").is_none());
    }
}
