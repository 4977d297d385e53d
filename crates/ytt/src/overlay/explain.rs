//! What ytt never says when an overlay fails, as notes (related locations)
//! beside its message: for a `subset` or `map_key` matcher that matched
//! nothing, the nearest candidates and the key where each differs; for too
//! many matches, where each match is; for an `@overlay/assert`, where the
//! target differs from what the overlay asserts.

use crate::source::Span;
use crate::yaml::{Node, ScalarValue, Value as NodeValue};

/// A related location and what it says.
pub type Note = (Span, String);

/// How many candidates a no-match explains, and how many of the keys
/// where each differs: the nearest few say why; a list of all says less.
const MAX_CANDIDATES: usize = 3;
const MAX_DIFFERENCES: usize = 3;
/// How many matches of too many are shown.
const MAX_MATCHES: usize = 10;

/// One key where a target differs from what the overlay asks.
struct Difference<'a> {
    /// ytt-style path below the compared node (`metadata.name`, `[0]`).
    path: String,
    /// The target's node there; None when it has no such key or item.
    found: Option<&'a Node>,
    asked: &'a Node,
    /// Where to point: the target's node, else the nearest node above.
    at: Span,
}

/// Every place where `left` does not hold `right` (as ytt's comparison of
/// a subset or an assert decides), in `right`'s order.
fn differences<'a>(left: &'a Node, right: &'a Node, path: &str, out: &mut Vec<Difference<'a>>) {
    // A child `right` asks for, compared with `left`'s (None: absent).
    let mut child = |found: Option<&'a Node>, asked: &'a Node, below: String| match found {
        Some(found) => differences(found, asked, &below, out),
        None => out.push(Difference {
            path: below,
            found: None,
            asked,
            at: left.span,
        }),
    };
    match (&left.value, &right.value) {
        (NodeValue::Map(left_items), NodeValue::Map(right_items)) => {
            for right_item in right_items {
                let key = right_item.key.display();
                let below = if path.is_empty() {
                    key
                } else {
                    format!("{path}.{key}")
                };
                let found = left_items
                    .iter()
                    .find(|i| i.key.resolved == right_item.key.resolved)
                    .map(|i| &i.value);
                child(found, &right_item.value, below);
            }
        }
        (NodeValue::Array(left_items), NodeValue::Array(right_items)) => {
            for (i, right_item) in right_items.iter().enumerate() {
                let found = left_items.get(i).map(|i| &i.value);
                child(found, &right_item.value, format!("{path}[{i}]"));
            }
        }
        (NodeValue::Scalar(l), NodeValue::Scalar(r)) if l.resolved == r.resolved => {}
        _ => out.push(Difference {
            path: path.to_string(),
            found: Some(left),
            asked: right,
            at: left.span,
        }),
    }
}

/// A value in a note: a scalar as written, else what it is.
fn shown(node: &Node) -> String {
    match &node.value {
        NodeValue::Scalar(s) => match &s.resolved {
            ScalarValue::Str(text) if text.len() > 60 => {
                format!("{}...", &text[..text.floor_char_boundary(57)])
            }
            _ => s.display(),
        },
        NodeValue::Map(_) => "a map".into(),
        NodeValue::Array(_) => "an array".into(),
    }
}

fn note(difference: &Difference<'_>, verb: &str) -> Note {
    let path = &difference.path;
    let has = match difference.found {
        // The compared node itself (an item that is no map).
        Some(found) if path.is_empty() => format!("target is {}", shown(found)),
        Some(found) => format!("target has {path}: {}", shown(found)),
        None => format!("target has no {path}"),
    };
    (
        difference.at,
        format!("{has}; overlay {verb} {}", shown(difference.asked)),
    )
}

/// Why no candidate matched `asked` (what a `subset` or `map_key` matcher
/// asks of a node): the candidates that differ least, each at the keys
/// where it differs. Candidates of the kind asked for (`kind:`) come
/// first: when some have it, the others are not shown.
pub fn no_match(asked: &Node, candidates: &[&Node]) -> Vec<Note> {
    let mut compared: Vec<Vec<Difference<'_>>> = candidates
        .iter()
        .map(|left| {
            let mut out = Vec::new();
            differences(left, asked, "", &mut out);
            out
        })
        .filter(|d| !d.is_empty())
        .collect();
    if compared
        .iter()
        .any(|d| d.iter().all(|difference| difference.path != "kind"))
    {
        compared.retain(|d| d.iter().all(|difference| difference.path != "kind"));
    }
    compared.sort_by_key(Vec::len);
    compared
        .iter()
        .take(MAX_CANDIDATES)
        .flat_map(|d| d.iter().take(MAX_DIFFERENCES).map(|d| note(d, "asks for")))
        .collect()
}

