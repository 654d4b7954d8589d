//! A small, fast, non-cryptographic hasher (the Fx hash of rustc, with a final mix) for internal lookup tables
//! keyed by names and literal pairs. Only used for lookups, never for output order.

use std::hash::{BuildHasherDefault, Hasher};

const K: u64 = 0xf135_7aea_2e62_a9c5;

#[derive(Clone, Copy, Default)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf) ^ (rest.len() as u64) << 59);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    /// Finished with a murmur3 mix, so that the low bits (table index) depend on every
    /// input bit.
    #[inline]
    fn finish(&self) -> u64 {
        let mut x = self.hash;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub type FxHashSet<K> = std::collections::HashSet<K, FxBuild>;

/// Hash a string with [`FxHasher`].
pub fn hash_str(s: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

/// An interner of names into dense ids `0..n`, as an open-addressing table of 8-byte slots
/// (hash tag and id); names live in the caller's `Vec<String>`.
#[derive(Default)]
pub struct Interner {
    slots: Vec<u64>,
    len: usize,
}

impl Interner {
    pub fn with_capacity(n: usize) -> Interner {
        Interner {
            slots: vec![0; (n.max(8) * 2).next_power_of_two()],
            len: 0,
        }
    }

    pub fn clear(&mut self) {
        if self.len == 0 {
            return;
        }
        self.slots.iter_mut().for_each(|s| *s = 0);
        self.len = 0;
    }

    /// The id of `s`, appending it to `names` when new.
    pub fn intern(&mut self, s: &str, names: &mut Vec<String>) -> u32 {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(names);
        }
        let h = hash_str(s);
        let tag = h >> 32 << 32;
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let e = self.slots[i];
            if e == 0 {
                names.push(s.to_string());
                let id = (names.len() - 1) as u32;
                self.slots[i] = tag | (id as u64 + 1);
                self.len += 1;
                return id;
            }
            if e >> 32 << 32 == tag {
                let id = (e as u32).wrapping_sub(1);
                if names[id as usize] == s {
                    return id;
                }
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self, names: &[String]) {
        let size = (self.slots.len() * 2).max(16);
        let mut slots = vec![0u64; size];
        for &e in self.slots.iter().filter(|&&e| e != 0) {
            let id = (e as u32).wrapping_sub(1);
            let h = hash_str(&names[id as usize]);
            let mut i = h as usize & (size - 1);
            while slots[i] != 0 {
                i = (i + 1) & (size - 1);
            }
            slots[i] = e;
        }
        self.slots = slots;
    }
}
