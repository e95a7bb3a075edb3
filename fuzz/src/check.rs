//! The properties every input is held to, and running one input under `catch_unwind` and the
//! counting allocator.

use crate::alloc_count::{Region, Usage};
use bytes::{Bytes, BytesMut};
use kafka_wire::view::walk_accepts;
use kafka_wire::{Decode, DecodeError, Encode, EncodeError, Message, View, ViewIndex};
use std::cell::RefCell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};

/// A property an input broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Property {
    /// The decoder (or the checks' encoder) panicked.
    Panic,
    /// One allocation above max(4 KiB, 64 × input length).
    AllocSingle,
    /// All allocations of one decode above 256 × input length + 64 KiB.
    AllocTotal,
    /// Records: more than the decompression cap + 512 KiB + 256 × input length held at once.
    AllocPeak,
    /// A decoded value does not encode, or does not decode back to itself.
    RoundTrip,
    /// A second encoding differs from the first.
    Reencode,
    /// `encoded_len` differs from the bytes written.
    EncodedLen,
    /// An error's byte offset is missing or past the end of the input.
    Offset,
    /// The lenient frame reader does not read what the strict one reads, but for the bytes
    /// after the body and ApiVersions at a version the set lacks.
    Lenient,
    /// A view disagrees with decoding: it opens where decoding fails or the other way round,
    /// fails with another error, reads another value, or allocates to open.
    View,
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Property::Panic => "panic",
            Property::AllocSingle => "alloc-single",
            Property::AllocTotal => "alloc-total",
            Property::AllocPeak => "alloc-peak",
            Property::RoundTrip => "round-trip",
            Property::Reencode => "re-encode",
            Property::EncodedLen => "encoded-len",
            Property::Offset => "error-offset",
            Property::Lenient => "lenient",
            Property::View => "view",
        })
    }
}

/// A broken property and what was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub property: Property,
    pub detail: String,
}

impl Violation {
    pub fn new(property: Property, detail: impl Into<String>) -> Self {
        Violation {
            property,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.property, self.detail)
    }
}

/// How an input that broke nothing fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It decoded, and the value passed the round-trip checks.
    Decoded,
    /// The decoder refused it with a well-formed error.
    Rejected,
}

/// The bounds of property 2; `extra` is added for decompressed output.
pub fn check_alloc(
    usage: Usage,
    input_len: usize,
    extra_single: usize,
    extra_total: usize,
) -> Result<(), Violation> {
    let single = (64 * input_len).max(4096) + extra_single;
    if usage.largest > single {
        return Err(Violation::new(
            Property::AllocSingle,
            format!("one allocation of {} bytes, bound {single}", usage.largest),
        ));
    }
    let total = 256 * input_len + 64 * 1024 + extra_total;
    if usage.total > total {
        return Err(Violation::new(
            Property::AllocTotal,
            format!("{} bytes allocated, bound {total}", usage.total),
        ));
    }
    Ok(())
}

/// Property 5 for a message decoder's error.
pub fn check_offset(err: &DecodeError, input_len: usize) -> Result<(), Violation> {
    match err.offset() {
        Some(offset) if offset <= input_len => Ok(()),
        Some(offset) => Err(Violation::new(
            Property::Offset,
            format!("offset {offset} past the input's {input_len} bytes: {err}"),
        )),
        None => Err(Violation::new(
            Property::Offset,
            format!("no offset: {err}"),
        )),
    }
}

/// The operations the round-trip checks need from one kind of value.
pub struct Codec<T, D, E, L>
where
    D: Fn(Bytes) -> Result<T, DecodeError>,
    E: Fn(&T, &mut BytesMut) -> Result<(), EncodeError>,
    L: Fn(&T) -> Result<usize, EncodeError>,
{
    pub decode: D,
    pub encode: E,
    pub encoded_len: L,
}

/// True when `value` equals itself: false for a value holding a NaN, whose round trip is then
/// judged by its bytes alone.
#[allow(clippy::eq_op)]
pub fn is_reflexive<T: PartialEq>(value: &T) -> bool {
    value == value
}

