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
pub(crate) fn lower_cover(
    g: &mut Aig,
    columns: &[Lit],
    planes: &[u8],
    rows: usize,
    on_set: bool,
) -> Lit {
    if rows == 1 && columns.len() <= SMALL {
        return single_cube(g, columns, planes).xor(!on_set);
    }
    if rows <= SMALL
        && columns.len() <= SMALL
        && let Some(f) = small_cover(g, columns, planes, rows)
    {
        return f.xor(!on_set);
    }
    let (vars, cubes) = to_cubes(columns, planes, rows);
    let f = lower_cubes(g, &vars, cubes);
    f.xor(!on_set)
}

/// The most columns (and rows) of the covers lowered without allocating.
const SMALL: usize = 8;

/// One cube of at most 8 literals (the common 2-input gate), without allocating; the same
/// structure as the general path (sorted literals, balanced AND).
fn single_cube(g: &mut Aig, columns: &[Lit], plane: &[u8]) -> Lit {
    let mut lits = [Lit::FALSE; SMALL];
    let mut n = 0;
    for (c, &ch) in plane.iter().enumerate() {
        let lit = match ch {
            b'1' => columns[c],
            b'0' => !columns[c],
            _ => continue,
        };
        if lit == Lit::FALSE {
            return Lit::FALSE;
        }
        if lit != Lit::TRUE {
            lits[n] = lit;
            n += 1;
        }
    }
    let lits = &mut lits[..n];
    lits.sort_unstable();
    let mut k = 0;
    for i in 0..lits.len() {
        if k > 0 && lits[k - 1] == lits[i] {
            continue;
        }
        if k > 0 && lits[k - 1] == !lits[i] {
            return Lit::FALSE;
        }
        lits[k] = lits[i];
        k += 1;
    }
    g.add_and_many(&lits[..k])
}

/// A cube of a small cover: sorted, distinct literal indices (as in [`Cube`]) and their count.
#[derive(Clone, Copy, Default)]
struct SmallCube {
    lits: [u8; SMALL],
    len: u8,
}

impl SmallCube {
    fn lits(&self) -> &[u8] {
        &self.lits[..self.len as usize]
    }
    fn mask(&self) -> u16 {
        self.lits().iter().fold(0, |m, &l| m | 1 << l)
    }
}

/// A cover of at most 8 columns and 8 rows (the multiplexers and small gates of mapped
/// netlists) on the stack, when no literal occurs in two of its cubes: then factoring finds
/// nothing, and the result is the general path's sum of products, built in the same order.
/// `None` (nothing built) when factoring may apply.
fn small_cover(g: &mut Aig, columns: &[Lit], planes: &[u8], rows: usize) -> Option<Lit> {
    let n = columns.len();
    let mut vars = [Lit::FALSE; SMALL];
    let mut nv = 0;
    for l in columns.iter().filter(|l| !l.is_const()) {
        vars[nv] = l.regular();
        nv += 1;
    }
    let vars = dedup_sorted(&mut vars[..nv]);
    let mut cubes = [SmallCube::default(); SMALL];
    let mut nc = 0;
    'rows: for r in 0..rows {
        let mut c = SmallCube::default();
        for (col, &ch) in planes[r * n..(r + 1) * n].iter().enumerate() {
            let lit = match ch {
                b'1' => columns[col],
                b'0' => !columns[col],
                _ => continue,
            };
            if lit == Lit::FALSE {
                continue 'rows;
            }
            if lit != Lit::TRUE {
                let k = vars.iter().position(|&v| v == lit.regular()).unwrap_or(0);
                c.lits[c.len as usize] = (k << 1) as u8 | lit.is_complemented() as u8;
                c.len += 1;
            }
        }
        let len = dedup_sorted(&mut c.lits[..c.len as usize]).len();
        c.len = len as u8;
        if c.lits().windows(2).any(|w| w[0] ^ 1 == w[1]) {
            continue;
        }
        cubes[nc] = c;
        nc += 1;
    }
    let cubes = &mut cubes[..nc];
    cubes.sort_unstable_by(|a, b| a.lits().cmp(b.lits()));
    let mut k = 0;
    for i in 0..cubes.len() {
        if k == 0 || cubes[k - 1].lits() != cubes[i].lits() {
            cubes[k] = cubes[i];
            k += 1;
        }
    }
    let mut cubes = &mut cubes[..k];
    if cubes.iter().any(|c| c.len == 0) {
        return Some(Lit::TRUE);
    }
    if cubes.len() > 1 {
        // Drop cubes containing another (shortest first, stable), then back to sorted order.
        cubes.sort_by_key(|c| c.len);
        let mut kept = 0;
        for i in 0..cubes.len() {
            let m = cubes[i].mask();
            if !cubes[..kept].iter().any(|c| c.mask() & m == c.mask()) {
                cubes[kept] = cubes[i];
                kept += 1;
            }
        }
        cubes = &mut cubes[..kept];
        cubes.sort_unstable_by(|a, b| a.lits().cmp(b.lits()));
    }
    if cubes.len() > 1 && vars.len() > 2 {
        let (mut once, mut twice) = (0u16, 0u16);
        for c in cubes.iter() {
            twice |= once & c.mask();
            once |= c.mask();
        }
        if twice != 0 {
            return None;
        }
    }
    let mut terms = [Lit::FALSE; SMALL];
    for (t, c) in terms.iter_mut().zip(cubes.iter()) {
        let mut lits = [Lit::FALSE; SMALL];
        for (x, &l) in lits.iter_mut().zip(c.lits()) {
            *x = vars[(l >> 1) as usize].xor(l & 1 == 1);
        }
        *t = g.add_and_many(&lits[..c.len as usize]);
    }
    let terms = &mut terms[..cubes.len()];
    terms.sort_unstable();
    Some(g.add_or_many(terms))
}

