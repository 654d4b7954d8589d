//! Compiles `proto/kiln.proto` with protox (pure Rust; no system `protoc`) and generates the
//! tonic client and server.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let file = proto_dir.join("kiln.proto");
    println!("cargo:rerun-if-changed={}", file.display());
    let fds = protox::compile([&file], [&proto_dir])?;
    tonic_prost_build::configure().compile_fds(fds)?;
    println!("cargo:rustc-env=KILN_BUILD_ID={}", build_id()?);
    Ok(())
}

/// A digest of the sources of every crate whose code can change a cached result (compiler,
/// cache, daemon): cache keys include it, so a rebuilt kiln never reads stale entries.
fn build_id() -> std::io::Result<String> {
    use std::hash::Hasher;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["compiler/src", "cache/src", "daemon/src", "proto"] {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        collect(&dir, &mut files)?;
    }
    files.sort();
    // FNV-1a over (path, contents), twice with different seeds: 128 bits.
    let mut a = Fnv(0xcbf2_9ce4_8422_2325);
    let mut b = Fnv(0x6c62_272e_07bb_0142);
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(f)?;
        for h in [&mut a, &mut b] {
            h.write(rel.as_bytes());
            h.write(&[0]);
            h.write(&bytes);
        }
    }
    Ok(format!(
        "{}-{:016x}{:016x}",
        env!("CARGO_PKG_VERSION"),
        a.finish(),
        b.finish()
    ))
}

struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &x in bytes {
            self.0 = (self.0 ^ x as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}
