//! The formats of the seed design's `format=` rule: what each accepts.

use regex::Regex;
use std::sync::LazyLock;

static DATE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
    )
    .unwrap()
});
static DATE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(\d{4})-(\d{2})-(\d{2})$").unwrap());
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$").unwrap()
});
static DURATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$").unwrap());
static QUANTITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?\d+))?$").unwrap()
});
static PERCENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(\d+(\.\d+)?)%$").unwrap());
static SCHEME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*:").unwrap());

/// Is `text` valid in the named format?
pub fn is_valid(format: &str, text: &str) -> bool {
    match format {
        "date-time" => DATE_TIME
            .captures(text)
            .is_some_and(|c| valid_date(&c[1], &c[2], &c[3]) && valid_clock(&c[4], &c[5], &c[6])),
        "date" => DATE
            .captures(text)
            .is_some_and(|c| valid_date(&c[1], &c[2], &c[3])),
        "time" => TIME
            .captures(text)
            .is_some_and(|c| valid_clock(&c[1], &c[2], &c[3])),
        "email" => text.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !local.contains(char::is_whitespace)
                && domain.contains('.')
                && is_hostname(domain)
        }),
        "hostname" => is_hostname(text),
        "ip" => text.parse::<std::net::IpAddr>().is_ok(),
        "ipv4" => text.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => text.parse::<std::net::Ipv6Addr>().is_ok(),
        "uri" => {
            SCHEME.is_match(text) && !text.contains(|c: char| c.is_whitespace() || c.is_control())
        }
        "uri-reference" => !text.contains(|c: char| c.is_whitespace() || c.is_control()),
        "port" => text.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p)),
        "percent" => PERCENT
            .captures(text)
            .and_then(|c| c[1].parse::<f64>().ok())
            .is_some_and(|p| p <= 100.0),
        "duration" => text == "0" || DURATION.is_match(text),
        "quantity" => QUANTITY.is_match(text),
        _ => false,
    }
}

/// RFC 1123 host name: dot-separated labels of letters, digits and hyphens.
fn is_hostname(text: &str) -> bool {
    let text = text.strip_suffix('.').unwrap_or(text);
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

fn valid_date(year: &str, month: &str, day: &str) -> bool {
    let (Ok(year), Ok(month), Ok(day)) = (
        year.parse::<u32>(),
        month.parse::<u32>(),
        day.parse::<u32>(),
    ) else {
        return false;
    };
    let is_leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn valid_clock(hour: &str, minute: &str, second: &str) -> bool {
    let parse = |s: &str| s.parse::<u32>().unwrap_or(99);
    parse(hour) < 24 && parse(minute) < 60 && parse(second) < 61
}

#[cfg(test)]
mod tests {
    use super::is_valid;

    #[test]
    fn formats_accept_and_reject() {
        let cases = [
            ("hostname", "example.com", true),
            ("hostname", "-web_01.example.com", false),
            ("date-time", "2024-02-29T12:30:00Z", true),
            ("date-time", "2023-02-29T12:30:00Z", false),
            ("date", "2024-13-01", false),
            ("time", "23:59:60", true),
            ("email", "ops@example.com", true),
            ("email", "ops@", false),
            ("ip", "::1", true),
            ("ipv4", "10.0.0.256", false),
            ("ipv6", "10.0.0.1", false),
            ("uri", "https://example.com/a", true),
            ("uri", "example.com", false),
            ("uri-reference", "/a/b", true),
            ("port", "8443", true),
            ("port", "70000", false),
            ("percent", "50%", true),
            ("percent", "150%", false),
            ("duration", "1h30m", true),
            ("duration", "90 minutes", false),
            ("quantity", "512Mi", true),
            ("quantity", "1.5Gb", false),
        ];
        for (format, text, expected) in cases {
            assert_eq!(is_valid(format, text), expected, "{format} {text}");
        }
    }
}
