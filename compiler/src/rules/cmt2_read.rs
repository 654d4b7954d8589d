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
//!   stays inside its operand, ...).
//!
//! Library modules and interfaces ([`super::cmt2_lib`]) are recognised by name and must be
//! exactly kiln's definition of that name (compared token by token after regenerating it
//! from the parameters the name and, for banks, the initial contents give): a definition
//! edited by hand is reported rather than simulated with a meaning it no longer has. The
//! top module (`main`, the module no other module instantiates) is read in full: its
//! instances and interface declarations become the circuit's instances, its rules the
//! rules (FIRRTL ops become [`PrimOp`]s of the same meaning), the `precedence` chain the
//! schedule, and `kiln.circuit` / `kiln.instructions` the name and instructions.

use super::cmt2_lib;
use super::{
    Circuit, DmaEntry, Expr, Instance, InstanceKind, Instruction, PrimOp, Rule, Stmt, Var,
};
use crate::diag::{Diagnostic, Span};
use crate::mlir::lexer::{Kind, Token, lex_at};
use std::collections::{BTreeMap, HashMap, HashSet};

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
                    "pad" => {
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

// ---------------------------------------------------------------------------------------
// From the parsed file to the circuit.

/// A callee's methods: name → (is a value, argument types, result types).
type Methods = HashMap<String, (bool, Vec<Ty>, Vec<Ty>)>;

struct Reader<'a> {
    text: &'a str,
    file: PFile,
}

fn sig_of(funcs: &[PFunc]) -> Methods {
    funcs
        .iter()
        .filter(|f| f.kind != "rule")
        .map(|f| {
            let args = f.args.iter().map(|a| a.1).collect();
            (
                f.name.0.clone(),
                (f.kind == "value", args, f.results.clone()),
            )
        })
        .collect()
}

fn attr_of<'x>(attrs: &'x [(String, Attr, Span)], key: &str) -> Option<&'x (String, Attr, Span)> {
    attrs.iter().find(|a| a.0 == key)
}

