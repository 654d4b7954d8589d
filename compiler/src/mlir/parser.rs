//! Recursive-descent parser for MLIR's textual format: the generic operation form, regions,
//! blocks, types and attributes. Custom assembly formats live in [`super::ops`]; this file
//! provides the building blocks they are written with (operand lists, type lists, attribute
//! dictionaries, regions, `on (a to b)` clauses).
//!
//! Conventions (relied on by the printer for round-tripping):
//! - The entry block of every region is unlabelled (`label == None`): a `^bb0(...)` label on
//!   an entry block is dropped, since an entry block cannot be a branch target.
//! - `{}` is a region with no blocks; an entry block exists only if it has arguments or ops.
//! - The bare keyword `uninitialized` is [`Attribute::Uninitialized`]; bare keywords that
//!   spell a type (`i32`, `index`, `memref<..>`) are [`Attribute::Type`]; other bare keywords
//!   are [`Attribute::Keyword`].
//! - Properties `<{...}>` of the generic form are merged into the attributes.
//! - Successor operand types (`^bb1(%x : i32)`) are accepted and dropped.
//!
//! Not supported (none occurs in the APS, CMT2 or Handshake inputs): source locations
//! (`loc(...)`), top-level alias definitions (`#map = ...`, `!t = ...`), dialect resource
//! blocks (`{-# ... #-}`), block-argument attribute dictionaries. They are syntax errors.
//!
//! Errors: the first error ends the parse; its span points at the offending token (or an
//! empty span where something was expected).
//!
//! Speed (`kiln-bench parse`): the hot shapes `name = value` and `: iN` are read from the
//! bytes without lexing the `=` or the type, and so are the most frequent attribute values
//! (`N : iW`, strings without escapes); names are inline [`Name`]s, so parsing a name does
//! not allocate; comma lists of unknown length are gathered on
//! the parser's stacks and moved out as one exact-size `Vec`. Each fast path falls back to
//! the general path (and its diagnostics) on anything it does not recognise.

use super::ast::*;
use super::lexer::{Kind, Token, lex_at};
use super::ops;
use crate::diag::{Code, Diagnostic, Span};
use crate::limits::{Limit, Limits};

pub(crate) type PResult<T> = Result<T, Diagnostic>;

pub(crate) struct Parser<'a> {
    pub(crate) src: &'a str,
    pub(crate) bytes: &'a [u8],
    /// The current, not yet consumed token.
    pub(crate) tok: Token,
    /// End of the last consumed token (for op spans).
    pub(crate) prev_end: usize,
    /// Dialect that unqualified op names resolve to (`handshake` inside `handshake.func`).
    pub(crate) default_dialect: &'static str,
    depth: u32,
    /// The token after `tok`, once computed (lookahead is frequent: dict vs region, `:`).
    next: std::cell::Cell<Option<Token>>,
    /// Entries of the attribute dictionaries being parsed (nested dicts stack up), so each
    /// finished dict is one exact-size allocation instead of a growing `Vec`.
    attr_stack: Vec<NamedAttr>,
    /// The same for operand lists and type lists (comma lists of unknown length).
    pub(crate) operand_stack: Vec<Operand>,
    pub(crate) type_stack: Vec<Type>,
    /// The limits on widths and result counts taken from the text.
    pub limits: Limits,
}

/// What [`Limit::Ops`] counts, in its diagnostics.
pub(crate) const OPS: &str = "operations of one handshake.func";

