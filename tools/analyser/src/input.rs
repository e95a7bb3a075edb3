//! Where a command's input comes from: hex on the command line or on standard input, or the
//! raw bytes of a file.

use crate::{Failure, Result};
use bytes::Bytes;
use std::io::Read;

pub const HELP: &str =
    "Hex, @FILE for a file's raw bytes, or - (the default) for hex on standard input";

/// The bytes `arg` stands for.
pub fn read(arg: Option<&str>) -> Result<Bytes> {
    match arg {
        Some(path) if path.starts_with('@') => read_file(&path[1..]),
        Some("-") | None => from_hex(&stdin()?),
        Some(hex) => from_hex(hex),
    }
}

/// The text `arg` stands for: itself, a file's contents, or standard input.
pub fn read_text(arg: Option<&str>) -> Result<String> {
    match arg {
        Some(path) if path.starts_with('@') => {
            std::fs::read_to_string(&path[1..]).map_err(|e| Failure(format!("{}: {e}", &path[1..])))
        }
        Some("-") | None => stdin(),
        Some(text) => Ok(text.to_owned()),
    }
}

pub fn read_file(path: &str) -> Result<Bytes> {
    std::fs::read(path)
        .map(Bytes::from)
        .map_err(|e| Failure(format!("{path}: {e}")))
}

fn stdin() -> Result<String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    Ok(text)
}

/// Bytes from hex; white space is ignored.
pub fn from_hex(text: &str) -> Result<Bytes> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(Failure(format!(
            "odd number of hex digits ({})",
            digits.len()
        )));
    }
    digits
        .chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| {
            let text = std::str::from_utf8(pair).unwrap_or("?");
            u8::from_str_radix(text, 16)
                .map_err(|_| Failure(format!("invalid hex `{text}` at digit {}", 2 * i)))
        })
        .collect::<Result<Vec<u8>>>()
        .map(Bytes::from)
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
