//! `@ytt:ip`: `parse_addr(text)` gives an `@ytt:ip.addr` (`is_ipv4()`,
//! `is_ipv6()`, `string()`); `parse_cidr(text)` gives `(addr, net)`, the
//! address and its `@ytt:ip.net` (`addr()`, the masked address, and
//! `string()`). As Go's `net` package: an IPv4-mapped IPv6 address is
//! IPv4 and prints dotted, IPv6 prints in RFC 5952 form, zones are refused.
//! These values do not encode to YAML (call `.string()`).

use super::context::Context;
use super::native::{
    Call, IpAddr as AddrValue, IpNet as NetValue, Native, Outcome, as_str, native,
};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};
use std::sync::Arc;

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "ip",
        &[
            ("parse_addr", "ip.parse_addr", native!(parse_addr)),
            ("parse_cidr", "ip.parse_cidr", native!(parse_cidr)),
        ],
    )
}

/// An address as Go's `net.IP`: 4 or 16 bytes.
type Ip = Vec<u8>;

const V4_IN_V6: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/// Go's `netip.ParseAddr` without zones, as 16 bytes; and whether it was
/// written as IPv4 (for its bit length).
fn parse(text: &str) -> Option<([u8; 16], bool)> {
    if let Some(v4) = parse_v4(text) {
        let mut out = [0u8; 16];
        out[..12].copy_from_slice(&V4_IN_V6);
        out[12..].copy_from_slice(&v4);
        return Some((out, true));
    }
    if !text.contains(':') || text.contains('%') {
        return None;
    }
    // The embedded IPv4 part follows Go's rules too.
    if let Some((_, tail)) = text.rsplit_once(':')
        && tail.contains('.')
        && parse_v4(tail).is_none()
    {
        return None;
    }
    let v6: std::net::Ipv6Addr = text.parse().ok()?;
    Some((v6.octets(), false))
}

/// Dotted decimal: four fields of 1 to 3 digits, at most 255, no leading
/// zeros (Go 1.17 and later).
fn parse_v4(text: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut fields = text.split('.');
    for slot in &mut out {
        let field = fields.next()?;
        if field.is_empty()
            || field.len() > 3
            || !field.bytes().all(|b| b.is_ascii_digit())
            || (field.len() > 1 && field.starts_with('0'))
        {
            return None;
        }
        *slot = field.parse::<u16>().ok().filter(|n| *n <= 255)? as u8;
    }
    fields.next().is_none().then_some(out)
}

/// Go's `IP.To4`.
fn to4(ip: &[u8]) -> Option<&[u8]> {
    match ip.len() {
        4 => Some(ip),
        16 if ip[..12] == V4_IN_V6 => Some(&ip[12..]),
        _ => None,
    }
}

/// Go's `IP.String`.
pub fn ip_string(ip: &[u8]) -> String {
    if let Some(v4) = to4(ip) {
        return format!("{}.{}.{}.{}", v4[0], v4[1], v4[2], v4[3]);
    }
    if ip.len() != 16 {
        return format!(
            "?{}",
            ip.iter().map(|b| format!("{b:02x}")).collect::<String>()
        );
    }
    let group = |i: usize| u16::from(ip[2 * i]) << 8 | u16::from(ip[2 * i + 1]);
    // The first longest run of two or more zero groups becomes "::".
    let (mut zero_start, mut zero_end) = (8, 8);
    let mut i = 0;
    while i < 8 {
        let mut j = i;
        while j < 8 && group(j) == 0 {
            j += 1;
        }
        if j - i >= 2 && j - i > zero_end - zero_start {
            zero_start = i;
            zero_end = j;
        }
        i = j.max(i + 1);
    }
    let mut out = String::new();
    let mut i = 0;
    while i < 8 {
        if i == zero_start {
            out.push_str("::");
            i = zero_end;
            if i >= 8 {
                break;
            }
        } else if i > 0 {
            out.push(':');
        }
        out.push_str(&format!("{:x}", group(i)));
        i += 1;
    }
    out
}

fn addr_value<'v>(heap: Heap<'v>, ip: Ip) -> Value<'v> {
    let data: Arc<Ip> = Arc::new(ip);
    let method = |name: &'static str, f| {
        let data = data.clone() as Arc<dyn std::any::Any + Send + Sync>;
        heap.alloc(Native::with(name, f, Vec::new(), Some(data)))
    };
    heap.alloc(AddrValue::new(vec![
        ("is_ipv4", method("ip.addr.is_ipv4", native!(is_ipv4))),
        ("is_ipv6", method("ip.addr.is_ipv6", native!(is_ipv6))),
        ("string", method("ip.addr.string", native!(addr_string))),
    ]))
}

fn no_arguments(call: &Call<'_, '_>) -> Result<(), super::native::Failure> {
    call.expect(0, "expected no argument")
}

fn is_ipv4<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    Ok(Value::new_bool(to4(call.data::<Ip>()?).is_some()))
}

fn is_ipv6<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    Ok(Value::new_bool(to4(call.data::<Ip>()?).is_none()))
}

fn addr_string<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    Ok(call.heap.alloc(ip_string(call.data::<Ip>()?)))
}

