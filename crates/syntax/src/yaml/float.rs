//! Floats written as Go writes them (`strconv.FormatFloat`): how go-yaml
//! and ytt print a float, shared by the node tree, the scalar resolver and
//! the emitters.

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits that
/// round-trip; exponent form (at least two exponent digits) when the decimal
/// exponent is < -4 or >= 6, as Go decides for the shortest form:
/// `1e+06`, `123456`, `1e-05`, `0.0001`, `+Inf`, `NaN`.
pub fn format_float(f: f64) -> String {
    format_float_g(f, None)
}

/// Go's `strconv.FormatFloat(f, 'g', precision, 64)`: `significant` digits
/// (trailing zeros dropped), or the shortest that round-trip when `None`.
pub fn format_float_g(f: f64, significant: Option<usize>) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let neg = f.is_sign_negative();
    let sign = if neg { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0");
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e-7";
    // `{:.Ne}` rounds to N + 1 significant digits.
    let e = match significant {
        Some(n) => format!("{:.*e}", n.saturating_sub(1), f.abs()),
        None => format!("{:e}", f.abs()),
    };
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    let nd = digits.len() as i32;
    if !(-4..6).contains(&exp) {
        let mut out = String::from(sign);
        out.push_str(&digits[..1]);
        if nd > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
        return out;
    }
    let dp = exp + 1;
    let body = if dp <= 0 {
        format!("0.{}{}", "0".repeat((-dp) as usize), digits)
    } else if dp >= nd {
        format!("{}{}", digits, "0".repeat((dp - nd) as usize))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_float_like_go() {
        let cases: &[(f64, &str)] = &[
            (1000000.0, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (2.5, "2.5"),
            (1.0, "1"),
            (-1.0, "-1"),
            (0.0, "0"),
            (-0.0, "-0"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (1.5e300, "1.5e+300"),
            (1e21, "1e+21"),
            (0.1, "0.1"),
            (100.0, "100"),
            (1.25e-3, "0.00125"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
        ];
        for (f, want) in cases {
            assert_eq!(format_float(*f), *want, "{f:?}");
        }
    }
}
