//! Text that a view reads again: bytes to `&str` without validating ASCII twice. One of the
//! crate's three modules with `unsafe` code (the others are `slot` and `opaque`).
//!
//! # Why
//!
//! A view hands out its strings as `&str` borrowed from the frame, so every accessor that
//! reads a string converts bytes to `&str`. Kafka's strings are short and almost always
//! ASCII: topic names, client ids, group ids. For those, `core::str::from_utf8` spends more
//! on its set-up than on the bytes, while `<[u8]>::is_ascii` checks a word at a time; the
//! safe way to turn bytes known to be ASCII into `&str` is `from_utf8` again, which is the
//! cost this module exists to avoid (BENCHMARKS.md, "Borrowed views").
//!
//! # The invariant
//!
//! [`to_str`] calls `from_utf8_unchecked` only on bytes for which `is_ascii` has just
//! returned true, in the same function: every ASCII byte sequence is valid UTF-8, so the
//! result is a valid `&str` whatever the caller passed. Everything else goes through
//! `from_utf8`. The soundness does not rest on the view's walk having validated the bytes
//! before.
//!
//! Its tests run under Miri: `cargo miri test -p kafka-wire-core --lib ascii`.

/// The bytes as text, `None` when they are not UTF-8; the same answer as
/// `core::str::from_utf8(bytes).ok()`, sooner for ASCII.
#[inline(always)]
pub(crate) fn to_str(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: `is_ascii` holds, and ASCII is valid UTF-8.
        Some(unsafe { core::str::from_utf8_unchecked(bytes) })
    } else {
        core::str::from_utf8(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::to_str;

    #[test]
    fn agrees_with_from_utf8() {
        let cases: [&[u8]; 8] = [
            b"",
            b"topic-0",
            b"a string long enough to be checked a word at a time, and more",
            "caf\u{e9} \u{1f980}".as_bytes(),
            b"\xff",
            b"ascii then \xc3",
            b"\x7f\x00\x01",
            b"\xe2\x82",
        ];
        for bytes in cases {
            assert_eq!(to_str(bytes), core::str::from_utf8(bytes).ok(), "{bytes:?}");
        }
        // Every byte value, first, last and on each side of a word's boundary.
        for b in 0..=255u8 {
            for at in [0, 7, 8, 16] {
                let mut v = vec![b'x'; 17];
                v[at] = b;
                assert_eq!(to_str(&v), core::str::from_utf8(&v).ok());
            }
        }
    }
}
