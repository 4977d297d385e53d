//! `@ytt:toml`: `encode(value, indent=2)` writes TOML as ytt's encoder
//! (BurntSushi/toml v1.2.1) does: keys sorted, plain keys before tables,
//! nested tables indented, arrays of maps as `[[tables]]`, nulls left out;
//! `decode(text)` reads TOML into dicts with sorted keys (dates and times
//! have no Starlark form, and are refused as ytt refuses them).

use super::context::Context;
use super::go_value::{self, Go, GoError};
use super::native::{Call, Outcome, as_str, native};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "toml",
        &[
            ("encode", "toml.encode", native!(encode)),
            ("decode", "toml.decode", native!(decode)),
        ],
    )
}

fn encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let value = call.one()?;
    call.allow_kwargs(&["indent"])?;
    let go = go_value::plain(go_value::from_value(value, call.heap)?)?;
    check_string_keys(&go)?;
    let indent = call.int_kwarg("indent")?;
    if !(0..=8).contains(&indent) {
        return Err("indent value must be between 0 and 8".into());
    }
    let indent = if indent > 0 {
        " ".repeat(indent as usize)
    } else {
        "  ".into()
    };
    let mut encoder = Encoder {
        out: String::new(),
        indent,
        written: false,
    };
    encoder.encode(&[], &go)?;
    Ok(call.heap.alloc(encoder.out))
}

/// Why TOML did not encode or decode: BurntSushi's words (`toml: ...`),
/// or the conversions' ytt shares with the other modules.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TomlError {
    #[error(transparent)]
    Go(#[from] GoError),
    #[error("toml: cannot encode array with nil element")]
    NilArrayElement,
    /// A value with no key to write it under (not inside a table).
    #[error("toml: top-level values must be Go maps or structs")]
    NoKey,
    #[error("toml: cannot encode a nil value")]
    NilValue,
    #[error("toml: unexpected YAML value")]
    YamlValue,
    #[error("toml: cannot encode a map with non-string key type")]
    NonStringKey,
    /// The toml crate's parse error, its message as it is: the text ytt's
    /// Go parser would give is not reproduced, only passed on.
    #[error("{0}")]
    Decode(String),
}

impl super::native::YttMessage for TomlError {}

/// ytt's `AsUnorderedStringMaps`: map keys must be strings.
fn check_string_keys(go: &Go) -> Result<(), GoError> {
    match go {
        Go::Map(items) => items.iter().try_for_each(|(k, v)| match k {
            Go::Str(_) => check_string_keys(v),
            _ => Err(GoError::KeyNotString),
        }),
        Go::List(items) => items.iter().try_for_each(check_string_keys),
        _ => Ok(()),
    }
}

#[derive(PartialEq)]
enum TomlType {
    Hash,
    ArrayHash,
    Other,
}

/// BurntSushi's `tomlTypeOfGo`; None for null.
fn toml_type(go: &Go) -> Result<Option<TomlType>, TomlError> {
    Ok(Some(match go {
        Go::Null => return Ok(None),
        Go::Map(_) => TomlType::Hash,
        Go::List(items) if is_table_array(items)? => TomlType::ArrayHash,
        _ => TomlType::Other,
    }))
}

fn is_table_array(items: &[Go]) -> Result<bool, TomlError> {
    if items.is_empty() {
        return Ok(false);
    }
    let mut all = true;
    for item in items {
        match toml_type(item)? {
            None => return Err(TomlError::NilArrayElement),
            Some(t) => all &= t == TomlType::Hash,
        }
    }
    Ok(all)
}

fn is_table(go: &Go) -> Result<bool, TomlError> {
    Ok(matches!(
        toml_type(go)?,
        Some(TomlType::Hash | TomlType::ArrayHash)
    ))
}

/// BurntSushi's `dblQuotedReplacer`.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn key_part(part: &str) -> String {
    if !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        part.to_string()
    } else {
        quoted(part)
    }
}

fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|p| key_part(p))
        .collect::<Vec<_>>()
        .join(".")
}

