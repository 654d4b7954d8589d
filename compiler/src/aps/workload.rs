//! Workload generator: random but valid scheduled TOR/APS modules for differential testing
//! and benchmarks (`kiln-bench gen aps`).
//!
//! A module has 2–3 memory-map entries (4 cyclic banks of `memref<4xi32>` each), two global
//! registers and hoisted constants; every function reads rs1/rs2 in slot 0, then runs a
//! random sequence of straight-line chunks (arithmetic, compares/selects, casts,
//! `comb.extract`, bank loads/stores, split scratchpad loads, CPU-memory loads/stores,
//! globals, bursts), `tor.for` loops (constant or runtime bounds, ascending, descending,
//! zero-trip, iteration values) and `tor.if`s (with and without results), nested up to
//! depth 2, and ends with `aps.writerf`. With [`Options::pipelined_loops`] some loops are
//! pipelined (`pipeline`, `II` 1–3): straight-line bodies of one to three stages in which
//! every bank and global register is touched by one stage only (loads, or one store at the
//! induction variable), so overlapping iterations compute what the sequential semantics
//! does. `starttime`s never decrease in program order;
//! memory accesses after a store start a new slot, request/collect pairs occupy two
//! consecutive slots, so the timed rules and the untimed interpreter must agree.
//!
//! Ops without a custom assembly format in the parser (`aps.spm.*`, `aps.itfc.load/store_*`,
//! `aps.global*`) are written in generic form.

/// SplitMix64: small, fast, and stable across platforms.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

const CONSTS: [i64; 12] = [0, 1, 2, 3, 4, 5, 7, 8, 12, 16, 42, -1];

fn cname(v: i64) -> String {
    if v < 0 {
        format!("%cm{}_i32", -v)
    } else {
        format!("%c{v}_i32")
    }
}

/// What [`generate_with`] may put in a module beyond [`generate`]'s constructs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Some loops are pipelined (half of the loops the default generator would write).
    pub pipelined_loops: bool,
}

struct Gen {
    rng: Rng,
    opts: Options,
    out: String,
    next: u32,
    t: i64,
    dirty: bool,
    entries: u32,
    ind: usize,
}

/// Where generated programs' burst addresses point: `rs1` and `rs2` of the command that
/// tests and benchmarks send to a generated function.
pub const RS1: u32 = 0x1000;
pub const RS2: u32 = 0x2000;

/// Initial CPU memory for a generated program: 32 pseudo-random words (0..1000) at each of
/// [`RS1`] and [`RS2`], a function of `seed` only.
pub fn cpu_memory(seed: u64) -> std::collections::BTreeMap<u32, u8> {
    let mut mem = std::collections::BTreeMap::new();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for base in [RS1, RS2] {
        for i in 0..32u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            crate::rules::sim::write_word(&mut mem, base + 4 * i, (x % 1000) as u32);
        }
    }
    mem
}

/// The most functions one design holds: 4 custom opcodes × 128 `funct7` values.
pub const MAX_FUNCTIONS: usize = 4 * 128;

/// The instruction identity `(opcode, funct7)` of generated function `n`: funct7 `n % 128`
/// under custom-1 (0x2b), then custom-0, custom-2, custom-3 (every 128 functions). Beyond
/// [`MAX_FUNCTIONS`] identities repeat (and the build reports it).
pub fn identity(n: usize) -> (u32, u32) {
    const ORDER: [u32; 4] = [0x2b, 0x0b, 0x5b, 0x7b];
    (ORDER[(n / 128) % 4], (n % 128) as u32)
}

/// A module with `functions` functions, fully determined by `seed`.
pub fn generate(functions: usize, seed: u64) -> String {
    generate_with(functions, seed, Options::default())
}

