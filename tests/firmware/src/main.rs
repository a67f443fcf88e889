//! Runs every sketch family on an emulated microcontroller and prints each sketch's bytes as hex
//! over semihosting, for the host test to compare with the same workload run on the host.
//!
//! Output lines: `SKETCH <name> <hex>`, `STACK <family> <bytes>`, then `OK` or `FAIL <reason>`; the exit
//! code (through QEMU's semihosting exit) is 0 on success and 1 on failure. With the `cost` feature it
//! runs only the instruction-count segments of `cost.rs` instead; with `sizes` it prints only
//! `SIZE <family> <bytes>`, each family's sketch bytes on this target.
//!
//! Cortex-M (cortex-m-rt) and RISC-V (riscv-rt) differ only in the `arch` module: the entry point,
//! semihosting, the panic handler and the stack pointer.
#![no_std]
#![no_main]
// The `cost` firmware runs only cost.rs: the families are compiled but not called.
#![cfg_attr(feature = "cost", allow(dead_code, unused_imports))]

#[cfg(feature = "cost")]
mod cost;
#[cfg(feature = "prefilter")]
mod prefilter;
mod quantile;
mod workload;

use arch::{debug, entry, hprint, hprintln};
use workload::{Check, Sink};

/// Cortex-M: cortex-m-rt, cortex-m-semihosting, and a panic handler that exits with status 1.
#[cfg(target_arch = "arm")]
mod arch {
    pub use cortex_m_rt::entry;
    pub use cortex_m_semihosting::{debug, hprint, hprintln};
    use panic_semihosting as _;

    /// The current stack pointer.
    pub fn stack_pointer() -> usize {
        cortex_m::register::msp::read() as usize
    }
}

/// RISC-V: riscv-rt, riscv-semihosting, and a panic handler that prints and exits with status 1.
#[cfg(target_arch = "riscv32")]
mod arch {
    pub use riscv_rt::entry;
    pub use riscv_semihosting::{debug, hprint, hprintln};

    /// The current stack pointer.
    pub fn stack_pointer() -> usize {
        let sp: usize;
        // SAFETY: reads a register, touches no memory.
        unsafe { core::arch::asm!("mv {}, sp", out(reg) sp, options(nomem, nostack)) };
        sp
    }

    #[panic_handler]
    fn panic(info: &core::panic::PanicInfo) -> ! {
        hprintln!("{}", info);
        debug::exit(debug::EXIT_FAILURE);
        #[allow(clippy::empty_loop)]
        loop {}
    }
}

/// Prints sketches as `SKETCH <name> <hex>` lines, 32 bytes per semihosting call.
///
/// The printing is the firmware's, not the sketches' (a device would hand the bytes to a radio or a
/// UART), and its formatting and semihosting calls take ~350 B of stack on the Cortex-M0: more than
/// the send path they would be counted with. So the stack is measured around it: [`Sink::begin`]
/// takes the high-water mark so far, before anything is printed, and [`Sink::end`] paints the stack
/// again once the line is out, so the mark of the family ([`family`]) is the deepest of the marks
/// taken before each line and the high-water after the last one.
struct Semihosting {
    /// The deepest stack high-water mark taken before a line was printed.
    deepest: usize,
}

impl Sink for Semihosting {
    const RECEIVE: bool = cfg!(feature = "receive");

    // Not inlined: the baseline prints once too, so this code is in the baseline and in no column.
    #[inline(never)]
    fn begin(&mut self, name: &str) {
        self.deepest = self.deepest.max(stack::used());
        hprint!("SKETCH {} ", name);
    }

    #[inline(never)]
    fn bytes(&mut self, bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for chunk in bytes.chunks(32) {
            let mut buf = [0u8; 64];
            for (pair, b) in buf.chunks_exact_mut(2).zip(chunk) {
                pair[0] = HEX[usize::from(b >> 4)];
                pair[1] = HEX[usize::from(b & 0xf)];
            }
            let text = core::str::from_utf8(&buf[..2 * chunk.len()]).unwrap_or("??");
            hprint!("{}", text);
        }
    }

    #[inline(never)]
    fn end(&mut self) {
        hprintln!();
        stack::paint();
    }
}

/// Stack high-water mark, by painting the free stack with a pattern and finding the deepest word
/// overwritten. This is test instrumentation, not library code: the library itself has no `unsafe`.
mod stack {
    use crate::arch::stack_pointer;

    const PAINT: u32 = 0xDEAD_BEEF;

    extern "C" {
        /// The lowest address of the stack, from the runtime's linker script.
        #[cfg_attr(target_arch = "arm", link_name = "_stack_end")]
        #[cfg_attr(target_arch = "riscv32", link_name = "__estack")]
        static mut STACK_BOTTOM: u32;
        /// The highest address of the stack, where it starts (the same name in both runtimes).
        static _stack_start: u32;
    }

    fn stack_bottom() -> *mut u32 {
        core::ptr::addr_of_mut!(STACK_BOTTOM)
    }

    fn stack_top() -> usize {
        core::ptr::addr_of!(_stack_start) as usize
    }

