//! Rocket custom CSRs under co-simulation: a program configures the accelerator with
//! `csrw` and reads its write-backs with `csrr` (tests/data/cosim/csr.c on
//! tests/data/aps/csr.mlir), the extension registering the design's CSR lanes with Spike.
//! Needs what `cosim.rs` needs (under CI, always there).

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;

const SPIKE: &str = "/opt/spike/bin/spike";

#[test]
fn csr_program_passes_on_spike() {
    let spike = Path::new(SPIKE).is_file();
    assert!(
        spike || !common::strict(),
        "Spike ({SPIKE}) is required under CI: scripts/setup.sh unpacks it from ../shared/tools/spike"
    );
    if !spike || !common::have_tool("verilator") || !common::have_tool("riscv64-unknown-elf-gcc") {
        eprintln!("skipping: no Spike, Verilator or RISC-V toolchain");
        return;
    }
    let d = cli::Daemon::new();
    for (xlen, march, mabi, isa) in [
        (32, "-march=rv32imac", "-mabi=ilp32", "rv32imac"),
        (64, "-march=rv64imac", "-mabi=lp64", "rv64imac"),
    ] {
        let elf = d.root().join(format!("csr{xlen}.elf"));
        let out = Command::new("riscv64-unknown-elf-gcc")
            .args([
                march,
                mabi,
                "-O2",
                "-mcmodel=medany",
                "--specs=picolibc.specs",
            ])
            .args(["--crt0=hosted", "-Wl,--defsym=__flash=0x80000000"])
            .args([
                "-Wl,--defsym=__flash_size=0x200000",
                "-Wl,--defsym=__ram=0x80200000",
            ])
            .arg("-Wl,--defsym=__ram_size=0x200000")
            .arg(common::data("cosim/csr.c"))
            .arg(common::data("cosim/htif.c"))
            .arg("-o")
            .arg(&elf)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let out = d
            .kiln_no_daemon()
            .arg("cosim")
            .arg(&elf)
            .arg(common::data("aps/csr.mlir"))
            .args(["--isa", isa, "--spike", SPIKE, "--timeout", "300"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{isa}: {out:?}");
        assert!(text.ends_with("the program exited with 0\n"), "{text}");
    }
}