struct Encoder {
    out: String,
    indent: String,
    written: bool,
}

impl Encoder {
    fn write(&mut self, text: &str) {
        self.out.push_str(text);
        self.written = true;
    }

    fn newline(&mut self) {
        if self.written {
            self.write("\n");
        }
    }

    fn indent_for(&self, key: &[String]) -> String {
        self.indent.repeat(key.len().saturating_sub(1))
    }

    fn encode(&mut self, key: &[String], go: &Go) -> Result<(), TomlError> {
        match go {
            Go::Null => Ok(()),
            Go::Map(items) => self.table(key, items),
            Go::List(items) if is_table_array(items)? => self.array_of_tables(key, items),
            _ => self.key_value(key, go, false),
        }
    }

    fn key_value(&mut self, key: &[String], go: &Go, inline: bool) -> Result<(), TomlError> {
        let Some(last) = key.last() else {
            return Err(TomlError::NoKey);
        };
        let line = format!("{}{} = ", self.indent_for(key), key_part(last));
        self.write(&line);
        self.element(go)?;
        if !inline {
            self.newline();
        }
        Ok(())
    }

    fn element(&mut self, go: &Go) -> Result<(), TomlError> {
        match go {
            Go::Str(s) => self.write(&quoted(s)),
            Go::Bool(b) => self.write(if *b { "true" } else { "false" }),
            Go::Int(i) => self.write(&i.to_string()),
            Go::Float(f) => {
                let text = if f.is_nan() {
                    "nan".to_string()
                } else if f.is_infinite() {
                    if *f > 0.0 { "+inf" } else { "-inf" }.to_string()
                } else {
                    // Go's 'f' format with the shortest digits, and a point.
                    let text = if *f == 0.0 && f.is_sign_negative() {
                        "-0".to_string()
                    } else {
                        format!("{f}")
                    };
                    if text.contains('.') {
                        text
                    } else {
                        format!("{text}.0")
                    }
                };
                self.write(&text);
            }
            Go::List(items) => {
                self.write("[");
                for (i, item) in items.iter().enumerate() {
                    self.element(item)?;
                    if i + 1 != items.len() {
                        self.write(", ");
                    }
                }
                self.write("]");
            }
            Go::Map(items) => self.map(&[], items, true)?,
            Go::Null => return Err(TomlError::NilValue),
            Go::Node(_) | Go::Docs(_) => return Err(TomlError::YamlValue),
        }
        Ok(())
    }

    fn array_of_tables(&mut self, key: &[String], items: &[Go]) -> Result<(), TomlError> {
        if key.is_empty() {
            return Err(TomlError::NoKey);
        }
        for item in items {
            let Go::Map(fields) = item else { continue };
            self.newline();
            let header = format!("{}[[{}]]", self.indent_for(key), key_string(key));
            self.write(&header);
            self.newline();
            self.map(key, fields, false)?;
        }
        Ok(())
    }

    fn table(&mut self, key: &[String], items: &[(Go, Go)]) -> Result<(), TomlError> {
        if key.len() == 1 {
            self.newline();
        }
        if !key.is_empty() {
            let header = format!("{}[{}]", self.indent_for(key), key_string(key));
            self.write(&header);
            self.newline();
        }
        self.map(key, items, false)
    }

    fn map(&mut self, key: &[String], items: &[(Go, Go)], inline: bool) -> Result<(), TomlError> {
        let mut direct = Vec::new();
        let mut sub = Vec::new();
        for (k, v) in items {
            let Go::Str(name) = k else {
                return Err(TomlError::NonStringKey);
            };
            if is_table(v)? {
                sub.push((name, v));
            } else {
                direct.push((name, v));
            }
        }
        direct.sort_by(|a, b| a.0.cmp(b.0));
        sub.sort_by(|a, b| a.0.cmp(b.0));
        if inline {
            self.write("{");
        }
        let trailing_comma = !sub.is_empty();
        for (group, trail) in [(direct, trailing_comma), (sub, false)] {
            let count = group.len();
            for (i, (name, value)) in group.into_iter().enumerate() {
                if *value == Go::Null {
                    continue;
                }
                if inline {
                    self.key_value(std::slice::from_ref(name), value, true)?;
                    if trail || i + 1 != count {
                        self.write(", ");
                    }
                } else {
                    let mut child = key.to_vec();
                    child.push(name.clone());
                    self.encode(&child, value)?;
                }
            }
        }
        if inline {
            self.write("}");
        }
        Ok(())
    }
}

