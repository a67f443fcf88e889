//! Building and running the firmware in `tests/firmware/` under QEMU, for the host tests that check it.
//!
//! Needs `qemu-system-arm` and `qemu-system-riscv32` (Debian: qemu-system-arm, qemu-system-misc) and
//! the rustup targets; `scripts/test-all.sh` installs them. A missing tool fails the test with a
//! message, it never skips.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A microcontroller target: the rustup target, the QEMU system, CPU and machine, and a description.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The rustup target triple.
    pub triple: &'static str,
    /// The QEMU system emulator.
    pub qemu: &'static str,
    /// QEMU's `-cpu`.
    pub cpu: &'static str,
    /// QEMU's `-machine`.
    pub machine: &'static str,
    /// The board and core, for messages and tables.
    pub board: &'static str,
    /// Whether the board has the RAM for the large sketches (a p = 14 HyperLogLog: 12 KB, encoded
    /// and decoded in place beside it), as the firmware's `big_ram` cfg (`build.rs`).
    pub big_ram: bool,
}

/// The four emulated boards, as in `tests/firmware/.cargo/config.toml`.
pub const TARGETS: [Target; 4] = [
    Target {
        triple: "thumbv6m-none-eabi",
        qemu: "qemu-system-arm",
        cpu: "cortex-m0",
        machine: "microbit",
        board: "microbit (Cortex-M0, 16 KB RAM)",
        big_ram: false,
    },
    Target {
        triple: "thumbv7m-none-eabi",
        qemu: "qemu-system-arm",
        cpu: "cortex-m3",
        machine: "lm3s6965evb",
        board: "lm3s6965evb (Cortex-M3, 64 KB RAM)",
        big_ram: true,
    },
    Target {
        triple: "thumbv7em-none-eabihf",
        qemu: "qemu-system-arm",
        cpu: "cortex-m4",
        machine: "mps2-an386",
        board: "mps2-an386 (Cortex-M4F)",
        big_ram: true,
    },
    Target {
        triple: "riscv32imac-unknown-none-elf",
        qemu: "qemu-system-riscv32",
        cpu: "sifive-e31",
        machine: "sifive_e",
        board: "sifive_e (RV32IMAC, 16 KB RAM)",
        big_ram: false,
    },
];

/// The firmware crate's folder.
#[must_use]
pub fn firmware_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("firmware")
}

/// Panics with an installation hint unless `tool` is on the `PATH`.
///
/// # Panics
/// If the tool is missing.
pub fn require(tool: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`{tool}` is not installed: run ./scripts/test-all.sh (it installs qemu-system-arm, \
         qemu-system-misc and binutils-arm-none-eabi) or install them by hand"
    );
}

/// `cargo <args>` inside the firmware crate (with a 10-minute timeout), with the host build's
/// environment removed.
///
/// # Panics
/// If cargo cannot be started.
#[must_use]
pub fn cargo_firmware(args: &[&str]) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new("timeout");
    cmd.arg("600")
        .arg(cargo)
        .args(args)
        .current_dir(firmware_dir());
    for var in [
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
    ] {
        cmd.env_remove(var);
    }
    cmd.output().expect("run cargo for the firmware")
}

/// Builds the firmware in release mode for `target` with only `features` (no default features) into
/// `target/qemu`, and returns the ELF's path.
///
/// # Panics
/// If the build fails (with cargo's output).
#[must_use]
pub fn build_firmware(target: &Target, features: &[&str]) -> PathBuf {
    let joined = features.join(",");
    let mut args = vec![
        "build",
        "--release",
        "--target",
        target.triple,
        "--target-dir",
        "target/qemu",
        "--no-default-features",
    ];
    if !features.is_empty() {
        args.extend(["--features", &joined]);
    }
    let out = cargo_firmware(&args);
    assert!(
        out.status.success(),
        "building the firmware for {} with [{joined}] failed:\n{}",
        target.triple,
        String::from_utf8_lossy(&out.stderr)
    );
    firmware_dir()
        .join("target/qemu")
        .join(target.triple)
        .join("release/sketch-firmware")
}

/// A QEMU command that runs `elf` on `target`'s board with semihosting (the firmware's output on
/// stdout, its exit code QEMU's). Add arguments before running it.
#[must_use]
pub fn qemu(target: &Target, elf: &Path) -> Command {
    require(target.qemu);
    let mut cmd = Command::new("timeout");
    cmd.args([
        "600",
        target.qemu,
        "-cpu",
        target.cpu,
        "-machine",
        target.machine,
        "-nographic",
        "-semihosting-config",
        "enable=on,target=native",
        "-kernel",
    ])
    .arg(elf);
    cmd
}