/// [`generate`] with more constructs; with default options, the same text.
pub fn generate_with(functions: usize, seed: u64, opts: Options) -> String {
    let mut g = Gen {
        rng: Rng(seed),
        opts,
        out: String::new(),
        next: 0,
        t: 0,
        dirty: false,
        entries: 0,
        ind: 0,
    };
    g.entries = 2 + g.rng.below(2) as u32;
    g.module(functions);
    g.out
}

/// A module of one function whose straight-line code has `slots` slots (at least 1): rs1
/// read in slot 0, one ALU op per slot after it (add, subtract, multiply, in turn) on the
/// values of the two slots before, and the response in the last slot; every value lives in
/// a register until the slot after next. The shape of a long unrolled computation, for
/// measuring how the flow scales with the slots of one function (`kiln-bench aps
/// --slots`). Slot `t` is on line `5 + t`.
pub fn slot_chain(slots: usize) -> String {
    const OPS: [&str; 3] = ["tor.addi", "tor.subi", "tor.muli"];
    let last = slots.max(1) - 1;
    // About 80 bytes a slot (the reservation capped: it is only a hint).
    let mut out = String::with_capacity(80usize.saturating_mul(slots).min(1 << 26) + 512);
    out.push_str("module {\n  tor.design @chain {\n    %c1_i32 = arith.constant 1 : i32\n");
    out.push_str("    tor.func @chain(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {\n");
    out.push_str(
        "      %v0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32\n",
    );
    for t in 1..last {
        let a = format!("%v{}", t - 1);
        let b = if t >= 2 {
            format!("%v{}", t - 2)
        } else {
            "%c1_i32".to_string()
        };
        let op = OPS[t % OPS.len()];
        out.push_str(&format!(
            "      %v{t} = {op} {a} {b} on ({t} to {}) : (i32, i32) -> i32\n",
            t + 1
        ));
    }
    out.push_str(&format!(
        "      aps.writerf %arg2, %v{} {{starttime = {last} : i32, endtime = {} : i32}} : i5, i32\n",
        last.max(1) - 1,
        last + 1
    ));
    out.push_str("      tor.return\n    }\n  }\n}\n");
    out
}

impl Gen {
    fn line(&mut self, s: &str) {
        for _ in 0..self.ind {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next - 1)
    }

    fn at(&self) -> String {
        format!(
            "{{starttime = {} : i32, endtime = {} : i32}}",
            self.t,
            self.t + 1
        )
    }

    fn on(&self) -> String {
        format!("on ({} to {})", self.t, self.t + 1)
    }

    fn module(&mut self, functions: usize) {
        self.line("module {");
        self.ind = 1;
        self.line("aps.memorymap {");
        for k in 0..self.entries {
            let banks: Vec<String> = (0..4).map(|j| format!("@mem{k}_{j}")).collect();
            let l = format!(
                "  aps.mem_entry \"mem{k}\" : banks([{}]), base({}), size(64), count(4), cyclic(1)",
                banks.join(", "),
                64 * k
            );
            self.line(&l);
        }
        self.line("  aps.mem_finish");
        self.line("}");
        self.line("tor.design @aps_isaxes {");
        self.ind = 2;
        for v in CONSTS {
            let l = format!("{} = arith.constant {v} : i32", cname(v));
            self.line(&l);
        }
        for k in 0..self.entries {
            for j in 0..4 {
                let init = if self.rng.chance(50) {
                    let xs: Vec<String> = (0..4)
                        .map(|_| (self.rng.below(200) as i64 - 50).to_string())
                        .collect();
                    format!("dense<[{}]>", xs.join(", "))
                } else {
                    "uninitialized".to_string()
                };
                let l = format!("memref.global @mem{k}_{j} : memref<4xi32> = {init}");
                self.line(&l);
            }
        }
        for gi in 0..2 {
            let v = self.rng.below(100);
            let l = format!("memref.global @g{gi} : memref<i32> = dense<{v}>");
            self.line(&l);
        }
        self.line("memref.global @_cpu_memory : memref<1xi32> = uninitialized");
        for n in 0..functions {
            self.function(n);
        }
        self.ind = 1;
        self.line("}");
        self.ind = 0;
        self.line("}");
    }

