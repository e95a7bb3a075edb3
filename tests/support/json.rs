//! Values as JSON, in the form the golden-vector scripts write them, to compare field by field
//! what we decode with what an independent implementation encoded.

use bytes::Bytes;
use kafka_wire::view::{View, ViewIndex};
use kafka_wire::{Decode, Encode, KafkaString, Message, Records, UnknownTaggedFields, Uuid};
use serde_json::Value;
use std::cell::RefCell;
use std::fmt::Debug;

/// Checks that `M`'s views of `bytes`, from a slice and from `Bytes`, leniently and strictly,
/// convert to `decoded`, the value decoding `bytes` gave, and that a view from `Bytes` shares
/// its buffer. The views open into one index per thread, which holds what the messages checked
/// before recorded, as an index kept by a connection does.
pub fn views_read<M: Message + View + PartialEq + Debug>(
    decoded: &M,
    bytes: &[u8],
    version: i16,
) -> Result<(), String> {
    thread_local! {
        static INDEX: RefCell<ViewIndex> = const { RefCell::new(ViewIndex::new()) };
    }
    INDEX.with_borrow_mut(|index| views_read_in(decoded, bytes, version, index))
}

fn views_read_in<M: Message + View + PartialEq + Debug>(
    decoded: &M,
    bytes: &[u8],
    version: i16,
    index: &mut ViewIndex,
) -> Result<(), String> {
    let from_slice = M::view_in(bytes, version, index).map_err(|e| format!("view: {e}"))?;
    let owned = M::from_view(from_slice, bytes.into());
    if owned != *decoded {
        return Err(format!("view read {owned:?}\n   decode read {decoded:?}"));
    }
    let shared = Bytes::copy_from_slice(bytes);
    let view = M::view_in(&shared, version, index).map_err(|e| format!("view of Bytes: {e}"))?;
    let owned = M::from_view(view, (&shared).into());
    if owned != *decoded {
        return Err(format!(
            "view of Bytes read {owned:?}\n   decode read {decoded:?}"
        ));
    }
    let strict = M::decode_strict(shared.clone(), version);
    match (M::view_strict_in(bytes, version, index), strict) {
        (Ok(view), Ok(value)) if M::from_view(view.clone(), bytes.into()) == value => Ok(()),
        (Err(a), Err(b)) if a == b => Ok(()),
        (view, decoded) => Err(format!(
            "strict view {:?}\n   strict decode {decoded:?}",
            view.map(|v| M::from_view(v, bytes.into()))
        )),
    }
}

/// A value in the golden files' JSON form.
pub trait ToJson {
    fn to_json(&self) -> Value;
}

macro_rules! number {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
number!(bool, i8, i16, u16, i32, u32, i64, f64);

impl ToJson for KafkaString {
    fn to_json(&self) -> Value {
        Value::from(self.as_str())
    }
}

impl ToJson for Bytes {
    fn to_json(&self) -> Value {
        Value::from(crate::to_hex(self))
    }
}

impl ToJson for Records {
    fn to_json(&self) -> Value {
        Value::from(crate::to_hex(self.as_bytes()))
    }
}

impl ToJson for Uuid {
    fn to_json(&self) -> Value {
        Value::from(crate::to_hex(self.as_bytes()))
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: kafka_wire::int_array::Int + ToJson> ToJson for kafka_wire::IntArray<T> {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(|v| v.to_json()).collect())
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}

impl ToJson for UnknownTaggedFields {
    fn to_json(&self) -> Value {
        Value::Array(
            self.iter()
                .map(|f| {
                    Value::Array(vec![
                        Value::from(f.tag),
                        Value::from(crate::to_hex(&f.data)),
                    ])
                })
                .collect(),
        )
    }
}

/// What decoding a vector gave.
pub struct Checked {
    /// The decoded value as JSON.
    pub json: Value,
    /// The value encoded again.
    pub reencoded: Bytes,
    /// `encoded_len` of the value.
    pub encoded_len: usize,
}

/// Decodes `bytes` (all of them) as `M` at `version`, checks that its views read the same
/// value, and encodes the value again.
pub fn check<M: Message + View + ToJson + PartialEq + Debug>(
    bytes: &[u8],
    version: i16,
) -> Result<Checked, String> {
    let value = M::from_slice(bytes, version).map_err(|e| e.to_string())?;
    views_read(&value, bytes, version)?;
    Ok(Checked {
        json: value.to_json(),
        reencoded: value.encode_to_bytes(version).map_err(|e| e.to_string())?,
        encoded_len: value.encoded_len(version).map_err(|e| e.to_string())?,
    })
}

/// Every field of `expected` is in `ours` with the same value (the struct may have fields that
/// the version lacks, which the scripts leave out).
pub fn matches(expected: &Value, ours: &Value, path: &str) -> Result<(), String> {
    match (expected, ours) {
        (Value::Object(e), Value::Object(o)) => {
            for (k, ev) in e {
                let ov = o
                    .get(k)
                    .ok_or_else(|| format!("{path}.{k}: no such field"))?;
                matches(ev, ov, &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(o)) => {
            if e.len() != o.len() {
                return Err(format!(
                    "{path}: {} elements expected, {} decoded",
                    e.len(),
                    o.len()
                ));
            }
            for (i, (ev, ov)) in e.iter().zip(o).enumerate() {
                matches(ev, ov, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(o)) if e.is_f64() || o.is_f64() => {
            if e.as_f64() == o.as_f64() {
                Ok(())
            } else {
                Err(format!("{path}: expected {e}, decoded {o}"))
            }
        }
        (e, o) if e == o => Ok(()),
        (e, o) => Err(format!("{path}: expected {e}, decoded {o}")),
    }
}
