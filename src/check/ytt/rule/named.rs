//! Named rules checked: [`check_named`] tells whether a value keeps a
//! [`NamedRule`] and, if not, the `found` text ytt shows (ytt runs its named
//! rules as @ytt:assert's functions, built in pkg/validations/validate.go);
//! with Starlark's ordering for `min=`, `max=` and `one_of=`.

use super::super::starlark::StarValue;

/// The named rules, in the order ytt runs them; after ytt's own six come the
/// seed design's, in the order written.
#[derive(Debug, Clone, PartialEq)]
pub enum NamedRule {
    MinLen(i64),
    MaxLen(i64),
    Min(StarValue),
    Max(StarValue),
    /// `None`: every child (`one_not_null=True`).
    OneNotNull(Option<Vec<String>>),
    /// The allowed values as written: a list or a tuple.
    OneOf(StarValue),
    Format(String),
    StartsWith(String),
    EndsWith(String),
    Contains(StarValue),
    Matches(String),
    Even,
    Odd,
    MultipleOf(StarValue),
    Len(i64),
}

impl NamedRule {
    pub(super) fn order(&self) -> u8 {
        match self {
            NamedRule::MinLen(_) => 0,
            NamedRule::MaxLen(_) => 1,
            NamedRule::Min(_) => 2,
            NamedRule::Max(_) => 3,
            NamedRule::OneNotNull(_) => 4,
            NamedRule::OneOf(_) => 5,
            _ => 6,
        }
    }

    /// ytt's `must be:` text.
    pub fn must_be(&self) -> String {
        match self {
            NamedRule::MinLen(n) => format!("length >= {n}"),
            NamedRule::MaxLen(n) => format!("length <= {n}"),
            NamedRule::Min(x) => format!("a value >= {x}"),
            NamedRule::Max(x) => format!("a value <= {x}"),
            NamedRule::OneNotNull(Some(keys)) => format!(
                "exactly one of {} to be not null",
                StarValue::List(keys.iter().map(|k| StarValue::Str(k.clone())).collect())
            ),
            NamedRule::OneNotNull(None) => "exactly one of all children to be not null".into(),
            NamedRule::OneOf(values) => format!("one of {values}"),
            NamedRule::Format(name) => format!("a valid {name}"),
            NamedRule::StartsWith(prefix) => format!("a string starting with {prefix:?}"),
            NamedRule::EndsWith(suffix) => format!("a string ending with {suffix:?}"),
            NamedRule::Contains(item) => format!("a value containing {item}"),
            NamedRule::Matches(pattern) => format!("a string matching {pattern:?}"),
            NamedRule::Even => "an even number".into(),
            NamedRule::Odd => "an odd number".into(),
            NamedRule::MultipleOf(n) => format!("a multiple of {n}"),
            NamedRule::Len(n) => format!("length == {n}"),
        }
    }

    /// The rule as written (for labels).
    pub(crate) fn written(&self) -> String {
        match self {
            NamedRule::MinLen(n) => format!("min_len={n}"),
            NamedRule::MaxLen(n) => format!("max_len={n}"),
            NamedRule::Min(x) => format!("min={x}"),
            NamedRule::Max(x) => format!("max={x}"),
            NamedRule::OneNotNull(Some(keys)) => format!(
                "one_not_null={}",
                StarValue::List(keys.iter().map(|k| StarValue::Str(k.clone())).collect())
            ),
            NamedRule::OneNotNull(None) => "one_not_null=True".into(),
            NamedRule::OneOf(values) => format!("one_of={values}"),
            NamedRule::Format(name) => format!("format={name:?}"),
            NamedRule::StartsWith(prefix) => format!("starts_with={prefix:?}"),
            NamedRule::EndsWith(suffix) => format!("ends_with={suffix:?}"),
            NamedRule::Contains(item) => format!("contains={item}"),
            NamedRule::Matches(pattern) => format!("matches={pattern:?}"),
            NamedRule::Even => "even=True".into(),
            NamedRule::Odd => "odd=True".into(),
            NamedRule::MultipleOf(n) => format!("multiple_of={n}"),
            NamedRule::Len(n) => format!("len={n}"),
        }
    }
}

