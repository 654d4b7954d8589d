//! Sum-of-products covers → AIG logic, with algebraic factoring.
//!
//! A `.names` cover is first turned into cubes over AIG literals (columns whose fanin is a
//! constant drop out or kill the cube; repeated fanins merge; contradictory cubes vanish;
//! duplicate and single-cube-contained cubes are removed). Covers with more than one cube
//! and more than two distinct literals are factored with Brayton's GFACTOR (quick divisor =
//! a level-0 kernel, weak division, literal factoring as fallback), which is what keeps the
//! AND count at or below ABC's `strash` on multi-cube PLAs. ANDs and ORs of several
//! operands are built as balanced trees of sorted literals (sorted for structural sharing).

use super::{Aig, Lit};
use std::collections::{BTreeMap, BTreeSet};

/// A cube: sorted, distinct literal indices (`2 * k + negated` over the cover's own
/// variables `k`).
type Cube = Vec<u32>;

/// Lower one cover: `columns[i]` is the literal of fanin `i`, `planes` holds `rows` rows of
/// `columns.len()` bytes from `{0,1,-}`; the result is complemented for an OFF-set cover.
pub fn lower_cover(g: &mut Aig, columns: &[Lit], planes: &[u8], rows: usize, on_set: bool) -> Lit {
    let (vars, cubes) = to_cubes(columns, planes, rows);
    let f = lower_cubes(g, &vars, cubes);
    f.xor(!on_set)
}

/// The cover's cubes over distinct variables `vars` (regular AIG literals).
fn to_cubes(columns: &[Lit], planes: &[u8], rows: usize) -> (Vec<Lit>, Vec<Cube>) {
    let n = columns.len();
    let mut vars: Vec<Lit> = columns
        .iter()
        .filter(|l| !l.is_const())
        .map(|l| l.regular())
        .collect();
    vars.sort_unstable();
    vars.dedup();
    let index = |l: Lit| vars.binary_search(&l.regular()).unwrap_or(0) as u32;
    let mut cubes = Vec::with_capacity(rows);
    'rows: for r in 0..rows {
        let mut cube: Cube = Vec::new();
        for (c, &ch) in planes[r * n..(r + 1) * n].iter().enumerate() {
            let lit = match ch {
                b'1' => columns[c],
                b'0' => !columns[c],
                _ => continue,
            };
            if lit == Lit::FALSE {
                continue 'rows;
            }
            if lit == Lit::TRUE {
                continue;
            }
            cube.push(index(lit) << 1 | lit.is_complemented() as u32);
        }
        cube.sort_unstable();
        cube.dedup();
        if cube.windows(2).any(|w| w[0] ^ 1 == w[1]) {
            continue;
        }
        cubes.push(cube);
    }
    (vars, cubes)
}

fn lower_cubes(g: &mut Aig, vars: &[Lit], mut cubes: Vec<Cube>) -> Lit {
    cubes.sort_unstable();
    cubes.dedup();
    if cubes.iter().any(|c| c.is_empty()) {
        return Lit::TRUE;
    }
    if cubes.len() > 1 && cubes.len() <= 4000 {
        cubes = remove_contained(cubes);
    }
    let mut b = Builder { g, vars };
    if cubes.len() <= 1 || vars.len() <= 2 {
        return b.sop(&cubes);
    }
    b.gfactor(cubes)
}

/// Drop every cube that contains (as a literal superset) another cube.
fn remove_contained(mut cubes: Vec<Cube>) -> Vec<Cube> {
    cubes.sort_by_key(|c| c.len());
    let mut kept: Vec<Cube> = Vec::with_capacity(cubes.len());
    for c in cubes {
        if !kept.iter().any(|k| is_subset(k, &c)) {
            kept.push(c);
        }
    }
    kept.sort_unstable();
    kept
}

