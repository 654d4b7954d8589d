//! From the parsed file to the circuit: the top module's instances, rules and schedule,
//! each library definition checked against kiln's, each rule's ops lowered to IR statements.

use super::*;

mod lower;
use lower::{FuncCx, Glue};

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
                    if matches!(lib_name(&module.0), Some(LibName::Bank(..)))
                        || module.0 == cmt2_lib::HELLA_MEM =>
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
        // The CPU-memory port: its module's instance stands for the IR's `MemPort`; the
        // request declaration, the top method `hella_resp` and the two glue rules are
        // regenerated and compared.
        let mems: Vec<&(String, Span)> = items
            .iter()
            .filter_map(|it| match it {
                Item::Instance { name, module, .. } if module.0 == cmt2_lib::HELLA_MEM => {
                    Some(name)
                }
                _ => None,
            })
            .collect();
        if let Some(second) = mems.get(1) {
            return Err(Diagnostic::error(
                second.1,
                format!(
                    "a second `@{}` (kiln's top has one CPU-memory port)",
                    cmt2_lib::HELLA_MEM
                ),
            ));
        }
        let mem = mems.first().map(|m| m.0.clone());
        let mut glue_rules: Vec<&PFunc> = Vec::new();
        let mut hella_decl = false;
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
                Item::Decl { name, itf, .. } if itf.0 == cmt2_lib::HELLA_CMD_ITF => {
                    if mem.is_none() || name.0 != cmt2_lib::HELLA_CMD {
                        return Err(Diagnostic::error(
                            name.1,
                            format!(
                                "the HellaCache request interface is declared as `@{}` (the convention's port names), beside a `@{}` instance",
                                cmt2_lib::HELLA_CMD,
                                cmt2_lib::HELLA_MEM
                            ),
                        ));
                    }
                    hella_decl = true;
                }
                Item::Func(f)
                    if f.kind == "rule"
                        && mem.is_some()
                        && [cmt2_lib::HELLA_SEND, cmt2_lib::HELLA_BYPASS]
                            .contains(&f.name.0.as_str()) =>
                {
                    glue_rules.push(f);
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
        if let Some(m) = &mem {
            self.check_hella(m, &glue_rules, hella_decl)?;
        }
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
                        crate::rules::mlir_text::sym(&name)
                    ),
                )
                .with_code(Code::BankPortMissing));
            }
        }
        // The schedule: the `precedence` chain.
        let mut rule_names: HashSet<&str> = c.rules.iter().map(|r| r.name.as_str()).collect();
        if mem.is_some() {
            rule_names.extend([cmt2_lib::HELLA_SEND, cmt2_lib::HELLA_BYPASS]);
        }
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
        if mem.is_some() {
            // The glue rules open and close the chain; the circuit's schedule is between.
            let at = attr_of(attrs, "precedence").map_or(top.name.1, |a| a.2);
            let opens = c.schedule.first().map(String::as_str) == Some(cmt2_lib::HELLA_SEND);
            let closes = c.schedule.last().map(String::as_str) == Some(cmt2_lib::HELLA_BYPASS);
            if !opens || !closes {
                return Err(Diagnostic::error(
                    at,
                    format!(
                        "the precedence chain of a top with a CPU-memory port starts with `@{}` and ends with `@{}`",
                        cmt2_lib::HELLA_SEND,
                        cmt2_lib::HELLA_BYPASS
                    ),
                ));
            }
            c.schedule.remove(0);
            c.schedule.pop();
            c.precedence.remove(0);
            c.precedence.pop();
            // The module's ports are the rules' call sites in firing order, exactly (its
            // readiness counts them per rule).
            let m = mem.as_deref().unwrap_or_default();
            let ports = super::super::bank_ports(&c.instances, &c.rules)
                .remove(m)
                .unwrap_or_default();
            let want = super::super::mem_ports(ports, &c.schedule);
            let module = by_name
                .get(cmt2_lib::HELLA_MEM)
                .map(|d| bank_ports_of(d))
                .unwrap_or_default();
            if module != want {
                let first = module.iter().zip(&want).position(|(a, b)| a != b);
                let what = match first {
                    Some(i) => format!(
                        "its port {i} is `{}` where the rules' call sites need `{}`",
                        crate::rules::mlir_text::sym(&module[i].name()),
                        crate::rules::mlir_text::sym(&want[i].name())
                    ),
                    None => format!(
                        "it declares {} site port(s) where the rules' call sites need {}",
                        module.len(),
                        want.len()
                    ),
                };
                return Err(Diagnostic::error(
                    by_name.get(cmt2_lib::HELLA_MEM).map_or(at, |d| d.name.1),
                    format!(
                        "`@{}` does not declare the ports of the rules' CPU-memory calls in firing order: {what}",
                        cmt2_lib::HELLA_MEM
                    ),
                )
                .with_code(Code::BankPortMissing));
            }
        }
        Ok(c)
    }

    /// The CPU-memory port's glue rules are kiln's text for the port `mem`, and `main`
    /// declares the request interface (`decl`).
    fn check_hella(&self, mem: &str, rules: &[&PFunc], decl: bool) -> R<()> {
        let mut expected: BTreeMap<String, String> =
            cmt2_lib::hella_rules(mem).into_iter().collect();
        for f in rules {
            let text = expected.remove(&f.name.0).ok_or_else(|| {
                Diagnostic::error(f.name.1, format!("a second rule `@{}`", f.name.0))
            })?;
            same_tokens(self.text, f.range, &text, &f.name.0)?;
        }
        if !decl {
            return Err(Diagnostic::error(
                Span::point(0),
                format!(
                    "the top has a CPU-memory port but no `cmt2.interface.decl @{} : @{}`",
                    cmt2_lib::HELLA_CMD,
                    cmt2_lib::HELLA_CMD_ITF
                ),
            ));
        }
        if let Some(n) = expected.keys().next() {
            return Err(Diagnostic::error(
                Span::point(0),
                format!("the top has no rule `@{n}`"),
            ));
        }
        Ok(())
    }

    fn instance_kind(&self, module: &str, span: Span) -> R<InstanceKind> {
        if module == cmt2_lib::ROCC_CMD_MODULE {
            return Ok(InstanceKind::Rocc);
        }
        if module == cmt2_lib::HELLA_MEM {
            return Ok(InstanceKind::MemPort);
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
            (Def::Interface { .. }, cmt2_lib::HELLA_CMD_ITF) => cmt2_lib::hella_cmd_interface(),
            (Def::Extern { .. }, cmt2_lib::HELLA_MEM) => {
                cmt2_lib::hella_mem_extern(&bank_ports_of(d))
            }
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
                _ if name == cmt2_lib::HELLA_MEM => cmt2_lib::hella_mem_firrtl(&bank_ports_of(d)),
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
        if let Some(m) = c.instances.iter().find(|i| i.kind == InstanceKind::MemPort) {
            expected.insert(
                cmt2_lib::HELLA_RESP.to_string(),
                cmt2_lib::hella_resp_method(&m.name),
            );
        }
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
