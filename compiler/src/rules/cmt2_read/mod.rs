//! The CMT2 reader: kiln's `.cmt2.mlir` back into the rule IR ([`read_cmt2`]), so that the
//! emitted text itself can be simulated (`kiln sim --engine cmt2`) and compared with the
//! circuit it came from.
//!
//! The reader is strict to circt-cmt2's grammar (`Cmt2Ops.td` and its custom parsers) for
//! the subset kiln writes, and rejects with a located diagnostic what circt-cmt2 would
//! reject there:
//! - `cmt2.bind.value` has no `enable`; binds list `ready`, `arguments` and `results` in
//!   that order, with as many port names as their function type has arguments/results;
//! - `cmt2.if` names its condition's type (a 1-bit UInt) and every region ends with
//!   `cmt2.yield`; rules, methods and values have a guard and a body region, and the guard
//!   returns one `!firrtl.uint<1>`;
//! - symbols are unique in their table; every instantiated module and every interface is
//!   defined; every `cmt2.call` names an instance (or interface declaration) of the
//!   module and a method or value it has, with operand and result types equal to the
//!   callee's; a guard calls value methods only; SSA values are defined before use, once,
//!   and used with the type they were defined with;
//! - FIRRTL ops carry the result types FIRRTL infers (`add` widens by one bit, `bits`
//!   stays inside its operand, ...);
//! - a method is called no more often per cycle than its module has ports: each call of a
//!   bank's `read`, `read_0` or `write` in a rule is bound to its own port, the `k`-th to
//!   `@<method>.<rule>.<k>`, which the bank's module declares (E0210).
//!
//! Library modules and interfaces ([`super::cmt2_lib`]) are recognised by name and must be
//! exactly kiln's definition of that name (compared token by token after regenerating it
//! from the parameters the name and, for banks, the initial contents and the declared
//! ports give): a definition
//! edited by hand is reported rather than simulated with a meaning it no longer has. The
//! top module (`main`, the module no other module instantiates) is read in full: its
//! instances and interface declarations become the circuit's instances, its rules the
//! rules (FIRRTL ops become [`PrimOp`]s of the same meaning), the `precedence` chain the
//! schedule, and `kiln.circuit` / `kiln.instructions` the name and instructions.
//!
//! This file holds the syntax (tokens on MLIR's lexer, types, attributes, the parsed file);
//! `reader` turns the parsed file into the circuit. CMT2 is MLIR's generic syntax with
//! dialect forms `mlir::parser` does not know (`cmt2.bind.*`, `cmt2.call @inst @m`, region
//! guards), so the tokens are shared and the grammar is this module's own.

use super::cmt2_lib;
use super::{
    BANK_PORT_METHODS, BankPort, Circuit, DmaEntry, Expr, Instance, InstanceKind, Instruction,
    PrimOp, Rule, Stmt, Var,
};
use crate::diag::{Code, Diagnostic, Span};
use crate::mlir::lexer::{Kind, Token, lex_at};
use std::collections::{BTreeMap, HashMap, HashSet};

mod reader;

use reader::Reader;

type R<T> = Result<T, Diagnostic>;

/// Read kiln's CMT2 text back into a circuit.
pub fn read_cmt2(text: &str) -> Result<Circuit, Diagnostic> {
    let mut p = Cur::new(text);
    let file = p.file()?;
    Reader::new(text, file).circuit()
}

// ---------------------------------------------------------------------------------------
// Tokens.

/// Deepest `cmt2.if` nesting read (as deep as kiln's MLIR parser nests regions, so every
/// CMT2 file kiln writes reads back); deeper is an error, not a stack overflow.
const MAX_IF_DEPTH: u32 = 200;

struct Cur<'a> {
    src: &'a str,
    tok: Token,
    /// `cmt2.if`s open around the current token.
    if_depth: u32,
}

impl<'a> Cur<'a> {
    fn new(src: &'a str) -> Cur<'a> {
        Cur {
            src,
            tok: lex_at(src.as_bytes(), 0),
            if_depth: 0,
        }
    }

    fn text(&self, t: Token) -> &'a str {
        &self.src[t.start()..t.end()]
    }

    fn span(t: Token) -> Span {
        Span::new(t.start(), t.end())
    }

    fn bump(&mut self) -> Token {
        let t = self.tok;
        self.tok = lex_at(self.src.as_bytes(), t.end());
        t
    }

    fn at(&self, k: Kind) -> bool {
        self.tok.kind == k
    }

    fn at_kw(&self, w: &str) -> bool {
        self.tok.kind == Kind::BareId && self.text(self.tok) == w
    }

