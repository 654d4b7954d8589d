//! AIGER writer (binary `.aig` and ASCII `.aag`) and reader, format 20071012 + 1.9 resets.
//!
//! Writers take any [`Aig`]; when its variables are not in AIGER order (inputs, latches, then
//! ANDs, as the binary format requires) they write its [`Aig::cleanup`] copy. The symbol table
//! names every input, latch and output with its AIG name (the BLIF names after lowering); the
//! comment section holds the model name. Latch resets follow AIGER 1.9: init 0 writes no reset
//! field, init 1 writes `1`, inits 2 and 3 (don't care / unknown) write the latch's own literal
//! ("uninitialized"); so reading back turns 2 into 3.
//!
//! The reader accepts both formats, binary or ASCII ANDs in any order (ASCII), reset fields, and
//! bad-state properties (`B`, which ABC writes instead of outputs when a latch has a non-zero
//! init): those become outputs after the regular ones. Constraints, justice and fairness
//! sections are rejected.

use super::{Aig, Lit, Node};
use crate::blif::Init;
use crate::diag::{Diagnostic, Span};
use std::borrow::Cow;

fn ordered(g: &Aig) -> Cow<'_, Aig> {
    if g.is_aiger_ordered() {
        Cow::Borrowed(g)
    } else {
        Cow::Owned(g.cleanup())
    }
}

/// Output bytes, written without the formatting machinery (a few hundred thousand short
/// lines: integers and names).
struct Out(Vec<u8>);

impl Out {
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }

    fn byte(&mut self, b: u8) {
        self.0.push(b);
    }

    fn num(&mut self, x: u32) {
        self.bytes(itoa::Buffer::new().format(x).as_bytes());
    }

    /// `x` and a newline.
    fn line(&mut self, x: u32) {
        self.num(x);
        self.byte(b'\n');
    }

    fn varint(&mut self, mut x: u32) {
        while x >= 0x80 {
            self.byte((x & 0x7f) as u8 | 0x80);
            x >>= 7;
        }
        self.byte(x as u8);
    }

    /// The latch reset field (AIGER 1.9): none for 0, ` 1`, or the latch's own literal for
    /// don't care / unknown.
    fn reset(&mut self, l: &super::Latch) {
        match l.init {
            Init::Zero => {}
            Init::One => self.bytes(b" 1"),
            Init::DontCare | Init::Unknown => {
                self.byte(b' ');
                self.num(2 * l.var);
            }
        }
    }

    /// One line per latch (`current next reset?`, the current-state literal only in ASCII
    /// AIGER: binary AIGER implies it), then one per output.
    fn latches_and_outputs(&mut self, g: &Aig, ascii: bool) {
        for l in g.latches() {
            if ascii {
                self.num(2 * l.var);
                self.byte(b' ');
            }
            self.num(l.next.0);
            self.reset(l);
            self.byte(b'\n');
        }
        for p in g.outputs() {
            self.line(p.lit.0);
        }
    }

    fn header(&mut self, kind: &[u8], g: &Aig) {
        self.bytes(kind);
        let counts = [
            g.max_var(),
            g.inputs().len() as u32,
            g.latches().len() as u32,
        ];
        let counts = counts
            .into_iter()
            .chain([g.outputs().len() as u32, g.and_count() as u32]);
        for n in counts {
            self.byte(b' ');
            self.num(n);
        }
        self.byte(b'\n');
    }

    fn symbols_and_comment(&mut self, g: &Aig) {
        let names = |k: u8, names: &mut dyn Iterator<Item = &str>, out: &mut Out| {
            for (i, name) in names.enumerate() {
                out.byte(k);
                out.num(i as u32);
                out.byte(b' ');
                out.bytes(name.as_bytes());
                out.byte(b'\n');
            }
        };
        names(b'i', &mut g.inputs().iter().map(|p| p.name.as_str()), self);
        names(b'l', &mut g.latches().iter().map(|l| l.name.as_str()), self);
        names(b'o', &mut g.outputs().iter().map(|p| p.name.as_str()), self);
        self.bytes(b"c\n");
        self.bytes(g.name.as_bytes());
        self.byte(b'\n');
    }
}

