//! Packs the `tui-demo` binary's relative relocations (`-z pack-relative-relocs`, DT_RELR) where
//! the C library can load them: Linux with glibc 2.36 or later, built for the machine it runs on.
//!
//! A position-independent executable carries a relocation for every pointer in its data (vtables,
//! string tables: 258 KB of `.rela.dyn` in tui-demo), which the dynamic loader reads at
//! start; packed, they take 3 KB. Peak resident memory of `--help` and of an empty report is
//! ~0.2 MiB lower (docs/demo.md, "Memory"). The executable stays position-independent (its address
//! is still randomised); only the link changes, and only for the binary.
//!
//! The packed form needs glibc's `GLIBC_ABI_DT_RELR` (2.36), which the linker records as a
//! requirement: an older glibc would refuse to start the binary, so the flag is only passed when
//! the host's glibc has it and the build is for the host (`getconf GNU_LIBC_VERSION`). Elsewhere
//! (other targets, cross builds, older glibc, musl) the binary links as before.
//!
//! It also hands the linker `link-order.txt` (`scripts/link-order.sh` writes it): the ~600
//! functions that `--help`, an empty report and the headless report run, in the order they first
//! run, to be placed together at the start of the code. The kernel maps code 64 KiB around each
//! page touched, so those functions, scattered over 2.7 MB of code, kept most of it resident:
//! placed together, `--help` peaks at 2.9 MiB instead of 3.7 and the report on the bench logs at
//! 4.2 and 5.3 MiB instead of 5.4 and 6.3. Only LLVM's lld takes a symbol ordering file (rustc
//! links with it by default on x86-64 Linux since 1.90; GNU ld, which 1.88 uses, rejects the
//! option), so the build script first links an empty program with the option, with the same
//! rustc, target, flags and linker, and passes it only if that works. The names are mangled, with
//! hashes that change with the toolchain, the dependencies' versions and features: names the
//! binary no longer has are skipped, so a stale file costs memory, not a failed build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    if native
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && host_glibc().is_some_and(|v| v >= (2, 36))
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=link-order.txt");
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("link-order.txt");
    if order.is_file() && linker_takes_symbol_order() {
        // -Xlinker rather than -Wl, which would split a path with a comma.
        for arg in [
            format!("--symbol-ordering-file={}", order.display()),
            "--no-warn-symbol-ordering".into(),
        ] {
            println!("cargo:rustc-link-arg-bins=-Xlinker");
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
}

/// Whether the linker rustc uses for this build accepts `--symbol-ordering-file` (lld): links an
/// empty program with it, as the binary will be linked (rustc, target, `RUSTFLAGS`, linker).
fn linker_takes_symbol_order() -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out.join("probe.rs");
    let empty = out.join("probe-order.txt");
    if std::fs::write(&source, "fn main() {}\n").is_err() || std::fs::write(&empty, "").is_err() {
        return false;
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut cmd = Command::new(rustc);
    cmd.arg("--crate-type=bin")
        .arg("--target")
        .arg(std::env::var("TARGET").unwrap_or_default())
        .arg("-o")
        .arg(out.join("probe"))
        .arg("-Clink-arg=-Xlinker")
        .arg(format!(
            "-Clink-arg=--symbol-ordering-file={}",
            empty.display()
        ));
    if let Ok(flags) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    }
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        cmd.arg(format!("-Clinker={linker}"));
    }
    cmd.arg(&source).output().is_ok_and(|o| o.status.success())
}

/// The host's glibc version, from `getconf GNU_LIBC_VERSION` ("glibc 2.36"), if it says.
fn host_glibc() -> Option<(u32, u32)> {
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