    fn eat(&mut self, k: Kind) -> bool {
        if self.at(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn err(&self, what: &str) -> Diagnostic {
        let found = match self.tok.kind {
            Kind::Eof => "end of input".to_string(),
            _ => format!("`{}`", self.text(self.tok)),
        };
        Diagnostic::error(
            Cur::span(self.tok),
            format!("expected {what}, found {found}"),
        )
    }

    fn expect(&mut self, k: Kind) -> R<Token> {
        if self.at(k) {
            Ok(self.bump())
        } else {
            Err(self.err(k.describe()))
        }
    }

    fn expect_kw(&mut self, w: &str) -> R<Token> {
        if self.at_kw(w) {
            Ok(self.bump())
        } else {
            Err(self.err(&format!("`{w}`")))
        }
    }

    /// `@name` or `@"name"`.
    fn symbol(&mut self) -> R<(String, Span)> {
        let t = self.expect(Kind::AtId)?;
        let raw = &self.text(t)[1..];
        let name = if raw.starts_with('"') {
            unescape(raw).ok_or_else(|| Diagnostic::error(Cur::span(t), "malformed symbol"))?
        } else {
            raw.to_string()
        };
        Ok((name, Cur::span(t)))
    }

    fn string(&mut self) -> R<(String, Span)> {
        let t = self.expect(Kind::Str)?;
        let s = unescape(self.text(t))
            .ok_or_else(|| Diagnostic::error(Cur::span(t), "malformed string"))?;
        Ok((s, Cur::span(t)))
    }

    fn value_name(&mut self) -> R<(String, Span)> {
        let t = self.expect(Kind::PercentId)?;
        Ok((self.text(t).to_string(), Cur::span(t)))
    }

    fn uint(&mut self) -> R<(u128, Span)> {
        let t = self.expect(Kind::Int)?;
        let s = self.text(t);
        let v = s.parse::<u128>().map_err(|_| {
            Diagnostic::error(
                Cur::span(t),
                format!("`{s}` is not an unsigned integer of at most 128 bits"),
            )
        })?;
        Ok((v, Cur::span(t)))
    }
}

/// An MLIR string literal's value (`"..."` with the parser's escapes).
fn unescape(lit: &str) -> Option<String> {
    let body = lit.strip_prefix('"')?.strip_suffix('"')?;
    crate::mlir::parser::unescape(body).ok()
}

// ---------------------------------------------------------------------------------------
// Types and attributes.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    UInt(u32),
    SInt(u32),
    Clock,
}

impl Ty {
    fn width(self) -> u32 {
        match self {
            Ty::UInt(w) | Ty::SInt(w) => w,
            Ty::Clock => 1,
        }
    }

    fn show(self) -> String {
        match self {
            Ty::UInt(w) => format!("!firrtl.uint<{w}>"),
            Ty::SInt(w) => format!("!firrtl.sint<{w}>"),
            Ty::Clock => "!firrtl.clock".into(),
        }
    }
}

/// An attribute value of the subset kiln writes.
#[derive(Clone, Debug, PartialEq)]
enum Attr {
    Int(i128),
    Bool(bool),
    Str(String),
    Sym(String),
    Arr(Vec<(Attr, Span)>),
    Dict(Vec<(String, Attr, Span)>),
}

impl Cur<'_> {
    fn ty(&mut self) -> R<(Ty, Span)> {
        let t = self.expect(Kind::BangId)?;
        let span = Cur::span(t);
        let name = self.text(t);
        match name {
            "!firrtl.clock" => Ok((Ty::Clock, span)),
            "!firrtl.uint" | "!firrtl.sint" => {
                self.expect(Kind::Less)?;
                let (w, ws) = self.uint()?;
                let end = self.expect(Kind::Greater)?;
                if w == 0 || w > 1 << 16 {
                    return Err(Diagnostic::error(ws, "width must be between 1 and 65536"));
                }
                let w = w as u32;
                let t = if name == "!firrtl.uint" {
                    Ty::UInt(w)
                } else {
                    Ty::SInt(w)
                };
                Ok((t, span.to(Cur::span(end))))
            }
            _ => Err(Diagnostic::error(
                span,
                format!("unsupported type `{name}` (expected a FIRRTL uint, sint or clock)"),
            )),
        }
    }

    /// `(T, ...)`.
    fn paren_types(&mut self) -> R<Vec<Ty>> {
        self.expect(Kind::LParen)?;
        let mut out = Vec::new();
        if !self.eat(Kind::RParen) {
            loop {
                out.push(self.ty()?.0);
                if self.eat(Kind::RParen) {
                    break;
                }
                self.expect(Kind::Comma)?;
            }
        }
        Ok(out)
    }

