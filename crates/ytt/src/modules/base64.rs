//! `@ytt:base64`: `encode(text)` and `decode(text)` with ytt's options
//! `url=True` (the URL alphabet), `raw=True` (no padding) and
//! `strict=True` (unused bits must be zero); other keyword arguments are
//! ignored, as ytt ignores them. Decoding is Go's `encoding/base64`: line
//! breaks are skipped, and errors name the offending byte's offset.

use super::context::Context;
use super::native::{Call, Failure, Outcome, as_str, native};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "base64",
        &[
            ("encode", "base64.encode", native!(encode)),
            ("decode", "base64.decode", native!(decode)),
        ],
    )
}

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// One of Go's encodings (`base64.StdEncoding` and its variants).
#[derive(Debug, Clone, Copy)]
pub struct Encoding {
    alphabet: &'static [u8; 64],
    padding: bool,
    strict: bool,
}

pub const STANDARD: Encoding = Encoding {
    alphabet: STD,
    padding: true,
    strict: false,
};

fn encoding(call: &Call<'_, '_>) -> Result<Encoding, Failure> {
    let mut encoding = STANDARD;
    if call.bool_kwarg("url", false)? {
        encoding.alphabet = URL;
    }
    if call.bool_kwarg("raw", false)? {
        encoding.padding = false;
    }
    if call.bool_kwarg("strict", false)? {
        encoding.strict = true;
    }
    Ok(encoding)
}

fn encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let encoding = encoding(call)?;
    Ok(call.heap.alloc(encoding.encode(text.as_bytes())))
}

fn decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let encoding = encoding(call)?;
    let bytes = encoding.decode(text.as_bytes())?;
    // Starlark strings here are UTF-8: bytes that are not become U+FFFD
    // (ytt keeps them, and prints such a string as `!!binary`).
    Ok(call
        .heap
        .alloc(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Go's `CorruptInputError`: the input byte where decoding failed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("illegal base64 data at input byte {0}")]
pub struct Base64Error(pub usize);

impl super::native::YttMessage for Base64Error {}

impl Encoding {
    pub fn encode(&self, bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(self.alphabet[(n >> (18 - 6 * i)) as usize & 63] as char);
                } else if self.padding {
                    out.push('=');
                }
            }
        }
        out
    }

    fn digit(&self, byte: u8) -> Option<u8> {
        self.alphabet
            .iter()
            .position(|&c| c == byte)
            .map(|p| p as u8)
    }

    /// Go's `Encoding.DecodeString`; the error is Go's `CorruptInputError`.
    pub fn decode(&self, src: &[u8]) -> Result<Vec<u8>, Base64Error> {
        let corrupt = Base64Error;
        let is_newline = |c: u8| c == b'\n' || c == b'\r';
        let mut out = Vec::with_capacity(src.len() / 4 * 3);
        let mut si = 0;
        while si < src.len() {
            // Go's `decodeQuantum`.
            let mut dbuf = [0u8; 4];
            let mut dlen = 4;
            let mut trailing = None;
            let mut j = 0;
            while j < 4 {
                if si == src.len() {
                    if j == 0 {
                        return Ok(out);
                    }
                    if j == 1 || self.padding {
                        return Err(corrupt(si - j));
                    }
                    dlen = j;
                    break;
                }
                let c = src[si];
                si += 1;
                if let Some(d) = self.digit(c) {
                    dbuf[j] = d;
                    j += 1;
                    continue;
                }
                if is_newline(c) {
                    continue;
                }
                if c != b'=' || !self.padding {
                    return Err(corrupt(si - 1));
                }
                // Padding: the end of the input.
                match j {
                    0 | 1 => return Err(corrupt(si - 1)),
                    2 => {
                        while si < src.len() && is_newline(src[si]) {
                            si += 1;
                        }
                        if si == src.len() {
                            return Err(corrupt(src.len()));
                        }
                        if src[si] != b'=' {
                            return Err(corrupt(si - 1));
                        }
                        si += 1;
                    }
                    _ => {}
                }
                while si < src.len() && is_newline(src[si]) {
                    si += 1;
                }
                if si < src.len() {
                    trailing = Some(corrupt(si));
                }
                dlen = j;
                break;
            }
            let val = (u32::from(dbuf[0]) << 18)
                | (u32::from(dbuf[1]) << 12)
                | (u32::from(dbuf[2]) << 6)
                | u32::from(dbuf[3]);
            let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
            if self.strict {
                let unused_nonzero = match dlen {
                    3 => bytes[2] != 0,
                    2 => bytes[1] != 0 || bytes[2] != 0,
                    _ => false,
                };
                if unused_nonzero {
                    return Err(corrupt(si - if dlen == 3 { 1 } else { 2 }));
                }
            }
            out.extend_from_slice(&bytes[..dlen.saturating_sub(1)]);
            if let Some(e) = trailing {
                return Err(e);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str, padding: bool, strict: bool) -> Result<String, Base64Error> {
        let encoding = Encoding {
            alphabet: STD,
            padding,
            strict,
        };
        encoding
            .decode(text.as_bytes())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    #[test]
    fn decodes_as_go_does() {
        // Expected values from the reference ytt.
        assert_eq!(decode("cmVndWxhcg==", true, false).unwrap(), "regular");
        assert_eq!(decode("YWJj\nZGVm", true, false).unwrap(), "abcdef");
        assert_eq!(decode("YWJj\r\n", true, false).unwrap(), "abc");
        assert_eq!(decode("YWJjZA", false, false).unwrap(), "abcd");
        assert_eq!(decode("YWJjZB==", true, false).unwrap(), "abcd");
        let at = |n: usize| Err(Base64Error(n));
        assert_eq!(decode("YWJjZA", true, false), at(4));
        assert_eq!(decode("YWJjZB==", true, true), at(6));
        assert_eq!(decode("YW Jj", true, false), at(2));
        assert_eq!(decode("YWJj=", true, false), at(4));
        assert_eq!(decode("YQ==YQ==", true, false), at(4));
        assert_eq!(decode("YQ=", true, false), at(3));
        assert_eq!(decode("Y", true, false), at(0));
        assert_eq!(decode("YWJjZA=", false, false), at(6));
    }

    #[test]
    fn encodes_with_go_alphabets() {
        let url = Encoding {
            alphabet: URL,
            padding: true,
            strict: false,
        };
        assert_eq!(url.encode(b"??>>"), "Pz8-Pg==");
        let raw = Encoding {
            padding: false,
            ..url
        };
        assert_eq!(raw.encode(b"??>>"), "Pz8-Pg");
        assert_eq!(STANDARD.encode(b"regula"), "cmVndWxh");
        assert_eq!(url.decode(b"Pz8+Pg=="), Err(Base64Error(3)));
    }
}