/// Sort and deduplicate `v` in place; the distinct prefix.
fn dedup_sorted<T: Ord + Copy>(v: &mut [T]) -> &mut [T] {
    v.sort_unstable();
    let mut k = 0;
    for i in 0..v.len() {
        if k == 0 || v[k - 1] != v[i] {
            v[k] = v[i];
            k += 1;
        }
    }
    &mut v[..k]
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

    /// The general path alone (cubes, containment, factoring), for comparison.
    fn general(g: &mut Aig, columns: &[Lit], planes: &[u8], rows: usize) -> Lit {
        let (vars, cubes) = to_cubes(columns, planes, rows);
        lower_cubes(g, &vars, cubes)
    }

    /// The stack path builds exactly the nodes of the general path, or declines before
    /// building anything: random small covers over inputs, constants and repeated fanins.
    #[test]
    fn small_covers_match_the_general_path() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let (mut built, mut declined) = (0, 0);
        for _ in 0..20_000 {
            let mut a = Aig::new("a");
            let ins: Vec<Lit> = (0..4).map(|i| a.add_input(format!("x{i}"))).collect();
            let x = a.add_and(ins[0], !ins[1]);
            let n = next(SMALL as u64 + 1) as usize;
            let rows = next(SMALL as u64 - 1) as usize + 2;
            let columns: Vec<Lit> = (0..n)
                .map(|_| match next(7) {
                    0 => Lit::TRUE,
                    1 => Lit::FALSE,
                    2 => !x,
                    k => ins[k as usize - 3].xor(next(2) == 1),
                })
                .collect();
            let planes: Vec<u8> = (0..n * rows).map(|_| b"01--"[next(4) as usize]).collect();
            let mut b = a.clone();
            let want = general(&mut a, &columns, &planes, rows);
            match small_cover(&mut b, &columns, &planes, rows) {
                Some(got) => {
                    assert_eq!(
                        (got, b.nodes()),
                        (want, a.nodes()),
                        "{columns:?} {planes:?}"
                    );
                    built += 1;
                }
                None => {
                    assert_eq!(b.and_count(), 1);
                    declined += 1;
                }
            }
        }
        assert!(built > 10_000 && declined > 1_000, "{built} {declined}");
    }

    #[test]
    fn constant_rows_without_columns() {
        assert_eq!(check(0, &["", ""], true), 0);
        let mut g = Aig::new("t");
        assert_eq!(lower_cover(&mut g, &[], b"", 3, true), Lit::TRUE);
        assert_eq!(lower_cover(&mut g, &[], b"", 2, false), Lit::FALSE);
    }
}