impl<'a> Reader<'a> {
    fn new(text: &'a str, file: PFile) -> Reader<'a> {
        Reader { text, file }
    }

    fn circuit(self) -> R<Circuit> {
        // Symbol tables: module-like definitions of the circuit.
        let mut by_name: HashMap<&str, &PDef> = HashMap::new();
        for d in &self.file.defs {
            if by_name.insert(&d.name.0, d).is_some() {
                return Err(Diagnostic::error(
                    d.name.1,
                    format!("redefinition of symbol `@{}`", d.name.0),
                ));
            }
        }
        let mut firrtl: HashMap<&str, (usize, usize)> = HashMap::new();
        for (n, r) in &self.file.firrtl {
            if firrtl.insert(&n.0, *r).is_some() {
                return Err(Diagnostic::error(
                    n.1,
                    format!("redefinition of FIRRTL module `@{}`", n.0),
                ));
            }
        }
        // Every library definition is kiln's.
        for d in &self.file.defs {
            self.check_library(d, &firrtl)?;
        }
        // The top: the one module no module instantiates.
        let mut instantiated: HashSet<&str> = HashSet::new();
        for d in &self.file.defs {
            if let Def::Module { items, .. } = &d.def {
                for it in items {
                    if let Item::Instance { module, .. } = it {
                        instantiated.insert(&module.0);
                    }
                }
            }
        }
        let tops: Vec<&PDef> = self
            .file
            .defs
            .iter()
            .filter(|d| {
                matches!(d.def, Def::Module { .. }) && !instantiated.contains(d.name.0.as_str())
            })
            .collect();
        let top = match tops.as_slice() {
            [t] => *t,
            [] => {
                return Err(Diagnostic::error(
                    Span::point(0),
                    "no top module (every module is instantiated)",
                ));
            }
            [_, second, ..] => {
                return Err(Diagnostic::error(
                    second.name.1,
                    "a second top module (kiln's circuit has one, `main`)",
                ));
            }
        };
        // Callee signatures of every module-like definition.
        let mut sigs: HashMap<&str, Methods> = HashMap::new();
        for d in &self.file.defs {
            let m = match &d.def {
                Def::Interface { funcs } => sig_of(funcs),
                Def::Extern { binds } => binds
                    .iter()
                    .map(|b| {
                        (
                            b.name.0.clone(),
                            (b.value, b.args.clone(), b.results.clone()),
                        )
                    })
                    .collect(),
                Def::Module { items, .. } => {
                    let funcs: Vec<PFunc> = items
                        .iter()
                        .filter_map(|i| match i {
                            Item::Func(f) => Some(f.clone()),
                            _ => None,
                        })
                        .collect();
                    sig_of(&funcs)
                }
            };
            sigs.insert(&d.name.0, m);
        }
        // Type-check the library modules' functions too (they are compared with kiln's
        // text, which this keeps honest).
        for d in &self.file.defs {
            if let Def::Module { items, .. } = &d.def
                && d.name.0 != top.name.0
            {
                let scope = self.scope(items, &by_name, &sigs)?;
                for it in items {
                    if let Item::Func(f) = it {
                        FuncCx::new(&scope, f).build()?;
                    }
                }
            }
        }
        self.top(top, &by_name, &sigs)
    }

    /// The callees visible in a module: instance or declaration name → its methods.
    fn scope(
        &self,
        items: &[Item],
        by_name: &HashMap<&str, &PDef>,
        sigs: &HashMap<&str, Methods>,
    ) -> R<HashMap<String, Methods>> {
        let mut scope: HashMap<String, Methods> = HashMap::new();
        let mut names: HashSet<&str> = HashSet::new();
        for it in items {
            let name = match it {
                Item::Instance { name, .. } | Item::Decl { name, .. } => name,
                Item::Func(f) => &f.name,
            };
            if !names.insert(&name.0) {
                return Err(Diagnostic::error(
                    name.1,
                    format!("redefinition of symbol `@{}`", name.0),
                ));
            }
            match it {
                Item::Instance { name, module, args } => {
                    let d = by_name.get(module.0.as_str()).ok_or_else(|| {
                        Diagnostic::error(
                            module.1,
                            format!("module `@{}` is not defined", module.0),
                        )
                    })?;
                    let want = match &d.def {
                        Def::Interface { .. } => {
                            return Err(Diagnostic::error(
                                module.1,
                                format!(
                                    "`@{}` is an interface: declare it with `cmt2.interface.decl`",
                                    module.0
                                ),
                            ));
                        }
                        Def::Extern { binds: _ } => extern_args(&d.name.0),
                        Def::Module { .. } => 2,
                    };
                    if *args != want {
                        return Err(Diagnostic::error(
                            name.1,
                            format!("`@{}` takes {want} argument(s), {args} given", module.0),
                        ));
                    }
                    scope.insert(name.0.clone(), sigs[module.0.as_str()].clone());
                }
                Item::Decl { name, itf, .. } => match by_name.get(itf.0.as_str()) {
                    Some(d) if matches!(d.def, Def::Interface { .. }) => {
                        scope.insert(name.0.clone(), sigs[itf.0.as_str()].clone());
                    }
                    _ => {
                        return Err(Diagnostic::error(
                            itf.1,
                            format!("interface `@{}` is not defined", itf.0),
                        ));
                    }
                },
                Item::Func(_) => {}
            }
        }
        Ok(scope)
    }

    /// The top module as a circuit.
    fn top(
        &self,
        top: &PDef,
        by_name: &HashMap<&str, &PDef>,
        sigs: &HashMap<&str, Methods>,
    ) -> R<Circuit> {
        let Def::Module { items, attrs } = &top.def else {
            return Err(Diagnostic::error(top.name.1, "the top is not a module"));
        };
        let scope = self.scope(items, by_name, sigs)?;
        let mut c = Circuit::default();
        let name = attr_of(attrs, "kiln.circuit").ok_or_else(|| {
            Diagnostic::error(top.name.1, "the top module has no `kiln.circuit` name")
        })?;
        c.name = match &name.1 {
            Attr::Str(s) => s.clone(),
            _ => return Err(Diagnostic::error(name.2, "`kiln.circuit` must be a string")),
        };
        if let Some((_, a, span)) = attr_of(attrs, "kiln.instructions") {
            c.instructions = instructions(a, *span)?;
        }
        let mut methods: Vec<&PFunc> = Vec::new();
        for it in items {
            match it {
                Item::Instance { name, module, .. } => {
                    let kind = self.instance_kind(&module.0, module.1)?;
                    c.instances.push(Instance {
                        name: name.0.clone(),
                        kind,
                    });
                }
                Item::Decl { name, itf, attrs } => {
                    let kind = match itf.0.as_str() {
                        "RoCC" => InstanceKind::Rocc,
                        "MemPort" => InstanceKind::MemPort,
                        "Fault" => match attr_of(attrs, "kiln.message") {
                            Some((_, Attr::Str(m), _)) => {
                                InstanceKind::Fault { message: m.clone() }
                            }
                            _ => {
                                return Err(Diagnostic::error(
                                    name.1,
                                    "a `@Fault` declaration needs its `kiln.message`",
                                ));
                            }
                        },
                        _ => dma_kind(attrs, name.1)?,
                    };
                    c.instances.push(Instance {
                        name: name.0.clone(),
                        kind,
                    });
                }
                Item::Func(f) if f.kind == "rule" => {
                    c.rules.push(FuncCx::new(&scope, f).build()?);
                }
                Item::Func(f) => methods.push(f),
            }
        }
        self.check_top_methods(&c, &methods)?;
        // The schedule: the `precedence` chain.
        let rule_names: HashSet<&str> = c.rules.iter().map(|r| r.name.as_str()).collect();
        // The names already in the chain (a search of the chain per pair would grow with
        // the square of the rules).
        let mut chained: HashSet<String> = HashSet::new();
        if let Some((_, a, span)) = attr_of(attrs, "precedence") {
            let Attr::Arr(pairs) = a else {
                return Err(Diagnostic::error(
                    *span,
                    "`precedence` must be an array of pairs",
                ));
            };
            for (p, ps) in pairs {
                let pair = match p {
                    Attr::Arr(x) => match x.as_slice() {
                        [(Attr::Sym(a), _), (Attr::Sym(b), _)] => Some((a.clone(), b.clone())),
                        _ => None,
                    },
                    _ => None,
                };
                let Some((a, b)) = pair else {
                    return Err(Diagnostic::error(*ps, "a precedence pair is `[@a, @b]`"));
                };
                for n in [&a, &b] {
                    if !rule_names.contains(n.as_str()) {
                        return Err(Diagnostic::error(
                            *ps,
                            format!("`@{n}` is not a rule of the module"),
                        ));
                    }
                }
                match c.schedule.last() {
                    None => {
                        chained.insert(a.clone());
                        c.schedule.push(a.clone());
                    }
                    Some(last) if *last == a => {}
                    Some(_) => {
                        return Err(Diagnostic::error(
                            *ps,
                            "kiln's precedence is one chain: each pair starts where the previous ended",
                        ));
                    }
                }
                if !chained.insert(b.clone()) {
                    return Err(Diagnostic::error(
                        *ps,
                        format!("`@{b}` occurs twice in the chain"),
                    ));
                }
                c.schedule.push(b.clone());
                c.precedence.push((a, b));
            }
        }
        Ok(c)
    }

    fn instance_kind(&self, module: &str, span: Span) -> R<InstanceKind> {
        match lib_name(module) {
            Some(LibName::Fifo(w, d)) => Ok(InstanceKind::Fifo { width: w, depth: d }),
            Some(LibName::Reg(w, init)) => Ok(InstanceKind::Reg { width: w, init }),
            Some(LibName::Bank(w, d)) => {
                let init = self.bank_init(module).unwrap_or_default();
                Ok(InstanceKind::Bank {
                    width: w,
                    depth: d,
                    init,
                })
            }
            _ => Err(Diagnostic::error(
                span,
                format!("`@{module}` is not a module kiln instantiates in `main`"),
            )),
        }
    }

    /// The initial contents in a bank's FIRRTL module (`firrtl.aggregateconstant [..]`).
    fn bank_init(&self, module: &str) -> Option<Vec<u128>> {
        let (_, (start, end)) = self.file.firrtl.iter().find(|(n, _)| n.0 == module)?;
        let text = &self.text[*start..*end];
        let at = text.find("firrtl.aggregateconstant [")? + "firrtl.aggregateconstant [".len();
        let close = text[at..].find(']')?;
        let vals: Option<Vec<u128>> = text[at..at + close]
            .split(',')
            .map(|v| v.trim().parse::<u128>().ok())
            .collect();
        let mut vals = vals?;
        let n = vals.iter().rposition(|v| *v != 0).map_or(0, |i| i + 1);
        vals.truncate(n);
        Some(vals)
    }

    /// A library definition must be kiln's text for its name.
    fn check_library(&self, d: &PDef, firrtl: &HashMap<&str, (usize, usize)>) -> R<()> {
        let name = d.name.0.as_str();
        let expected = match (&d.def, name) {
            (Def::Interface { .. }, "RoCC") => cmt2_lib::interface_text(&InstanceKind::Rocc),
            (Def::Interface { .. }, "MemPort") => cmt2_lib::interface_text(&InstanceKind::MemPort),
            (Def::Interface { .. }, "Fault") => cmt2_lib::interface_text(&InstanceKind::Fault {
                message: String::new(),
            }),
            (Def::Interface { .. }, "BurstDMA") => cmt2_lib::interface_text(&InstanceKind::Dma {
                latency: 0,
                entries: Vec::new(),
            }),
            (Def::Module { .. }, _) if lib_name(name).is_none() => return Ok(()),
            _ => match lib_name(name) {
                Some(LibName::Fifo(w, dd)) if matches!(d.def, Def::Module { .. }) => {
                    cmt2_lib::fifo_module(w, dd)
                }
                Some(LibName::Reg(w, _)) if matches!(d.def, Def::Extern { .. }) => {
                    cmt2_lib::reg_extern(name, w)
                }
                Some(LibName::Wire(w)) if matches!(d.def, Def::Extern { .. }) => {
                    cmt2_lib::wire_extern(name, w)
                }
                Some(LibName::Bank(w, dd)) if matches!(d.def, Def::Extern { .. }) => {
                    cmt2_lib::bank_extern(name, w, dd)
                }
                _ => {
                    return Err(Diagnostic::error(
                        d.name.1,
                        format!("`@{name}` is not a definition of kiln's library"),
                    ));
                }
            },
        };
        same_tokens(self.text, d.range, &expected, name)?;
        // The FIRRTL module behind an extern.
        if let Def::Extern { .. } = d.def {
            let range = firrtl.get(name).ok_or_else(|| {
                Diagnostic::error(
                    d.name.1,
                    format!("`@{name}` is bound to a FIRRTL module the file does not define"),
                )
            })?;
            let expected = match lib_name(name) {
                Some(LibName::Reg(w, init)) => cmt2_lib::reg_firrtl(name, w, init),
                Some(LibName::Wire(w)) => cmt2_lib::wire_firrtl(name, w),
                Some(LibName::Bank(w, dd)) => {
                    let init = self.bank_init(name).ok_or_else(|| {
                        Diagnostic::error(
                            Span::new(range.0, range.0),
                            format!("bank module `@{name}` without its initial contents"),
                        )
                    })?;
                    cmt2_lib::bank_firrtl(name, w, dd, &init)
                }
                _ => String::new(),
            };
            same_tokens(self.text, *range, &expected, name)?;
        }
        Ok(())
    }

    /// The top's methods are the DMA engine's ports to the banks, exactly.
    fn check_top_methods(&self, c: &Circuit, methods: &[&PFunc]) -> R<()> {
        let mut expected: BTreeMap<String, String> = BTreeMap::new();
        for inst in &c.instances {
            let InstanceKind::Dma { entries, .. } = &inst.kind else {
                continue;
            };
            for bank in entries.iter().flat_map(|e| &e.banks) {
                if let Some(Instance {
                    kind: InstanceKind::Bank { width, depth, .. },
                    ..
                }) = c.instance(bank)
                {
                    expected.extend(cmt2_lib::dma_bank_methods(&inst.name, bank, *width, *depth));
                }
            }
        }
        for f in methods {
            let text = expected.remove(&f.name.0).ok_or_else(|| {
                Diagnostic::error(
                    f.name.1,
                    format!("`@{}` is not a DMA port of the top", f.name.0),
                )
            })?;
            same_tokens(self.text, f.range, &text, &f.name.0)?;
        }
        if let Some(n) = expected.keys().next() {
            return Err(Diagnostic::error(
                Span::point(0),
                format!("the top has no DMA port `@{n}`"),
            ));
        }
        Ok(())
    }
}

/// Arguments of kiln's extern modules: registers and banks take clock and reset, wires none.
fn extern_args(name: &str) -> usize {
    match lib_name(name) {
        Some(LibName::Wire(_)) => 0,
        _ => 2,
    }
}

enum LibName {
    Fifo(u32, u32),
    Reg(u32, u128),
    Wire(u32),
    Bank(u32, u32),
}

/// The library module a name stands for, with its parameters.
fn lib_name(name: &str) -> Option<LibName> {
    let num = |s: &str| -> Option<u32> {
        (!s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && (s == "0" || !s.starts_with('0')))
        .then(|| s.parse().ok())
        .flatten()
    };
    if let Some(rest) = name.strip_prefix("FIFO") {
        let (d, w) = rest.split_once("_w")?;
        let (d, w) = (num(d)?, num(w)?);
        return (cmt2_lib::fifo_name(w, d) == name).then_some(LibName::Fifo(w, d));
    }
    if let Some(rest) = name.strip_prefix("Reg_w") {
        let (w, i) = rest.split_once("_i")?;
        let w = num(w)?;
        let i: u128 = i.parse().ok()?;
        return (cmt2_lib::reg_name(w, i) == name && super::mask(i, w) == i)
            .then_some(LibName::Reg(w, i));
    }
    if let Some(rest) = name.strip_prefix("Wire_w") {
        let w = num(rest)?;
        return (cmt2_lib::wire_name(w) == name).then_some(LibName::Wire(w));
    }
    if let Some(rest) = name.strip_prefix("Bank_w") {
        let (w, rest) = rest.split_once("_d")?;
        let (d, k) = match rest.split_once("_i") {
            Some((d, k)) => (d, Some(num(k)? as usize)),
            None => (rest, None),
        };
        let (w, d) = (num(w)?, num(d)?);
        return (cmt2_lib::bank_name(w, d, k) == name && w > 0 && d > 0)
            .then_some(LibName::Bank(w, d));
    }
    None
}

/// The token sequences of `text[range]` and `expected` are equal.
fn same_tokens(text: &str, range: (usize, usize), expected: &str, name: &str) -> R<()> {
    let mut a = Cur::new(text);
    a.tok = lex_at(text.as_bytes(), range.0);
    let mut b = Cur::new(expected);
    loop {
        let at_end = a.tok.start() >= range.1 || a.at(Kind::Eof);
        match (at_end, b.at(Kind::Eof)) {
            (true, true) => return Ok(()),
            (false, false) if a.text(a.tok) == b.text(b.tok) => {
                a.bump();
                b.bump();
            }
            _ => {
                let want = if b.at(Kind::Eof) {
                    "the end of the definition".to_string()
                } else {
                    format!("`{}`", b.text(b.tok))
                };
                let at = if at_end {
                    Span::point(range.1.min(text.len()))
                } else {
                    Cur::span(a.tok)
                };
                return Err(Diagnostic::error(
                    at,
                    format!(
                        "`@{name}` differs from kiln's library definition of that name: expected {want} here"
                    ),
                ));
            }
        }
    }
}

fn int_field(d: &[(String, Attr, Span)], key: &str, span: Span) -> R<i128> {
    match attr_of(d, key) {
        Some((_, Attr::Int(v), _)) => Ok(*v),
        _ => Err(Diagnostic::error(span, format!("needs an integer `{key}`"))),
    }
}

fn str_field(d: &[(String, Attr, Span)], key: &str, span: Span) -> R<String> {
    match attr_of(d, key) {
        Some((_, Attr::Str(v), _)) => Ok(v.clone()),
        _ => Err(Diagnostic::error(span, format!("needs a string `{key}`"))),
    }
}

fn u32_of(v: i128, span: Span) -> R<u32> {
    u32::try_from(v).map_err(|_| Diagnostic::error(span, format!("`{v}` is out of range")))
}

fn instructions(a: &Attr, span: Span) -> R<Vec<Instruction>> {
    let Attr::Arr(items) = a else {
        return Err(Diagnostic::error(
            span,
            "`kiln.instructions` must be an array",
        ));
    };
    let mut out = Vec::new();
    for (it, s) in items {
        let Attr::Dict(d) = it else {
            return Err(Diagnostic::error(*s, "an instruction is a dictionary"));
        };
        let opcode = u32_of(int_field(d, "opcode", *s)?, *s)?;
        let funct7 = u32_of(int_field(d, "funct7", *s)?, *s)?;
        if opcode > 127 || funct7 > 127 {
            return Err(Diagnostic::error(*s, "opcode and funct7 are 7-bit fields"));
        }
        out.push(Instruction {
            function: str_field(d, "function", *s)?,
            opcode,
            funct7,
        });
    }
    Ok(out)
}

fn dma_kind(attrs: &[(String, Attr, Span)], span: Span) -> R<InstanceKind> {
    let latency = u32_of(int_field(attrs, "kiln.latency", span)?, span)?;
    let Some((_, Attr::Arr(items), mspan)) = attr_of(attrs, "kiln.memory_map") else {
        return Err(Diagnostic::error(
            span,
            "the DMA declaration needs its `kiln.memory_map`",
        ));
    };
    let mut entries = Vec::new();
    for (it, s) in items {
        let Attr::Dict(d) = it else {
            return Err(Diagnostic::error(
                *mspan,
                "a memory-map entry is a dictionary",
            ));
        };
        let banks = match attr_of(d, "banks") {
            Some((_, Attr::Arr(b), _)) => b
                .iter()
                .map(|(x, xs)| match x {
                    Attr::Str(n) => Ok(n.clone()),
                    _ => Err(Diagnostic::error(*xs, "a bank is named by a string")),
                })
                .collect::<R<Vec<String>>>()?,
            _ => return Err(Diagnostic::error(*s, "needs `banks`")),
        };
        let cyclic = match attr_of(d, "cyclic") {
            Some((_, Attr::Bool(b), _)) => *b,
            _ => return Err(Diagnostic::error(*s, "needs a boolean `cyclic`")),
        };
        entries.push(DmaEntry {
            name: str_field(d, "name", *s)?,
            base: u32_of(int_field(d, "base", *s)?, *s)?,
            size: u32_of(int_field(d, "size", *s)?, *s)?,
            elem_bytes: u32_of(int_field(d, "elem_bytes", *s)?, *s)?,
            banks,
            cyclic,
        });
    }
    Ok(InstanceKind::Dma { latency, entries })
}

// ---------------------------------------------------------------------------------------
// One rule (or library function) to IR statements.

/// An SSA value in scope: its IR variable and FIRRTL type.
#[derive(Clone, Copy)]
struct Bound {
    var: Var,
    ty: Ty,
}

struct FuncCx<'s> {
    scope: &'s HashMap<String, Methods>,
    f: &'s PFunc,
    next: Var,
    /// Scopes of SSA names, innermost last.
    env: Vec<HashMap<String, Bound>>,
    in_guard: bool,
}