    fn function(&mut self, n: usize) {
        let (opcode, funct7) = identity(n);
        let l = format!(
            "tor.func @f{n}(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {{funct7 = {funct7} : i32, opcode = {opcode} : i32, scheduled = true}} {{"
        );
        self.line(&l);
        self.ind += 1;
        self.next = 0;
        self.t = 0;
        self.dirty = false;
        let rs1 = self.fresh();
        let rs2 = self.fresh();
        let at = self.at();
        self.line(&format!("{rs1} = aps.readrf %arg0 {at} : i5 -> i32"));
        self.line(&format!("{rs2} = aps.readrf %arg1 {at} : i5 -> i32"));
        for k in 0..self.entries {
            for j in 0..4 {
                self.line(&format!(
                    "%m{k}_{j} = memref.get_global @mem{k}_{j} : memref<4xi32> {at}"
                ));
            }
        }
        self.line(&format!(
            "%cpu = memref.get_global @_cpu_memory : memref<1xi32> {at}"
        ));
        let mut pool = vec![rs1, rs2];
        let items = 7 + self.rng.below(8);
        self.seq(0, &mut pool, items);
        self.bump();
        let v = self.rng.pick(&pool).clone();
        let at = self.at();
        self.line(&format!("aps.writerf %arg2, {v} {at} : i5, i32"));
        self.line("tor.return");
        self.ind -= 1;
        self.line("}");
    }

    fn bump(&mut self) {
        self.t += 1;
        self.dirty = false;
    }

    /// Memory accesses after a store in the same slot move to a new slot.
    fn mem_slot(&mut self) {
        if self.dirty {
            self.bump();
        }
    }

    fn seq(&mut self, depth: u32, pool: &mut Vec<String>, items: u64) {
        for _ in 0..items {
            let r = self.rng.below(100);
            if depth < 2 && r < 18 {
                self.for_loop(depth, pool);
            } else if depth < 2 && r < 32 {
                self.if_op(depth, pool);
            } else if r < 40 {
                self.burst(pool);
            } else {
                let n = 1 + self.rng.below(5);
                for _ in 0..n {
                    self.straight_op(pool);
                }
            }
        }
    }

    fn val(&mut self, pool: &[String]) -> String {
        if self.rng.chance(20) {
            cname(*self.rng.pick(&CONSTS))
        } else {
            self.rng.pick(pool).clone()
        }
    }

    fn bank(&mut self) -> String {
        let k = self.rng.below(self.entries as u64);
        let j = self.rng.below(4);
        format!("%m{k}_{j}")
    }

