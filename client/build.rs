//! Compiles the build-system worker protocols (`proto/worker_protocol.proto` for Bazel,
//! `proto/buck2_worker.proto` for Buck2) with protox: no system `protoc`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
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
