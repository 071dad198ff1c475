//! The floating-point environment a kernel runs in (seed 002): SSE's MXCSR
//! is set for the kernel and restored afterwards, so neither the
//! application's setting leaks into a kernel nor a kernel's into the thread.
//! Denormals are kept (the device reports `CL_FP_DENORM`) unless the
//! program asked for `-cl-denorms-are-zero`; rounding is to nearest.

/// Flush-to-zero (results) and denormals-are-zero (inputs).
const FTZ: u32 = 1 << 15;
const DAZ: u32 = 1 << 6;
/// The rounding-control field; 0 is round to nearest even.
const ROUNDING: u32 = 3 << 13;

fn read() -> u32 {
    let mut v: u32 = 0;
    // SAFETY: stmxcsr writes the 4 bytes at the given address.
    unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut v, options(nostack)) };
    v
}

fn write(v: u32) {
    // SAFETY: ldmxcsr reads 4 bytes; the values written only change
    // rounding and denormal handling (every exception stays masked as the
    // thread had it).
    unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &v, options(nostack, readonly)) };
}

/// Runs `f` with the kernel's floating-point environment.
pub fn with_kernel_environment<R>(flush_denormals: bool, f: impl FnOnce() -> R) -> R {
    let saved = read();
    let mut mode = saved & !(FTZ | DAZ | ROUNDING);
    if flush_denormals {
        mode |= FTZ | DAZ;
    }
    write(mode);
    let result = f();
    write(saved);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest positive denormal float times 1: kept or flushed. Not
    /// inlined, as a kernel is an opaque call: LLVM would otherwise move the
    /// multiply across the MXCSR writes, which it does not see as FP state.
    #[inline(never)]
    fn tiny_product() -> f32 {
        let tiny = std::hint::black_box(f32::from_bits(1));
        tiny * std::hint::black_box(1.0f32)
    }

    /// The control bits (the low six are sticky exception flags, which
    /// handling a denormal sets).
    fn control() -> u32 {
        read() & !0x3f
    }

    #[test]
    fn denormals_are_kept_or_flushed_and_the_thread_is_restored() {
        let before = control();
        assert_eq!(
            with_kernel_environment(false, tiny_product),
            f32::from_bits(1)
        );
        assert_eq!(with_kernel_environment(true, tiny_product), 0.0);
        assert_eq!(control(), before);
    }

    #[test]
    fn a_thread_setting_does_not_leak_into_kernels() {
        let before = read();
        write(before | FTZ | DAZ);
        assert_eq!(
            with_kernel_environment(false, tiny_product),
            f32::from_bits(1)
        );
        assert_eq!(control(), (before | FTZ | DAZ) & !0x3f);
        write(before);
    }
}