    fn straight_op(&mut self, pool: &mut Vec<String>) {
        if self.rng.chance(35) {
            self.bump();
        }
        let r = self.rng.below(15);
        let a = self.val(pool);
        let b = self.val(pool);
        let x = self.fresh();
        match r {
            0..=2 => {
                let op = *self.rng.pick(&["tor.addi", "tor.subi", "tor.muli"]);
                let on = self.on();
                self.line(&format!("{x} = {op} {a} {b} {on} : (i32, i32) -> i32"));
            }
            3 | 4 => {
                let op = *self.rng.pick(&[
                    "arith.andi",
                    "arith.ori",
                    "arith.xori",
                    "arith.shli",
                    "arith.shrui",
                    "arith.shrsi",
                ]);
                let b = if op.contains("sh") {
                    cname(*self.rng.pick(&[0, 1, 3, 7, 16]))
                } else {
                    b
                };
                let at = self.at();
                self.line(&format!("{x} = {op} {a}, {b} {at} : i32"));
            }
            5 | 6 => {
                let pred = *self.rng.pick(&[
                    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
                ]);
                let on = self.on();
                let c = self.fresh();
                self.line(&format!(
                    "{c} = tor.cmpi {pred} {a} {b} {on} : (i32, i32) -> i1"
                ));
                let (p, q) = (self.val(pool), self.val(pool));
                let at = self.at();
                self.line(&format!("{x} = arith.select {c}, {p}, {q} {at} : i32"));
            }
            7 => {
                let w = *self.rng.pick(&[1u32, 8, 16]);
                let n = self.fresh();
                let at = self.at();
                if self.rng.chance(50) {
                    self.line(&format!("{n} = arith.trunci {a} {at} : i32 to i{w}"));
                } else {
                    let lo = self.rng.below((32 - w) as u64 + 1);
                    self.line(&format!(
                        "{n} = comb.extract {a} from {lo} {at} : (i32) -> i{w}"
                    ));
                }
                let ext = *self.rng.pick(&["arith.extui", "arith.extsi"]);
                self.line(&format!("{x} = {ext} {n} {at} : i{w} to i32"));
            }
            8 | 9 => {
                self.mem_slot();
                let m = self.bank();
                let at = self.at();
                self.line(&format!(
                    "{x} = aps.memload {m}[{a}] {at} : memref<4xi32>, i32 -> i32"
                ));
            }
            10 => {
                self.mem_slot();
                let m = self.bank();
                let at = self.at();
                self.line(&format!(
                    "aps.memstore {a}, {m}[{b}] {at} : i32, memref<4xi32>, i32"
                ));
                self.dirty = true;
                return;
            }
            11 => {
                self.mem_slot();
                let m = self.bank();
                let tok = self.fresh();
                let at = self.at();
                self.line(&format!(
                    "{tok} = \"aps.spm.load_req\"({m}, {a}) {at} : (memref<4xi32>, i32) -> none"
                ));
                self.bump();
                let at = self.at();
                self.line(&format!(
                    "{x} = \"aps.spm.load_collect\"({tok}) {at} : (none) -> i32"
                ));
            }
            12 => {
                self.mem_slot();
                let addr = self.cpu_addr(pool);
                let tok = self.fresh();
                let at = self.at();
                self.line(&format!("{tok} = \"aps.itfc.load_req\"(%cpu, {addr}) {at} : (memref<1xi32>, i32) -> none"));
                self.bump();
                let at = self.at();
                self.line(&format!(
                    "{x} = \"aps.itfc.load_collect\"({tok}) {at} : (none) -> i32"
                ));
            }
            13 => {
                self.mem_slot();
                let addr = self.cpu_addr(pool);
                let tok = self.fresh();
                let at = self.at();
                self.line(&format!("{tok} = \"aps.itfc.store_req\"({a}, %cpu, {addr}) {at} : (i32, memref<1xi32>, i32) -> none"));
                self.bump();
                let at = self.at();
                self.line(&format!(
                    "\"aps.itfc.store_collect\"({tok}) {at} : (none) -> ()"
                ));
                self.dirty = true;
                return;
            }
            _ => {
                self.mem_slot();
                let gi = self.rng.below(2);
                let t = self.t;
                if self.rng.chance(50) {
                    self.line(&format!("{x} = \"aps.globalload\"() {{global = @g{gi}, starttime = {t} : i32, endtime = {} : i32}} : () -> i32", t + 1));
                } else {
                    self.line(&format!("\"aps.globalstore\"({a}) {{global = @g{gi}, starttime = {t} : i32, endtime = {} : i32}} : (i32) -> ()", t + 1));
                    self.dirty = true;
                    return;
                }
            }
        }
        pool.push(x);
    }

    /// rs1 or rs2 plus a small word offset (CPU memory the harness initialises).
    fn cpu_addr(&mut self, pool: &[String]) -> String {
        let base = pool[self.rng.below(2) as usize].clone();
        let off = cname(*self.rng.pick(&[0, 4, 8, 12, 16]));
        let x = self.fresh();
        let on = self.on();
        self.line(&format!(
            "{x} = tor.addi {base} {off} {on} : (i32, i32) -> i32"
        ));
        x
    }