    /// `(A, B) -> R`, `(A) -> (R, S)`, `() -> ()`.
    fn fn_type(&mut self) -> R<(Vec<Ty>, Vec<Ty>)> {
        let args = self.paren_types()?;
        self.expect(Kind::Arrow)?;
        let res = if self.at(Kind::LParen) {
            self.paren_types()?
        } else {
            vec![self.ty()?.0]
        };
        Ok((args, res))
    }

    fn attr(&mut self) -> R<(Attr, Span)> {
        let start = self.tok;
        let a = match self.tok.kind {
            Kind::Int => {
                let t = self.bump();
                let s = self.text(t);
                let v = s.parse::<i128>().map_err(|_| {
                    Diagnostic::error(Cur::span(t), format!("integer `{s}` out of range"))
                })?;
                if self.eat(Kind::Colon) {
                    let tt = self.expect(Kind::BareId)?;
                    let ty = self.text(tt);
                    let bits: Option<u32> = ty.strip_prefix('i').and_then(|b| b.parse().ok());
                    let fits = bits.is_some_and(|b| {
                        b >= 128 || (b >= 1 && (-(1i128 << (b - 1))..(1i128 << b)).contains(&v))
                    });
                    if !fits {
                        return Err(Diagnostic::error(
                            Cur::span(tt),
                            format!("`{v}` does not fit the integer type `{ty}`"),
                        ));
                    }
                }
                Attr::Int(v)
            }
            Kind::Str => Attr::Str(self.string()?.0),
            Kind::AtId => Attr::Sym(self.symbol()?.0),
            Kind::BareId if self.at_kw("true") || self.at_kw("false") => {
                let t = self.bump();
                Attr::Bool(self.text(t) == "true")
            }
            Kind::LBracket => {
                self.bump();
                let mut items = Vec::new();
                if !self.eat(Kind::RBracket) {
                    loop {
                        items.push(self.attr()?);
                        if self.eat(Kind::RBracket) {
                            break;
                        }
                        self.expect(Kind::Comma)?;
                    }
                }
                Attr::Arr(items)
            }
            Kind::LBrace => Attr::Dict(self.dict()?),
            _ => return Err(self.err("an attribute value")),
        };
        // Up to the next token: the attribute's own end is not kept.
        let span = Span::new(start.start(), self.tok.start());
        Ok((a, span))
    }

    /// `{key = value, ...}`; keys unique.
    fn dict(&mut self) -> R<Vec<(String, Attr, Span)>> {
        self.expect(Kind::LBrace)?;
        let mut out: Vec<(String, Attr, Span)> = Vec::new();
        if self.eat(Kind::RBrace) {
            return Ok(out);
        }
        loop {
            let k = match self.tok.kind {
                Kind::BareId => {
                    let t = self.bump();
                    (self.text(t).to_string(), Cur::span(t))
                }
                Kind::Str => self.string()?,
                _ => return Err(self.err("an attribute name")),
            };
            if out.iter().any(|(n, _, _)| *n == k.0) {
                return Err(Diagnostic::error(
                    k.1,
                    format!("attribute `{}` occurs more than once", k.0),
                ));
            }
            self.expect(Kind::Equal)?;
            let (v, _) = self.attr()?;
            out.push((k.0, v, k.1));
            if self.eat(Kind::RBrace) {
                break;
            }
            self.expect(Kind::Comma)?;
        }
        Ok(out)
    }

    /// An optional trailing `{...}` attribute dictionary.
    fn opt_dict(&mut self) -> R<Vec<(String, Attr, Span)>> {
        if self.at(Kind::LBrace) {
            self.dict()
        } else {
            Ok(Vec::new())
        }
    }

    /// An optional `attributes {...}`.
    fn opt_attributes_kw(&mut self) -> R<Vec<(String, Attr, Span)>> {
        if self.at_kw("attributes") {
            self.bump();
            self.dict()
        } else {
            Ok(Vec::new())
        }
    }
}

// ---------------------------------------------------------------------------------------
// The parsed file.

/// A reference to an SSA value.
#[derive(Clone, Debug)]
struct Ref {
    name: String,
    span: Span,
}

#[derive(Clone, Debug)]
enum POp {
    Const(u128, Ty),
    /// `firrtl.<op>` with operands, integer parameters (`bits` hi/lo, `pad` n), operand
    /// types and the result type.
    Prim {
        op: String,
        args: Vec<Ref>,
        params: Vec<u128>,
        arg_tys: Vec<Ty>,
        ty: Ty,
    },
    Call {
        inst: (String, Span),
        method: (String, Span),
        args: Vec<Ref>,
        arg_tys: Vec<Ty>,
        res_tys: Vec<Ty>,
    },
    If {
        cond: Ref,
        cond_ty: (Ty, Span),
        then_body: Vec<PStmt>,
        else_body: Option<Vec<PStmt>>,
    },
    Return(Vec<Ref>, Vec<Ty>),
    Yield,
}

