//! The errors of reading and writing messages: one vocabulary of kinds ([`ErrorKind`]), the
//! field path and, for reading, the byte offset.

use crate::{Compression, VersionRange};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// One step of the path from the outermost message to the failing field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Segment {
    Field {
        ty: &'static str,
        field: &'static str,
    },
    Index(usize),
}

/// Segments are pushed innermost first, on the error path only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Path {
    root: Option<&'static str>,
    segments: Vec<Segment>,
}

impl Path {
    fn is_empty(&self) -> bool {
        self.segments.is_empty() && self.root.is_none()
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outer_ty = self.segments.iter().rev().find_map(|s| match s {
            Segment::Field { ty, .. } => Some(*ty),
            Segment::Index(_) => None,
        });
        if let Some(root) = outer_ty.or(self.root) {
            f.write_str(root)?;
        }
        for segment in self.segments.iter().rev() {
            match segment {
                Segment::Field { field, .. } => write!(f, ".{field}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// What went wrong: one vocabulary for reading and writing, messages and record batches.
///
/// The error types say which way and where: [`DecodeError`] (reading a message: the field
/// path and the byte offset), [`EncodeError`] (writing a message or a record batch: the field
/// path) and `kafka_wire::records::RecordsError` (reading record batches: the batch, the record
/// and the byte offset). Each gives its kind with `kind()`, so that one `match` serves all
/// three. Kinds come in groups: those of both ways, those of reading, those only record
/// batches have when read, those of writing, and those only record batches have when written.
///
/// Kafka may give kafka-wire more to check: a `match` needs a `_` arm.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    // Reading and writing.
    /// The message, or the batch's magic, does not exist in this version.
    UnsupportedVersion {
        /// The version asked for.
        version: i16,
        /// The versions the message has.
        valid: VersionRange,
    },
    /// A null where the version does not allow one: read from the input, or held in a
    /// field to be written.
    UnexpectedNull {
        /// The version being read or written.
        version: i16,
    },
    /// A length past what its field allows: reading, a string declared longer than 32767
    /// bytes, the most any Kafka string may hold; writing, a string, bytes, array or value of a
    /// record batch longer than its length prefix or field can express.
    TooLong {
        /// The length declared or held (`usize::MAX` for one past it).
        length: usize,
        /// The largest length allowed.
        max: usize,
    },
    /// A codec whose cargo feature is not enabled in this build.
    CodecNotEnabled {
        /// The codec.
        compression: Compression,
    },
    /// An offset beyond `i64` (a base plus a delta), or an offset delta beyond `i32`.
    OffsetOverflow,
    /// A timestamp beyond `i64` (a base plus a delta), or a timestamp delta beyond what its
    /// field holds.
    TimestampOverflow,

    // Reading.
    /// The input ended inside a value.
    UnexpectedEof {
        /// Bytes the value needed.
        needed: usize,
        /// Bytes that were left.
        available: usize,
    },
    /// A length (of a string, bytes, records, or a value inside a record batch) larger than what
    /// is left of the input.
    LengthExceedsRemaining {
        /// The declared length.
        length: u64,
        /// Bytes that were left.
        remaining: usize,
    },
    /// An array count larger than what is left of the input could hold (every element takes at
    /// least one byte on the wire; a record of a batch, or a record header, takes more).
    CountExceedsRemaining {
        /// The declared element count.
        count: u64,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A length or count below -1.
    ///
    /// Kafka's Java reader takes any negative length of a nullable field as null, including
    /// -2 and below, and compact lengths and counts of 2^31 and above, which its `int`
    /// arithmetic makes negative. kafka-wire accepts only the -1 that every writer, Kafka's
    /// included, uses for null: no client writes the others, and a decoded null would not
    /// encode back to the bytes that were read. Compact values of 2^31 and above are refused
    /// as longer than a string may be or than the input is
    /// ([`TooLong`](Self::TooLong),
    /// [`LengthExceedsRemaining`](Self::LengthExceedsRemaining),
    /// [`CountExceedsRemaining`](Self::CountExceedsRemaining)).
    NegativeLength {
        /// The declared value.
        length: i64,
    },
    /// A string that is not UTF-8.
    ///
    /// Kafka's Java reader never refuses a string: it replaces what is not UTF-8 with U+FFFD.
    /// kafka-wire refuses it, since its strings are the bytes that were read, checked once and
    /// never copied, and a replaced string would encode to other bytes than were read. A
    /// client that sends, say, a Latin-1 client id reaches a Kafka broker but not a server
    /// built on kafka-wire.
    InvalidUtf8,
    /// A varint with a continuation bit on its last allowed byte (5th for 32 bits, 10th for 64).
    VarintTooLong,
    /// A varint whose value needs more bits than its type has. Kafka's Java reader drops
    /// those bits; kafka-wire refuses them rather than read another value than was written
    /// (see [`varint`](crate::varint)).
    VarintOverflow,
    /// Bytes left after a value that should have used them all.
    ///
    /// Kafka's broker and clients ignore bytes left after a request's or a response's body;
    /// [`frame::decode_request_lenient`](crate::frame::decode_request_lenient) and
    /// [`frame::decode_response_lenient`](crate::frame::decode_response_lenient) do the same
    /// and count them, and the strict readers ([`Decode::decode_exact`](crate::Decode::decode_exact),
    /// [`frame::decode_request`](crate::frame::decode_request), ...) refuse them with this.
    TrailingBytes {
        /// How many were left.
        count: usize,
    },
    /// A frame whose size is above the configured maximum.
    FrameTooLarge {
        /// The size the frame declares.
        size: usize,
        /// The maximum allowed.
        max: usize,
    },
    /// A frame naming an API key that the API set it is read into does not have (an API of
    /// Kafka's sets whose cargo feature is off is not in them).
    UnknownApiKey {
        /// The key read.
        key: i16,
    },
    /// Strict decoding: a varint encoded in more bytes than its value needs.
    NonMinimalVarint,
    /// Strict decoding: a tagged field whose tag is not above the one before it (a duplicate
    /// or out of order).
    TaggedFieldsOutOfOrder {
        /// The tag before.
        previous: u32,
        /// This tag.
        tag: u32,
    },
    /// A tagged field the struct does not know, in a struct with no place to keep it.
    UnknownTaggedField {
        /// Its tag.
        tag: u32,
    },
    /// A known tagged field whose value did not use exactly the bytes its size declared.
    ///
    /// Kafka's Java reader does not compare a known field's value with its declared size: it
    /// reads the value and goes on from where the value ended, so a size that disagrees makes
    /// it read the following tags from the wrong place, or read the value past its field.
    /// kafka-wire refuses the disagreement instead of guessing which of the two is right.
    TaggedFieldSize {
        /// Its tag.
        tag: u32,
        /// The declared size.
        declared: usize,
        /// Bytes the value used.
        used: usize,
    },

    // Reading record batches.
    /// A batch or message size below the smallest header of its magic.
    BatchTooSmall {
        /// The declared size (the bytes after the size field).
        size: i64,
        /// The smallest valid size.
        min: usize,
    },
    /// The stored checksum does not match the bytes.
    CrcMismatch {
        /// The checksum stored in the batch.
        expected: u32,
        /// The checksum of the bytes.
        actual: u32,
    },
    /// A magic byte other than 0, 1 or 2.
    UnsupportedMagic {
        /// The magic byte read.
        magic: i8,
    },
    /// Compression codec bits naming no codec (5 to 7), or a codec the magic cannot use.
    UnsupportedCompression {
        /// The codec bits.
        codec: u8,
    },
    /// Decompressed output longer than the reader's `DecodeLimits::max_decompressed`.
    DecompressionLimit {
        /// The limit in bytes.
        limit: usize,
    },
    /// Owned batches built from decompressed payloads (the payloads, and the records and headers
    /// made from them) would take more than the reader's `DecodeLimits::max_decompressed`
    /// bytes; read such input through the views instead, which hold one payload at a time.
    MemoryLimit {
        /// The limit in bytes.
        limit: usize,
    },
    /// The codec rejected the compressed bytes.
    DecompressionFailed {
        /// The codec.
        compression: Compression,
        /// The codec's description of the problem.
        message: String,
    },
    /// A record that did not use exactly the bytes its length declared.
    RecordSizeMismatch {
        /// The declared length.
        declared: usize,
        /// Bytes its fields used.
        used: usize,
    },
    /// A compressed legacy message without a value, or one inside another compressed message.
    InvalidWrapper,
    /// A control record whose key or value does not follow the control record layout.
    InvalidControlRecord,

    // Writing.
    /// A field that the version lacks holds a value other than its default, and the field is not
    /// `ignorable`: writing the message would silently drop it.
    NonDefaultField {
        /// The version being encoded.
        version: i16,
    },
    /// Tagged fields set on a struct in a version without tagged-field sections.
    TaggedFieldsInClassicVersion {
        /// The version being encoded.
        version: i16,
    },
    /// A frame's header names a different API than its body.
    HeaderMismatch {
        /// The API key in the header.
        header_key: i16,
        /// The API key of the body.
        body_key: i16,
    },

    // Writing record batches.
    /// The codec failed while compressing.
    CompressionFailed {
        /// The codec.
        compression: Compression,
        /// The codec's description of the problem.
        message: String,
    },
    /// Headers on a record of magic 0 or 1, which cannot carry them.
    HeadersInLegacy,
    /// A batch with no records where one is needed (a legacy set, a compressed legacy wrapper).
    EmptyBatch,
}

impl ErrorKind {
    /// What a message about this error adds after saying where it happened: how short the
    /// input was. For the errors of kafka-wire's own crates, which say where in their own
    /// terms.
    #[doc(hidden)]
    pub fn fmt_detail(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnexpectedEof { needed, available } => {
                write!(f, " (needed {needed}, {available} left)")
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnsupportedVersion { version, valid } => write!(
                f,
                "version {version} is not supported (valid versions: {valid})"
            ),
            Self::UnexpectedNull { version } => {
                write!(f, "null is not allowed at version {version}")
            }
            Self::TooLong { length, max } => {
                write!(f, "length {length} is over the maximum {max}")
            }
            Self::CodecNotEnabled { compression } => write!(
                f,
                "{compression} support is not enabled (cargo feature `{}`)",
                compression.name()
            ),
            Self::OffsetOverflow => f.write_str("offset out of range"),
            Self::TimestampOverflow => f.write_str("timestamp out of range"),
            Self::UnexpectedEof { .. } => f.write_str("unexpected end of input"),
            Self::LengthExceedsRemaining { length, remaining } => {
                write!(f, "length {length} exceeds the {remaining} bytes left")
            }
            Self::CountExceedsRemaining { count, remaining } => write!(
                f,
                "array count {count} exceeds what the {remaining} bytes left hold"
            ),
            Self::NegativeLength { length } => write!(f, "invalid length or count {length}"),
            Self::InvalidUtf8 => f.write_str("string is not valid UTF-8"),
            Self::VarintTooLong => f.write_str("varint is too long"),
            Self::VarintOverflow => f.write_str("varint overflows its type"),
            Self::TrailingBytes { count } => write!(f, "{count} bytes left over"),
            Self::FrameTooLarge { size, max } => {
                write!(f, "frame size {size} is above the maximum {max}")
            }
            Self::UnknownApiKey { key } => write!(f, "unknown API key {key}"),
            Self::NonMinimalVarint => f.write_str("varint longer than its value needs (strict)"),
            Self::TaggedFieldsOutOfOrder { previous, tag } => write!(
                f,
                "tagged field {tag} after {previous}: tags must increase (strict)"
            ),
            Self::UnknownTaggedField { tag } => write!(
                f,
                "unknown tagged field {tag} in a struct that cannot keep it"
            ),
            Self::TaggedFieldSize {
                tag,
                declared,
                used,
            } => write!(
                f,
                "tagged field {tag} declares {declared} bytes but its value used {used}"
            ),
            Self::BatchTooSmall { size, min } => {
                write!(f, "size {size} is below the minimum {min}")
            }
            Self::CrcMismatch { expected, actual } => write!(
                f,
                "checksum {actual:#010x} does not match the stored {expected:#010x}"
            ),
            Self::UnsupportedMagic { magic } => write!(f, "unsupported magic {magic}"),
            Self::UnsupportedCompression { codec } => {
                write!(f, "unsupported compression codec {codec}")
            }
            Self::DecompressionLimit { limit } => {
                write!(f, "decompressed data exceeds the limit of {limit} bytes")
            }
            Self::MemoryLimit { limit } => write!(
                f,
                "owned records built from decompressed data exceed the limit of {limit} bytes"
            ),
            Self::DecompressionFailed {
                compression,
                message,
            } => write!(f, "{compression} decompression failed: {message}"),
            Self::RecordSizeMismatch { declared, used } => write!(
                f,
                "record declares {declared} bytes but its fields use {used}"
            ),
            Self::InvalidWrapper => f.write_str("invalid compressed wrapper message"),
            Self::InvalidControlRecord => f.write_str("invalid control record"),
            Self::NonDefaultField { version } => write!(
                f,
                "holds a non-default value but does not exist at version {version}"
            ),
            Self::TaggedFieldsInClassicVersion { version } => write!(
                f,
                "tagged fields are set but version {version} cannot carry them"
            ),
            Self::HeaderMismatch {
                header_key,
                body_key,
            } => write!(
                f,
                "header names API key {header_key} but the body is API key {body_key}"
            ),
            Self::CompressionFailed {
                compression,
                message,
            } => write!(f, "{compression} compression failed: {message}"),
            Self::HeadersInLegacy => f.write_str("magic 0 and 1 records cannot carry headers"),
            Self::EmptyBatch => f.write_str("batch has no records"),
        }
    }
}

/// Where a decoding error happened.
///
/// Users see one measure, [`DecodeError::offset`]: bytes from the start of the input they gave.
/// A decoder reading a `Buf` knows only how much of its input is left, so an error starts as
/// [`Left`](Self::Left) and becomes [`At`](Self::At) when it leaves the outermost decoder, which
/// knows the input's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Position {
    /// Bytes of the input left at the failing point.
    Left(usize),
    /// The offset from the start of the input.
    At(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct DecodeInner {
    kind: ErrorKind,
    position: Position,
    path: Path,
}

/// A decoding failure: its [kind](ErrorKind), the field path and the byte offset.
///
/// ```
/// use kafka_wire::messages::WriteTxnMarkersRequest;
/// use kafka_wire::{Decode, ErrorKind};
///
/// // One marker announced, then the input stops inside its producer id.
/// let err = WriteTxnMarkersRequest::decode_exact(&[0x02, 0x00, 0x00][..], 1).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::UnexpectedEof { needed: 8, available: 2 }));
/// assert_eq!(err.path(), "WriteTxnMarkersRequest.markers[0].producer_id");
/// assert_eq!(err.offset(), Some(1));
/// assert_eq!(
///     err.to_string(),
///     "WriteTxnMarkersRequest.markers[0].producer_id: unexpected end of input at byte 1 (needed 8, 2 left)"
/// );
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeInner>);

impl DecodeError {
    /// An error of `kind` at the point where `remaining` bytes of the current input were left.
    #[cold]
    #[inline(never)]
    pub fn new(kind: ErrorKind, remaining: usize) -> Self {
        Self::with_position(kind, Position::Left(remaining))
    }

    /// An error of `kind` at `offset` bytes from the start of the input.
    #[cold]
    #[inline(never)]
    pub(crate) fn at(kind: ErrorKind, offset: usize) -> Self {
        Self::with_position(kind, Position::At(offset))
    }

    fn with_position(kind: ErrorKind, position: Position) -> Self {
        DecodeError(Box::new(DecodeInner {
            kind,
            position,
            path: Path::default(),
        }))
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn eof(needed: usize, available: usize) -> Self {
        Self::new(ErrorKind::UnexpectedEof { needed, available }, available)
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The byte offset of the failing value in the input given to
    /// [`Decode::decode`](crate::Decode::decode), once the error has left it.
    pub fn offset(&self) -> Option<usize> {
        match self.0.position {
            Position::At(offset) => Some(offset),
            Position::Left(_) => None,
        }
    }

    /// Re-bases the error from a sub-slice onto its parent input, of which `after` bytes follow
    /// the sub-slice.
    #[cold]
    pub(crate) fn behind(mut self, after: usize) -> Self {
        if let Position::Left(left) = &mut self.0.position {
            *left = left.saturating_add(after);
        }
        self
    }

    /// Fixes the offset, given the length of the whole input.
    #[cold]
    pub(crate) fn located(mut self, input_len: usize) -> Self {
        if let Position::Left(left) = self.0.position {
            self.0.position = Position::At(input_len.saturating_sub(left));
        }
        self
    }

    /// Moves the offset `by` bytes on, for an input that started `by` bytes into a larger one.
    #[cold]
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        if let Position::At(offset) = &mut self.0.position {
            *offset = offset.saturating_add(by);
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.0;
        if !inner.path.is_empty() {
            write!(f, "{}: ", inner.path)?;
        }
        write!(f, "{}", inner.kind)?;
        match inner.position {
            Position::At(offset) => write!(f, " at byte {offset}")?,
            Position::Left(left) => write!(f, " with {left} bytes left")?,
        }
        inner.kind.fmt_detail(f)
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("kind", &self.0.kind)
            .field("path", &format_args!("{}", self.0.path))
            .field("offset", &self.offset())
            .finish()
    }
}

impl core::error::Error for DecodeError {}

#[derive(Clone, Debug, PartialEq, Eq)]
struct EncodeInner {
    kind: ErrorKind,
    path: Path,
}

/// An encoding failure: its [kind](ErrorKind) and the field path.
///
/// ```
/// use kafka_wire::messages::write_txn_markers_request::{WritableTxnMarker, WriteTxnMarkersRequest};
/// use kafka_wire::{Encode, ErrorKind, RawTaggedField};
///
/// // Version 3 does not exist.
/// let request = WriteTxnMarkersRequest::default();
/// let err = request.encoded_len(3).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::UnsupportedVersion { version: 3, .. }));
///
/// // Version 0 has no tagged-field section to carry an unknown tag in.
/// let mut marker = WritableTxnMarker::default();
/// marker.unknown_tagged_fields.push(RawTaggedField { tag: 4, data: bytes::Bytes::new() });
/// let request = WriteTxnMarkersRequest::default().with_markers(vec![marker]);
/// let err = request.encode_to_bytes(0).unwrap_err();
/// assert_eq!(err.to_string(), "WriteTxnMarkersRequest.markers[0].unknown_tagged_fields: \
///     tagged fields are set but version 0 cannot carry them");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct EncodeError(Box<EncodeInner>);

impl EncodeError {
    /// An error of `kind` with an empty path.
    #[cold]
    #[inline(never)]
    pub fn new(kind: ErrorKind) -> Self {
        EncodeError(Box::new(EncodeInner {
            kind,
            path: Path::default(),
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.path.is_empty() {
            write!(f, "{}: ", self.0.path)?;
        }
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodeError")
            .field("kind", &self.0.kind)
            .field("path", &format_args!("{}", self.0.path))
            .finish()
    }
}

impl core::error::Error for EncodeError {}

impl From<ErrorKind> for EncodeError {
    fn from(kind: ErrorKind) -> Self {
        EncodeError::new(kind)
    }
}

/// The path methods, the same for both error types; generated code calls them only on the
/// error path, hence `#[cold]`.
macro_rules! path_methods {
    ($ty:ident, $example:literal) => {
        impl $ty {
            #[doc = concat!("The field path, such as `", $example, "`; empty when the failure is not inside a field.")]
            pub fn path(&self) -> alloc::string::String {
                use alloc::string::ToString;
                self.0.path.to_string()
            }

            /// Adds the field `ty.field` as the next outer step of the path.
            #[cold]
            #[inline(never)]
            pub fn in_field(mut self, ty: &'static str, field: &'static str) -> Self {
                self.0.path.segments.push(Segment::Field { ty, field });
                self
            }

            /// Adds the array index `index` as the next outer step of the path.
            #[cold]
            #[inline(never)]
            pub fn at_index(mut self, index: usize) -> Self {
                self.0.path.segments.push(Segment::Index(index));
                self
            }

            /// Names the outermost message, for errors that happen before any field.
            #[cold]
            pub(crate) fn in_message(mut self, name: &'static str) -> Self {
                self.0.path.root.get_or_insert(name);
                self
            }
        }
    };
}

path_methods!(
    DecodeError,
    "WriteTxnMarkersRequest.markers[3].topics[0].name"
);
path_methods!(
    EncodeError,
    "WriteTxnMarkersRequest.markers[0].transaction_version"
);
