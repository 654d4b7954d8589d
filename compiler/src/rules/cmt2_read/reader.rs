//! From the parsed file to the circuit: the top module's instances, rules and schedule,
//! each library definition checked against kiln's, each rule's ops lowered to IR statements.

use super::*;

// ---------------------------------------------------------------------------------------
// From the parsed file to the circuit.

/// A callee's methods: name → (is a value, argument types, result types).
type Methods = HashMap<String, (bool, Vec<Ty>, Vec<Ty>)>;

pub(super) struct Reader<'a> {
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
    pub(super) fn new(text: &'a str, file: PFile) -> Reader<'a> {
        Reader { text, file }
    }

    pub(super) fn circuit(self) -> R<Circuit> {
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
        let banks: HashSet<String> = items
            .iter()
            .filter_map(|it| match it {
                Item::Instance { name, module, .. }
                    if matches!(lib_name(&module.0), Some(LibName::Bank(..))) =>
                {
                    Some(name.0.clone())
                }
                _ => None,
            })
            .collect();
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
        // The SoC glue the convention adds ([`cmt2_lib::glue_call`]): the RoCC response
        // declaration and the CSR latches stand for methods of the IR's `Rocc` and `Csr`
        // instances; the top method `rocc_cmd` is checked with the top's methods.
        let rocc = items.iter().find_map(|it| match it {
            Item::Instance { name, module, .. } if module.0 == cmt2_lib::ROCC_CMD_MODULE => {
                Some(name.0.clone())
            }
            _ => None,
        });
        let mut glue: Glue = HashMap::new();
        for it in items {
            if let Item::Decl { name, itf, .. } = it {
                if itf.0.starts_with("Csr_") {
                    glue.insert(
                        cmt2_lib::csr_latch(&name.0),
                        (name.0.clone(), "read", "latched"),
                    );
                    glue.insert(name.0.clone(), (name.0.clone(), "set", "set"));
                }
                if itf.0 == cmt2_lib::ROCC_RESP_ITF {
                    let Some(r) = &rocc else {
                        return Err(Diagnostic::error(
                            name.1,
                            format!("`@{}` without the RoCC command register", name.0),
                        ));
                    };
                    glue.insert(
                        name.0.clone(),
                        (r.clone(), "rocc_resp_to_bus", "resp_from_user"),
                    );
                }
            }
        }
        if let Some(r) = &rocc {
            glue.insert(r.clone(), (r.clone(), "", ""));
        }
        let mut methods: Vec<&PFunc> = Vec::new();
        for it in items {
            match it {
                Item::Instance { name, module, .. }
                    if glue.contains_key(&name.0) && module.0 != cmt2_lib::ROCC_CMD_MODULE =>
                {
                    if module.0 != cmt2_lib::csr_latch_module() {
                        return Err(Diagnostic::error(
                            module.1,
                            format!(
                                "a CSR latch is an instance of `@{}`",
                                cmt2_lib::csr_latch_module()
                            ),
                        ));
                    }
                }
                Item::Instance { name, module, .. } if name.0 == cmt2_lib::BURST_Q => {
                    if module.0 != cmt2_lib::burst_q_module() {
                        return Err(Diagnostic::error(
                            module.1,
                            format!(
                                "the burst read register is an instance of `@{}`",
                                cmt2_lib::burst_q_module()
                            ),
                        ));
                    }
                }
                Item::Decl { name, itf, .. } if itf.0 == cmt2_lib::ROCC_RESP_ITF => {
                    if name.0 != cmt2_lib::ROCC_RESP {
                        return Err(Diagnostic::error(
                            name.1,
                            format!(
                                "the RoCC response interface is declared as `@{}` (the convention's port names)",
                                cmt2_lib::ROCC_RESP
                            ),
                        ));
                    }
                }
                Item::Instance { name, module, .. } => {
                    let kind = self.instance_kind(&module.0, module.1)?;
                    c.instances.push(Instance {
                        name: name.0.clone(),
                        kind,
                    });
                }
                Item::Decl { name, itf, attrs } => {
                    let kind = match itf.0.as_str() {
                        "MemPort" => InstanceKind::MemPort,
                        c if c.starts_with("Csr_") => {
                            if cmt2_lib::csr_interface_name(&name.0) != c
                                || !name.0.starts_with("csr_")
                            {
                                return Err(Diagnostic::error(
                                    name.1,
                                    format!(
                                        "a CSR of interface `@{c}` is declared as `@csr_{}`",
                                        &c["Csr_".len()..]
                                    ),
                                ));
                            }
                            let int = |key: &str| match attr_of(attrs, key) {
                                Some((_, Attr::Int(v), _)) => u32::try_from(*v).ok(),
                                _ => None,
                            };
                            match (int("kiln.id"), int("kiln.mask"), int("kiln.init")) {
                                (Some(id), Some(mask), Some(init)) => {
                                    InstanceKind::Csr { id, mask, init }
                                }
                                _ => {
                                    return Err(Diagnostic::error(
                                        name.1,
                                        "a CSR declaration needs its `kiln.id`, `kiln.mask` and `kiln.init` (32-bit values)",
                                    ));
                                }
                            }
                        }
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
                    let mut cx = FuncCx::new(&scope, f);
                    cx.banks = Some(&banks);
                    cx.glue = Some(&glue);
                    c.rules.push(cx.build()?);
                }
                Item::Func(f) => methods.push(f),
            }
        }
        self.check_top_methods(&c, &methods)?;
        // The burst methods call each bank's lanes on ports of their own: the bank's
        // module must declare them.
        for (bank, port) in super::super::burst_ports(&c.instances) {
            let name = port.name();
            if !scope.get(bank).is_some_and(|m| m.contains_key(&name)) {
                let at = methods
                    .iter()
                    .find(|f| f.name.0 == port.rule)
                    .map_or(Span::point(0), |f| f.name.1);
                return Err(Diagnostic::error(
                    at,
                    format!(
                        "`@{bank}` is called more often per cycle than its module has ports: lane {} of `@{}` needs the port `{}`, which the module does not declare",
                        port.k,
                        port.rule,
                        super::super::emit::sym(&name)
                    ),
                )
                .with_code(Code::BankPortMissing));
            }
        }
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
        if module == cmt2_lib::ROCC_CMD_MODULE {
            return Ok(InstanceKind::Rocc);
        }
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
            (Def::Interface { .. }, cmt2_lib::ROCC_RESP_ITF) => cmt2_lib::rocc_resp_interface(),
            (Def::Interface { .. }, _) if name.starts_with("Csr_") => {
                cmt2_lib::csr_interface(&format!("csr_{}", &name["Csr_".len()..]))
            }
            (Def::Extern { .. }, cmt2_lib::ROCC_CMD_MODULE) => cmt2_lib::rocc_cmd_extern(),
            (Def::Interface { .. }, "MemPort") => cmt2_lib::interface_text(&InstanceKind::MemPort),
            (Def::Interface { .. }, "Fault") => cmt2_lib::interface_text(&InstanceKind::Fault {
                message: String::new(),
            }),
            (Def::Interface { .. }, "BurstDMA") => cmt2_lib::interface_text(&InstanceKind::Dma {
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
                    cmt2_lib::bank_extern(name, w, dd, &bank_ports_of(d))
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
                _ if name == cmt2_lib::ROCC_CMD_MODULE => cmt2_lib::rocc_cmd_firrtl(),
                Some(LibName::Bank(w, dd)) => {
                    let init = self.bank_init(name).ok_or_else(|| {
                        Diagnostic::error(
                            Span::new(range.0, range.0),
                            format!("bank module `@{name}` without its initial contents"),
                        )
                    })?;
                    cmt2_lib::bank_firrtl(name, w, dd, &init, &bank_ports_of(d))
                }
                _ => String::new(),
            };
            same_tokens(self.text, *range, &expected, name)?;
        }
        Ok(())
    }

    /// The top's methods are the scratchpad's burst ports and `rocc_cmd`, exactly.
    fn check_top_methods(&self, c: &Circuit, methods: &[&PFunc]) -> R<()> {
        let mut expected: BTreeMap<String, String> = BTreeMap::new();
        expected.extend(cmt2_lib::top_rocc_cmd(&c.instances));
        if c.instances
            .iter()
            .any(|i| matches!(i.kind, InstanceKind::Dma { .. }))
        {
            expected.extend(cmt2_lib::burst_methods(&c.instances));
        }
        for f in methods {
            let text = expected.remove(&f.name.0).ok_or_else(|| {
                Diagnostic::error(
                    f.name.1,
                    format!("`@{}` is not a method of kiln's top", f.name.0),
                )
            })?;
            same_tokens(self.text, f.range, &text, &f.name.0)?;
        }
        if let Some(n) = expected.keys().next() {
            return Err(Diagnostic::error(
                Span::point(0),
                format!("the top has no method `@{n}`"),
            ));
        }
        Ok(())
    }
}

/// The ports a bank's extern declares: its methods named as ports ([`BankPort`]), in order.
fn bank_ports_of(d: &PDef) -> Vec<BankPort> {
    match &d.def {
        Def::Extern { binds } => binds
            .iter()
            .filter_map(|b| BankPort::parse(&b.name.0))
            .collect(),
        _ => Vec::new(),
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
        return (cmt2_lib::reg_name(w, i) == name && crate::rules::mask(i, w) == i)
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
    Ok(InstanceKind::Dma { entries })
}

// ---------------------------------------------------------------------------------------
// One rule (or library function) to IR statements.

/// An SSA value in scope: its IR variable and FIRRTL type.
#[derive(Clone, Copy)]
struct Bound {
    var: Var,
    ty: Ty,
}

/// Callees of the SoC glue: CMT2 callee → (IR instance, the callee's method a rule may
/// call, the IR's method it stands for); an empty method: the callee takes no calls
/// from rules but its IR methods under their own names.
type Glue = HashMap<String, (String, &'static str, &'static str)>;

struct FuncCx<'s> {
    scope: &'s HashMap<String, Methods>,
    glue: Option<&'s Glue>,
    /// The bank instances in scope (their port methods are checked and named back).
    banks: Option<&'s HashSet<String>>,
    /// Calls so far of each (bank, port method) in this function.
    ports: HashMap<(String, &'static str), u32>,
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
                    super::super::emit::sym(&want)
                ),
            )
            .with_code(Code::BankPortMissing));
        }
        if method.0 != want {
            return Err(Diagnostic::error(
                method.1,
                format!(
                    "{head} is bound to `{}`, not to its own port `{}`",
                    super::super::emit::sym(&method.0),
                    super::super::emit::sym(&want)
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
