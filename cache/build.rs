//! Compiles the REAPI subset under `proto/reapi/` (action cache, CAS, capabilities,
//! ByteStream) with protox: no system `protoc`. kiln is never the server: the server stubs
//! exist only in the crate's own test build (an in-process TLS server for the tier's tests).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto/reapi");
    let files = [
        root.join("build/bazel/remote/execution/v2/remote_execution.proto"),
        root.join("google/bytestream/bytestream.proto"),
        root.join("google/rpc/status.proto"),
    ];
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let fds = protox::compile(&files, [&root])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .server_mod_attribute(".", "#[cfg(test)]")
        .compile_fds(fds)?;
    Ok(())
}