/// Properties 2 to 5 for a message decoder: decode with allocations counted, then check the
/// error or round-trip the value.
pub fn check_message<T, D, E, L>(
    input: &[u8],
    codec: &Codec<T, D, E, L>,
) -> Result<Outcome, Violation>
where
    T: PartialEq + fmt::Debug,
    D: Fn(Bytes) -> Result<T, DecodeError>,
    E: Fn(&T, &mut BytesMut) -> Result<(), EncodeError>,
    L: Fn(&T) -> Result<usize, EncodeError>,
{
    let bytes = Bytes::copy_from_slice(input);
    let region = Region::new();
    let decoded = (codec.decode)(bytes);
    let usage = region.usage();
    note_usage(usage);
    check_alloc(usage, input.len(), 0, 0)?;
    let value = match decoded {
        Ok(value) => value,
        Err(err) => {
            check_offset(&err, input.len())?;
            return Ok(Outcome::Rejected);
        }
    };
    round_trip(&value, codec)?;
    Ok(Outcome::Decoded)
}

/// Properties 2 to 5 for one message type at one version, and the differential check of its
/// views against decoding.
pub fn check_type<M>(input: &[u8], version: i16) -> Result<Outcome, Violation>
where
    M: Message + View + PartialEq + fmt::Debug,
{
    let outcome = check_message(
        input,
        &Codec {
            decode: |b: Bytes| M::decode_exact(b, version),
            encode: |v: &M, buf: &mut BytesMut| v.encode(buf, version),
            encoded_len: |v: &M| v.encoded_len(version),
        },
    )?;
    check_views::<M>(input, version, false)?;
    check_views::<M>(input, version, true)?;
    Ok(outcome)
}

/// The view property: `M`'s view of `input` (strict or not) opens exactly where decoding
/// succeeds, and its walk says so too; it then allocates nothing to open, reads every field
/// without a panic, and converts to decoding's value; where decoding fails, it fails with
/// the same error.
pub fn check_views<M>(input: &[u8], version: i16, strict: bool) -> Result<(), Violation>
where
    M: Message + View + PartialEq + fmt::Debug,
{
    let how = if strict { "strict" } else { "lenient" };
    let bytes = Bytes::copy_from_slice(input);
    let decoded = if strict {
        M::decode_strict(bytes, version)
    } else {
        M::decode_exact(bytes, version)
    };
    let walked = walk_accepts::<M>(input, version, strict);
    if walked != decoded.is_ok() {
        return Err(Violation::new(
            Property::View,
            format!("{how}: the walk accepts: {walked}; decoding: {decoded:?}"),
        ));
    }
    // Opening allocates nothing once the index has held this message: opened once to warm it,
    // the second opening into it is the one counted.
    let mut index = ViewIndex::new();
    let open = |index: &mut ViewIndex| {
        if strict {
            M::view_strict_in(input, version, index).map(|v| M::from_view(v, input.into()))
        } else {
            M::view_in(input, version, index).map(|v| M::from_view(v, input.into()))
        }
    };
    drop(open(&mut index));
    let region = Region::new();
    let viewed = if strict {
        M::view_strict_in(input, version, &mut index)
    } else {
        M::view_in(input, version, &mut index)
    };
    let usage = region.usage();
    let verdict = match (viewed, decoded) {
        (Ok(view), Ok(value)) => {
            if usage.count != 0 {
                return Err(Violation::new(
                    Property::View,
                    format!("{how}: opening the view made {} allocations", usage.count),
                ));
            }
            // Every accessor, all the way down, without allocating.
            let region = Region::new();
            let _ = std::io::Write::write_fmt(&mut std::io::sink(), format_args!("{view:?}"));
            let usage = region.usage();
            if usage.count != 0 {
                return Err(Violation::new(
                    Property::View,
                    format!("{how}: reading the view made {} allocations", usage.count),
                ));
            }
            let owned = M::from_view(view, input.into());
            if is_reflexive(&value) && owned != value {
                return Err(Violation::new(
                    Property::View,
                    format!("{how}: the view reads {owned:?}\ndecoding reads {value:?}"),
                ));
            }
            Ok(())
        }
        (Err(a), Err(b)) if a == b => Ok(()),
        (viewed, decoded) => Err(Violation::new(
            Property::View,
            format!(
                "{how}: the view gives {:?}\ndecoding gives {decoded:?}",
                viewed.map(|v| M::from_view(v, input.into()))
            ),
        )),
    };
    verdict
}

