//! Kafka's error codes as a type: [`ErrorCode`].

use core::fmt;

/// A Kafka error code, as the `error_code` fields of responses carry it.
///
/// Every code Kafka 4.4 defines is an associated constant named as Kafka spells it
/// ([`ErrorCode::NOT_LEADER_OR_FOLLOWER`]), with whether Kafka's clients retry it
/// ([`is_retriable`](Self::is_retriable)) and a short description of our own.
///
/// ```
/// use kafka_wire::ErrorCode;
///
/// let error_code: i16 = 51; // the `error_code` field of an EndTxn response
/// match ErrorCode::from(error_code) {
///     ErrorCode::NONE => println!("committed"),
///     ErrorCode::PRODUCER_FENCED => println!("another producer took over"),
///     code if code.is_retriable() => println!("retrying after {code}"),
///     code => return Err(code.into()),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Why a newtype with constants and not an enum
///
/// Kafka adds error codes in most releases, and a broker newer than this crate sends codes it
/// has never heard of. `ErrorCode` holds the `i16` itself, so:
///
/// - every `i16` has exactly one `ErrorCode`, and `ErrorCode::from(code).code() == code`:
///   a proxy passes on codes it does not know unchanged, and two values are equal exactly when
///   their codes are (an enum with an `Unknown(i16)` variant has two spellings of a code,
///   `Unknown(6)` and `NotLeaderOrFollower`, which compare unequal);
/// - a code this version does not name is an ordinary value ([`is_known`](Self::is_known) is
///   `false`). When a later version adds its constant, nothing that compiled before changes
///   meaning, whereas an `Unknown(136)` match arm would silently stop matching;
/// - the constants are patterns, so `match` works as with an enum; the `_` arm it needs is the
///   one a protocol whose codes keep growing needs anyway.
///
/// Codes this version does not know have no name and are not retriable, as in Kafka's Java
/// client, which reads an unknown code as `UNKNOWN_SERVER_ERROR`. The default is
/// [`ErrorCode::NONE`], the value a response's `error_code` field starts at.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct ErrorCode(i16);

/// What the table knows of one code.
struct Entry {
    code: ErrorCode,
    name: &'static str,
    retriable: bool,
    description: &'static str,
}

/// Declares the constants and the table from one list of `(code, NAME, retriable, description)`.
macro_rules! error_codes {
    ($( ($code:literal, $name:ident, $retriable:literal, $description:literal), )*) => {
        impl ErrorCode {
            $(
                #[doc = concat!("`", stringify!($code), "`: ", $description, ".")]
                #[doc = ""]
                #[doc = concat!("Retriable: ", stringify!($retriable), ".")]
                pub const $name: ErrorCode = ErrorCode($code);
            )*
        }

        /// Sorted by code, which [`ErrorCode::entry`] relies on (a unit test checks it).
        pub(super) static TABLE: &[Entry] = &[
            $(
                Entry {
                    code: ErrorCode::$name,
                    name: stringify!($name),
                    retriable: $retriable,
                    description: $description,
                },
            )*
        ];
    };
}

mod table;

use table::TABLE;

impl ErrorCode {
    /// The error code `code`, known to this version or not.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert_eq!(ErrorCode::new(16), ErrorCode::NOT_COORDINATOR);
    /// assert_eq!(ErrorCode::new(30_000).code(), 30_000);
    /// ```
    pub const fn new(code: i16) -> ErrorCode {
        ErrorCode(code)
    }

    /// The number on the wire.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert_eq!(ErrorCode::UNKNOWN_SERVER_ERROR.code(), -1);
    /// ```
    pub const fn code(self) -> i16 {
        self.0
    }

    /// Whether this is [`ErrorCode::NONE`], the code of success.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert!(ErrorCode::NONE.is_ok());
    /// assert!(!ErrorCode::NOT_COORDINATOR.is_ok());
    /// ```
    pub const fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// Whether this is any code but [`ErrorCode::NONE`], known or not.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert!(ErrorCode::new(-1).is_error());
    /// assert!(ErrorCode::new(30_000).is_error());
    /// assert!(!ErrorCode::NONE.is_error());
    /// ```
    pub const fn is_error(self) -> bool {
        !self.is_ok()
    }