fn digits(x: u32) -> usize {
    x.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// An upper bound on the bytes of the symbol table and comment, and of one ASCII line of up
/// to three literals, so that outputs are allocated once.
fn symbols_len(g: &Aig) -> usize {
    let ports = g.inputs().iter().chain(g.outputs()).map(|p| p.name.len());
    let names: usize = ports.chain(g.latches().iter().map(|l| l.name.len())).sum();
    let count = g.inputs().len() + g.latches().len() + g.outputs().len();
    names + count * (3 + digits(count as u32)) + g.name.len() + 3
}

/// Binary AIGER with a full symbol table.
pub fn write_aiger_binary(g: &Aig) -> Vec<u8> {
    let g = ordered(g);
    let lit = digits(2 * g.max_var() + 1) + 1;
    let heads = 64 + (g.latches().len() * 2 + g.outputs().len()) * lit;
    let mut out = Out(Vec::with_capacity(
        heads + g.and_count() * 4 + symbols_len(&g),
    ));
    out.header(b"aig", &g);
    out.latches_and_outputs(&g, false);
    for (v, n) in g.nodes().iter().enumerate() {
        if let Node::And(a, b) = n {
            let lhs = 2 * v as u32;
            out.varint(lhs - a.0);
            out.varint(a.0 - b.0);
        }
    }
    out.symbols_and_comment(&g);
    out.0
}

/// ASCII AIGER with a full symbol table.
pub fn write_aag(g: &Aig) -> String {
    let g = ordered(g);
    let lit = digits(2 * g.max_var() + 1) + 1;
    let lines = g.inputs().len() + g.latches().len() * 3 + g.outputs().len() + g.and_count() * 3;
    let mut out = Out(Vec::with_capacity(64 + lines * lit + symbols_len(&g)));
    out.header(b"aag", &g);
    for p in g.inputs() {
        out.line(p.lit.0);
    }
    out.latches_and_outputs(&g, true);
    for (v, n) in g.nodes().iter().enumerate() {
        if let Node::And(a, b) = n {
            out.num(2 * v as u32);
            out.byte(b' ');
            out.num(a.0);
            out.byte(b' ');
            out.line(b.0);
        }
    }
    out.symbols_and_comment(&g);
    // Only ASCII digits, spaces and the (UTF-8) names were written.
    String::from_utf8(out.0).unwrap_or_default()
}

/// Read binary or ASCII AIGER. Errors carry byte spans into `bytes`.
pub fn read_aiger(bytes: &[u8]) -> Result<Aig, Diagnostic> {
    Reader { b: bytes, pos: 0 }.read()
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

struct Header {
    binary: bool,
    m: u32,
    i: u32,
    l: u32,
    o: u32,
    a: u32,
    bad: u32,
}

impl Reader<'_> {
    fn err(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(Span::point(self.pos), msg)
    }

    fn line(&mut self) -> Result<&str, Diagnostic> {
        let start = self.pos;
        let Some(n) = self.b[start..].iter().position(|&c| c == b'\n') else {
            return Err(self.err("unexpected end of AIGER input"));
        };
        self.pos = start + n + 1;
        std::str::from_utf8(&self.b[start..start + n])
            .map_err(|_| Diagnostic::error(Span::point(start), "invalid UTF-8 in AIGER text line"))
    }

    fn numbers(&mut self) -> Result<Vec<u32>, Diagnostic> {
        let at = self.pos;
        let line = self.line()?;
        line.split_ascii_whitespace()
            .map(|t| t.parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| {
                Diagnostic::error(Span::point(at), format!("expected numbers, found `{line}`"))
            })
    }

    fn header(&mut self) -> Result<Header, Diagnostic> {
        let line = self.line()?.to_string();
        let mut t = line.split_ascii_whitespace();
        let binary = match t.next() {
            Some("aig") => true,
            Some("aag") => false,
            _ => {
                return Err(Diagnostic::error(
                    Span::point(0),
                    "not an AIGER file (expected `aig` or `aag`)",
                ));
            }
        };
        let n: Vec<u32> = t
            .map(|x| x.parse())
            .collect::<Result<_, _>>()
            .map_err(|_| Diagnostic::error(Span::point(0), "bad AIGER header"))?;
        if n.len() < 5 || n.len() > 9 {
            return Err(Diagnostic::error(Span::point(0), "bad AIGER header"));
        }
        if n.iter().skip(6).any(|&x| x != 0) {
            return Err(Diagnostic::error(
                Span::point(0),
                "AIGER constraints, justice and fairness are not supported",
            ));
        }
        let h = Header {
            binary,
            m: n[0],
            i: n[1],
            l: n[2],
            o: n[3],
            a: n[4],
            bad: n.get(5).copied().unwrap_or(0),
        };
        if binary && h.m != h.i + h.l + h.a {
            return Err(Diagnostic::error(
                Span::point(0),
                "binary AIGER needs M = I + L + A",
            ));
        }
        Ok(h)
    }

    fn read(mut self) -> Result<Aig, Diagnostic> {
        let h = self.header()?;
        let mut map: Vec<Option<Lit>> = vec![None; h.m as usize + 1];
        map[0] = Some(Lit::FALSE);
        let mut g = Aig::new("");
        let mut input_vars = Vec::new();
        for k in 0..h.i {
            let var = if h.binary {
                k + 1
            } else {
                self.one_literal()? / 2
            };
            input_vars.push(var);
        }
        let mut latch_lines = Vec::new();
        for k in 0..h.l {
            let nums = self.numbers()?;
            let (var, rest) = if h.binary {
                (h.i + k + 1, &nums[..])
            } else {
                (
                    nums.first().copied().unwrap_or(0) / 2,
                    nums.get(1..).unwrap_or(&[]),
                )
            };
            let Some(&next) = rest.first() else {
                return Err(self.err("latch line needs a next-state literal"));
            };
            let init = match rest.get(1) {
                None | Some(0) => Init::Zero,
                Some(1) => Init::One,
                Some(&x) if x == 2 * var => Init::Unknown,
                Some(_) => return Err(self.err("latch reset must be 0, 1 or the latch literal")),
            };
            latch_lines.push((var, next, init));
        }
        let mut outs = Vec::new();
        for _ in 0..h.o + h.bad {
            outs.push(self.one_literal()?);
        }
        let mut ands: Vec<(u32, u32, u32)> = Vec::with_capacity(h.a as usize);
        for k in 0..h.a {
            if h.binary {
                let lhs = 2 * (h.i + h.l + k + 1);
                let d0 = self.varint()?;
                let d1 = self.varint()?;
                let r0 = lhs
                    .checked_sub(d0)
                    .ok_or_else(|| self.err("bad AND delta"))?;
                let r1 = r0
                    .checked_sub(d1)
                    .ok_or_else(|| self.err("bad AND delta"))?;
                ands.push((lhs, r0, r1));
            } else {
                let n = self.numbers()?;
                let [lhs, r0, r1] = n[..] else {
                    return Err(self.err("AND line needs three literals"));
                };
                ands.push((lhs, r0, r1));
            }
        }
        let (names_i, names_l, names_o) = self.symbols(&h)?;
        // The symbol table's name of port `k`, else `<prefix><k>`.
        let name = |names: &[Option<String>], prefix: char, k: usize| {
            names
                .get(k)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("{prefix}{k}"))
        };
        let check = |v: u32, r: &Reader| {
            if v > h.m {
                Err(r.err(format!("variable {v} exceeds M = {}", h.m)))
            } else {
                Ok(())
            }
        };
        for (k, &var) in input_vars.iter().enumerate() {
            check(var, &self)?;
            map[var as usize] = Some(g.add_input(name(&names_i, 'i', k)));
        }
        for (k, &(var, _, init)) in latch_lines.iter().enumerate() {
            check(var, &self)?;
            map[var as usize] = Some(g.add_latch(name(&names_l, 'l', k), init));
        }
        let mut defs: Vec<Option<(u32, u32)>> = vec![None; h.m as usize + 1];
        for &(lhs, r0, r1) in &ands {
            check(lhs / 2, &self)?;
            check(r0 / 2, &self)?;
            check(r1 / 2, &self)?;
            defs[lhs as usize / 2] = Some((r0, r1));
        }
        for &(lhs, _, _) in &ands {
            build(&mut g, &mut map, &defs, lhs / 2).map_err(|m| self.err(m))?;
        }
        let lit = |l: u32, map: &[Option<Lit>]| {
            map.get(l as usize / 2)
                .copied()
                .flatten()
                .map(|x| x.xor(l & 1 == 1))
        };
        for (k, &(var, next, _)) in latch_lines.iter().enumerate() {
            let n = lit(next, &map).ok_or_else(|| self.err(format!("undefined literal {next}")))?;
            let q = map[var as usize].unwrap_or(Lit::FALSE);
            let _ = k;
            g.set_latch_next(q, n);
        }
        for (k, &o) in outs.iter().enumerate() {
            let n = lit(o, &map).ok_or_else(|| self.err(format!("undefined literal {o}")))?;
            g.add_output(name(&names_o, 'o', k), n);
        }
        Ok(g)
    }

    fn one_literal(&mut self) -> Result<u32, Diagnostic> {
        let n = self.numbers()?;
        n.first()
            .copied()
            .ok_or_else(|| self.err("expected a literal"))
    }

    fn varint(&mut self) -> Result<u32, Diagnostic> {
        let mut x: u32 = 0;
        let mut shift = 0;
        loop {
            let Some(&byte) = self.b.get(self.pos) else {
                return Err(self.err("unexpected end of binary AND section"));
            };
            self.pos += 1;
            if shift > 28 {
                return Err(self.err("AND delta too large"));
            }
            x |= ((byte & 0x7f) as u32) << shift;
            if byte & 0x80 == 0 {
                return Ok(x);
            }
            shift += 7;
        }
    }

    /// Input, latch and output (+ bad-state) names from the symbol table.
    #[allow(clippy::type_complexity)]
    fn symbols(
        &mut self,
        h: &Header,
    ) -> Result<
        (
            Vec<Option<String>>,
            Vec<Option<String>>,
            Vec<Option<String>>,
        ),
        Diagnostic,
    > {
        let mut i = vec![None; h.i as usize];
        let mut l = vec![None; h.l as usize];
        let mut o = vec![None; (h.o + h.bad) as usize];
        while self.pos < self.b.len() {
            let line = match self.line() {
                Ok(x) => x.to_string(),
                Err(_) => {
                    let rest = String::from_utf8_lossy(&self.b[self.pos..]).into_owned();
                    self.pos = self.b.len();
                    rest
                }
            };
            if line == "c" || line.is_empty() {
                break;
            }
            let Some((key, name)) = line.split_once(' ') else {
                continue;
            };
            let (kind, idx) = key.split_at(1);
            let Ok(idx) = idx.parse::<usize>() else {
                continue;
            };
            let slot = match kind {
                "i" => i.get_mut(idx),
                "l" => l.get_mut(idx),
                "o" => o.get_mut(idx),
                "b" => o.get_mut(h.o as usize + idx),
                _ => None,
            };
            if let Some(s) = slot {
                *s = Some(name.to_string());
            }
        }
        Ok((i, l, o))
    }
}

