//! Compiles the build-system worker protocols (`proto/worker_protocol.proto` for Bazel,
//! `proto/buck2_worker.proto` for Buck2) with protox: no system `protoc`; links `kiln` with
//! packed relative relocations where the C library loads them; names the commit for
//! `kiln --version` (`KILN_GIT_COMMIT`, see `build/git_commit.rs`).

#[path = "build/git_commit.rs"]
mod git_commit;

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    pack_relative_relocations();
    let (commit, watch) = git_commit::git_commit(Path::new(env!("CARGO_MANIFEST_DIR")));
    println!("cargo:rustc-env=KILN_GIT_COMMIT={commit}");
    println!("cargo:rerun-if-env-changed=KILN_GIT_COMMIT");
    for f in watch {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let proto_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let files = [
        proto_dir.join("worker_protocol.proto"),
        proto_dir.join("buck2_worker.proto"),
    ];
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let fds = protox::compile(&files, [&proto_dir])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}

/// `kiln` is position-independent, so the loader relocates ~26,000 pointers at every start.
/// Listed one by one (`.rela.dyn`) they take 620 KB, read in full by every process; packed
/// (`DT_RELR`) they take 7 KB, which lowers each process's memory by ~0.7 MB and its start.
/// glibc loads them from 2.36 on (and refuses, rather than misloads, a binary that has them
/// where it is older); only native glibc builds are packed, where the build's own glibc
/// says it is recent enough. A linker that does not know the option ignores it.
fn pack_relative_relocations() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    let glibc = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if native && glibc && glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bin=kiln=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the glibc this build script runs on is `major.minor` or later.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn glibc_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: returns a pointer to a static NUL-terminated string.
    let v = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    let mut parts = v
        .to_str()
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse::<u32>());
    match (parts.next(), parts.next()) {
        (Some(Ok(a)), Some(Ok(b))) => (a, b) >= (major, minor),
        _ => false,
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn glibc_at_least(_major: u32, _minor: u32) -> bool {
    false
}