#[derive(Clone, Debug)]
struct PStmt {
    results: Vec<(String, Span)>,
    op: POp,
    span: Span,
}

/// A rule, method or value.
#[derive(Clone, Debug)]
struct PFunc {
    kind: &'static str,
    name: (String, Span),
    args: Vec<(String, Ty)>,
    results: Vec<Ty>,
    guard: Vec<PStmt>,
    body: Vec<PStmt>,
    span: Span,
    attrs: Vec<(String, Attr, Span)>,
    /// Byte range of the whole op.
    range: (usize, usize),
}

#[derive(Clone, Debug)]
struct PBind {
    value: bool,
    name: (String, Span),
    args: Vec<Ty>,
    results: Vec<Ty>,
}

#[derive(Clone, Debug)]
enum Item {
    Instance {
        name: (String, Span),
        module: (String, Span),
        args: usize,
    },
    Decl {
        name: (String, Span),
        itf: (String, Span),
        attrs: Vec<(String, Attr, Span)>,
    },
    Func(PFunc),
}

#[derive(Clone, Debug)]
enum Def {
    Interface {
        funcs: Vec<PFunc>,
    },
    Extern {
        binds: Vec<PBind>,
    },
    Module {
        items: Vec<Item>,
        attrs: Vec<(String, Attr, Span)>,
    },
}

#[derive(Clone, Debug)]
struct PDef {
    name: (String, Span),
    def: Def,
    /// Byte range of the whole definition (for the library comparison).
    range: (usize, usize),
}

struct PFile {
    defs: Vec<PDef>,
    /// FIRRTL modules: name, byte range.
    firrtl: Vec<((String, Span), (usize, usize))>,
}

