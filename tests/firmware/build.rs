//! Picks the memory map of the QEMU machine that emulates the target.
use std::{env, fs, path::PathBuf};

fn main() {
    let target = env::var("TARGET").unwrap_or_default();
    let memory = if target.starts_with("riscv32") {
        "memory-sifive-e.x"
    } else if target.starts_with("thumbv6m") {
        "memory-microbit.x"
    } else if target.starts_with("thumbv7em") {
        "memory-mps2.x"
    } else {
        "memory-lm3s6965.x"
    };
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy(memory, out.join("memory.x")).expect("copy the memory map");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed={memory}");
    println!("cargo:rerun-if-changed=build.rs");
    // 16 KB of RAM on the micro:bit and the HiFive1 cannot hold a 12 KB HyperLogLog (p = 14) next
    // to the stack.
    println!("cargo::rustc-check-cfg=cfg(big_ram)");
    if !target.starts_with("thumbv6m") && !target.starts_with("riscv32") {
        println!("cargo:rustc-cfg=big_ram");
    }
}
