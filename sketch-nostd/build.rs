//! Sets `sketch_soft_divide` for targets whose 32-bit division is a library routine, not an
//! instruction: ARMv4–v6 cores (the Cortex-M0/M0+/M1 of `thumbv6m`), and RISC-V without the M
//! extension. The HyperLogLog estimators' long division then takes the body with the least code
//! (one quotient bit per step) instead of the one with the fewest instructions (four base-2^16
//! digits); both give the same bits, so nothing a sketch computes or encodes depends on it.
//! (Stable Rust has no `cfg` for an ARM core's divide instruction.)

fn main() {
    println!("cargo:rustc-check-cfg=cfg(sketch_soft_divide)");
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let old_arm = [
        "thumbv4", "thumbv5", "thumbv6", "armv4", "armv5", "armv6", "arm-",
    ]
    .iter()
    .any(|prefix| target.starts_with(prefix));
    let riscv_without_m = arch.starts_with("riscv") && !features.split(',').any(|f| f == "m");
    if old_arm || riscv_without_m {
        println!("cargo:rustc-cfg=sketch_soft_divide");
    }
}