fn parse_addr<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let (ip, _) = parse(text).ok_or_else(|| format!("invalid IP address: {text}"))?;
    Ok(addr_value(call.heap, ip.to_vec()))
}

/// A network as Go's `net.IPNet`: the masked address and the mask.
struct Net {
    ip: Ip,
    mask: Vec<u8>,
}

/// Go's `net.ParseCIDR`: the address, and the network.
fn parse_cidr_text(text: &str) -> Option<(Ip, Net)> {
    let (addr, bits) = text.split_once('/')?;
    let (ip, is_v4) = parse(addr)?;
    let bit_len = if is_v4 { 32 } else { 128 };
    // Go's `dtoi`: decimal digits, leading zeros allowed.
    if bits.is_empty() || bits.len() > 7 || !bits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ones: usize = bits.parse().ok()?;
    if ones > bit_len {
        return None;
    }
    let mut mask = vec![0u8; bit_len / 8];
    for (i, byte) in mask.iter_mut().enumerate() {
        let left = ones.saturating_sub(i * 8).min(8);
        *byte = (0xffu16 << (8 - left)) as u8;
    }
    // Go's `IP.Mask`.
    let source: &[u8] = if mask.len() == 4 { &ip[12..] } else { &ip };
    let masked = source.iter().zip(&mask).map(|(a, m)| a & m).collect();
    Some((ip.to_vec(), Net { ip: masked, mask }))
}

/// Go's `IPNet.String`.
fn net_string(net: &Net) -> String {
    let ip: &[u8] = to4(&net.ip).unwrap_or(&net.ip);
    let mask: &[u8] = if net.mask.len() == 16 && ip.len() == 4 {
        &net.mask[12..]
    } else {
        &net.mask
    };
    // The prefix length, unless the mask is not a run of ones.
    let ones: u32 = mask.iter().map(|b| b.count_ones()).sum();
    let contiguous = mask
        .iter()
        .flat_map(|b| (0..8).rev().map(move |i| b >> i & 1))
        .skip(ones as usize)
        .all(|bit| bit == 0);
    if contiguous {
        format!("{}/{ones}", ip_string(ip))
    } else {
        let hex: String = mask.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}/{hex}", ip_string(ip))
    }
}

fn parse_cidr<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let (ip, net) = parse_cidr_text(text).ok_or_else(|| format!("invalid CIDR address: {text}"))?;
    let heap = call.heap;
    let data: Arc<dyn std::any::Any + Send + Sync> = Arc::new(net);
    let method =
        |name: &'static str, f| heap.alloc(Native::with(name, f, Vec::new(), Some(data.clone())));
    let net_value = heap.alloc(NetValue::new(vec![
        ("addr", method("ip.net.addr", native!(net_addr))),
        (
            "string",
            method("ip.net.string", native!(net_string_method)),
        ),
    ]));
    let addr = addr_value(heap, ip);
    Ok(heap.alloc((addr, net_value)))
}

fn net_addr<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    Ok(addr_value(call.heap, call.data::<Net>()?.ip.clone()))
}

fn net_string_method<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    Ok(call.heap.alloc(net_string(call.data::<Net>()?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(text: &str) -> Option<String> {
        parse(text).map(|(ip, _)| ip_string(&ip))
    }

    fn cidr(text: &str) -> Option<(String, String)> {
        parse_cidr_text(text).map(|(ip, net)| (ip_string(&ip), net_string(&net)))
    }

    #[test]
    fn addresses_read_and_print_as_in_go() {
        // Expected values from the reference ytt.
        assert_eq!(addr("192.0.2.1").as_deref(), Some("192.0.2.1"));
        assert_eq!(addr("2001:db8::1").as_deref(), Some("2001:db8::1"));
        assert_eq!(addr("::ffff:1.2.3.4").as_deref(), Some("1.2.3.4"));
        assert_eq!(addr("::1.2.3.4").as_deref(), Some("::102:304"));
        assert_eq!(
            addr("2001:0db8:0:0:1:0:0:1").as_deref(),
            Some("2001:db8::1:0:0:1")
        );
        assert_eq!(addr("01.2.3.4"), None);
        assert_eq!(addr("fe80::1%eth0"), None);
        assert_eq!(addr("not-a-valid-addr"), None);
    }

    #[test]
    fn networks_are_masked_as_in_go() {
        assert_eq!(
            cidr("192.0.2.1/24"),
            Some(("192.0.2.1".into(), "192.0.2.0/24".into()))
        );
        assert_eq!(
            cidr("2001:db8::1/96"),
            Some(("2001:db8::1".into(), "2001:db8::/96".into()))
        );
        assert_eq!(
            cidr("::ffff:1.2.3.4/120"),
            Some(("1.2.3.4".into(), "1.2.3.0/24".into()))
        );
        assert_eq!(
            cidr("10.0.0.0/024").map(|c| c.1).as_deref(),
            Some("10.0.0.0/24")
        );
        assert_eq!(cidr("10.0.0.0/33"), None);
        assert_eq!(cidr("10.0.0.0"), None);
    }
}