/// What a `map_key(key)` matcher asks of a node: a map of `key` with the
/// value `right` has there (None when `right` has no such key).
pub fn asked_key(right: &Node, key: &str) -> Option<Node> {
    let NodeValue::Map(items) = &right.value else {
        return None;
    };
    let item = items
        .iter()
        .find(|i| i.key.resolved == ScalarValue::Str(key.to_string()))?;
    Some(Node {
        span: right.span,
        value: NodeValue::Map(vec![item.clone()]),
    })
}

/// The target's key nearest to `key` (a likely misspelling), when a map
/// item matched by its key found none.
pub fn near_key(key: &str, items: &[crate::yaml::MapItem]) -> Option<Note> {
    let keys: Vec<String> = items.iter().map(|i| i.key.display()).collect();
    let near = crate::suggest::did_you_mean(key, &keys)?;
    let item = items.iter().find(|i| i.key.display() == near)?;
    Some((
        item.key_span,
        format!("target has key {near}; overlay asks for {key}"),
    ))
}

/// Where each of too many matches is.
pub fn matches(spans: &[Span]) -> Vec<Note> {
    let mut notes: Vec<Note> = spans
        .iter()
        .take(MAX_MATCHES)
        .enumerate()
        .map(|(i, span)| (*span, format!("match {} of {}", i + 1, spans.len())))
        .collect();
    if spans.len() > MAX_MATCHES
        && let Some(last) = notes.last_mut()
    {
        last.1
            .push_str(&format!(" ({} more not shown)", spans.len() - MAX_MATCHES));
    }
    notes
}

/// Where the target of an `@overlay/assert` differs from what it asserts.
pub fn assert_failed(target: &Node, asserted: &Node) -> Vec<Note> {
    let mut out = Vec::new();
    differences(target, asserted, "", &mut out);
    out.iter()
        .take(MAX_DIFFERENCES)
        .map(|d| note(d, "asserts"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;
    use crate::yaml::{ParseOptions, parse_file};

    fn docs(text: &str) -> Vec<Node> {
        let set = parse_file(FileId(0), text, &ParseOptions::default()).expect("valid YAML");
        set.docs.into_iter().map(|d| d.value).collect()
    }

    fn labels(notes: &[Note]) -> Vec<&str> {
        notes.iter().map(|(_, label)| label.as_str()).collect()
    }

    #[test]
    fn a_subset_without_match_shows_the_nearest_document_of_its_kind() {
        let targets = docs(
            "kind: Deployment\nmetadata:\n  name: web-v2\n---\nkind: Service\nmetadata:\n  name: web\n---\nkind: Deployment\nmetadata:\n  name: api\n  namespace: prod\n",
        );
        let asked = &docs("kind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n")[0];
        let candidates: Vec<&Node> = targets.iter().collect();
        let notes = no_match(asked, &candidates);
        assert_eq!(
            labels(&notes),
            [
                "target has metadata.name: api; overlay asks for web",
                "target has metadata.name: web-v2; overlay asks for web",
                "target has no metadata.namespace; overlay asks for prod",
            ]
        );
        // The first note points at the name's value in the third document.
        let metadata = crate::yaml::item(&targets[2], "metadata").unwrap();
        let name = crate::yaml::item(&metadata.value, "name").unwrap();
        assert_eq!(notes[0].0, name.value.span);
    }

    #[test]
    fn a_map_key_asks_for_one_key() {
        let items = docs("- name: web-app\n  image: a\n- image: b\n")
            .into_iter()
            .next()
            .unwrap();
        let NodeValue::Array(items) = &items.value else {
            panic!("an array")
        };
        let asked = &docs("name: web\n")[0];
        let candidates: Vec<&Node> = items.iter().map(|i| &i.value).collect();
        assert_eq!(
            labels(&no_match(asked, &candidates)),
            [
                "target has name: web-app; overlay asks for web",
                "target has no name; overlay asks for web",
            ]
        );
    }

    #[test]
    fn an_assert_shows_where_the_target_differs() {
        let target = &docs("spec:\n  replicas: 1\n  paused: false\n")[0];
        let asserted = &docs("spec:\n  replicas: 3\n  paused: false\n")[0];
        assert_eq!(
            labels(&assert_failed(target, asserted)),
            ["target has spec.replicas: 1; overlay asserts 3"]
        );
    }

    #[test]
    fn too_many_matches_are_each_shown() {
        let spans = vec![Span::file_start(FileId(1)); 12];
        let notes = matches(&spans);
        assert_eq!(notes.len(), 10);
        assert_eq!(notes[0].1, "match 1 of 12");
        assert_eq!(notes[9].1, "match 10 of 12 (2 more not shown)");
    }
}