/// Whether sorted `a` ⊆ sorted `b`.
fn is_subset(a: &[u32], b: &[u32]) -> bool {
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

fn minus(c: &[u32], d: &[u32]) -> Cube {
    c.iter()
        .copied()
        .filter(|x| d.binary_search(x).is_err())
        .collect()
}

fn union(a: &[u32], b: &[u32]) -> Cube {
    let mut u: Cube = a.iter().chain(b).copied().collect();
    u.sort_unstable();
    u.dedup();
    u
}

/// Literal occurrence counts.
fn counts(f: &[Cube]) -> BTreeMap<u32, usize> {
    let mut m = BTreeMap::new();
    for c in f {
        for &l in c {
            *m.entry(l).or_insert(0) += 1;
        }
    }
    m
}

/// The most frequent literal occurring at least twice (smallest index on ties).
fn best_literal(f: &[Cube], within: Option<&[u32]>) -> Option<u32> {
    let mut best: Option<(usize, u32)> = None;
    for (l, n) in counts(f) {
        if within.is_some_and(|w| w.binary_search(&l).is_err()) {
            continue;
        }
        if best.is_none_or(|(bn, _)| n > bn) {
            best = Some((n, l));
        }
    }
    best.filter(|(n, _)| *n >= 2 || within.is_some())
        .map(|(_, l)| l)
}

fn common_cube(f: &[Cube]) -> Cube {
    let mut it = f.iter();
    let Some(first) = it.next() else {
        return Vec::new();
    };
    let mut c = first.clone();
    for x in it {
        c.retain(|l| x.binary_search(l).is_ok());
    }
    c
}

fn make_cube_free(f: Vec<Cube>) -> Vec<Cube> {
    let c = common_cube(&f);
    if c.is_empty() {
        return f;
    }
    f.into_iter().map(|x| minus(&x, &c)).collect()
}

/// Weak (algebraic) division: `f = d * q + r`.
fn divide(f: &[Cube], d: &[Cube]) -> (Vec<Cube>, Vec<Cube>) {
    let mut q: Option<BTreeSet<Cube>> = None;
    for di in d {
        let qi: BTreeSet<Cube> = f
            .iter()
            .filter(|c| is_subset(di, c))
            .map(|c| minus(c, di))
            .collect();
        q = Some(match q {
            None => qi,
            Some(prev) => prev.intersection(&qi).cloned().collect(),
        });
    }
    let q: Vec<Cube> = q.unwrap_or_default().into_iter().collect();
    let product: BTreeSet<Cube> = q
        .iter()
        .flat_map(|a| d.iter().map(|b| union(a, b)))
        .collect();
    let r = f
        .iter()
        .filter(|c| !product.contains(*c))
        .cloned()
        .collect();
    (q, r)
}

/// A level-0 kernel of `f`, or `None` when no literal occurs twice.
fn quick_divisor(f: &[Cube]) -> Option<Vec<Cube>> {
    best_literal(f, None)?;
    let mut g: Vec<Cube> = f.to_vec();
    while let Some(l) = best_literal(&g, None) {
        let q: Vec<Cube> = g
            .iter()
            .filter(|c| c.binary_search(&l).is_ok())
            .map(|c| minus(c, &[l]))
            .collect();
        g = make_cube_free(q);
    }
    Some(g)
}

struct Builder<'a> {
    g: &'a mut Aig,
    vars: &'a [Lit],
}

