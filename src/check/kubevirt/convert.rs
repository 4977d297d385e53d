//! A value a JSONPath found, read as the validator reads a rule's operand:
//! an integer (or whole quantity) or a string, or why it is neither.

use super::jsonpath::{K, V};
use super::quantity;
use crate::yaml::{ScalarValue, Value};

/// A value read as an operand: the value, unknown (a template parameter not
/// yet substituted), or a type or reference problem to report.
pub(super) enum Conv<X> {
    Ok(X),
    Unknown,
    Type(String),
    Reference(String),
}

pub(super) fn describe(v: &V) -> String {
    match v.node.map(|n| &n.value) {
        Some(Value::Map(_)) => "an object".into(),
        Some(Value::Array(_)) => "a list".into(),
        Some(Value::Scalar(s)) => format!("the {} `{}`", s.resolved.type_name(), s.text),
        None => match v.kind {
            K::O(_) | K::OInt | K::OStr | K::OBool | K::OQ if v.absent() => {
                "an absent optional value".into()
            }
            K::S(_) | K::O(_) => "an object".into(),
            K::L(_) => "a list".into(),
            K::M(_) => "a map".into(),
            K::Bool => "a boolean".into(),
            K::Int => "an integer".into(),
            _ => "a value".into(),
        },
    }
}

pub(super) fn to_int(v: &V) -> Conv<i64> {
    if v.kind == K::OInt {
        return Conv::Type(format!(
            "mismatching type: {} of an optional integer field (*int64), not int or resource.Quantity",
            describe(v)
        ));
    }
    if v.absent() {
        if v.kind == K::OQ {
            return Conv::Reference("the quantity is not set".into());
        }
        return Conv::Type(format!(
            "mismatching type: {}, not int or resource.Quantity",
            describe(v)
        ));
    }
    let bad = || {
        Conv::Type(format!(
            "mismatching type: {}, not int or resource.Quantity",
            describe(v)
        ))
    };
    let value = match v.node {
        None => match v.kind {
            K::Int | K::Q | K::OQ => 0,
            _ => return bad(),
        },
        Some(n) => match &n.value {
            Value::Scalar(s) => {
                if s.text.contains("${") {
                    return Conv::Unknown;
                }
                let numeric = matches!(v.kind, K::Int | K::Q | K::OQ | K::Any);
                match &s.resolved {
                    ScalarValue::Int(i) if numeric => *i,
                    ScalarValue::Float(f) if numeric && f.fract() == 0.0 => *f as i64,
                    ScalarValue::Float(f) if matches!(v.kind, K::Int | K::Any) => f.round() as i64,
                    ScalarValue::Str(t) if matches!(v.kind, K::Q | K::OQ) => {
                        match quantity::parse_whole(t) {
                            Some(i) => i,
                            None => {
                                return Conv::Type(format!(
                                    "mismatching type: the quantity `{t}` is not a whole number that fits in 64 bits"
                                ));
                            }
                        }
                    }
                    _ => return bad(),
                }
            }
            _ => return bad(),
        },
    };
    Conv::Ok(if v.cpu_default && value == 0 {
        1
    } else {
        value
    })
}

pub(super) fn to_str(v: &V) -> Conv<String> {
    let bad = || Conv::Type(format!("mismatching type: {}, not a string", describe(v)));
    if v.absent() {
        return bad();
    }
    match v.node {
        None => match v.kind {
            K::Str | K::OStr => Conv::Ok(v.default_text.unwrap_or("").to_string()),
            _ => bad(),
        },
        Some(n) => match &n.value {
            Value::Scalar(s) => {
                if s.text.contains("${") {
                    return Conv::Unknown;
                }
                match (v.kind, &s.resolved) {
                    (K::Str | K::OStr, _) => Conv::Ok(s.text.clone()),
                    (K::Any, ScalarValue::Str(t)) => Conv::Ok(t.clone()),
                    _ => bad(),
                }
            }
            _ => bad(),
        },
    }
}
