//! One rule (or library function) of the top to IR statements: each op lowered with
//! FIRRTL's width rules, each call checked against its callee's methods, the banks'
//! port methods and the SoC glue named back to the IR's methods.

use super::*;

/// An SSA value in scope: its IR variable and FIRRTL type.
#[derive(Clone, Copy)]
struct Bound {
    var: Var,
    ty: Ty,
}

/// Callees of the SoC glue: CMT2 callee → (IR instance, the callee's method a rule may
/// call, the IR's method it stands for); an empty method: the callee takes no calls
/// from rules but its IR methods under their own names.
pub(super) type Glue = HashMap<String, (String, &'static str, &'static str)>;

pub(super) struct FuncCx<'s> {
    scope: &'s HashMap<String, Methods>,
    pub(super) glue: Option<&'s Glue>,
    /// The bank instances in scope (their port methods are checked and named back).
    pub(super) banks: Option<&'s HashSet<String>>,
    /// Calls so far of each (bank, port method) in this function.
    ports: HashMap<(String, &'static str), u32>,
    f: &'s PFunc,
    next: Var,
    /// Scopes of SSA names, innermost last.
    env: Vec<HashMap<String, Bound>>,
    in_guard: bool,
}

impl<'s> FuncCx<'s> {
    pub(super) fn new(scope: &'s HashMap<String, Methods>, f: &'s PFunc) -> FuncCx<'s> {
        FuncCx {
            scope,
            glue: None,
            banks: None,
            ports: HashMap::new(),
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

    pub(super) fn build(mut self) -> R<Rule> {
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

    /// The IR method of a call of `method` on `inst`: for a bank's port method, the
    /// method it is a port of, once the call is checked to be bound to its own port (the
    /// `k`-th call of `read` in rule `@r` to `@read.r.k`, which the module declares).
    fn bank_port(
        &mut self,
        inst: &(String, Span),
        method: &(String, Span),
        methods: &Methods,
    ) -> R<String> {
        if !self.banks.is_some_and(|b| b.contains(&inst.0)) {
            return Ok(method.0.clone());
        }
        let Some(m) = BankPort::parse(&method.0)
            .map(|p| p.method)
            .or_else(|| BANK_PORT_METHODS.into_iter().find(|m| *m == method.0))
        else {
            return Ok(method.0.clone());
        };
        let k = self.ports.entry((inst.0.clone(), m)).or_insert(0);
        *k += 1;
        let port = BankPort {
            method: m,
            rule: self.f.name.0.clone(),
            k: *k - 1,
        };
        let want = port.name();
        let head = format!(
            "`@{}` is called more often per cycle than its module has ports: call {} of `{m}` in rule `@{}`",
            inst.0, port.k, port.rule
        );
        if !methods.contains_key(&want) {
            return Err(Diagnostic::error(
                method.1,
                format!(
                    "{head} needs the port `{}`, which the module does not declare",
                    crate::rules::mlir_text::sym(&want)
                ),
            )
            .with_code(Code::BankPortMissing));
        }
        if method.0 != want {
            return Err(Diagnostic::error(
                method.1,
                format!(
                    "{head} is bound to `{}`, not to its own port `{}`",
                    crate::rules::mlir_text::sym(&method.0),
                    crate::rules::mlir_text::sym(&want)
                ),
            )
            .with_code(Code::BankPortMissing));
        }
        Ok(m.to_string())
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
                    let callee = self.bank_port(inst, method, methods)?;
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
                    let (inst_name, callee) = match self.glue.and_then(|g| g.get(&inst.0)) {
                        Some((ir, _, _))
                            if ir == &inst.0 && method.0 != "enq" && method.0 != "value" =>
                        {
                            (ir.clone(), callee)
                        }
                        Some((ir, m, ir_method)) if !m.is_empty() && method.0 == *m => {
                            (ir.clone(), ir_method.to_string())
                        }
                        Some(_) => {
                            return Err(Diagnostic::error(
                                method.1,
                                format!(
                                    "a rule does not call `@{}` of `@{}` (the top's SoC side)",
                                    method.0, inst.0
                                ),
                            ));
                        }
                        None => (inst.0.clone(), callee),
                    };
                    out.push(Stmt::Call {
                        result: res.map(|(v, t)| (v, t.width())),
                        inst: inst_name,
                        method: callee,
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
                let ones = self.let_(out, w(0), Expr::Const(crate::rules::mask(u128::MAX, w(0))));
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
