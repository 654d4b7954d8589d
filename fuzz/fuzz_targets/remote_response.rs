//! Fuzz the remote cache's response handling: an action result from the server, the blob it
//! names, the entry inside, and (signed mode) the entry's tag. Whatever a server sends must
//! be accepted only when it verifies, and never panic.
#![no_main]

use kiln_cache::remote::{self, sign::SigningKey};
use kiln_cache::Key;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first two bytes split the input into an action result and a blob.
    let (split, rest) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), rest),
        _ => return,
    };
    let (ac, blob) = rest.split_at(split.min(rest.len()));
    let key = Key::new("fuzz", "kind", &[b"input"]);
    let Ok(ar) = <remote::pb::reapi::ActionResult as prost::Message>::decode(ac) else {
        return;
    };
    let Ok(digest) = remote::entry_blob_digest(&ar) else {
        return;
    };
    let Ok(entry) = remote::verify_blob(&key, &digest, blob) else {
        return;
    };
    // Only a blob with exactly this digest gets here.
    assert_eq!(remote::blob_digest(blob).hash, digest.hash.to_ascii_lowercase());
    let _ = kiln_cache::codec::decode::<Vec<u8>>(key.as_bytes(), &entry);
    let k = SigningKey::new(b"fuzzing key, 16+ bytes");
    if let Some(signed) = k.verify(blob) {
        assert!(signed.len() + 32 == blob.len());
    }
});