/// A value in a `found` text: strings unquoted, as ytt prints them.
pub(crate) fn found_value(value: &StarValue) -> String {
    match value {
        StarValue::Str(s) => s.clone(),
        StarValue::Dict(_) | StarValue::List(_) => {
            let text = value.to_string();
            if text.len() > 60 {
                format!("{}...", &text[..text.floor_char_boundary(57)])
            } else {
                text
            }
        }
        other => other.to_string(),
    }
}

/// None when the rule holds; else the `found` text.
pub fn check_named(rule: &NamedRule, value: &StarValue) -> Option<String> {
    match rule {
        NamedRule::MinLen(n) | NamedRule::MaxLen(n) => {
            let length = match value {
                StarValue::Str(s) => s.len() as i64,
                StarValue::List(items) | StarValue::Tuple(items) => items.len() as i64,
                StarValue::Dict(items) => items.len() as i64,
                other => return Some(format!("value of type {} has no length", other.type_name())),
            };
            let holds = if matches!(rule, NamedRule::MinLen(_)) {
                length >= *n
            } else {
                length <= *n
            };
            (!holds).then(|| format!("length {length}"))
        }
        NamedRule::Min(bound) | NamedRule::Max(bound) => {
            let is_min = matches!(rule, NamedRule::Min(_));
            match compare(value, bound) {
                Some(ordering) => {
                    let holds = if is_min {
                        ordering.is_ge()
                    } else {
                        ordering.is_le()
                    };
                    (!holds).then(|| found_value(value))
                }
                None => Some(format!(
                    "{} {} {} not implemented",
                    value.type_name(),
                    if is_min { ">=" } else { "<=" },
                    bound.type_name()
                )),
            }
        }
        NamedRule::OneNotNull(keys) => {
            let StarValue::Dict(items) = value else {
                return Some(format!("value of type {} is not a map", value.type_name()));
            };
            if items.is_empty() {
                return Some("value is empty".into());
            }
            let set: Vec<String> = match keys {
                Some(keys) => keys
                    .iter()
                    .filter(|k| {
                        items.iter().any(|(key, v)| {
                            matches!(key, StarValue::Str(s) if s == *k) && *v != StarValue::None
                        })
                    })
                    .cloned()
                    .collect(),
                None => items
                    .iter()
                    .filter(|(_, v)| *v != StarValue::None)
                    .map(|(k, _)| found_value(k))
                    .collect(),
            };
            match set.len() {
                1 => None,
                0 => Some("all values are null".into()),
                _ => Some(format!(
                    "{} are not null",
                    StarValue::List(set.into_iter().map(StarValue::Str).collect())
                )),
            }
        }
        NamedRule::OneOf(StarValue::List(values) | StarValue::Tuple(values)) => {
            let holds = values.iter().any(|allowed| {
                compare(value, allowed).is_some_and(|o| o.is_eq()) && same_kind(value, allowed)
            });
            (!holds).then(|| found_value(value))
        }
        NamedRule::Format(name) => match value {
            StarValue::Str(text) => {
                (!super::super::formats::is_valid(name, text)).then(|| found_value(value))
            }
            other => Some(format!("a {} is not a {name}", other.type_name())),
        },
        NamedRule::StartsWith(prefix) => match value {
            StarValue::Str(text) => {
                (!text.starts_with(prefix.as_str())).then(|| found_value(value))
            }
            other => Some(format!("a {}", other.type_name())),
        },
        NamedRule::EndsWith(suffix) => match value {
            StarValue::Str(text) => (!text.ends_with(suffix.as_str())).then(|| found_value(value)),
            other => Some(format!("a {}", other.type_name())),
        },
        NamedRule::Contains(item) => {
            let holds = match (value, item) {
                (StarValue::Str(text), StarValue::Str(part)) => text.contains(part.as_str()),
                (StarValue::List(items) | StarValue::Tuple(items), item) => {
                    items.iter().any(|i| i == item)
                }
                (StarValue::Dict(items), key) => items.iter().any(|(k, _)| k == key),
                _ => false,
            };
            (!holds).then(|| found_value(value))
        }
        NamedRule::Matches(pattern) => match (value, regex::Regex::new(pattern)) {
            (StarValue::Str(text), Ok(re)) => (!re.is_match(text)).then(|| found_value(value)),
            (other, _) => Some(format!("a {}", other.type_name())),
        },
        NamedRule::Even | NamedRule::Odd => match value {
            StarValue::Int(i) => {
                let is_even = i % 2 == 0;
                (is_even != matches!(rule, NamedRule::Even)).then(|| i.to_string())
            }
            other => Some(format!("a {}", other.type_name())),
        },
        NamedRule::MultipleOf(divisor) => match (value.as_number(), divisor.as_number()) {
            (Some(x), Some(d)) if d != 0.0 => {
                ((x / d).fract().abs() > 1e-9).then(|| found_value(value))
            }
            _ => Some(format!("a {}", value.type_name())),
        },
        NamedRule::Len(n) => {
            let length = match value {
                StarValue::Str(s) => s.len() as i64,
                StarValue::List(items) | StarValue::Tuple(items) => items.len() as i64,
                StarValue::Dict(items) => items.len() as i64,
                other => return Some(format!("value of type {} has no length", other.type_name())),
            };
            (length != *n).then(|| format!("length {length}"))
        }
        NamedRule::OneOf(other) => Some(format!(
            "one_of= needs a sequence, not {}",
            other.type_name()
        )),
    }
}