    fn burst(&mut self, pool: &mut [String]) {
        self.mem_slot();
        let k = self.rng.below(self.entries as u64);
        let banks: Vec<String> = (0..4).map(|j| format!("%m{k}_{j}")).collect();
        let start = cname(*self.rng.pick(&[0, 4, 8]));
        // Element counts whose bytes are a power of two: the DMA moves exactly them (W0213).
        let len = cname(*self.rng.pick(&[4, 8, 16, 2]));
        let addr = self.cpu_addr(pool);
        let tok = self.fresh();
        let at = self.at();
        let tys = "(memref<4xi32>, memref<4xi32>, memref<4xi32>, memref<4xi32>)";
        if self.rng.chance(60) {
            self.line(&format!("{tok} = aps.itfc.burst_load_req {addr}, ({}) [{start}], {len} {at} : i32, {tys}, i32, i32 -> none", banks.join(", ")));
            self.bump();
            let at = self.at();
            self.line(&format!("aps.itfc.burst_load_collect {tok} {at} : none"));
        } else {
            self.line(&format!("{tok} = aps.itfc.burst_store_req({}) [{start}], {addr}, {len} {at} : {tys}, i32, i32, i32 -> none", banks.join(", ")));
            self.bump();
            let at = self.at();
            self.line(&format!("aps.itfc.burst_store_collect {tok} {at} : none"));
        }
        self.dirty = true;
    }

    /// A bound: a constant or a small runtime value (`x & 7`).
    fn bound(&mut self, pool: &[String], consts: &[i64]) -> String {
        if self.rng.chance(30) {
            let a = self.rng.pick(pool).clone();
            let x = self.fresh();
            let at = self.at();
            self.line(&format!("{x} = arith.andi {a}, %c7_i32 {at} : i32"));
            x
        } else {
            cname(*self.rng.pick(consts))
        }
    }