/// Nesting limit for regions/attributes/types, so that hostile input cannot overflow the stack.
const MAX_DEPTH: u32 = 200;

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Parser<'a> {
        Parser::with_limits(src, Limits::DEFAULT)
    }

    /// A parser that checks widths and result counts against `limits`.
    pub(crate) fn with_limits(src: &'a str, limits: Limits) -> Parser<'a> {
        let bytes = src.as_bytes();
        Parser {
            src,
            bytes,
            tok: lex_at(bytes, 0),
            prev_end: 0,
            default_dialect: "builtin",
            depth: 0,
            next: std::cell::Cell::new(None),
            attr_stack: Vec::new(),
            operand_stack: Vec::new(),
            type_stack: Vec::new(),
            limits,
        }
    }

    // ----- token helpers -------------------------------------------------------------------

    pub(crate) fn bump(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.end();
        self.tok = self
            .next
            .take()
            .unwrap_or_else(|| lex_at(self.bytes, t.end()));
        t
    }

    /// Consume the current token and return its text.
    pub(crate) fn bump_text(&mut self) -> &'a str {
        let t = self.bump();
        &self.src[t.start()..t.end()]
    }

    pub(crate) fn bump_span(&mut self) -> Span {
        let t = self.bump();
        Span::new(t.start(), t.end())
    }

    /// Continue lexing at byte `pos` (after raw scanning).
    pub(crate) fn reset_to(&mut self, pos: usize) {
        self.prev_end = pos;
        self.tok = lex_at(self.bytes, pos);
        self.next.set(None);
    }

    pub(crate) fn text(&self, t: Token) -> &'a str {
        &self.src[t.start()..t.end()]
    }

    pub(crate) fn at(&self, kind: Kind) -> bool {
        self.tok.kind == kind
    }

    pub(crate) fn at_kw(&self, kw: &str) -> bool {
        self.tok.kind == Kind::BareId && self.text(self.tok) == kw
    }

    pub(crate) fn eat(&mut self, kind: Kind) -> bool {
        if self.at(kind) {
            self.bump();
            return true;
        }
        false
    }

    pub(crate) fn eat_kw(&mut self, kw: &str) -> bool {
        if self.at_kw(kw) {
            self.bump();
            return true;
        }
        false
    }

    /// The token `n` positions after the current one (`peek(0)` is the next).
    pub(crate) fn peek(&self, n: usize) -> Token {
        let mut t = match self.next.get() {
            Some(t) => t,
            None => {
                let t = lex_at(self.bytes, self.tok.end());
                self.next.set(Some(t));
                t
            }
        };
        for _ in 0..n {
            t = lex_at(self.bytes, t.end());
        }
        t
    }

    pub(crate) fn span(&self, t: Token) -> Span {
        Span::new(t.start(), t.end())
    }

    /// An error about the current token: `expected X, found Y`.
    pub(crate) fn unexpected(&self, what: &str) -> Diagnostic {
        let t = self.tok;
        match t.kind {
            Kind::Eof => Diagnostic::error(
                Span::point(t.start()),
                format!("expected {what}, found end of input"),
            ),
            Kind::Error => self.lex_error(t),
            _ => {
                let found: String = self.text(t).chars().take(40).collect();
                Diagnostic::error(self.span(t), format!("expected {what}, found '{found}'"))
            }
        }
    }

    fn lex_error(&self, t: Token) -> Diagnostic {
        let b = self.bytes.get(t.start()).copied().unwrap_or(0);
        let msg = match b {
            b'"' => "unterminated string literal".to_string(),
            b'@' => "unterminated quoted symbol name".to_string(),
            b'%' | b'^' | b'#' | b'!' => format!("expected identifier after '{}'", b as char),
            _ => {
                let c = self.src[t.start()..].chars().next().unwrap_or('?');
                format!("unexpected character '{}'", c.escape_default())
            }
        };
        Diagnostic::error(self.span(t), msg)
    }

    /// Inlined (it runs for most tokens); the error is built out of line.
    #[inline]
    pub(crate) fn expect(&mut self, kind: Kind) -> PResult<Token> {
        if self.at(kind) {
            return Ok(self.bump());
        }
        Err(self.expected(kind))
    }

    #[cold]
    #[inline(never)]
    fn expected(&self, kind: Kind) -> Diagnostic {
        self.unexpected(kind.describe())
    }

    pub(crate) fn expect_kw(&mut self, kw: &str) -> PResult<Token> {
        if self.at_kw(kw) {
            return Ok(self.bump());
        }
        Err(self.unexpected(&format!("'{kw}'")))
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(
                Diagnostic::error(Span::point(self.tok.start()), "nesting too deep")
                    .with_code(Code::NestingTooDeep),
            );
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- top level and operations ----------------------------------------------------------

    pub(crate) fn parse_module(&mut self) -> PResult<ModuleAst> {
        let mut ops = Vec::new();
        while !self.at(Kind::Eof) {
            if self.at(Kind::RBrace) {
                return Err(Diagnostic::error(self.span(self.tok), "unbalanced '}'"));
            }
            ops.push(self.parse_op()?);
        }
        Ok(ModuleAst {
            ops,
            span: Span::new(0, self.src.len()),
        })
    }

    pub(crate) fn parse_op(&mut self) -> PResult<Operation> {
        self.enter()?;
        let start = self.tok.start();
        let results = self.parse_result_defs()?;
        let mut op = match self.tok.kind {
            Kind::Str => self.parse_generic_op(results)?,
            Kind::BareId => self.parse_custom_op(results)?,
            _ => return Err(self.unexpected("operation name")),
        };
        op.span = Span::new(start, self.prev_end);
        self.leave();
        Ok(op)
    }

    fn parse_result_defs(&mut self) -> PResult<Vec<ResultDef>> {
        if !self.at(Kind::PercentId) {
            return Ok(Vec::new());
        }
        // Almost every op defines one result group.
        let mut results = Vec::with_capacity(1);
        loop {
            let t = self.expect(Kind::PercentId)?;
            let mut count = 1;
            if self.eat(Kind::Colon) {
                let n = self.expect(Kind::Int)?;
                count = self.text(n).parse::<u32>().map_err(|_| {
                    Diagnostic::error(self.span(n), "invalid result count")
                        .with_code(Code::LiteralTooLarge)
                })?;
                self.limits
                    .check(Limit::Results, u64::from(count))
                    .map_err(|m| {
                        Diagnostic::error(self.span(n), format!("result count: {m}"))
                            .with_code(Code::LimitExceeded)
                    })?;
            }
            results.push(ResultDef {
                name: Name::new(self.text(t)),
                count,
                span: Span::new(t.start(), self.prev_end),
            });
            if !self.eat(Kind::Comma) {
                break;
            }
        }
        self.expect(Kind::Equal)?;
        Ok(results)
    }

    pub(crate) fn new_op(name: Name, results: Vec<ResultDef>) -> Operation {
        Operation {
            name,
            results,
            result_types: Vec::new(),
            operands: Vec::new(),
            operand_types: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            successors: Vec::new(),
            span: Span::default(),
        }
    }

    fn parse_custom_op(&mut self, results: Vec<ResultDef>) -> PResult<Operation> {
        let t = self.bump();
        let written = self.text(t);
        let Some((name, parser)) = ops::resolve(written, self.default_dialect) else {
            return Err(Diagnostic::error(
                self.span(t),
                format!("unknown operation '{written}' in custom form"),
            )
            .with_code(Code::UnknownOp));
        };
        let mut op = Parser::new_op(name, results);
        parser(self, &mut op)?;
        Ok(op)
    }

    fn parse_generic_op(&mut self, results: Vec<ResultDef>) -> PResult<Operation> {
        let name = self.parse_string()?;
        let mut op = Parser::new_op(name, results);
        self.expect(Kind::LParen)?;
        op.operands = self.parse_operand_list_until(Kind::RParen)?;
        self.expect(Kind::RParen)?;
        if self.at(Kind::LBracket) {
            op.successors = self.parse_successors()?;
        }
        if self.at(Kind::Less) && self.peek(0).kind == Kind::LBrace {
            self.bump();
            op.attrs = self.parse_attr_dict()?;
            self.expect(Kind::Greater)?;
        }
        if self.eat(Kind::LParen) {
            loop {
                op.regions.push(self.parse_region(Vec::new())?);
                if !self.eat(Kind::Comma) {
                    break;
                }
            }
            self.expect(Kind::RParen)?;
        }
        if self.at(Kind::LBrace) {
            let attrs = self.parse_attr_dict()?;
            op.attrs.extend(attrs);
        }
        self.expect(Kind::Colon)?;
        let (inputs, results) = self.parse_function_type()?;
        op.operand_types = inputs;
        op.result_types = results;
        Ok(op)
    }

    fn parse_successors(&mut self) -> PResult<Vec<Successor>> {
        self.expect(Kind::LBracket)?;
        let mut succs = Vec::new();
        loop {
            let t = self.expect(Kind::CaretId)?;
            let mut args = Vec::new();
            if self.eat(Kind::LParen) {
                args = self.parse_operand_list_until(Kind::RParen)?;
                if self.eat(Kind::Colon) {
                    self.parse_type_list()?;
                }
                self.expect(Kind::RParen)?;
            }
            succs.push(Successor {
                label: self.text(t).to_string(),
                args,
                span: Span::new(t.start(), self.prev_end),
            });
            if !self.eat(Kind::Comma) {
                break;
            }
        }
        self.expect(Kind::RBracket)?;
        Ok(succs)
    }

    // ----- operands ---------------------------------------------------------------------------

    pub(crate) fn parse_operand(&mut self) -> PResult<Operand> {
        let t = self.expect(Kind::PercentId)?;
        let name = Name::new(self.text(t));
        let mut index = None;
        let b = self.bytes;
        if b.get(t.end()) == Some(&b'#') && b.get(t.end() + 1).is_some_and(u8::is_ascii_digit) {
            let mut end = t.end() + 1;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            let digits = &self.src[t.end() + 1..end];
            index = Some(digits.parse::<u32>().map_err(|_| {
                Diagnostic::error(Span::new(t.end(), end), "result index too large")
                    .with_code(Code::LiteralTooLarge)
            })?);
            self.reset_to(end);
        }
        Ok(Operand {
            name,
            index,
            span: Span::new(t.start(), self.prev_end),
        })
    }

    /// Zero or more comma-separated operands (stops when no `%` follows).
    pub(crate) fn parse_operands(&mut self) -> PResult<Vec<Operand>> {
        let mut out = Vec::new();
        if !self.at(Kind::PercentId) {
            return Ok(out);
        }
        loop {
            out.push(self.parse_operand()?);
            if !(self.at(Kind::Comma) && self.peek(0).kind == Kind::PercentId) {
                return Ok(out);
            }
            self.bump();
        }
    }

    /// Comma-separated operands up to (not including) `close`.
    pub(crate) fn parse_operand_list_until(&mut self, close: Kind) -> PResult<Vec<Operand>> {
        let base = self.operand_stack.len();
        self.push_operand_list_until(close)?;
        Ok(self.operand_stack.drain(base..).collect())
    }

    /// [`Self::parse_operand_list_until`] onto [`Self::operand_stack`].
    pub(crate) fn push_operand_list_until(&mut self, close: Kind) -> PResult<()> {
        if self.at(close) {
            return Ok(());
        }
        loop {
            let o = self.parse_operand()?;
            self.operand_stack.push(o);
            if !self.eat(Kind::Comma) {
                return Ok(());
            }
        }
    }

    // ----- regions ----------------------------------------------------------------------------

    /// `{ ops... ^bb1(...): ops... }`; `entry_args` become the entry block's arguments.
    pub(crate) fn parse_region(&mut self, entry_args: Vec<BlockArg>) -> PResult<Region> {
        self.enter()?;
        let open = self.expect(Kind::LBrace)?;
        let mut blocks = Vec::new();
        let has_args = !entry_args.is_empty();
        if has_args && self.at(Kind::CaretId) {
            return Err(Diagnostic::error(
                self.span(self.tok),
                "entry block arguments are already defined by the operation",
            ));
        }
        if has_args || !matches!(self.tok.kind, Kind::CaretId | Kind::RBrace) {
            let start = self.tok.start();
            let ops = self.parse_block_ops()?;
            blocks.push(Block {
                label: None,
                args: entry_args,
                ops,
                span: Span::new(start, self.prev_end.max(start)),
            });
        }
        while self.at(Kind::CaretId) {
            blocks.push(self.parse_labelled_block()?);
        }
        if !self.at(Kind::RBrace) {
            return Err(self.unexpected("'}' to close region"));
        }
        self.bump();
        if let Some(first) = blocks.first_mut() {
            first.label = None;
        }
        self.leave();
        Ok(Region {
            blocks,
            span: Span::new(open.start(), self.prev_end),
        })
    }

    /// Region parsing with `dialect` as the default dialect for unqualified op names.
    pub(crate) fn parse_region_in(
        &mut self,
        dialect: &'static str,
        entry_args: Vec<BlockArg>,
    ) -> PResult<Region> {
        let saved = std::mem::replace(&mut self.default_dialect, dialect);
        let r = self.parse_region(entry_args);
        self.default_dialect = saved;
        r
    }

    fn parse_labelled_block(&mut self) -> PResult<Block> {
        let t = self.expect(Kind::CaretId)?;
        let mut args = Vec::new();
        if self.eat(Kind::LParen) {
            if !self.at(Kind::RParen) {
                loop {
                    args.push(self.parse_block_arg()?);
                    if !self.eat(Kind::Comma) {
                        break;
                    }
                }
            }
            self.expect(Kind::RParen)?;
        }
        self.expect(Kind::Colon)?;
        let ops = self.parse_block_ops()?;
        Ok(Block {
            label: Some(self.text(t).to_string()),
            args,
            ops,
            span: Span::new(t.start(), self.prev_end),
        })
    }

    /// `%name : type`.
    pub(crate) fn parse_block_arg(&mut self) -> PResult<BlockArg> {
        let t = self.expect(Kind::PercentId)?;
        self.expect(Kind::Colon)?;
        let ty = self.parse_type()?;
        // Locations `loc(...)` are not supported; attribute dicts on block args neither.
        Ok(BlockArg {
            name: Name::new(self.text(t)),
            ty,
            span: Span::new(t.start(), self.prev_end),
        })
    }

    fn parse_block_ops(&mut self) -> PResult<Vec<Operation>> {
        let mut ops: Vec<Operation> = Vec::new();
        // A Handshake body becomes one flat design: its op count is bounded here, before a
        // huge body takes its memory. Ops followed by more are not the terminator.
        let most = match self.default_dialect {
            "handshake" => self.limits.max_ops,
            _ => u64::MAX,
        };
        while !matches!(self.tok.kind, Kind::CaretId | Kind::RBrace | Kind::Eof) {
            if let Some(last) = ops.last().filter(|_| ops.len() as u64 > most) {
                let n = ops.len() as u64;
                self.limits.check_at(Limit::Ops, n, last.span, OPS)?;
            }
            ops.push(self.parse_op()?);
        }
        Ok(ops)
    }

    // ----- types ------------------------------------------------------------------------------

    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        // Fast path: scalar types (`i32`, `index`, `f32`) are most of all types.
        if self.tok.kind == Kind::BareId
            && let Some(Ok(ty)) = scalar_type(self.text(self.tok), self.limits.max_int_width)
        {
            self.bump();
            return Ok(ty);
        }
        self.enter()?;
        let ty = match self.tok.kind {
            Kind::BareId => self.parse_builtin_type()?,
            Kind::BangId => self.parse_dialect_type()?,
            Kind::Less => {
                self.bump();
                self.parse_handshake_body(None)?
            }
            Kind::LParen => {
                let (inputs, results) = self.parse_function_type()?;
                Type::Function { inputs, results }
            }
            _ => return Err(self.unexpected("type")),
        };
        self.leave();
        Ok(ty)
    }

    /// One or more comma-separated types.
    pub(crate) fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let base = self.type_stack.len();
        self.push_type_list()?;
        Ok(self.type_stack.drain(base..).collect())
    }

    /// [`Self::parse_type_list`] onto [`Self::type_stack`].
    pub(crate) fn push_type_list(&mut self) -> PResult<()> {
        loop {
            let t = self.parse_type()?;
            self.type_stack.push(t);
            if !self.eat(Kind::Comma) {
                return Ok(());
            }
        }
    }

    /// `(T, U) -> (V)` or `(T) -> V`.
    pub(crate) fn parse_function_type(&mut self) -> PResult<(Vec<Type>, Vec<Type>)> {
        let inputs = self.parse_paren_types()?;
        self.expect(Kind::Arrow)?;
        let results = self.parse_result_types()?;
        Ok((inputs, results))
    }

    /// `(T, U)` or `()`.
    pub(crate) fn parse_paren_types(&mut self) -> PResult<Vec<Type>> {
        self.expect(Kind::LParen)?;
        if self.eat(Kind::RParen) {
            return Ok(Vec::new());
        }
        let types = self.parse_type_list()?;
        self.expect(Kind::RParen)?;
        Ok(types)
    }

    /// Result types after `->`: a parenthesized list or one type (which may be a function type).
    pub(crate) fn parse_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.at(Kind::LParen) {
            // `(T, U)` is a result list; `(T) -> U` is one function type (built from the list
            // already read: re-parsing would be exponential in the nesting depth).
            let list = self.parse_paren_types()?;
            if !self.eat(Kind::Arrow) {
                return Ok(list);
            }
            self.enter()?;
            let results = self.parse_result_types()?;
            self.leave();
            return Ok(vec![Type::Function {
                inputs: list,
                results,
            }]);
        }
        Ok(vec![self.parse_type()?])
    }

    fn parse_builtin_type(&mut self) -> PResult<Type> {
        let t = self.tok;
        let word = self.text(t);
        if let Some(ty) = scalar_type(word, self.limits.max_int_width) {
            // The one error of a scalar type is a width over the limit.
            let ty =
                ty.map_err(|m| Diagnostic::error(self.span(t), m).with_code(Code::LimitExceeded))?;
            self.bump();
            return Ok(ty);
        }
        match word {
            "memref" => {
                self.bump();
                self.parse_memref_body()
            }
            "tuple" => {
                self.bump();
                self.expect(Kind::Less)?;
                let mut elems = Vec::new();
                if !self.at(Kind::Greater) {
                    elems = self.parse_type_list()?;
                }
                self.expect(Kind::Greater)?;
                Ok(Type::Tuple(elems))
            }
            "_" => {
                // The "no data" type of `bundle`/`unbundle`.
                self.bump();
                Ok(Type::Opaque("_".to_string()))
            }
            _ if is_builtin_type_name(word) => {
                self.bump();
                let end = self.scan_adjacent_angle(t.end())?;
                Ok(Type::Opaque(self.src[t.start()..end].to_string()))
            }
            _ => Err(self.unexpected("type")),
        }
    }

    fn parse_dialect_type(&mut self) -> PResult<Type> {
        let t = self.bump();
        let word = self.text(t);
        match word {
            "!handshake.channel" | "!handshake.control" => {
                self.expect(Kind::Less)?;
                let ty = self.parse_handshake_body(Some(word == "!handshake.control"))?;
                Ok(ty)
            }
            _ => {
                let end = self.scan_adjacent_angle(t.end())?;
                Ok(Type::Opaque(self.src[t.start()..end].to_string()))
            }
        }
    }

    /// After `<`: `T>`, `T, [extra]>`, `>`, `[extra]>`. `control`: `Some(true)` for
    /// `!handshake.control`, `Some(false)` for `!handshake.channel`, `None` for the short form.
    fn parse_handshake_body(&mut self, control: Option<bool>) -> PResult<Type> {
        let is_control = match control {
            Some(c) => c,
            None => matches!(self.tok.kind, Kind::Greater | Kind::LBracket),
        };
        if is_control {
            let extra = self.parse_extra_signals()?;
            self.expect(Kind::Greater)?;
            return Ok(Type::Control { extra });
        }
        let data = Box::new(self.parse_type()?);
        let mut extra = Vec::new();
        if self.eat(Kind::Comma) {
            extra = self.parse_extra_signals()?;
        }
        self.expect(Kind::Greater)?;
        Ok(Type::Channel { data, extra })
    }

    /// Optional `[name: T (U), ...]`.
    fn parse_extra_signals(&mut self) -> PResult<Vec<ExtraSignal>> {
        let mut out = Vec::new();
        if !self.eat(Kind::LBracket) {
            return Ok(out);
        }
        loop {
            let n = self.expect(Kind::BareId)?;
            self.expect(Kind::Colon)?;
            let ty = self.parse_type()?;
            let mut upstream = false;
            if self.at(Kind::LParen) && self.peek(0).kind == Kind::BareId {
                self.bump();
                self.expect_kw("U")?;
                self.expect(Kind::RParen)?;
                upstream = true;
            }
            out.push(ExtraSignal {
                name: self.text(n).to_string(),
                ty,
                upstream,
            });
            if !self.eat(Kind::Comma) {
                break;
            }
        }
        self.expect(Kind::RBracket)?;
        Ok(out)
    }

    /// After `memref`: `<4x?xT, layout...>` (dimensions scanned from raw bytes).
    fn parse_memref_body(&mut self) -> PResult<Type> {
        if !self.at(Kind::Less) {
            return Err(self.unexpected("'<'"));
        }
        let mut pos = self.tok.end();
        let mut shape = Vec::with_capacity(2);
        loop {
            pos = super::lexer::skip_trivia(self.bytes, pos);
            let (dim, end) = match self.bytes.get(pos) {
                Some(b'?') => (None, pos + 1),
                Some(b) if b.is_ascii_digit() => {
                    let mut e = pos;
                    while self.bytes.get(e).is_some_and(u8::is_ascii_digit) {
                        e += 1;
                    }
                    let d = self.src[pos..e].parse::<u64>().map_err(|_| {
                        Diagnostic::error(Span::new(pos, e), "dimension too large")
                            .with_code(Code::LiteralTooLarge)
                    })?;
                    (Some(d), e)
                }
                _ => break,
            };
            if self.bytes.get(end) != Some(&b'x') {
                return Err(Diagnostic::error(
                    Span::point(end),
                    "expected 'x' in dimension list",
                ));
            }
            shape.push(dim);
            pos = end + 1;
        }
        self.reset_to(pos);
        let elem = Box::new(self.parse_type()?);
        let mut rest = Vec::new();
        while self.at(Kind::Comma) {
            let start = self.tok.end();
            let end = self.scan_balanced_item(start)?;
            rest.push(self.src[start..end].trim().to_string());
            self.reset_to(end);
        }
        self.expect(Kind::Greater)?;
        Ok(Type::MemRef { shape, elem, rest })
    }

    /// From `start`, the end of a layout item: the first top-level `,` or `>`.
    fn scan_balanced_item(&self, start: usize) -> PResult<usize> {
        let b = self.bytes;
        let mut depth = 0i32;
        let mut i = start;
        while i < b.len() {
            match b[i] {
                b'"' => i = self.skip_string_raw(i)?,
                b'-' if b.get(i + 1) == Some(&b'>') => i += 1,
                b'<' | b'(' | b'[' | b'{' => depth += 1,
                b'>' | b')' | b']' | b'}' if depth > 0 => depth -= 1,
                b',' | b'>' if depth == 0 => return Ok(i),
                b')' | b']' | b'}' => {
                    return Err(Diagnostic::error(Span::new(i, i + 1), "unbalanced bracket"));
                }
                _ => {}
            }
            i += 1;
        }
        Err(Diagnostic::error(
            Span::point(b.len()),
            "expected '>', found end of input",
        ))
    }

    /// Index of the closing quote of the string starting at `i`.
    fn skip_string_raw(&self, i: usize) -> PResult<usize> {
        let t = super::lexer::lex_at(self.bytes, i);
        if t.kind != Kind::Str {
            return Err(Diagnostic::error(
                Span::new(i, i + 1),
                "unterminated string literal",
            ));
        }
        Ok(t.end() - 1)
    }

    /// If a `<` follows immediately at `pos`, scan to its matching `>` and return the end
    /// (after `>`); otherwise return `pos`. Resets the lexer to the returned end.
    pub(crate) fn scan_adjacent_angle(&mut self, pos: usize) -> PResult<usize> {
        if self.bytes.get(pos) != Some(&b'<') {
            return Ok(pos);
        }
        let b = self.bytes;
        let mut depth = 0i32;
        let mut i = pos;
        while i < b.len() {
            match b[i] {
                b'"' => i = self.skip_string_raw(i)?,
                b'-' if b.get(i + 1) == Some(&b'>') => i += 1,
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        self.reset_to(i + 1);
                        return Ok(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err(Diagnostic::error(Span::new(pos, pos + 1), "unbalanced '<'"))
    }

    // ----- attributes -------------------------------------------------------------------------

    pub(crate) fn parse_string(&mut self) -> PResult<Name> {
        if !self.at(Kind::Str) {
            return Err(self.unexpected("string"));
        }
        let t = self.bump();
        let body = &self.src[t.start() + 1..t.end() - 1];
        // Most strings have no escapes: copied straight into the (usually inline) name. A
        // byte loop: these strings are short, where a `memchr` call costs more.
        if body.bytes().all(|b| b != b'\\') {
            return Ok(Name::new(body));
        }
        unescape(body)
            .map(Name::from)
            .map_err(|(off, msg)| Diagnostic::error(Span::new(t.start() + 1 + off, t.end()), msg))
    }

    pub(crate) fn parse_int(&mut self) -> PResult<i128> {
        if !self.at(Kind::Int) {
            return Err(self.unexpected("integer"));
        }
        let t = self.bump();
        let text = self.text(t);
        // Fast path: short unsigned decimals (almost every literal).
        if text.len() <= 18 && text.bytes().all(|b| b.is_ascii_digit()) {
            let v = text
                .bytes()
                .fold(0i64, |acc, b| acc * 10 + i64::from(b - b'0'));
            return Ok(i128::from(v));
        }
        parse_int_text(text).ok_or_else(|| {
            Diagnostic::error(self.span(t), "integer literal too large")
                .with_code(Code::LiteralTooLarge)
        })
    }

    /// `{a = 1, b, "c" = "x"}`.
    pub(crate) fn parse_attr_dict(&mut self) -> PResult<Vec<NamedAttr>> {
        self.enter()?;
        self.expect(Kind::LBrace)?;
        let base = self.attr_stack.len();
        if !self.eat(Kind::RBrace) {
            loop {
                let a = self.parse_named_attr()?;
                self.attr_stack.push(a);
                if !self.eat(Kind::Comma) {
                    break;
                }
            }
            if !self.at(Kind::RBrace) {
                return Err(self.unexpected("',' or '}' in attribute dictionary"));
            }
            self.bump();
        }
        self.leave();
        Ok(self.attr_stack.drain(base..).collect())
    }

    fn parse_named_attr(&mut self) -> PResult<NamedAttr> {
        let start = self.tok.start();
        if self.tok.kind == Kind::BareId {
            // Fast path `name = value`: find the `=` in the bytes instead of lexing it.
            let t = self.tok;
            let eq = super::lexer::skip_trivia(self.bytes, t.end());
            if self.bytes.get(eq) == Some(&b'=') {
                let name = Name::new(self.text(t));
                let value = match self.simple_value_at(eq + 1) {
                    Some((value, end)) => {
                        self.reset_to(end);
                        value
                    }
                    None => {
                        self.reset_to(eq + 1);
                        self.parse_attr()?
                    }
                };
                return Ok(NamedAttr {
                    name,
                    value,
                    span: Span::new(start, self.prev_end),
                });
            }
        }
        let name = match self.tok.kind {
            Kind::BareId => Name::new(self.bump_text()),
            Kind::Str => self.parse_string()?,
            _ => return Err(self.unexpected("attribute name")),
        };
        let value = if self.eat(Kind::Equal) {
            self.parse_attr()?
        } else {
            Attribute::Unit
        };
        Ok(NamedAttr {
            name,
            value,
            span: Span::new(start, self.prev_end),
        })
    }

    /// Fast path for the most frequent attribute values, `N : iW` (a short unsigned decimal
    /// and an integer type) and a string without escapes, read from the bytes after `pos`
    /// without lexing their tokens. Gives the value and its end; `None` (nothing consumed)
    /// for anything else, which the general path then parses.
    fn simple_value_at(&self, pos: usize) -> Option<(Attribute, usize)> {
        if self.depth >= MAX_DEPTH {
            return None; // the general path reports the nesting error
        }
        let b = self.bytes;
        let mut i = pos;
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        match b.get(i)? {
            b'"' => self.plain_string_at(i),
            b'0'..=b'9' => typed_int_at(b, i, self.limits.max_int_width),
            _ => None,
        }
    }

    /// `"text"` at `quote` without escapes or line breaks, as an [`Attribute::String`].
    fn plain_string_at(&self, quote: usize) -> Option<(Attribute, usize)> {
        let b = self.bytes;
        let mut end = quote + 1;
        loop {
            match b.get(end)? {
                b'"' => break,
                b'\\' | b'\n' => return None,
                _ => end += 1,
            }
        }
        let text = Name::new(&self.src[quote + 1..end]);
        Some((Attribute::String(text), end + 1))
    }

    /// Whether the `{` at the current token opens an attribute dictionary (not a region).
    /// `empty_is_dict` decides `{}`.
    pub(crate) fn dict_ahead(&self, empty_is_dict: bool) -> bool {
        if !self.at(Kind::LBrace) {
            return false;
        }
        let t1 = self.peek(0);
        // `name =` and `name,` decide without lexing the second token.
        if t1.kind == Kind::BareId {
            let after = super::lexer::skip_trivia(self.bytes, t1.end());
            if matches!(self.bytes.get(after), Some(b'=' | b',')) {
                return true;
            }
        }
        let t2 = self.peek(1);
        match t1.kind {
            Kind::RBrace => empty_is_dict,
            Kind::Str => matches!(t2.kind, Kind::Equal | Kind::Comma | Kind::RBrace),
            Kind::BareId => match t2.kind {
                Kind::Equal | Kind::Comma => true,
                Kind::RBrace => {
                    let word = self.text(t1);
                    ops::resolve(word, self.default_dialect).is_none()
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// An optional attribute dictionary (`{}` counts as one), appended to `attrs`.
    pub(crate) fn parse_opt_attr_dict(&mut self, attrs: &mut Vec<NamedAttr>) -> PResult<()> {
        if !self.dict_ahead(true) {
            return Ok(());
        }
        let dict = self.parse_attr_dict()?;
        if attrs.is_empty() {
            *attrs = dict;
        } else {
            attrs.extend(dict);
        }
        Ok(())
    }

    /// `attributes {...}` if present.
    pub(crate) fn parse_opt_attributes_kw(&mut self, attrs: &mut Vec<NamedAttr>) -> PResult<()> {
        if self.eat_kw("attributes") {
            attrs.extend(self.parse_attr_dict()?);
        }
        Ok(())
    }

    pub(crate) fn parse_attr(&mut self) -> PResult<Attribute> {
        self.enter()?;
        let a = self.parse_attr_inner()?;
        self.leave();
        Ok(a)
    }

    fn parse_attr_inner(&mut self) -> PResult<Attribute> {
        match self.tok.kind {
            Kind::Int => {
                let value = self.parse_int()?;
                let ty = self.parse_opt_colon_type()?;
                Ok(Attribute::Integer { value, ty })
            }
            Kind::Float => {
                let text = self.bump_text().to_string();
                let ty = self.parse_opt_colon_type()?;
                Ok(Attribute::Float { text, ty })
            }
            Kind::Str => Ok(Attribute::String(self.parse_string()?)),
            Kind::LBracket => {
                self.bump();
                let mut items = Vec::new();
                if !self.at(Kind::RBracket) {
                    loop {
                        items.push(self.parse_attr()?);
                        if !self.eat(Kind::Comma) {
                            break;
                        }
                    }
                }
                if !self.at(Kind::RBracket) {
                    return Err(self.unexpected("',' or ']' in array"));
                }
                self.bump();
                Ok(Attribute::Array(items))
            }
            Kind::LBrace => Ok(Attribute::Dict(self.parse_attr_dict()?)),
            Kind::AtId => Ok(Attribute::SymbolRef(self.parse_symbol_ref()?)),
            Kind::HashId => {
                let t = self.bump();
                let end = self.scan_adjacent_angle(t.end())?;
                Ok(Attribute::Opaque(self.src[t.start()..end].to_string()))
            }
            Kind::BangId | Kind::Less | Kind::LParen => Ok(Attribute::Type(self.parse_type()?)),
            Kind::BareId => self.parse_keyword_attr(),
            _ => Err(self.unexpected("attribute value")),
        }
    }

    /// The bare word at the cursor as a custom form's attribute value: a keyword, or the
    /// builtin type it names (`i32`), as the generic attribute syntax reads it back.
    pub(crate) fn parse_bare_word_attr(&mut self) -> PResult<Attribute> {
        if is_builtin_type_name(self.text(self.tok)) {
            return Ok(Attribute::Type(self.parse_type()?));
        }
        Ok(Attribute::Keyword(Name::new(self.bump_text())))
    }

    fn parse_keyword_attr(&mut self) -> PResult<Attribute> {
        let word = self.text(self.tok);
        match word {
            "true" | "false" => {
                self.bump();
                Ok(Attribute::Bool(word == "true"))
            }
            "unit" => {
                self.bump();
                Ok(Attribute::Unit)
            }
            "uninitialized" => {
                self.bump();
                Ok(Attribute::Uninitialized)
            }
            "dense" => self.parse_dense(),
            _ if is_builtin_type_name(word) => Ok(Attribute::Type(self.parse_type()?)),
            _ => {
                let t = self.bump();
                if self.bytes.get(t.end()) == Some(&b'<') {
                    let end = self.scan_adjacent_angle(t.end())?;
                    return Ok(Attribute::Opaque(self.src[t.start()..end].to_string()));
                }
                Ok(Attribute::Keyword(Name::new(word)))
            }
        }
    }

    fn parse_opt_colon_type(&mut self) -> PResult<Option<Type>> {
        if !self.at(Kind::Colon) {
            return Ok(None);
        }
        // Fast path: `: i32` (the type of almost every integer attribute), read from the
        // bytes without lexing the type.
        let at = super::lexer::skip_trivia(self.bytes, self.tok.end());
        if let Some((ty, end)) = integer_type_at(self.bytes, at, self.limits.max_int_width) {
            self.reset_to(end);
            return Ok(Some(ty));
        }
        let t = self.peek(0);
        if t.kind == Kind::BareId
            && let Some(Ok(ty)) = scalar_type(self.text(t), self.limits.max_int_width)
        {
            self.bump();
            self.bump();
            return Ok(Some(ty));
        }
        if self.peek_is_type() {
            self.bump();
            return Ok(Some(self.parse_type()?));
        }
        Ok(None)
    }

    /// Whether the token after the current one starts a type.
    fn peek_is_type(&self) -> bool {
        let t = self.peek(0);
        match t.kind {
            Kind::BangId | Kind::Less | Kind::LParen => true,
            Kind::BareId => is_builtin_type_name(self.text(t)),
            _ => false,
        }
    }

    /// `@a` or `@a::@b::@c`, without sigils.
    pub(crate) fn parse_symbol_ref(&mut self) -> PResult<Vec<String>> {
        let mut path = vec![self.parse_symbol_name()?];
        while self.at(Kind::ColonColon) {
            self.bump();
            path.push(self.parse_symbol_name()?);
        }
        Ok(path)
    }

    /// `@name` (or `@"name"`) without the sigil.
    pub(crate) fn parse_symbol_name(&mut self) -> PResult<String> {
        let t = self.expect(Kind::AtId)?;
        let raw = &self.src[t.start() + 1..t.end()];
        if let Some(inner) = raw.strip_prefix('"') {
            return unescape(&inner[..inner.len() - 1])
                .map_err(|(_, m)| Diagnostic::error(self.span(t), m));
        }
        Ok(raw.to_string())
    }

    fn parse_dense(&mut self) -> PResult<Attribute> {
        self.bump();
        self.expect(Kind::Less)?;
        let mut elems = Vec::new();
        if !self.at(Kind::Greater) {
            self.parse_dense_elems(&mut elems)?;
        }
        self.expect(Kind::Greater)?;
        let ty = self.parse_opt_colon_type()?;
        Ok(Attribute::Dense { elems, ty })
    }

    fn parse_dense_elems(&mut self, out: &mut Vec<Attribute>) -> PResult<()> {
        self.enter()?;
        if self.eat(Kind::LBracket) {
            if !self.at(Kind::RBracket) {
                loop {
                    self.parse_dense_elems(out)?;
                    if !self.eat(Kind::Comma) {
                        break;
                    }
                }
            }
            self.expect(Kind::RBracket)?;
        } else {
            out.push(self.parse_dense_literal()?);
        }
        self.leave();
        Ok(())
    }

    fn parse_dense_literal(&mut self) -> PResult<Attribute> {
        match self.tok.kind {
            Kind::Int => Ok(Attribute::Integer {
                value: self.parse_int()?,
                ty: None,
            }),
            Kind::Float => Ok(Attribute::Float {
                text: self.bump_text().to_string(),
                ty: None,
            }),
            Kind::Str => Ok(Attribute::String(self.parse_string()?)),
            Kind::BareId if self.at_kw("true") || self.at_kw("false") => {
                Ok(Attribute::Bool(self.bump_text() == "true"))
            }
            _ => Err(self.unexpected("dense element literal")),
        }
    }

    // ----- custom-format building blocks ------------------------------------------------------

    /// `on (a to b)` → `(starttime, endtime)` attributes (typed `i32`), if present.
    pub(crate) fn parse_on_clause(&mut self) -> PResult<Option<[NamedAttr; 2]>> {
        if !self.at_kw("on") {
            return Ok(None);
        }
        self.bump();
        self.expect(Kind::LParen)?;
        let (a, sa) = self.parse_spanned_int()?;
        self.expect_kw("to")?;
        let (b, sb) = self.parse_spanned_int()?;
        self.expect(Kind::RParen)?;
        Ok(Some([
            i32_attr("starttime", a, sa),
            i32_attr("endtime", b, sb),
        ]))
    }

    pub(crate) fn parse_spanned_int(&mut self) -> PResult<(i128, Span)> {
        let start = self.tok.start();
        let v = self.parse_int()?;
        Ok((v, Span::new(start, self.prev_end)))
    }
}

/// `name = value : i32`.
pub(crate) fn i32_attr(name: &str, value: i128, span: Span) -> NamedAttr {
    NamedAttr {
        name: Name::new(name),
        value: Attribute::Integer {
            value,
            ty: Some(Type::int(32)),
        },
        span,
    }
}

/// Append `extra` attributes whose names are not already present.
pub(crate) fn merge_absent(attrs: &mut Vec<NamedAttr>, extra: impl IntoIterator<Item = NamedAttr>) {
    for a in extra {
        if !attrs.iter().any(|x| x.name == a.name) {
            attrs.push(a);
        }
    }
}

/// `i32`, `ui8`, `f32`, `index`, `none`: `Some(Ok)`; a malformed width: `Some(Err)`.
fn scalar_type(word: &str, max_width: u32) -> Option<Result<Type, String>> {
    let b = word.as_bytes();
    let (signedness, digits) = match b.first()? {
        b'i' if word == "index" => return Some(Ok(Type::Index)),
        b'i' => (Signedness::Signless, &b[1..]),
        b's' if b.get(1) == Some(&b'i') => (Signedness::Signed, &b[2..]),
        b'u' if b.get(1) == Some(&b'i') => (Signedness::Unsigned, &b[2..]),
        b'n' if word == "none" => return Some(Ok(Type::None)),
        b'f' => {
            return match word {
                "f16" => Some(Ok(Type::Float(16))),
                "f32" => Some(Ok(Type::Float(32))),
                "f64" => Some(Ok(Type::Float(64))),
                "f80" => Some(Ok(Type::Float(80))),
                "f128" => Some(Ok(Type::Float(128))),
                _ => None,
            };
        }
        _ => return None,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let width = digits.iter().fold(0u64, |w, d| {
        w.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    if width > u64::from(max_width) {
        let limit = Limit::IntWidth;
        return Some(Err(format!(
            "integer type '{word}': {}",
            limit.exceeded(width, u64::from(max_width))
        )));
    }
    Some(Ok(Type::Integer {
        width: width as u32,
        signedness,
    }))
}

/// An integer type `iN`/`siN`/`uiN` spelled at `pos` and not followed by an identifier
/// character, with its end; `None` for anything else (including overlong widths, left to
/// the general path and its diagnostic).
fn integer_type_at(b: &[u8], pos: usize, max_width: u32) -> Option<(Type, usize)> {
    let (signedness, digits) = match b.get(pos..pos + 2)? {
        [b'i', _] => (Signedness::Signless, pos + 1),
        [b's', b'i'] => (Signedness::Signed, pos + 2),
        [b'u', b'i'] => (Signedness::Unsigned, pos + 2),
        _ => return None,
    };
    let mut end = digits;
    let mut width: u32 = 0;
    while let Some(&d) = b.get(end).filter(|d| d.is_ascii_digit()) {
        width = width.checked_mul(10)?.checked_add(u32::from(d - b'0'))?;
        end += 1;
    }
    if end == digits
        || width > max_width
        || b.get(end).is_some_and(|&c| super::lexer::is_id_char(c))
    {
        return None;
    }
    Some((Type::Integer { width, signedness }, end))
}

/// `N : iW` at `digits` (see [`Parser::simple_value_at`]).
fn typed_int_at(b: &[u8], digits: usize, max_width: u32) -> Option<(Attribute, usize)> {
    let mut i = digits;
    let mut value: i64 = 0;
    while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
        // Longer literals leave the fast path; the general attribute parser bounds them.
        value = value.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
        i += 1;
    }
    if i == digits {
        return None;
    }
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    if b.get(i) != Some(&b':') || b.get(i + 1) == Some(&b':') {
        return None;
    }
    let at = super::lexer::skip_trivia(b, i + 1);
    let (ty, end) = integer_type_at(b, at, max_width)?;
    let value = Attribute::Integer {
        value: i128::from(value),
        ty: Some(ty),
    };
    Some((value, end))
}

/// Bare words that start a builtin type.
pub(crate) fn is_builtin_type_name(word: &str) -> bool {
    let b = word.as_bytes();
    let digits = match b.first() {
        Some(b'i') => &b[1..],
        Some(b's' | b'u') if b.get(1) == Some(&b'i') => &b[2..],
        _ => &[],
    };
    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        return true;
    }
    matches!(
        word,
        "index" | "none" | "f16" | "f32" | "f64" | "f80" | "f128"
    ) || matches!(
        word,
        "memref" | "tuple" | "vector" | "tensor" | "complex" | "bf16" | "tf32" | "_"
    )
}

/// Decimal or `0x` hex, with optional leading `-`; `None` if it does not fit `i128`.
pub(crate) fn parse_int_text(text: &str) -> Option<i128> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u128>().ok()?,
    };
    if neg {
        if magnitude == 1u128 << 127 {
            return Some(i128::MIN);
        }
        return i128::try_from(magnitude).ok().map(|m| -m);
    }
    // Hex literals may spell the two's complement bit pattern of a negative i128.
    if text.starts_with("0x") {
        return Some(magnitude as i128);
    }
    i128::try_from(magnitude).ok()
}

/// Decode MLIR string escapes: `\"`, `\\`, `\n`, `\t`, and `\XX` (two hex digits).
/// Errors carry the byte offset of the bad escape within `body`.
pub(crate) fn unescape(body: &str) -> Result<String, (usize, String)> {
    // A byte loop: these strings are short, where a `memchr` call costs more.
    if body.bytes().all(|b| b != b'\\') {
        return Ok(body.to_string());
    }
    let b = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b.get(i + 1).copied().unwrap_or(0);
        match c {
            b'"' | b'\\' => out.push(c),
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            _ if c.is_ascii_hexdigit() && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) => {
                let v = u8::from_str_radix(&body[i + 1..i + 3], 16).unwrap_or(0);
                out.push(v);
                i += 1;
            }
            _ => return Err((i, "invalid escape sequence in string".to_string())),
        }
        i += 2;
    }
    String::from_utf8(out).map_err(|_| (0, "string escapes do not form valid UTF-8".to_string()))
}

#[cfg(test)]
mod tests {
    use crate::mlir::ast::*;
    use crate::mlir::{parse, print};

    fn op(text: &str) -> Operation {
        let m = parse(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
        let again = parse(&print(&m)).expect("reparse");
        assert_eq!(again.without_spans(), m.without_spans());
        m.ops.into_iter().next().expect("one op")
    }

    fn err(text: &str) -> (usize, String) {
        let d = parse(text).expect_err("must fail");
        (d.span.expect("span").start as usize, d.message)
    }

    #[test]
    fn long_typed_integers_leave_the_fast_path_without_overflow() {
        // Found by the mlir_parse fuzz target: 19+ digits overflowed the fast path's i64.
        let mut parsed = 0;
        for digits in [18, 19, 20, 40] {
            let lit = "9".repeat(digits);
            let text = format!("\"x.y\"() {{a = {lit} : i64, w = 1 : i99999999999}} : () -> ()");
            let _ = parse(&text);
            let text = format!("\"x.y\"() {{a = {lit} : i64}} : () -> ()");
            if let Ok(m) = parse(&text) {
                let again = parse(&print(&m)).expect("reparse");
                assert_eq!(again.without_spans(), m.without_spans());
                let Some(Attribute::Integer { value, .. }) =
                    m.ops[0].attrs.first().map(|a| &a.value)
                else {
                    panic!("integer attribute expected for {digits} digits");
                };
                assert_eq!(value.to_string(), lit);
                parsed += 1;
            }
        }
        assert_eq!(parsed, 3, "literals that fit in i128 parse");
    }

    #[test]
    fn generic_op_with_successors_regions_and_properties() {
        let o = op(
            r#"%r:2, %s = "x.y"(%a, %b#1)[^bb1(%a : i32), ^bb2] <{p = 1}> ({^bb0(%z: i8): "x.z"() : () -> ()}, {}) {k = "v"} : (i32, i64) -> (i1, i1, f32)"#,
        );
        assert_eq!(o.name, "x.y");
        assert_eq!(o.num_results(), 3);
        assert_eq!(o.operands[1].index, Some(1));
        assert_eq!(o.successors.len(), 2);
        assert_eq!(o.successors[0].args[0].name, "%a");
        assert_eq!(o.regions.len(), 2);
        assert_eq!(o.regions[0].blocks[0].label, None);
        assert_eq!(o.regions[0].blocks[0].args[0].ty, Type::int(8));
        assert!(o.regions[1].blocks.is_empty());
        assert_eq!(o.attrs.len(), 2);
        assert_eq!(o.result_types[2], Type::Float(32));
    }

    #[test]
    fn types_parse_structurally() {
        let o = op(
            r#""a.b"() : (memref<4x?xi32, strided<[1, 4]>>, si8, ui3, index, none, tuple<i1, f64>, !seq.clock, !hw.modty<input a : i32>) -> (<i1, [spec: i1, tag: i2 (U)]>, <>, !handshake.control<[e: i1]>)"#,
        );
        assert_eq!(
            o.operand_types[0],
            Type::MemRef {
                shape: vec![Some(4), None],
                elem: Box::new(Type::int(32)),
                rest: vec!["strided<[1, 4]>".into()],
            }
        );
        assert_eq!(o.operand_types[6], Type::Opaque("!seq.clock".into()));
        assert_eq!(
            o.operand_types[7],
            Type::Opaque("!hw.modty<input a : i32>".into())
        );
        match &o.result_types[0] {
            Type::Channel { data, extra } => {
                assert_eq!(**data, Type::int(1));
                assert_eq!(extra[1].name, "tag");
                assert!(extra[1].upstream);
            }
            t => panic!("{t:?}"),
        }
        assert_eq!(o.result_types[1], Type::Control { extra: vec![] });
    }

    #[test]
    fn attributes_parse_structurally() {
        let o = op(
            r#""a.b"() {i = -7 : i64, h = 0xFF, f = 1.000000e+01 : f32, s = "q\"\n\41", u, b = false, arr = [1, @x::@y, i32], d = {k = unit}, dn = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, o = #handshake<timing {R: 1}>, kw = ONE_SLOT_BREAK_DV, un = uninitialized} : () -> ()"#,
        );
        let get = |n| o.attr(n).expect(n).clone();
        assert_eq!(
            get("i"),
            Attribute::Integer {
                value: -7,
                ty: Some(Type::int(64))
            }
        );
        assert_eq!(get("h").as_int(), Some(255));
        assert_eq!(
            get("f"),
            Attribute::Float {
                text: "1.000000e+01".into(),
                ty: Some(Type::Float(32))
            }
        );
        assert_eq!(get("s"), Attribute::String("q\"\nA".into()));
        assert_eq!(get("u"), Attribute::Unit);
        assert_eq!(get("b"), Attribute::Bool(false));
        match get("arr") {
            Attribute::Array(items) => {
                assert_eq!(items[1], Attribute::SymbolRef(vec!["x".into(), "y".into()]));
                assert_eq!(items[2], Attribute::Type(Type::int(32)));
            }
            a => panic!("{a:?}"),
        }
        match get("dn") {
            Attribute::Dense { elems, ty } => {
                assert_eq!(elems.len(), 4);
                assert!(matches!(ty, Some(Type::Opaque(t)) if t == "tensor<2x2xi32>"));
            }
            a => panic!("{a:?}"),
        }
        assert_eq!(
            get("o"),
            Attribute::Opaque("#handshake<timing {R: 1}>".into())
        );
        assert_eq!(get("kw"), Attribute::Keyword("ONE_SLOT_BREAK_DV".into()));
        assert_eq!(get("un"), Attribute::Uninitialized);
    }

    #[test]
    fn integer_limits() {
        let max = i128::MAX.to_string();
        let o = op(&format!(r#""a.b"() {{v = {max}, w = -{max}}} : () -> ()"#));
        assert_eq!(o.attr("v").and_then(Attribute::as_int), Some(i128::MAX));
        let too_big = format!(r#""a.b"() {{v = {}0}} : () -> ()"#, i128::MAX);
        let (at, msg) = err(&too_big);
        assert_eq!((at, msg.as_str()), (13, "integer literal too large"));
    }

    #[test]
    fn arith_and_memref_custom_forms() {
        let c = op("%true = arith.constant true");
        assert_eq!(c.result_types, vec![Type::int(1)]);
        assert_eq!(c.attr("value"), Some(&Attribute::Bool(true)));
        let c = op(r#"%c = arith.constant {dump = "op_0"} 0 : i32"#);
        assert_eq!(c.attrs[0].name, "value");
        assert_eq!(c.attr("dump").and_then(Attribute::as_str), Some("op_0"));
        let cmp = op("%b = arith.cmpi slt, %x, %y : i32");
        assert_eq!(
            cmp.attr("predicate"),
            Some(&Attribute::Keyword("slt".into()))
        );
        assert_eq!(cmp.result_types, vec![Type::int(1)]);
        let g = op(r#"memref.global "private" constant @g : memref<2xi8> = dense<[1, 2]> {a}"#);
        let names: Vec<&str> = g.attrs.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "sym_visibility",
                "constant",
                "sym_name",
                "type",
                "initial_value",
                "a"
            ]
        );
    }

    #[test]
    fn tor_forms() {
        let f = op(
            "tor.for %i = (%a : i32) to (%b : i32) step (%c : i32) iter_args(%x = %d : i8) on (1 to 2) { tor.yield %x : i8 }",
        );
        assert_eq!(f.operands.len(), 4);
        let args: Vec<&str> = f.regions[0].blocks[0]
            .args
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(args, ["%i", "%x"]);
        let c = op(r#"%r = tor.cmpi "slt" %a %b on (1 to 2) : i32"#);
        assert_eq!(c.attr("predicate"), Some(&Attribute::String("slt".into())));
        assert_eq!(c.result_types, vec![Type::int(1)]);
        let i = op("tor.if %c on (0 to 1) then { tor.yield } else { tor.yield }");
        assert_eq!(i.regions.len(), 2);
        let t = op("tor.timegraph (0 to 13){\n}");
        assert_eq!(t.attr("endtime").and_then(Attribute::as_int), Some(13));
    }

    #[test]
    fn scheduled_tor_memory_stream_and_call_forms() {
        let text = r#"tor.design @d {
  %c0 = arith.constant 0 : i32
  %m = tor.alloc {dump = "a"} : !tor.memref<16xf32, [], "rw">
  %s = tor.stream_create {dump = "s"} : <f32>[1024]
  tor.func @g(...) attributes {strategy = "static"} {
    %r:2 = tor.for %i = (%c0 : i32) to (%c0 : i32) step (%c0 : i32)
    on (1 to 9) iter_args(%x = %c0, %y = %c0) -> (i32, i32) {
      %v = tor.load %m[%i] on (2 to 3) {slot = 0 : i32} : !tor.memref<16xf32, [], "rw">[i32]
      tor.store %v to %m[%i] on (3 to 4) {slot = 1 : i32} : (f32, !tor.memref<16xf32, [], "rw">[i32])
      %w = tor.stream_read %s {starttime = 4 : i32} : <f32> -> f32
      tor.stream_write %w to %s {starttime = 5 : i32} : f32, <f32>
      %b = tor.cmpi sge %x %y on (5 to 6) {dump = "c"} : (i32, i32) -> i1
      %z = tor.if %b on (6 to 8) -> (i32) then {
        tor.yield %x : i32
      } else {
        tor.yield %y : i32
      } {dump = "if"}
      %k = tor.call @h(%z, %x) on (8 to 9) {dump = "call"} : (i32, i32) -> i32
      tor.yield %k, %z : i32, i32
    } {II = 4 : i32}
    tor.return
  }
}"#;
        let d = op(text);
        let body = &d.regions[0].blocks[0].ops;
        assert_eq!(body[1].name, "tor.alloc");
        assert_eq!(
            body[2].attr("depth").and_then(Attribute::as_int),
            Some(1024)
        );
        let f = &body[3];
        let l = &f.regions[0].blocks[0].ops[0];
        assert_eq!(l.operands.len(), 5);
        assert_eq!(l.result_types.len(), 2);
        let args: Vec<&str> = l.regions[0].blocks[0]
            .args
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(args, ["%i", "%x", "%y"]);
        assert_eq!(l.regions[0].blocks[0].args[1].ty, Type::int(32));
        assert_eq!(l.attr("starttime").and_then(Attribute::as_int), Some(1));
        let ops = &l.regions[0].blocks[0].ops;
        let names: Vec<&str> = ops.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tor.load",
                "tor.store",
                "tor.stream_read",
                "tor.stream_write",
                "tor.cmpi",
                "tor.if",
                "tor.call",
                "tor.yield"
            ]
        );
        assert_eq!(ops[0].result_types, vec![Type::Float(32)]);
        assert_eq!(ops[0].operand_types.len(), 2);
        assert_eq!(ops[1].operands.len(), 3);
        assert_eq!(ops[1].operand_types.len(), 3);
        assert_eq!(
            ops[4].attr("predicate"),
            Some(&Attribute::Keyword("sge".into()))
        );
        assert_eq!(ops[4].result_types, vec![Type::int(1)]);
        assert_eq!(ops[5].regions.len(), 2);
        assert_eq!(
            ops[6].attr("callee"),
            Some(&Attribute::SymbolRef(vec!["h".into()]))
        );
        assert_eq!(ops[6].attr("endtime").and_then(Attribute::as_int), Some(9));
    }

    #[test]
    fn handshake_forms() {
        let f = op(
            "handshake.func @f(%a: !handshake.channel<i32>, %s: !handshake.channel<i1>) -> (!handshake.channel<i32>) {\n  %m = mux %s [%a, %a] : <i1>, [<i32>, <i32>] to <i32>\n  %t, %e = cond_br %s, %m : <i1>, <i32>\n  %f:2 = fork [2] %t : <i32>\n  %b = buffer %f#0, bufferType = FIFO_BREAK_NONE, numSlots = 2 {debugCounter = false} : <i32>\n  %c = cmpi sle, %b, %f#1 : <i32>\n  sink %e : <i32>\n  end {handshake.name = \"end0\"} %b : <i32>\n}",
        );
        let body = &f.regions[0].blocks[0].ops;
        let names: Vec<&str> = body.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "handshake.mux",
                "handshake.cond_br",
                "handshake.fork",
                "handshake.buffer",
                "handshake.cmpi",
                "handshake.sink",
                "handshake.end"
            ]
        );
        assert_eq!(body[0].operands[0].name, "%s");
        assert_eq!(body[0].result_types.len(), 1);
        assert_eq!(body[1].result_types.len(), 2);
        assert_eq!(body[2].attr("size").and_then(Attribute::as_int), Some(2));
        assert_eq!(
            body[3].attr("numSlots").and_then(Attribute::as_int),
            Some(2)
        );
        assert_eq!(body[3].attr("debugCounter"), Some(&Attribute::Bool(false)));
        match &body[4].result_types[0] {
            Type::Channel { data, .. } => assert_eq!(**data, Type::int(1)),
            t => panic!("{t:?}"),
        }
        assert_eq!(body[6].operands.len(), 1);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let attrs = format!(r#""a.b"() {{x = {}}} : () -> ()"#, "[".repeat(100_000));
        assert_eq!(err(&attrs).1, "nesting too deep");
        let types = format!(r#""a.b"() : () -> {}"#, "tuple<".repeat(100_000));
        assert_eq!(err(&types).1, "nesting too deep");
        let regions = r#""a.b"() ({"#.repeat(50_000);
        assert_eq!(err(&regions).1, "nesting too deep");
    }

    #[test]
    fn nested_result_types_parse_in_linear_time() {
        let n = 150;
        let text = format!(
            r#""a.b"() : () -> {}i1{}"#,
            "(".repeat(n),
            ") -> i1".repeat(n)
        );
        let o = op(&text);
        assert!(matches!(&o.result_types[0], Type::Function { .. }));
        let list = format!(
            r#""cmt2.x"() : () -> ()
cmt2.return {} : i1"#,
            vec!["%a"; 20_000].join(", ")
        );
        let m = parse(&list).expect("long operand run");
        assert_eq!(m.ops[1].operands.len(), 20_000);
    }

    #[test]
    fn truncated_inputs_never_panic() {
        let text = include_str!("../../../examples/aps/flow_burst_add.mlir");
        for end in (0..text.len()).step_by(7) {
            if text.is_char_boundary(end) {
                let _ = parse(&text[..end]);
            }
        }
    }
}