fn decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| TomlError::Decode(e.message().to_string()))?;
    let go = from_toml(&toml::Value::Table(table))?;
    Ok(go_value::to_value(&go, call.heap, false)?)
}

fn from_toml(value: &toml::Value) -> Result<Go, GoError> {
    Ok(match value {
        toml::Value::String(s) => Go::Str(s.clone()),
        toml::Value::Integer(i) => Go::Int(*i),
        toml::Value::Float(f) => Go::Float(*f),
        toml::Value::Boolean(b) => Go::Bool(*b),
        toml::Value::Datetime(_) => {
            return Err(GoError::NoStarlarkForm("time.Time"));
        }
        toml::Value::Array(items) => {
            Go::List(items.iter().map(from_toml).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(table) => {
            let mut items: Vec<(Go, Go)> = table
                .iter()
                .map(|(k, v)| Ok((Go::Str(k.clone()), from_toml(v)?)))
                .collect::<Result<_, GoError>>()?;
            items.sort_by(|a, b| match (&a.0, &b.0) {
                (Go::Str(x), Go::Str(y)) => x.cmp(y),
                _ => std::cmp::Ordering::Equal,
            });
            Go::Map(items)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(go: &Go, indent: &str) -> Result<String, TomlError> {
        let mut encoder = Encoder {
            out: String::new(),
            indent: indent.into(),
            written: false,
        };
        encoder.encode(&[], go)?;
        Ok(encoder.out)
    }

    fn s(text: &str) -> Go {
        Go::Str(text.into())
    }

    #[test]
    fn encodes_as_ytt_does() {
        // Expected values from ytt's toml filetest.
        let fragment = Go::Map(vec![(
            s("fragment"),
            Go::List(vec![s("piece1"), s("piece2")]),
        )]);
        let doc = Go::Map(vec![
            (s("inside_map"), fragment.clone()),
            (s("inside_array"), Go::List(vec![fragment.clone()])),
        ]);
        assert_eq!(
            encoded(&doc, "  ").unwrap(),
            "[[inside_array]]\n  fragment = [\"piece1\", \"piece2\"]\n\n[inside_map]\n  fragment = [\"piece1\", \"piece2\"]\n"
        );
        assert_eq!(
            encoded(&doc, "    ").unwrap(),
            "[[inside_array]]\n    fragment = [\"piece1\", \"piece2\"]\n\n[inside_map]\n    fragment = [\"piece1\", \"piece2\"]\n"
        );
        let flat = Go::Map(vec![
            (s("b"), s("str")),
            (
                s("a"),
                Go::List(vec![Go::Int(1), Go::Int(2), Go::Int(3), Go::Int(456)]),
            ),
        ]);
        assert_eq!(
            encoded(&flat, "  ").unwrap(),
            "a = [1, 2, 3, 456]\nb = \"str\"\n"
        );
        assert_eq!(encoded(&Go::Map(vec![]), "  ").unwrap(), "");
        assert_eq!(encoded(&Go::Int(1), "  "), Err(TomlError::NoKey));
        let odd = Go::Map(vec![
            (s("a b"), Go::Float(1.0)),
            (s("n"), Go::Null),
            (
                s("t"),
                Go::Map(vec![(
                    s("x"),
                    Go::List(vec![Go::Map(vec![(s("y"), Go::Bool(true))]), Go::Int(1)]),
                )]),
            ),
        ]);
        assert_eq!(
            encoded(&odd, "  ").unwrap(),
            "\"a b\" = 1.0\n\n[t]\n  x = [{y = true}, 1]\n"
        );
    }
}