    /// `Ok(())` for [`ErrorCode::NONE`], `Err(self)` for any other code, so that `?` can pass
    /// an error code on.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// fn committed(error_code: i16) -> Result<(), ErrorCode> {
    ///     ErrorCode::from(error_code).as_result()?;
    ///     Ok(())
    /// }
    /// assert_eq!(committed(0), Ok(()));
    /// assert_eq!(committed(47), Err(ErrorCode::INVALID_PRODUCER_EPOCH));
    /// ```
    pub const fn as_result(self) -> Result<(), ErrorCode> {
        if self.is_ok() {
            Ok(())
        } else {
            Err(self)
        }
    }

    /// Whether Kafka 4.4 defines this code.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert!(ErrorCode::new(6).is_known());
    /// assert!(!ErrorCode::new(-2).is_known());
    /// ```
    pub fn is_known(self) -> bool {
        self.entry().is_some()
    }

    /// Kafka's name for the code, in Kafka's spelling (`"NOT_LEADER_OR_FOLLOWER"`), or `None`
    /// for a code this version does not know.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert_eq!(ErrorCode::new(6).name(), Some("NOT_LEADER_OR_FOLLOWER"));
    /// assert_eq!(ErrorCode::new(30_000).name(), None);
    /// ```
    pub fn name(self) -> Option<&'static str> {
        self.entry().map(|e| e.name)
    }

    /// What the code means, in a few words, or `None` for a code this version does not know.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert!(ErrorCode::CONCURRENT_TRANSACTIONS.description().is_some());
    /// ```
    pub fn description(self) -> Option<&'static str> {
        self.entry().map(|e| e.description)
    }

    /// Whether Kafka's clients retry a request that failed with this code: Kafka marks these
    /// by making the code's exception a `RetriableException`. `false` for
    /// [`ErrorCode::NONE`] and for codes this version does not know.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert!(ErrorCode::NOT_LEADER_OR_FOLLOWER.is_retriable());
    /// assert!(!ErrorCode::PRODUCER_FENCED.is_retriable());
    /// ```
    pub fn is_retriable(self) -> bool {
        self.entry().is_some_and(|e| e.retriable)
    }

    /// The code Kafka calls `name`, spelled exactly as Kafka spells it.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// assert_eq!(ErrorCode::from_name("NOT_COORDINATOR"), Some(ErrorCode::NOT_COORDINATOR));
    /// assert_eq!(ErrorCode::from_name("not_coordinator"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        // A linear scan: names are looked up when reading configuration or logs, not per
        // response, and 137 short comparisons cost less than keeping a second index.
        TABLE.iter().find(|e| e.name == name).map(|e| e.code)
    }

    /// Every code Kafka 4.4 defines, [`ErrorCode::NONE`] included, in increasing order.
    ///
    /// ```
    /// use kafka_wire::ErrorCode;
    ///
    /// let retriable = ErrorCode::known().filter(|c| c.is_retriable()).count();
    /// assert!(retriable > 0 && retriable < ErrorCode::known().len());
    /// ```
    pub fn known() -> impl ExactSizeIterator<Item = ErrorCode> + DoubleEndedIterator + Clone {
        TABLE.iter().map(|e| e.code)
    }

    fn entry(self) -> Option<&'static Entry> {
        let i = TABLE.binary_search_by_key(&self, |e| e.code).ok()?;
        TABLE.get(i)
    }
}

impl From<i16> for ErrorCode {
    fn from(code: i16) -> ErrorCode {
        ErrorCode(code)
    }
}

impl From<ErrorCode> for i16 {
    fn from(code: ErrorCode) -> i16 {
        code.0
    }
}

/// Compares with a response's `error_code` field as it is:
/// `response.error_code == ErrorCode::NONE`.
impl PartialEq<i16> for ErrorCode {
    fn eq(&self, other: &i16) -> bool {
        self.0 == *other
    }
}

impl PartialEq<ErrorCode> for i16 {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == other.0
    }
}

/// `NOT_COORDINATOR(16)`, or `ErrorCode(30000)` for a code this version does not know.
impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name}({})", self.0),
            None => write!(f, "ErrorCode({})", self.0),
        }
    }
}

/// The name, the number and the description:
/// `NOT_COORDINATOR (16): this broker is not the coordinator of the group or transactional id`.
impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.entry() {
            Some(e) => write!(f, "{} ({}): {}", e.name, self.0, e.description),
            None => write!(f, "error code {}, which Kafka 4.4 does not define", self.0),
        }
    }
}

impl core::error::Error for ErrorCode {}

#[cfg(test)]
mod tests;
