//! A value the compiler cannot see through, for a view's walk to start the next element of an
//! array from a position it guessed (see `elements` in `view/leaf.rs`). One of the
//! crate's three modules with `unsafe` code (the others are `slot` and `ascii`).
//!
//! # Why
//!
//! The walk compares its guess with the position it reached and, when they are equal, carries
//! on from the guess: a value the processor has before the loads that gave the position. To the
//! compiler the two are the same value, and it replaces one by the other, which undoes the
//! point. [`opaque`] returns its argument through an empty `asm!` block, whose output the
//! compiler cannot relate to its input. `core::hint::black_box` does the same through memory:
//! it stores the value on the stack and loads it back, and with it the walk's time moved from
//! one run of the same program to the next, by more than the guess saves, where with the
//! register it does not (BENCHMARKS.md, "Borrowed views").
//!
//! # The invariant
//!
//! The block holds no instruction: it names one general-purpose register as its input and
//! output and leaves it as it is, so the value returned is the value given. It reads and writes
//! no memory, uses no stack and leaves the flags as they are, which `options` tells the
//! compiler. On targets other than x86-64 and AArch64, and under Miri, which runs no `asm!`,
//! the value goes through `black_box`. Tests compare input and output, natively and under Miri:
//! `cargo miri test -p kafka-wire-core --lib --features views opaque`.

/// `x`, where the compiler cannot tell that it is `x`.
#[inline(always)]
pub(crate) fn opaque(x: usize) -> usize {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
    {
        let mut x = x;
        // SAFETY: the template is a comment, so the block runs no instruction; it reads and
        // writes only the register that holds `x`, as the options say.
        unsafe {
            core::arch::asm!(
                "/* {0} */",
                inout(reg) x,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        x
    }
    #[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))))]
    {
        core::hint::black_box(x)
    }
}

#[cfg(test)]
mod tests {
    use super::opaque;

    #[test]
    fn gives_back_what_it_is_given() {
        for x in [0, 1, 41, 1 << 31, usize::MAX - 1, usize::MAX] {
            assert_eq!(opaque(x), x);
        }
        // A value the compiler cannot know either, and each of its neighbours.
        let n = std::env::args().count();
        for x in [n, n.wrapping_sub(1), n.wrapping_add(1)] {
            assert_eq!(opaque(x), x);
        }
    }
}
