//! The fix of a `ytt/type-mismatch` that only quoting makes: a data value
//! written `port: 8080` where the schema wants a string becomes `"8080"`,
//! and `"8080"` where it wants an integer becomes `8080`. Made only for a
//! single-line scalar written in a data-values file, untagged, and quoted
//! without escapes: the text stays the same characters, only what YAML
//! reads it as changes.

use super::schema::TypeKind;
use crate::edit::{Edit, Fix};
use crate::source::{FileId, Sources};
use crate::yaml::{Node, ScalarStyle, ScalarValue};
use std::collections::HashSet;

/// Where the values a type check sees were written: only values of these
/// data-values files get a quoting fix (not `--data-value` flags, not
/// values template code makes).
pub struct WrittenValues<'a> {
    pub sources: &'a Sources,
    pub files: HashSet<FileId>,
}

impl WrittenValues<'_> {
    /// The quoting change that makes `node` of type `kind`, when that is
    /// all it takes.
    pub fn fix(&self, node: &Node, kind: &TypeKind) -> Option<Fix> {
        let scalar = node.as_scalar()?;
        let span = node.span;
        if scalar.tag.is_some()
            || !self.files.contains(&span.file)
            || self.sources.path(span.file).is_none()
        {
            return None;
        }
        let file = self.sources.get(span.file);
        let text = file.text.as_str();
        let written = text.get(span.range())?;
        let line_start = text[..span.start as usize]
            .rfind('\n')
            .map_or(0, |at| at + 1);
        // A `#` before the value on its line: the value is template code.
        if written.contains('\n') || text[line_start..span.start as usize].contains('#') {
            return None;
        }
        let new = match (&scalar.style, &scalar.resolved, kind) {
            (
                ScalarStyle::Plain,
                ScalarValue::Int(_) | ScalarValue::Float(_) | ScalarValue::Bool(_),
                TypeKind::String,
            ) if written == scalar.text && !written.contains(['"', '\\']) => {
                format!("\"{written}\"")
            }
            (ScalarStyle::DoubleQuoted | ScalarStyle::SingleQuoted, ScalarValue::Str(inner), _)
                if unquoted(written) == Some(inner.as_str()) && reads_plain_as(inner, kind) =>
            {
                inner.clone()
            }
            _ => return None,
        };
        let message = format!("write {new}");
        Fix::unsafe_(message, vec![Edit::replace(span, new)])
    }
}

/// The text between the quotes of `written`, when it holds no escape
/// (`\` in double quotes, `''` in single quotes).
fn unquoted(written: &str) -> Option<&str> {
    let quote = written.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let inner = written.strip_prefix(quote)?.strip_suffix(quote)?;
    let escapes = if quote == '"' { "\\" } else { "''" };
    (!inner.contains(escapes) && !inner.contains(quote)).then_some(inner)
}

/// Whether `text`, written plain, reads as a value of exactly `kind`: an
/// integer for an integer, a float for a float, `true` or `false` for a
/// boolean (not `yes`, which ytt's `--strict` rejects).
fn reads_plain_as(text: &str, kind: &TypeKind) -> bool {
    let is_plain_token = !text.is_empty() && text.trim() == text && !text.contains(['#', ':']);
    let value = crate::yaml::scalar::resolve(text, ScalarStyle::Plain, None);
    is_plain_token
        && match (kind, value) {
            (TypeKind::Int, ScalarValue::Int(_)) | (TypeKind::Float, ScalarValue::Float(_)) => true,
            (TypeKind::Bool, ScalarValue::Bool(_)) => text == "true" || text == "false",
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use crate::yaml::{Value, item};

    /// `text` with the quoting fix of its `port:` value for `kind`.
    fn fixed(text: &str, kind: TypeKind) -> Option<String> {
        let sources = Sources::new();
        let file = SourceFile::new("values.yml".into(), Some("values.yml".into()), text.into());
        let id = sources.add(file);
        let set = crate::yaml::parse_file(id, text, &Default::default()).unwrap();
        let written = WrittenValues {
            sources: &sources,
            files: HashSet::from([id]),
        };
        let port = &item(&set.docs[0].value, "port").unwrap().value;
        assert!(matches!(port.value, Value::Scalar(_)));
        let fix = written.fix(port, &kind)?;
        let edits: Vec<&Edit> = fix.edits.iter().collect();
        Some(crate::edit::apply_edits(text, &edits))
    }

    const VALUES: &str = "#@data/values\n---\nport: 8080 #! the service port\n";

    #[test]
    fn a_number_given_for_a_string_is_quoted() {
        assert_eq!(
            fixed(VALUES, TypeKind::String).as_deref(),
            Some("#@data/values\n---\nport: \"8080\" #! the service port\n")
        );
        let flag = fixed("#@data/values\n---\nport: true\n", TypeKind::String);
        assert_eq!(
            flag.as_deref(),
            Some("#@data/values\n---\nport: \"true\"\n")
        );
    }

    #[test]
    fn a_quoted_number_given_for_a_number_is_unquoted() {
        let quoted = VALUES.replace("8080", "\"8080\"");
        assert_eq!(fixed(&quoted, TypeKind::Int).as_deref(), Some(VALUES));
        let single = VALUES.replace("8080", "'0.5'");
        assert_eq!(
            fixed(&single, TypeKind::Float).as_deref(),
            Some(VALUES.replace("8080", "0.5").as_str())
        );
    }

    #[test]
    fn no_fix_when_more_than_quoting_changes() {
        let cases = [
            // Not an integer as written plain, or a float for an integer.
            ("\"80a\"", TypeKind::Int),
            ("\"0.5\"", TypeKind::Int),
            // An escape, a tag, a `yes` that --strict rejects.
            ("\"80\\x38\"", TypeKind::Int),
            ("!!int 8080", TypeKind::String),
            ("\"yes\"", TypeKind::Bool),
        ];
        for (written, kind) in cases {
            assert_eq!(
                fixed(&VALUES.replace("8080", written), kind),
                None,
                "{written}"
            );
        }
        let code = "#@data/values\n---\nport: #@ 8080\n";
        assert_eq!(fixed(code, TypeKind::String), None);
    }
}