impl<'s> FuncCx<'s> {
    fn new(scope: &'s HashMap<String, Methods>, f: &'s PFunc) -> FuncCx<'s> {
        FuncCx {
            scope,
            f,
            next: 0,
            env: Vec::new(),
            in_guard: false,
        }
    }

    fn fresh(&mut self) -> Var {
        self.next += 1;
        self.next - 1
    }

    fn args_scope(&mut self) -> HashMap<String, Bound> {
        let mut m = HashMap::new();
        for (n, t) in &self.f.args {
            let v = self.fresh();
            m.insert(n.clone(), Bound { var: v, ty: *t });
        }
        m
    }

    fn build(mut self) -> R<Rule> {
        let f = self.f;
        // Guard.
        let scope = self.args_scope();
        self.env = vec![scope];
        self.in_guard = true;
        let mut gstmts = Vec::new();
        let gret = self.stmts(&f.guard, &mut gstmts)?;
        let guard_var = match gret {
            Some((vals, span)) => match vals.as_slice() {
                [b] if b.ty == Ty::UInt(1) => b.var,
                _ => {
                    return Err(Diagnostic::error(
                        span,
                        "a guard returns one `!firrtl.uint<1>`",
                    ));
                }
            },
            None => {
                return Err(Diagnostic::error(
                    f.span,
                    "the guard must return its condition (`cmt2.return %c : !firrtl.uint<1>`)",
                ));
            }
        };
        // Body.
        let scope = self.args_scope();
        self.env = vec![scope];
        self.in_guard = false;
        let mut body = Vec::new();
        let ret = self.stmts(&f.body, &mut body)?;
        let returned: Vec<Ty> = ret
            .map(|(v, _)| v.iter().map(|b| b.ty).collect())
            .unwrap_or_default();
        if returned != f.results {
            return Err(Diagnostic::error(
                f.name.1,
                format!(
                    "the body returns {} value(s) of the wrong types for `-> ({})`",
                    returned.len(),
                    f.results
                        .iter()
                        .map(|t| t.show())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        // The constant-true guard is no guard.
        let trivially_true = matches!(
            gstmts.as_slice(),
            [Stmt::Let { var, width: 1, expr: Expr::Const(1) }] if *var == guard_var
        );
        let guard = if trivially_true {
            None
        } else {
            Some((gstmts, guard_var))
        };
        let origin = match attr_of(&f.attrs, "kiln.origin") {
            Some((_, Attr::Str(s), _)) => s.clone(),
            Some((_, _, span)) => {
                return Err(Diagnostic::error(*span, "`kiln.origin` must be a string"));
            }
            None => f.name.0.clone(),
        };
        Ok(Rule {
            name: f.name.0.clone(),
            origin,
            guard,
            body,
        })
    }

    fn lookup(&self, r: &Ref) -> R<Bound> {
        self.env
            .iter()
            .rev()
            .find_map(|m| m.get(&r.name))
            .copied()
            .ok_or_else(|| {
                Diagnostic::error(r.span, format!("use of undefined value `{}`", r.name))
            })
    }

    fn define(&mut self, name: &(String, Span), b: Bound) -> R<()> {
        if self.env.iter().any(|m| m.contains_key(&name.0)) {
            return Err(Diagnostic::error(
                name.1,
                format!("redefinition of value `{}`", name.0),
            ));
        }
        if let Some(m) = self.env.last_mut() {
            m.insert(name.0.clone(), b);
        }
        Ok(())
    }

    /// Operand `r`, which must have type `t` (as the op's type list says).
    fn operand(&self, r: &Ref, t: Ty) -> R<Bound> {
        let b = self.lookup(r)?;
        if b.ty != t {
            return Err(Diagnostic::error(
                r.span,
                format!(
                    "`{}` has type `{}`, used as `{}`",
                    r.name,
                    b.ty.show(),
                    t.show()
                ),
            ));
        }
        Ok(b)
    }

    fn let_(&mut self, out: &mut Vec<Stmt>, width: u32, expr: Expr) -> Var {
        let var = self.fresh();
        out.push(Stmt::Let { var, width, expr });
        var
    }

    /// Statements of one region; returns the values of its `cmt2.return`, if any.
    #[allow(clippy::type_complexity)]
    fn stmts(&mut self, stmts: &[PStmt], out: &mut Vec<Stmt>) -> R<Option<(Vec<Bound>, Span)>> {
        let mut ret = None;
        for s in stmts {
            match &s.op {
                POp::Return(vals, tys) => {
                    let mut bs = Vec::new();
                    for (v, t) in vals.iter().zip(tys) {
                        bs.push(self.operand(v, *t)?);
                    }
                    ret = Some((bs, s.span));
                }
                POp::Yield => {}
                POp::Const(v, t) => {
                    let Ty::UInt(w) = *t else {
                        return Err(Diagnostic::error(s.span, "kiln's constants are unsigned"));
                    };
                    if w < 128 && *v >> w != 0 {
                        return Err(Diagnostic::error(
                            s.span,
                            format!("constant {v} does not fit `{}`", t.show()),
                        ));
                    }
                    let var = self.let_(out, w, Expr::Const(*v));
                    self.define(&s.results[0], Bound { var, ty: *t })?;
                }
                POp::Prim {
                    op,
                    args,
                    params,
                    arg_tys,
                    ty,
                } => {
                    let mut bs = Vec::new();
                    for (a, t) in args.iter().zip(arg_tys) {
                        bs.push(self.operand(a, *t)?);
                    }
                    let b = self.prim(out, op, &bs, params, *ty, s.span)?;
                    self.define(&s.results[0], b)?;
                }
                POp::Call {
                    inst,
                    method,
                    args,
                    arg_tys,
                    res_tys,
                } => {
                    let methods = self.scope.get(&inst.0).ok_or_else(|| {
                        Diagnostic::error(
                            inst.1,
                            format!(
                                "`@{}` is not an instance or interface of this module",
                                inst.0
                            ),
                        )
                    })?;
                    let (value, want_args, want_res) = methods.get(&method.0).ok_or_else(|| {
                        Diagnostic::error(
                            method.1,
                            format!("`@{}` has no method or value `@{}`", inst.0, method.0),
                        )
                    })?;
                    if arg_tys != want_args || res_tys != want_res {
                        return Err(Diagnostic::error(
                            s.span,
                            format!(
                                "`@{}::@{}` is `({}) -> ({})`",
                                inst.0,
                                method.0,
                                want_args
                                    .iter()
                                    .map(|t| t.show())
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                want_res
                                    .iter()
                                    .map(|t| t.show())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    }
                    if self.in_guard && !value {
                        return Err(Diagnostic::error(
                            method.1,
                            format!(
                                "a guard calls value methods only; `@{}` is an action method",
                                method.0
                            ),
                        ));
                    }
                    let mut vars = Vec::new();
                    for (a, t) in args.iter().zip(arg_tys) {
                        vars.push(self.operand(a, *t)?.var);
                    }
                    let result = match res_tys.as_slice() {
                        [] => None,
                        [t] => Some(*t),
                        _ => {
                            return Err(Diagnostic::error(
                                s.span,
                                "kiln's methods return at most one value",
                            ));
                        }
                    };
                    let res = result.map(|t| (self.fresh(), t));
                    out.push(Stmt::Call {
                        result: res.map(|(v, t)| (v, t.width())),
                        inst: inst.0.clone(),
                        method: method.0.clone(),
                        args: vars,
                    });
                    if let Some((var, ty)) = res {
                        self.define(&s.results[0], Bound { var, ty })?;
                    }
                }
                POp::If {
                    cond,
                    cond_ty,
                    then_body,
                    else_body,
                } => {
                    if cond_ty.0 != Ty::UInt(1) {
                        return Err(Diagnostic::error(
                            cond_ty.1,
                            "the condition of `cmt2.if` must be `!firrtl.uint<1>`",
                        ));
                    }
                    let c = self.operand(cond, cond_ty.0)?;
                    let mut t = Vec::new();
                    self.env.push(HashMap::new());
                    self.stmts(then_body, &mut t)?;
                    self.env.pop();
                    let mut e = Vec::new();
                    if let Some(eb) = else_body {
                        self.env.push(HashMap::new());
                        self.stmts(eb, &mut e)?;
                        self.env.pop();
                    }
                    out.push(Stmt::If {
                        cond: c.var,
                        then_body: t,
                        else_body: e,
                    });
                }
            }
        }
        Ok(ret)
    }

    /// A FIRRTL primitive as IR statements with the same meaning; the declared result type
    /// must be FIRRTL's.
    fn prim(
        &mut self,
        out: &mut Vec<Stmt>,
        op: &str,
        a: &[Bound],
        params: &[u128],
        ty: Ty,
        span: Span,
    ) -> R<Bound> {
        let bad = |want: String| {
            Diagnostic::error(
                span,
                format!(
                    "`firrtl.{op}` here has result type `{want}`, not `{}`",
                    ty.show()
                ),
            )
        };
        let uint = |b: &Bound| matches!(b.ty, Ty::UInt(_));
        let all_uint = a.iter().all(uint);
        let w = |i: usize| a[i].ty.width();
        let unsupported = || {
            Diagnostic::error(
                span,
                format!("`firrtl.{op}` with these operand types is not in kiln's subset"),
            )
        };
        let expect = |t: Ty| if t == ty { Ok(()) } else { Err(bad(t.show())) };
        let prim = |s: &mut Self, out: &mut Vec<Stmt>, p: PrimOp, args: Vec<Var>, t: Ty| Bound {
            var: s.let_(out, t.width(), Expr::Prim(p, args)),
            ty: t,
        };
        Ok(match op {
            "add" | "sub" | "mul" | "and" | "or" | "xor" => {
                if !all_uint {
                    return Err(unsupported());
                }
                let rw = match op {
                    "add" | "sub" => w(0).max(w(1)) + 1,
                    "mul" => w(0) + w(1),
                    _ => w(0).max(w(1)),
                };
                expect(Ty::UInt(rw))?;
                let p = match op {
                    "add" => PrimOp::Add,
                    "sub" => PrimOp::Sub,
                    "mul" => PrimOp::Mul,
                    "and" => PrimOp::And,
                    "or" => PrimOp::Or,
                    _ => PrimOp::Xor,
                };
                prim(self, out, p, vec![a[0].var, a[1].var], ty)
            }
            "dshl" => {
                if !all_uint || w(1) > 16 {
                    return Err(unsupported());
                }
                let rw = w(0) + (1u32 << w(1)) - 1;
                expect(Ty::UInt(rw))?;
                let wide = prim(self, out, PrimOp::ZExt, vec![a[0].var], Ty::UInt(rw));
                prim(self, out, PrimOp::Shl, vec![wide.var, a[1].var], ty)
            }
            "dshr" => {
                if !uint(&a[1]) {
                    return Err(unsupported());
                }
                expect(a[0].ty)?;
                let p = if uint(&a[0]) {
                    PrimOp::ShrU
                } else {
                    PrimOp::ShrS
                };
                prim(self, out, p, vec![a[0].var, a[1].var], ty)
            }
            "eq" | "neq" | "lt" | "leq" | "gt" | "geq" => {
                expect(Ty::UInt(1))?;
                let signed = match (a[0].ty, a[1].ty) {
                    (Ty::UInt(_), Ty::UInt(_)) => false,
                    (Ty::SInt(_), Ty::SInt(_)) => true,
                    _ => return Err(unsupported()),
                };
                let mut args = vec![a[0].var, a[1].var];
                if signed && w(0) != w(1) {
                    let m = w(0).max(w(1));
                    for (k, x) in a.iter().enumerate() {
                        if x.ty.width() < m {
                            args[k] = prim(self, out, PrimOp::SExt, vec![x.var], Ty::SInt(m)).var;
                        }
                    }
                }
                let p = match (op, signed) {
                    ("eq", false) => PrimOp::Eq,
                    ("neq", false) => PrimOp::Ne,
                    ("lt", false) => PrimOp::Ult,
                    ("leq", false) => PrimOp::Ule,
                    ("gt", false) => PrimOp::Ugt,
                    ("geq", false) => PrimOp::Uge,
                    ("eq", true) => PrimOp::Eq,
                    ("neq", true) => PrimOp::Ne,
                    ("lt", true) => PrimOp::Slt,
                    ("leq", true) => PrimOp::Sle,
                    ("gt", true) => PrimOp::Sgt,
                    _ => PrimOp::Sge,
                };
                prim(self, out, p, args, ty)
            }
            "bits" => {
                let (hi, lo) = (params[0], params[1]);
                if hi < lo || hi >= w(0) as u128 {
                    return Err(Diagnostic::error(
                        span,
                        format!("`firrtl.bits {hi} to {lo}` of a {}-bit value", w(0)),
                    ));
                }
                expect(Ty::UInt((hi - lo + 1) as u32))?;
                prim(
                    self,
                    out,
                    PrimOp::Bits { lo: lo as u32 },
                    vec![a[0].var],
                    ty,
                )
            }
            "pad" => {
                let n = u32::try_from(params[0]).map_err(|_| unsupported())?;
                let rw = w(0).max(n);
                match a[0].ty {
                    Ty::UInt(_) => {
                        expect(Ty::UInt(rw))?;
                        prim(self, out, PrimOp::ZExt, vec![a[0].var], ty)
                    }
                    Ty::SInt(_) => {
                        expect(Ty::SInt(rw))?;
                        prim(self, out, PrimOp::SExt, vec![a[0].var], ty)
                    }
                    Ty::Clock => return Err(unsupported()),
                }
            }
            "mux" => {
                if !all_uint || w(0) != 1 {
                    return Err(unsupported());
                }
                expect(Ty::UInt(w(1).max(w(2))))?;
                prim(
                    self,
                    out,
                    PrimOp::Mux,
                    vec![a[0].var, a[1].var, a[2].var],
                    ty,
                )
            }
            "asSInt" | "asUInt" => {
                let t = if op == "asSInt" {
                    Ty::SInt(w(0))
                } else {
                    Ty::UInt(w(0))
                };
                expect(t)?;
                if a[0].ty == Ty::Clock {
                    return Err(unsupported());
                }
                // The same bits, read with the other signedness.
                Bound { var: a[0].var, ty }
            }
            "not" => {
                if !all_uint {
                    return Err(unsupported());
                }
                expect(a[0].ty)?;
                let ones = self.let_(out, w(0), Expr::Const(super::mask(u128::MAX, w(0))));
                prim(self, out, PrimOp::Xor, vec![a[0].var, ones], ty)
            }
            "orr" => {
                if !all_uint {
                    return Err(unsupported());
                }
                expect(Ty::UInt(1))?;
                let zero = self.let_(out, w(0), Expr::Const(0));
                prim(self, out, PrimOp::Ne, vec![a[0].var, zero], ty)
            }
            _ => {
                return Err(Diagnostic::error(
                    span,
                    format!("`firrtl.{op}` is not in kiln's subset"),
                ));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CMT2 kiln writes for `tests/data/aps/step_runtime.mlir`, with `n` more `cmt2.if`s
    /// nested in the body of its first one.
    fn nested(n: usize) -> String {
        let src = include_str!("../../../tests/data/aps/step_runtime.mlir");
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