impl Cur<'_> {
    fn file(&mut self) -> R<PFile> {
        let mut f = PFile {
            defs: Vec::new(),
            firrtl: Vec::new(),
        };
        let wrapped = self.at_kw("module") || self.at_kw("builtin.module");
        if wrapped {
            self.bump();
            self.expect(Kind::LBrace)?;
        }
        let mut circuits = 0;
        loop {
            if wrapped && self.eat(Kind::RBrace) {
                break;
            }
            if self.at(Kind::Eof) {
                if wrapped {
                    return Err(self.err("`}` closing the module"));
                }
                break;
            }
            if self.at_kw("cmt2.circuit") {
                let t = self.bump();
                circuits += 1;
                if circuits > 1 {
                    return Err(Diagnostic::error(
                        Cur::span(t),
                        "a second `cmt2.circuit` (kiln writes one)",
                    ));
                }
                self.expect(Kind::LBrace)?;
                while !self.eat(Kind::RBrace) {
                    f.defs.push(self.def()?);
                }
                self.opt_dict()?;
            } else if self.at_kw("firrtl.circuit") {
                self.bump();
                self.string()?;
                self.expect(Kind::LBrace)?;
                while !self.eat(Kind::RBrace) {
                    let start = self.tok.start();
                    self.expect_kw("firrtl.module")?;
                    let name = self.symbol()?;
                    self.skip_balanced_to_body()?;
                    f.firrtl.push((name, (start, self.tok.start())));
                }
                self.opt_dict()?;
            } else {
                return Err(self.err("`cmt2.circuit` or `firrtl.circuit`"));
            }
        }
        if !self.at(Kind::Eof) {
            return Err(self.err("end of input"));
        }
        if circuits == 0 {
            return Err(Diagnostic::error(
                Span::point(0),
                "no `cmt2.circuit` in the file",
            ));
        }
        Ok(f)
    }

    /// Skip a FIRRTL module's port list and body (compared as tokens later).
    fn skip_balanced_to_body(&mut self) -> R<()> {
        let mut depth = 0usize;
        loop {
            match self.tok.kind {
                Kind::Eof => return Err(self.err("the end of the FIRRTL module")),
                Kind::LParen | Kind::LBrace | Kind::LBracket => depth += 1,
                Kind::RParen | Kind::RBracket => depth = depth.saturating_sub(1),
                Kind::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                Kind::Error => return Err(self.err("a token")),
                _ => {}
            }
            self.bump();
        }
    }

    fn def(&mut self) -> R<PDef> {
        let start = self.tok.start();
        let (name, def) = if self.at_kw("cmt2.interface") {
            self.interface()?
        } else if self.at_kw("cmt2.module.extern.firrtl") {
            self.extern_module()?
        } else if self.at_kw("cmt2.module") {
            self.module()?
        } else {
            return Err(self.err(
                "`cmt2.interface`, `cmt2.module.extern.firrtl` or `cmt2.module` in the circuit",
            ));
        };
        Ok(PDef {
            name,
            def,
            range: (start, self.tok.start()),
        })
    }

    fn interface(&mut self) -> R<((String, Span), Def)> {
        self.bump();
        let name = self.symbol()?;
        self.expect(Kind::LBrace)?;
        let mut funcs = Vec::new();
        while !self.eat(Kind::RBrace) {
            if self.at_kw("cmt2.method") || self.at_kw("cmt2.value") {
                funcs.push(self.func()?);
            } else {
                return Err(self.err("`cmt2.method` or `cmt2.value` in an interface"));
            }
        }
        self.opt_dict()?;
        Ok((name, Def::Interface { funcs }))
    }

    fn extern_module(&mut self) -> R<((String, Span), Def)> {
        self.bump();
        let name = self.symbol()?;
        self.expect(Kind::Colon)?;
        let ext = self.symbol()?;
        if ext.0 != name.0 {
            return Err(Diagnostic::error(
                ext.1,
                format!(
                    "kiln binds `@{}` to the FIRRTL module of the same name",
                    name.0
                ),
            ));
        }
        let args = self.arg_list()?;
        self.opt_attributes_kw()?;
        self.expect(Kind::LBrace)?;
        let mut binds = Vec::new();
        let mut bare = 0;
        while !self.eat(Kind::RBrace) {
            if self.at_kw("cmt2.bind.bare") {
                self.bump();
                let (v, vs) = self.value_name()?;
                self.expect(Kind::Comma)?;
                self.symbol()?;
                self.expect(Kind::Colon)?;
                let (t, _) = self.ty()?;
                match args.get(bare) {
                    Some((a, at)) if *a == v && *at == t => {}
                    _ => {
                        return Err(Diagnostic::error(
                            vs,
                            format!("`{v}` is not the module's argument {bare}"),
                        ));
                    }
                }
                bare += 1;
            } else if self.at_kw("cmt2.bind.method") || self.at_kw("cmt2.bind.value") {
                binds.push(self.bind()?);
            } else {
                return Err(self.err("`cmt2.bind.bare`, `cmt2.bind.method` or `cmt2.bind.value`"));
            }
        }
        self.opt_dict()?;
        Ok((name, Def::Extern { binds }))
    }

    fn module(&mut self) -> R<((String, Span), Def)> {
        self.bump();
        let name = self.symbol()?;
        let args = self.arg_list()?;
        let clk = [
            ("%clk".to_string(), Ty::Clock),
            ("%rst".to_string(), Ty::UInt(1)),
        ];
        if args != clk {
            return Err(Diagnostic::error(
                name.1,
                "kiln's modules take `(%clk: !firrtl.clock, %rst: !firrtl.uint<1>)`",
            ));
        }
        self.opt_attributes_kw()?;
        self.expect(Kind::LBrace)?;
        let mut items = Vec::new();
        while !self.eat(Kind::RBrace) {
            items.push(self.module_item()?);
        }
        let attrs = self.opt_dict()?;
        Ok((name, Def::Module { items, attrs }))
    }

    /// `(%a: T, ...)`, optional.
    fn arg_list(&mut self) -> R<Vec<(String, Ty)>> {
        let mut out = Vec::new();
        if !self.eat(Kind::LParen) {
            return Ok(out);
        }
        if self.eat(Kind::RParen) {
            return Ok(out);
        }
        loop {
            let (n, ns) = self.value_name()?;
            if out.iter().any(|(m, _)| *m == n) {
                return Err(Diagnostic::error(
                    ns,
                    format!("argument `{n}` defined twice"),
                ));
            }
            self.expect(Kind::Colon)?;
            let (t, _) = self.ty()?;
            out.push((n, t));
            if self.eat(Kind::RParen) {
                break;
            }
            self.expect(Kind::Comma)?;
        }
        Ok(out)
    }

    fn bind(&mut self) -> R<PBind> {
        let kw = self.bump();
        let value = self.text(kw) == "cmt2.bind.value";
        let name = self.symbol()?;
        self.expect(Kind::Colon)?;
        let (args, results) = self.fn_type()?;
        self.expect(Kind::LBracket)?;
        if self.at_kw("enable") {
            if value {
                return Err(Diagnostic::error(
                    Cur::span(self.tok),
                    "`cmt2.bind.value` has no `enable` (a value method is never enabled)",
                ));
            }
            self.bump();
            self.expect(Kind::Equal)?;
            self.string()?;
            self.expect(Kind::Comma)?;
        }
        if self.at_kw("ready") {
            self.bump();
            self.expect(Kind::Equal)?;
            self.string()?;
            self.expect(Kind::Comma)?;
        }
        self.expect_kw("arguments")?;
        self.expect(Kind::Equal)?;
        let (a, aspan) = self.attr()?;
        self.expect(Kind::Comma)?;
        self.expect_kw("results")?;
        self.expect(Kind::Equal)?;
        let (r, rspan) = self.attr()?;
        self.expect(Kind::RBracket)?;
        self.opt_dict()?;
        let strings = |a: &Attr| match a {
            Attr::Arr(items) => items
                .iter()
                .all(|(x, _)| matches!(x, Attr::Str(_)))
                .then_some(items.len()),
            _ => None,
        };
        match strings(&a) {
            Some(n) if n == args.len() => {}
            _ => {
                return Err(Diagnostic::error(
                    aspan,
                    format!("`arguments` must name the {} argument port(s)", args.len()),
                ));
            }
        }
        match strings(&r) {
            Some(n) if n == results.len() => {}
            _ => {
                return Err(Diagnostic::error(
                    rspan,
                    format!("`results` must name the {} result port(s)", results.len()),
                ));
            }
        }
        if value && !args.is_empty() {
            return Err(Diagnostic::error(
                name.1,
                "a value method takes no arguments",
            ));
        }
        Ok(PBind {
            value,
            name,
            args,
            results,
        })
    }

    fn module_item(&mut self) -> R<Item> {
        if self.at_kw("cmt2.instance") {
            self.bump();
            let name = self.symbol()?;
            self.expect(Kind::Equal)?;
            let module = self.symbol()?;
            let mut args = 0;
            if self.eat(Kind::LParen) {
                let mut names = Vec::new();
                loop {
                    names.push(self.value_name()?);
                    if self.eat(Kind::RParen) {
                        break;
                    }
                    self.expect(Kind::Comma)?;
                }
                self.expect(Kind::Colon)?;
                let mut tys = Vec::new();
                loop {
                    tys.push(self.ty()?);
                    if !self.eat(Kind::Comma) {
                        break;
                    }
                }
                let want = [("%clk", Ty::Clock), ("%rst", Ty::UInt(1))];
                let ok = names.len() == tys.len()
                    && names.len() <= 2
                    && names
                        .iter()
                        .zip(&tys)
                        .zip(want)
                        .all(|(((n, _), (t, _)), (wn, wt))| n == wn && *t == wt);
                if !ok {
                    return Err(Diagnostic::error(
                        name.1,
                        "instance arguments must be `(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>`",
                    ));
                }
                args = names.len();
            }
            if self.at_kw("with") {
                self.bump();
                match self.attr()? {
                    (Attr::Arr(items), _) if items.is_empty() => {}
                    (_, s) => {
                        return Err(Diagnostic::error(
                            s,
                            "interface bindings are not used by kiln's circuits",
                        ));
                    }
                }
            }
            self.opt_dict()?;
            return Ok(Item::Instance { name, module, args });
        }
        if self.at_kw("cmt2.interface.decl") {
            self.bump();
            let name = self.symbol()?;
            self.expect(Kind::Colon)?;
            let itf = self.symbol()?;
            let attrs = self.opt_dict()?;
            return Ok(Item::Decl { name, itf, attrs });
        }
        if self.at_kw("cmt2.rule") || self.at_kw("cmt2.method") || self.at_kw("cmt2.value") {
            return Ok(Item::Func(self.func()?));
        }
        Err(self.err(
            "`cmt2.instance`, `cmt2.interface.decl`, `cmt2.rule`, `cmt2.method` or `cmt2.value`",
        ))
    }

    /// A rule, method or value: `@name(args) -> (results) attributes? {guard} {body}`.
    fn func(&mut self) -> R<PFunc> {
        let kw = self.bump();
        let kind = match self.text(kw) {
            "cmt2.rule" => "rule",
            "cmt2.method" => "method",
            _ => "value",
        };
        let name = self.symbol()?;
        let args = self.arg_list()?;
        let mut results = Vec::new();
        if self.eat(Kind::Arrow) {
            results = self.paren_types()?;
        }
        if kind == "rule" && (!args.is_empty() || !results.is_empty()) {
            return Err(Diagnostic::error(
                name.1,
                "kiln's rules take and return nothing",
            ));
        }
        if kind == "value" && !args.is_empty() {
            return Err(Diagnostic::error(
                name.1,
                "a value method takes no arguments",
            ));
        }
        let attrs = self.opt_attributes_kw()?;
        let guard = self.region(false)?;
        let body = self.region(false)?;
        Ok(PFunc {
            kind,
            name: name.clone(),
            args,
            results,
            guard,
            body,
            span: Cur::span(kw).to(name.1),
            attrs,
            range: (kw.start(), self.tok.start()),
        })
    }

    /// `{ stmts }`; an `if` region must end with `cmt2.yield`, a function region with
    /// `cmt2.return` (implicit when absent, as circt-cmt2's parser adds it).
    fn region(&mut self, in_if: bool) -> R<Vec<PStmt>> {
        let open = self.expect(Kind::LBrace)?;
        let mut out: Vec<PStmt> = Vec::new();
        while !self.at(Kind::RBrace) {
            if let Some(last) = out.last()
                && matches!(last.op, POp::Return(..) | POp::Yield)
            {
                return Err(Diagnostic::error(
                    Cur::span(self.tok),
                    "operations after the region's terminator",
                ));
            }
            out.push(self.stmt()?);
        }
        let close = self.bump();
        let term = out.last().map(|s| &s.op);
        if in_if {
            if !matches!(term, Some(POp::Yield)) {
                return Err(Diagnostic::error(
                    Cur::span(close),
                    "a `cmt2.if` region must end with `cmt2.yield`",
                ));
            }
        } else if out.iter().any(|s| matches!(s.op, POp::Yield)) {
            return Err(Diagnostic::error(
                Cur::span(open),
                "`cmt2.yield` outside a `cmt2.if`",
            ));
        }
        Ok(out)
    }

    fn stmt(&mut self) -> R<PStmt> {
        let start = self.tok.start();
        let mut results = Vec::new();
        if self.at(Kind::PercentId) {
            loop {
                results.push(self.value_name()?);
                if !self.eat(Kind::Comma) {
                    break;
                }
            }
            self.expect(Kind::Equal)?;
        }
        let kw = self.expect(Kind::BareId)?;
        let name = self.text(kw).to_string();
        let op = match name.as_str() {
            "cmt2.return" => {
                let mut vals = Vec::new();
                let mut tys = Vec::new();
                if self.at(Kind::PercentId) {
                    loop {
                        vals.push(self.reference()?);
                        if !self.eat(Kind::Comma) {
                            break;
                        }
                    }
                    self.expect(Kind::Colon)?;
                    loop {
                        tys.push(self.ty()?.0);
                        if !self.eat(Kind::Comma) {
                            break;
                        }
                    }
                    if tys.len() != vals.len() {
                        return Err(Diagnostic::error(
                            Cur::span(kw),
                            "`cmt2.return` needs one type per value",
                        ));
                    }
                }
                POp::Return(vals, tys)
            }
            "cmt2.yield" => {
                if self.at(Kind::PercentId) {
                    return Err(Diagnostic::error(
                        Cur::span(self.tok),
                        "kiln's `cmt2.if`s yield no values",
                    ));
                }
                POp::Yield
            }
            "cmt2.call" => {
                let inst = self.symbol()?;
                let method = self.symbol()?;
                self.expect(Kind::LParen)?;
                let mut args = Vec::new();
                if !self.eat(Kind::RParen) {
                    loop {
                        args.push(self.reference()?);
                        if self.eat(Kind::RParen) {
                            break;
                        }
                        self.expect(Kind::Comma)?;
                    }
                }
                self.opt_dict()?;
                self.expect(Kind::Colon)?;
                let (arg_tys, res_tys) = self.fn_type()?;
                POp::Call {
                    inst,
                    method,
                    args,
                    arg_tys,
                    res_tys,
                }
            }
            "cmt2.if" => {
                let cond = self.reference()?;
                self.expect(Kind::Colon)?;
                let cond_ty = self.ty()?;
                if self.at(Kind::Arrow) {
                    return Err(Diagnostic::error(
                        Cur::span(self.tok),
                        "kiln's `cmt2.if`s have no results",
                    ));
                }
                if self.if_depth >= MAX_IF_DEPTH {
                    return Err(Diagnostic::error(
                        Cur::span(kw),
                        "`cmt2.if` nesting too deep",
                    ));
                }
                self.if_depth += 1;
                let then_body = self.region(true);
                let else_body = match then_body.is_ok() && self.at_kw("else") {
                    true => {
                        self.bump();
                        Some(self.region(true))
                    }
                    false => None,
                };
                self.if_depth -= 1;
                let (then_body, else_body) = (then_body?, else_body.transpose()?);
                POp::If {
                    cond,
                    cond_ty,
                    then_body,
                    else_body,
                }
            }
            "firrtl.constant" => {
                let (v, _) = self.uint()?;
                self.expect(Kind::Colon)?;
                let (t, _) = self.ty()?;
                POp::Const(v, t)
            }
            "firrtl.mux" => {
                self.expect(Kind::LParen)?;
                let mut args = Vec::new();
                loop {
                    args.push(self.reference()?);
                    if self.eat(Kind::RParen) {
                        break;
                    }
                    self.expect(Kind::Comma)?;
                }
                self.expect(Kind::Colon)?;
                let (arg_tys, res) = self.fn_type()?;
                self.prim("mux", args, Vec::new(), arg_tys, res, kw)?
            }
            n if n.starts_with("firrtl.") => {
                let op = n["firrtl.".len()..].to_string();
                let mut args = vec![self.reference()?];
                let mut params = Vec::new();
                match op.as_str() {
                    "bits" => {
                        params.push(self.uint()?.0);
                        self.expect_kw("to")?;
                        params.push(self.uint()?.0);
                    }
                    // A width or a static shift amount.
                    "pad" | "shr" | "shl" => {
                        self.expect(Kind::Comma)?;
                        params.push(self.uint()?.0);
                    }
                    "asSInt" | "asUInt" | "not" | "orr" | "andr" => {}
                    _ => {
                        self.expect(Kind::Comma)?;
                        args.push(self.reference()?);
                    }
                }
                self.expect(Kind::Colon)?;
                let (arg_tys, res) = self.fn_type()?;
                self.prim(&op, args, params, arg_tys, res, kw)?
            }
            _ => {
                return Err(Diagnostic::error(
                    Cur::span(kw),
                    format!("unknown or unsupported operation `{name}` here"),
                ));
            }
        };
        let span = Span::new(start, self.tok.start());
        let defines = match &op {
            POp::Const(..) | POp::Prim { .. } => 1,
            POp::Call { res_tys, .. } => res_tys.len(),
            _ => 0,
        };
        if results.len() != defines {
            return Err(Diagnostic::error(
                Cur::span(kw),
                format!(
                    "`{name}` defines {defines} value(s), {} named",
                    results.len()
                ),
            ));
        }
        Ok(PStmt { results, op, span })
    }

    fn prim(
        &self,
        op: &str,
        args: Vec<Ref>,
        params: Vec<u128>,
        arg_tys: Vec<Ty>,
        res: Vec<Ty>,
        kw: Token,
    ) -> R<POp> {
        if arg_tys.len() != args.len() || res.len() != 1 {
            return Err(Diagnostic::error(
                Cur::span(kw),
                format!(
                    "`firrtl.{op}` takes {} operand type(s) and one result type",
                    args.len()
                ),
            ));
        }
        Ok(POp::Prim {
            op: op.to_string(),
            args,
            params,
            arg_tys,
            ty: res[0],
        })
    }

    fn reference(&mut self) -> R<Ref> {
        let (name, span) = self.value_name()?;
        Ok(Ref { name, span })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CMT2 kiln writes for `tests/data/aps/step_runtime.mlir`, with `n` more `cmt2.if`s
    /// nested in the body of its first one.
    fn nested(n: usize) -> String {
        let src = include_str!("../../../../tests/data/aps/step_runtime.mlir");
        let module = crate::mlir::parse(src).unwrap();
        let ctx = crate::aps::design_context(&module).unwrap();
        let func = crate::aps::function_named(&module, "s").unwrap();
        let text = super::super::emit_cmt2(&crate::aps::build_function(&ctx, func).unwrap());
        let at = text.find("cmt2.if ").unwrap();
        let head = &text[at..at + text[at..].find('\n').unwrap()];
        let body_end = at + text[at..].find("cmt2.yield").unwrap();
        let nest = format!("{head}\n").repeat(n) + &"cmt2.yield\n}\n".repeat(n);
        format!("{}{nest}{}", &text[..body_end], &text[body_end..])
    }

    /// 10,000 nested `cmt2.if`s (450 kB) overflowed the stack: `kiln sim x.cmt2.mlir` died
    /// with SIGABRT. (Found reading the reader after 32 minutes of the `cmt2_reader` fuzz
    /// target without a crash: its mutations never nest that deep.)
    #[test]
    fn deep_if_nesting_is_an_error_not_a_stack_overflow() {
        assert!(read_cmt2(&nested(MAX_IF_DEPTH as usize - 1)).is_ok());
        for n in [MAX_IF_DEPTH as usize, 10_000] {
            let text = nested(n);
            let d = read_cmt2(&text).unwrap_err();
            assert!(d.message.contains("nesting too deep"), "{}", d.message);
        }
    }
}
