//! What the mutation campaigns share (included with `#[path]`; not a test on its own): a
//! deterministic generator and the campaign's settings from the environment.
#![allow(dead_code)]

/// xorshift64*: deterministic for a seed.
pub struct Rng(pub u64);

impl Rng {
    /// The generator of case (or session) `n` of a campaign with `seed`: depends on both
    /// only.
    pub fn for_case(seed: u64, n: u64) -> Rng {
        let mixed =
            seed.wrapping_mul(0xd134_2543_de82_ef95) ^ (n + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut rng = Rng(mixed | 1);
        for _ in 0..4 {
            rng.next();
        }
        rng
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// The number in `$var`, else `default`.
pub fn env_or<T: std::str::FromStr>(var: &str, default: T) -> T {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The campaign's seed: `$KILN_MUTATION_SEED`, else a fixed one.
pub fn seed() -> u64 {
    env_or("KILN_MUTATION_SEED", 0x6b69_6c6e_2018)
}