    fn for_loop(&mut self, depth: u32, pool: &mut Vec<String>) {
        if self.opts.pipelined_loops && self.rng.chance(50) {
            return self.pipelined_loop(pool);
        }
        let kind = self.rng.below(10);
        let (lb, ub, step) = match kind {
            0 => (cname(5), self.bound(pool, &[0, 1, 2]), cname(-1)),
            1 => (cname(3), cname(1), cname(1)),
            2 => (cname(0), self.bound(pool, &[4, 7]), cname(2)),
            _ => (
                self.bound(pool, &[0, 1]),
                self.bound(pool, &[0, 2, 3, 4]),
                cname(1),
            ),
        };
        let n_iter = self.rng.below(3) as usize;
        let inits: Vec<String> = (0..n_iter).map(|_| self.val(pool)).collect();
        self.bump();
        let start = self.t;
        let iv = self.fresh();
        let iters: Vec<String> = (0..n_iter).map(|_| self.fresh()).collect();
        let res = if n_iter > 0 { Some(self.fresh()) } else { None };
        let saved = std::mem::take(&mut self.out);
        let ind = self.ind;
        self.ind += 1;
        self.bump();
        let mut inner = pool.clone();
        inner.push(iv.clone());
        inner.extend(iters.iter().cloned());
        let items = self.rng.below(3);
        self.seq(depth + 1, &mut inner, items);
        let mut ys = Vec::new();
        for it in &iters {
            let y = self.fresh();
            let o = self.val(&inner);
            let on = self.on();
            self.line(&format!("{y} = tor.addi {it} {o} {on} : (i32, i32) -> i32"));
            ys.push(y);
        }
        if !ys.is_empty() {
            let tys = vec!["i32"; ys.len()].join(", ");
            self.line(&format!("tor.yield {} : {tys}", ys.join(", ")));
        }
        let end = self.t + 1;
        self.ind = ind;
        let body = std::mem::replace(&mut self.out, saved);
        let iter_text = if iters.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> = iters
                .iter()
                .zip(&inits)
                .map(|(a, i)| format!("{a} = {i} : i32"))
                .collect();
            format!(" iter_args({})", parts.join(", "))
        };
        let (lhs, arrow) = match &res {
            Some(r) if n_iter == 1 => (format!("{r} = "), " -> (i32)".to_string()),
            Some(r) => (
                format!("{r}:{n_iter} = "),
                format!(" -> ({})", vec!["i32"; n_iter].join(", ")),
            ),
            None => (String::new(), String::new()),
        };
        self.line(&format!(
            "{lhs}tor.for {iv} = ({lb} : i32) to ({ub} : i32) step ({step} : i32){iter_text} on ({start} to {end}){arrow} {{"
        ));
        self.out.push_str(&body);
        self.line("}");
        self.t = end;
        self.bump();
        if let Some(r) = res {
            if n_iter == 1 {
                pool.push(r);
            } else {
                pool.extend((0..n_iter).map(|i| format!("{r}#{i}")));
            }
        }
    }

    /// A pipelined loop: 1–3 stages of straight-line ops; a bank or global register is
    /// used by one stage only (`uses`: resource → (stage time, stored)).
    fn pipelined_loop(&mut self, pool: &[String]) {
        let (lb, ub, step) = match self.rng.below(4) {
            0 => (cname(0), self.bound(pool, &[3, 5, 7]), cname(1)),
            1 => (cname(5), cname(0), cname(-1)),
            2 => (self.bound(pool, &[0, 1]), cname(7), cname(2)),
            _ => (cname(0), cname(3), cname(1)),
        };
        let ii = *self.rng.pick(&[1u32, 1, 1, 2, 3]);
        self.bump();
        let start = self.t;
        let iv = self.fresh();
        let saved = std::mem::take(&mut self.out);
        let ind = self.ind;
        self.ind += 1;
        let mut inner: Vec<String> = pool.to_vec();
        inner.push(iv.clone());
        let mut uses: std::collections::BTreeMap<String, (i64, bool)> = Default::default();
        for _ in 0..1 + self.rng.below(3) {
            self.bump();
            for _ in 0..1 + self.rng.below(3) {
                self.stage_op(&iv, &mut inner, &mut uses);
            }
        }
        let end = self.t + 1;
        self.ind = ind;
        let body = std::mem::replace(&mut self.out, saved);
        self.line(&format!(
            "tor.for {iv} = ({lb} : i32) to ({ub} : i32) step ({step} : i32) on ({start} to {end}) {{"
        ));
        self.out.push_str(&body);
        self.line(&format!("}} {{II = {ii} : i32, pipeline = true}}"));
        self.t = end;
        self.bump();
    }

    /// One op of a pipelined body's current stage (see [`Gen::pipelined_loop`]).
    fn stage_op(
        &mut self,
        iv: &str,
        pool: &mut Vec<String>,
        uses: &mut std::collections::BTreeMap<String, (i64, bool)>,
    ) {
        let t = self.t;
        // A resource this stage may use: untouched, or loaded (not stored) in this stage.
        let free = |uses: &std::collections::BTreeMap<String, (i64, bool)>, r: &str| {
            uses.get(r).is_none_or(|&(at, stored)| at == t && !stored)
        };
        let x = self.fresh();
        match self.rng.below(6) {
            0 | 1 => {
                let m = self.bank();
                if !free(uses, &m) {
                    return self.stage_arith(&x, pool);
                }
                uses.insert(m.clone(), (t, false));
                let a = self.val(pool);
                let at = self.at();
                self.line(&format!(
                    "{x} = aps.memload {m}[{a}] {at} : memref<4xi32>, i32 -> i32"
                ));
            }
            2 => {
                let m = self.bank();
                if uses.contains_key(&m) {
                    return self.stage_arith(&x, pool);
                }
                uses.insert(m.clone(), (t, true));
                let v = self.val(pool);
                let at = self.at();
                self.line(&format!(
                    "aps.memstore {v}, {m}[{iv}] {at} : i32, memref<4xi32>, i32"
                ));
                return;
            }
            3 => {
                let g = format!("@g{}", self.rng.below(2));
                if !free(uses, &g) {
                    return self.stage_arith(&x, pool);
                }
                if self.rng.chance(50) {
                    uses.insert(g.clone(), (t, false));
                    self.line(&format!("{x} = \"aps.globalload\"() {{global = {g}, starttime = {t} : i32, endtime = {} : i32}} : () -> i32", t + 1));
                } else {
                    uses.insert(g.clone(), (t, true));
                    let v = self.val(pool);
                    self.line(&format!("\"aps.globalstore\"({v}) {{global = {g}, starttime = {t} : i32, endtime = {} : i32}} : (i32) -> ()", t + 1));
                    return;
                }
            }
            _ => return self.stage_arith(&x, pool),
        }
        pool.push(x);
    }

    fn stage_arith(&mut self, x: &str, pool: &mut Vec<String>) {
        let op = *self.rng.pick(&["tor.addi", "tor.subi", "tor.muli"]);
        let (a, b) = (self.val(pool), self.val(pool));
        let on = self.on();
        self.line(&format!("{x} = {op} {a} {b} {on} : (i32, i32) -> i32"));
        pool.push(x.to_string());
    }

    fn if_op(&mut self, depth: u32, pool: &mut Vec<String>) {
        let (a, b) = (self.val(pool), self.val(pool));
        let pred = *self.rng.pick(&["eq", "ne", "slt", "sge", "ult", "ugt"]);
        let c = self.fresh();
        let on = self.on();
        self.line(&format!(
            "{c} = tor.cmpi {pred} {a} {b} {on} : (i32, i32) -> i1"
        ));
        self.bump();
        let start = self.t;
        let with_result = self.rng.chance(60);
        let with_else = with_result || self.rng.chance(50);
        let res = if with_result {
            Some(self.fresh())
        } else {
            None
        };
        let saved = std::mem::take(&mut self.out);
        let ind = self.ind;
        let mut end = start + 1;
        let mut branches = Vec::new();
        for _ in 0..if with_else { 2 } else { 1 } {
            self.t = start;
            self.ind = ind + 1;
            self.bump();
            let mut inner = pool.clone();
            let items = self.rng.below(3);
            self.seq(depth + 1, &mut inner, items);
            if with_result {
                let y = self.val(&inner);
                self.line(&format!("tor.yield {y} : i32"));
            }
            end = end.max(self.t + 1);
            branches.push(std::mem::take(&mut self.out));
        }
        self.ind = ind;
        self.out = saved;
        let (lhs, arrow) = match &res {
            Some(r) => (format!("{r} = "), " -> (i32)"),
            None => (String::new(), ""),
        };
        self.line(&format!(
            "{lhs}tor.if {c} on ({start} to {end}){arrow} then {{"
        ));
        self.out.push_str(&branches[0]);
        if let Some(e) = branches.get(1) {
            self.line("} else {");
            self.out.push_str(e);
        }
        self.line("}");
        self.t = end;
        self.bump();
        if let Some(r) = res {
            pool.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn generation_is_deterministic() {
        assert_eq!(super::generate(3, 7), super::generate(3, 7));
        assert_ne!(super::generate(3, 7), super::generate(3, 8));
        let piped = super::Options {
            pipelined_loops: true,
        };
        let p = super::generate_with(3, 7, piped);
        assert_eq!(p, super::generate_with(3, 7, piped));
        assert!((0..20).any(|s| super::generate_with(2, s, piped).contains("pipeline = true")));
    }
}