    /// Paints from the bottom of the stack up to the current stack pointer: nothing below it is
    /// live (neither Arm's nor RISC-V's calling convention has a red zone), so a repaint between
    /// two measurements leaves no word of the painter's caller counted as used.
    pub fn paint() {
        let sp = stack_pointer();
        let mut p = stack_bottom();
        while (p as usize) < sp {
            // SAFETY: between the stack's lowest address and below the live frames: unused stack.
            unsafe { p.write_volatile(PAINT) };
            p = p.wrapping_add(1);
        }
    }

    /// Bytes between the top of the stack and the deepest overwritten word.
    pub fn used() -> usize {
        let sp = stack_pointer();
        let mut p = stack_bottom();
        // SAFETY: reads the painted region below the live frames.
        while (p as usize) < sp && unsafe { p.read_volatile() } == PAINT {
            p = p.wrapping_add(1);
        }
        stack_top() - p as usize
    }
}

/// Runs one family with a fresh stack measurement; with the `wire` feature it also encodes.
fn family(name: &str, run: fn(&mut Semihosting, bool) -> Check) -> Check {
    let mut sink = Semihosting { deepest: 0 };
    stack::paint();
    let result = run(&mut sink, cfg!(feature = "send"));
    let used = stack::used().max(sink.deepest);
    hprintln!("STACK {} {}", name, used as u32);
    result
}

/// How many of the operations of `workload::hll_ops` (listed in `workload::HLL_OPS`) the `hll-*`
/// features turn on.
#[allow(dead_code)] // unused without `hll-insert`
const HLL_OPS_ON: usize = cfg!(feature = "hll-insert") as usize
    + cfg!(feature = "hll-merge") as usize
    + cfg!(feature = "hll-estimate") as usize
    + cfg!(feature = "hll-bounds") as usize;

fn run_all() -> Check {
    // Every firmware, the one without any family too, paints and measures the stack and prints a
    // `STACK` line: the code of that (formatting, semihosting) is then in the baseline that family
    // sizes are measured against, on every target, and not counted as the first family's.
    // It prints one sketch line too (`SKETCH baseline 5a`, which the host ignores): the hex printing
    // is then in the baseline and in no family's send column.
    family("baseline", |sink, _| {
        sink.begin("baseline");
        sink.bytes(core::hint::black_box(&[0x5a]));
        sink.end();
        Ok(())
    })?;
    #[cfg(feature = "micro")]
    family("micro", workload::micro)?;
    #[cfg(feature = "bloom")]
    family("bloom", workload::bloom)?;
    #[cfg(feature = "countmin")]
    family("countmin", workload::countmin)?;
    #[cfg(feature = "hll")]
    family("hll", workload::hll)?;
    #[cfg(feature = "counting")]
    family("counting", workload::counting)?;
    #[cfg(feature = "cuckoo")]
    family("cuckoo", workload::cuckoo)?;
    #[cfg(feature = "cuckoo8")]
    family("cuckoo8", workload::cuckoo8)?;
    #[cfg(feature = "blocked")]
    family("blocked", workload::blocked)?;
    #[cfg(feature = "spacesaving")]
    family("spacesaving", workload::spacesaving)?;
    #[cfg(feature = "topk")]
    family("topk", workload::topk)?;
    #[cfg(feature = "quantile")]
    family("quantile", quantile::quantile)?;
    #[cfg(feature = "device-micro")]
    family("device-micro", workload::device_micro)?;
    #[cfg(feature = "device-bloom")]
    family("device-bloom", workload::device_bloom)?;
    #[cfg(feature = "device-countmin")]
    family("device-countmin", workload::device_countmin)?;
    #[cfg(feature = "device-hll")]
    family("device-hll", workload::device_hll)?;
    #[cfg(feature = "device-hll-full")]
    family("device-hll-full", workload::device_hll_full)?;
    #[cfg(feature = "hll-insert")]
    family("hll-ops", workload::hll_ops::<HLL_OPS_ON>)?;
    #[cfg(all(feature = "hll14", big_ram))]
    family("hll14", workload::hll14)?;
    #[cfg(feature = "prefilter")]
    family("prefilter", prefilter::prefilter)?;
    if cfg!(feature = "fail") {
        return Err("forced failure (feature `fail`)");
    }
    Ok(())
}

#[entry]
fn main() -> ! {
    // The instruction-count firmware runs only the measured segments.
    #[cfg(feature = "cost")]
    let result: Check = cost::run();
    // The sizes firmware prints the families' sketch bytes here (kept out of every measured
    // firmware, whose code and stack the printing would change).
    #[cfg(all(feature = "sizes", not(feature = "cost")))]
    let result: Check = {
        for (family, bytes) in workload::FAMILIES {
            hprintln!("SIZE {} {}", family, bytes as u32);
        }
        Ok(())
    };
    #[cfg(not(any(feature = "cost", feature = "sizes")))]
    let result = run_all();
    match result {
        Ok(()) => {
            hprintln!("OK");
            debug::exit(debug::EXIT_SUCCESS);
        }
        Err(reason) => {
            hprintln!("FAIL {}", reason);
            debug::exit(debug::EXIT_FAILURE);
        }
    }
    #[allow(clippy::empty_loop)]
    loop {}
}