/// Define variable `var` (an AND) and everything it needs, iteratively.
fn build(
    g: &mut Aig,
    map: &mut [Option<Lit>],
    defs: &[Option<(u32, u32)>],
    var: u32,
) -> Result<(), String> {
    let mut stack = vec![(var, false)];
    while let Some((v, expanded)) = stack.pop() {
        if map[v as usize].is_some() {
            continue;
        }
        let Some((r0, r1)) = defs[v as usize] else {
            return Err(format!("variable {v} is used but never defined"));
        };
        let get = |l: u32, map: &[Option<Lit>]| map[l as usize / 2].map(|x| x.xor(l & 1 == 1));
        match (get(r0, map), get(r1, map)) {
            (Some(a), Some(b)) => map[v as usize] = Some(g.add_and(a, b)),
            _ if expanded => return Err(format!("AND cycle through variable {v}")),
            _ => {
                stack.push((v, true));
                stack.push((r0 / 2, false));
                stack.push((r1 / 2, false));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Aig {
        let mut g = Aig::new("m");
        let a = g.add_input("a[0]");
        let b = g.add_input("b c");
        let q = g.add_latch("q", Init::One);
        let r = g.add_latch("r", Init::Unknown);
        let x = g.add_and(a, !b);
        let y = g.add_and(x, q);
        g.set_latch_next(q, !y);
        g.set_latch_next(r, x);
        g.add_output("y", y);
        g.add_output("nb", !b);
        g.add_output("one", Lit::TRUE);
        g
    }

    #[test]
    fn binary_and_ascii_roundtrip() {
        let g = sample();
        for bytes in [write_aiger_binary(&g), write_aag(&g).into_bytes()] {
            let mut h = read_aiger(&bytes).unwrap();
            h.name = "m".into();
            assert_eq!(h, g);
        }
    }

    #[test]
    fn ascii_text() {
        let t = write_aag(&sample());
        assert!(
            t.starts_with("aag 6 2 2 3 2\n2\n4\n6 13 1\n8 10 8\n"),
            "{t}"
        );
        assert!(t.contains("i1 b c\nl0 q\nl1 r\no0 y\no1 nb\no2 one\nc\nm\n"));
    }
}
