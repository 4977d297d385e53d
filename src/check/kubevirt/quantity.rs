//! Kubernetes `resource.Quantity` values as exact numbers (spec §4.5).

/// The value of a quantity string when it is a whole number that fits in
/// 64 bits; None when it is not a quantity or not whole.
pub fn parse_whole(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let num_end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, suffix) = s.split_at(num_end);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return None;
    }
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    let digits = format!("{int_part}{frac_part}");
    let mut mantissa: i128 = digits.parse().ok()?;
    let mut exp10: i32 = -(frac_part.len() as i32);
    let mut exp2: u32 = 0;
    match suffix {
        "" => {}
        "Ki" => exp2 = 10,
        "Mi" => exp2 = 20,
        "Gi" => exp2 = 30,
        "Ti" => exp2 = 40,
        "Pi" => exp2 = 50,
        "Ei" => exp2 = 60,
        "n" => exp10 -= 9,
        "u" => exp10 -= 6,
        "m" => exp10 -= 3,
        "k" => exp10 += 3,
        "M" => exp10 += 6,
        "G" => exp10 += 9,
        "T" => exp10 += 12,
        "P" => exp10 += 15,
        "E" => exp10 += 18,
        other => {
            let rest = other.strip_prefix(['e', 'E'])?;
            let e: i32 = rest.parse().ok()?;
            if rest.starts_with('+') && rest.len() == 1 {
                return None;
            }
            exp10 += e;
        }
    }
    mantissa = mantissa.checked_mul(1i128.checked_shl(exp2)?)?;
    while exp10 > 0 {
        mantissa = mantissa.checked_mul(10)?;
        exp10 -= 1;
    }
    while exp10 < 0 {
        if mantissa % 10 != 0 {
            return None;
        }
        mantissa /= 10;
        exp10 += 1;
    }
    let v = if neg { -mantissa } else { mantissa };
    i64::try_from(v).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_whole;

    #[test]
    fn quantities_are_exact() {
        assert_eq!(parse_whole("1Gi"), Some(1073741824));
        assert_eq!(parse_whole("1G"), Some(1_000_000_000));
        assert_eq!(parse_whole("1.5Gi"), Some(1610612736));
        assert_eq!(parse_whole("2e9"), Some(2_000_000_000));
        assert_eq!(parse_whole("64Mi"), Some(67108864));
        assert_eq!(parse_whole("512"), Some(512));
        assert_eq!(parse_whole("1500m"), None);
        assert_eq!(parse_whole("2000m"), Some(2));
        assert_eq!(parse_whole("q35"), None);
        assert_eq!(parse_whole("10Ei"), None);
        assert_eq!(parse_whole(""), None);
    }
}