/// Property 3 (and 4, which value equality covers: unknown tagged fields are part of the value).
pub fn round_trip<T, D, E, L>(value: &T, codec: &Codec<T, D, E, L>) -> Result<(), Violation>
where
    T: PartialEq + fmt::Debug,
    D: Fn(Bytes) -> Result<T, DecodeError>,
    E: Fn(&T, &mut BytesMut) -> Result<(), EncodeError>,
    L: Fn(&T) -> Result<usize, EncodeError>,
{
    let mut first = BytesMut::new();
    (codec.encode)(value, &mut first).map_err(|e| {
        Violation::new(
            Property::RoundTrip,
            format!("a decoded value does not encode: {e}"),
        )
    })?;
    let first = first.freeze();
    let len = (codec.encoded_len)(value)
        .map_err(|e| Violation::new(Property::EncodedLen, format!("encoded_len failed: {e}")))?;
    if len != first.len() {
        return Err(Violation::new(
            Property::EncodedLen,
            format!("encoded_len {len}, encode wrote {}", first.len()),
        ));
    }
    let again = (codec.decode)(first.clone()).map_err(|e| {
        Violation::new(
            Property::RoundTrip,
            format!(
                "the encoding does not decode: {e}; encoding {}",
                hex(&first)
            ),
        )
    })?;
    if is_reflexive(value) && again != *value {
        return Err(Violation::new(
            Property::RoundTrip,
            format!("decoded {value:?}\nre-decoded {again:?}"),
        ));
    }
    let mut second = BytesMut::new();
    (codec.encode)(&again, &mut second).map_err(|e| {
        Violation::new(
            Property::RoundTrip,
            format!("re-decoded value does not encode: {e}"),
        )
    })?;
    if second != first {
        return Err(Violation::new(
            Property::Reencode,
            format!("first {}\nsecond {}", hex(&first), hex(&second)),
        ));
    }
    Ok(())
}

thread_local! {
    static LAST_USAGE: std::cell::Cell<Usage> = const { std::cell::Cell::new(Usage { count: 0, total: 0, largest: 0, peak: 0 }) };
}

/// Keeps what the decode of the current input allocated, for [`last_usage`].
pub fn note_usage(usage: Usage) {
    let _ = LAST_USAGE.try_with(|u| u.set(usage));
}

/// What the decode step of the last input run on this thread allocated (the round-trip checks
/// after it are not counted).
pub fn last_usage() -> Usage {
    LAST_USAGE
        .try_with(std::cell::Cell::get)
        .unwrap_or_default()
}

thread_local! {
    static PANIC_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the panic hook with one that keeps the message and location for [`guarded`]
/// instead of printing them.
pub fn quiet_panics() {
    panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let _ =
            PANIC_MESSAGE.try_with(|m| *m.borrow_mut() = Some(format!("{payload} at {location}")));
    }));
}

/// Runs `f`, turning a panic into a [`Property::Panic`] violation.
pub fn guarded(f: impl FnOnce() -> Result<Outcome, Violation>) -> Result<Outcome, Violation> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(_) => {
            let message = PANIC_MESSAGE
                .try_with(|m| m.borrow_mut().take())
                .ok()
                .flatten()
                .unwrap_or_else(|| "panicked".to_owned());
            Err(Violation::new(Property::Panic, message))
        }
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