fn same_kind(a: &StarValue, b: &StarValue) -> bool {
    a.as_number().is_some() && b.as_number().is_some()
        || std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Starlark's ordering: numbers numerically, strings and sequences
/// lexicographically; other pairs cannot be compared.
fn compare(a: &StarValue, b: &StarValue) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (StarValue::Str(x), StarValue::Str(y)) => Some(x.cmp(y)),
        (StarValue::Bool(x), StarValue::Bool(y)) => Some(x.cmp(y)),
        (StarValue::Int(x), StarValue::Int(y)) => Some(x.cmp(y)),
        (StarValue::List(x), StarValue::List(y)) | (StarValue::Tuple(x), StarValue::Tuple(y)) => {
            for (p, q) in x.iter().zip(y) {
                match compare(p, q)? {
                    std::cmp::Ordering::Equal => continue,
                    other => return Some(other),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        (StarValue::None, StarValue::None) => Some(std::cmp::Ordering::Equal),
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_rules_report_ytt_texts() {
        let max = NamedRule::Max(StarValue::Int(32767));
        assert_eq!(max.must_be(), "a value <= 32767");
        assert_eq!(
            check_named(&max, &StarValue::Int(70000)).as_deref(),
            Some("70000")
        );
        assert_eq!(check_named(&max, &StarValue::Int(443)), None);
        let min_len = NamedRule::MinLen(8);
        assert_eq!(
            check_named(&min_len, &StarValue::Str("hunter2".into())).as_deref(),
            Some("length 7")
        );
        let one_of = NamedRule::OneOf(StarValue::List(vec![
            StarValue::Float(0.5),
            StarValue::Float(1.0),
        ]));
        assert_eq!(one_of.must_be(), "one of [0.5, 1]");
        assert_eq!(check_named(&one_of, &StarValue::Int(1)), None);
        assert!(check_named(&one_of, &StarValue::Str("1".into())).is_some());
        let min = NamedRule::Min(StarValue::Int(1));
        assert_eq!(
            check_named(&min, &StarValue::Dict(vec![])).as_deref(),
            Some("dict >= int not implemented")
        );
        assert_eq!(
            check_named(
                &NamedRule::Min(StarValue::Str("v1.29".into())),
                &StarValue::Str("v1.3".into())
            ),
            None
        );
    }

    #[test]
    fn one_not_null_counts_set_keys() {
        let rule = NamedRule::OneNotNull(Some(vec!["oidc".into(), "ldap".into()]));
        let both_null = StarValue::Dict(vec![
            (StarValue::Str("oidc".into()), StarValue::None),
            (StarValue::Str("ldap".into()), StarValue::None),
        ]);
        assert_eq!(
            check_named(&rule, &both_null).as_deref(),
            Some("all values are null")
        );
        let both_set = StarValue::Dict(vec![
            (StarValue::Str("oidc".into()), StarValue::Int(1)),
            (StarValue::Str("ldap".into()), StarValue::Int(1)),
        ]);
        assert_eq!(
            check_named(&rule, &both_set).as_deref(),
            Some("[\"oidc\", \"ldap\"] are not null")
        );
    }
}
