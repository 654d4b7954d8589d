//! Signed remote entries: HMAC-SHA-256 (RFC 2104) over the entry blob (key ‖ entry),
//! appended to the blob. With a key configured, a blob whose tag does not verify under it
//! (unsigned, signed with another key, or re-keyed: moved to another key's action) is
//! rejected; only holders of the key can write entries the client accepts.

use sha2::{Digest as _, Sha256};

const BLOCK: usize = 64;
/// Length of the tag appended to a signed blob.
pub const TAG_LEN: usize = 32;

/// A signing key (longer keys are hashed first, as RFC 2104 says).
#[derive(Clone)]
pub struct SigningKey {
    block: [u8; BLOCK],
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

impl SigningKey {
    pub fn new(key: &[u8]) -> SigningKey {
        let mut block = [0u8; BLOCK];
        if key.len() > BLOCK {
            block[..32].copy_from_slice(&Sha256::digest(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        SigningKey { block }
    }

    /// HMAC-SHA-256 of `data`.
    pub fn tag(&self, data: &[u8]) -> [u8; TAG_LEN] {
        let pad = |b: u8| self.block.map(|k| k ^ b);
        let inner = Sha256::new()
            .chain_update(pad(0x36))
            .chain_update(data)
            .finalize();
        Sha256::new()
            .chain_update(pad(0x5c))
            .chain_update(inner)
            .finalize()
            .into()
    }

    /// `data` with its tag appended.
    pub fn sign(&self, mut data: Vec<u8>) -> Vec<u8> {
        let tag = self.tag(&data);
        data.extend_from_slice(&tag);
        data
    }

    /// The signed part of `blob` if its trailing tag verifies (constant-time comparison).
    pub fn verify<'b>(&self, blob: &'b [u8]) -> Option<&'b [u8]> {
        let (data, tag) = blob.split_at_checked(blob.len().checked_sub(TAG_LEN)?)?;
        let want = self.tag(data);
        let diff = want.iter().zip(tag).fold(0u8, |acc, (a, b)| acc | (a ^ b));
        (diff == 0).then_some(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        crate::hex(b)
    }

    #[test]
    fn rfc4231_vectors() {
        // Test case 2 ("Jefe") and test case 6 (a 131-byte key, hashed first).
        let t2 = SigningKey::new(b"Jefe").tag(b"what do ya want for nothing?");
        assert_eq!(
            hex(&t2),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let t6 = SigningKey::new(&[0xaa; 131])
            .tag(b"Test Using Larger Than Block-Size Key - Hash Key First");
        assert_eq!(
            hex(&t6),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn tampered_or_foreign_tags_do_not_verify() {
        let k = SigningKey::new(b"secret");
        let signed = k.sign(b"key and entry".to_vec());
        assert_eq!(k.verify(&signed), Some(&b"key and entry"[..]));
        let mut bad = signed.clone();
        bad[0] ^= 1;
        assert_eq!(k.verify(&bad), None);
        assert_eq!(SigningKey::new(b"other").verify(&signed), None);
        assert_eq!(k.verify(b"short"), None);
    }
}
