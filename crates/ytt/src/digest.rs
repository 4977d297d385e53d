//! SHA-256 and MD5 for `@ytt:sha256` and `@ytt:md5`, as the hex ytt
//! prints: RustCrypto's `sha2` and `md-5`, on the `digest` 0.10 BLAKE3
//! already brings.

use md5::Md5;
use sha2::{Digest, Sha256};

/// SHA-256 of `data`, as lowercase hex.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// MD5 of `data`, as lowercase hex.
pub fn md5_hex(data: &[u8]) -> String {
    hex(&Md5::digest(data))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_match_known_values() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            md5_hex(b"The quick brown fox jumps over the lazy dog"),
            "9e107d9d372bb6826bd81d3542a419d6"
        );
        // Longer than one 64-byte block.
        assert_eq!(
            sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            md5_hex("1234567890".repeat(8).as_bytes()),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }
}