impl Builder<'_> {
    fn lit(&self, l: u32) -> Lit {
        self.vars[(l >> 1) as usize].xor(l & 1 == 1)
    }

    fn cube(&mut self, c: &[u32]) -> Lit {
        let mut lits: Vec<Lit> = c.iter().map(|&l| self.lit(l)).collect();
        lits.sort_unstable();
        self.g.add_and_many(&lits)
    }

    fn sop(&mut self, f: &[Cube]) -> Lit {
        let mut terms: Vec<Lit> = f.iter().map(|c| self.cube(c)).collect();
        terms.sort_unstable();
        self.g.add_or_many(&terms)
    }

    fn gfactor(&mut self, f: Vec<Cube>) -> Lit {
        if f.is_empty() {
            return Lit::FALSE;
        }
        if f.iter().any(|c| c.is_empty()) {
            return Lit::TRUE;
        }
        if f.len() == 1 {
            return self.cube(&f[0]);
        }
        let c = common_cube(&f);
        if !c.is_empty() {
            let rest = f.into_iter().map(|x| minus(&x, &c)).collect();
            let a = self.cube(&c);
            let b = self.gfactor(rest);
            return self.g.add_and(a, b);
        }
        let Some(d) = quick_divisor(&f) else {
            return self.sop(&f);
        };
        if d.len() < 2 || d.iter().any(|c| c.is_empty()) {
            return self.literal_factor(f, &[]);
        }
        let (q, _) = divide(&f, &d);
        if q.is_empty() || q.len() >= f.len() {
            return self.literal_factor(f, &[]);
        }
        if q.len() == 1 {
            return self.literal_factor(f, &q[0]);
        }
        let q = make_cube_free(q);
        let (d, r) = divide(&f, &q);
        if d.len() >= f.len() || q.iter().any(|c| c.is_empty()) {
            return self.literal_factor(f, &[]);
        }
        if d.is_empty() || !common_cube(&d).is_empty() {
            let cc = if d.is_empty() {
                q[0].clone()
            } else {
                common_cube(&d)
            };
            return self.literal_factor(f, &cc);
        }
        let fq = self.gfactor(q);
        let fd = self.gfactor(d);
        let fr = self.gfactor(r);
        let p = self.g.add_and(fq, fd);
        self.g.add_or(p, fr)
    }

    /// `f = l * (f / l) + rest` for the literal of `c` that occurs most often in `f`.
    fn literal_factor(&mut self, f: Vec<Cube>, c: &[u32]) -> Lit {
        let in_c = best_literal(&f, Some(c))
            .filter(|l| f.iter().filter(|x| x.binary_search(l).is_ok()).count() >= 2);
        let Some(l) = in_c.or_else(|| best_literal(&f, None)) else {
            return self.sop(&f);
        };
        let (with, rest): (Vec<Cube>, Vec<Cube>) =
            f.into_iter().partition(|x| x.binary_search(&l).is_ok());
        if with.len() < 2 {
            let mut all = with;
            all.extend(rest);
            return self.sop(&all);
        }
        let q = with.into_iter().map(|x| minus(&x, &[l])).collect();
        let a = self.lit(l);
        let fq = self.gfactor(q);
        let p = self.g.add_and(a, fq);
        let fr = self.gfactor(rest);
        self.g.add_or(p, fr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exhaustively compare the lowered cover with the cover's truth table.
    fn check(n: usize, rows: &[&str], on: bool) -> usize {
        let mut g = Aig::new("t");
        let cols: Vec<Lit> = (0..n).map(|i| g.add_input(format!("x{i}"))).collect();
        let planes: Vec<u8> = rows.iter().flat_map(|r| r.bytes()).collect();
        let f = lower_cover(&mut g, &cols, &planes, rows.len(), on);
        g.add_output("f", f);
        for m in 0..1u32 << n {
            let ins: Vec<bool> = (0..n).map(|i| m >> i & 1 == 1).collect();
            let hit = rows.iter().any(|r| {
                r.bytes()
                    .enumerate()
                    .all(|(i, c)| c == b'-' || (c == b'1') == ins[i])
            });
            assert_eq!(
                g.eval(&ins, &[]).0[0],
                hit == on,
                "minterm {m:b} of {rows:?}"
            );
        }
        g.cleanup().and_count()
    }

    #[test]
    fn factored_covers_are_correct() {
        assert_eq!(check(4, &["11--", "1-1-", "1--1"], true), 3);
        check(
            5,
            &["11-0-", "1-1-1", "01--1", "0-11-", "--111", "10000"],
            true,
        );
        check(3, &["--0", "-1-"], false);
        check(4, &["1111", "0000", "1010", "0101", "1100"], true);
        assert_eq!(check(2, &["--"], true), 0);
    }

    #[test]
    fn kernel_factoring_shares() {
        // ac + ad + bc + bd = (a + b)(c + d): 3 ANDs instead of 7.
        assert_eq!(check(4, &["1-1-", "1--1", "-11-", "-1-1"], true), 3);
    }
}
