//! Whether a render failure waits on a value the consumer gives: the code
//! on the failing line, or on a call that led to it, reads a data value that
//! the package leaves null or absent (`#@schema/nullable`, then
//! `data.values.x or assert.fail("x is required")`). With the package's own
//! values such a failure is expected; any other one is a defect.

use crate::yaml::{Node, Value};
use std::sync::LazyLock;

static DATA_VALUES: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"\bdata\.values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)").expect("valid pattern")
});

/// The data values read on `lines` that are null or absent in `values`, as
/// dotted paths (`db.host`), in the order read, without repeats.
pub fn awaited_values<'a>(lines: impl IntoIterator<Item = &'a str>, values: &Node) -> Vec<String> {
    let mut awaited: Vec<String> = Vec::new();
    for line in lines {
        for found in DATA_VALUES.captures_iter(line) {
            let keys: Vec<&str> = found[1].split('.').skip(1).collect();
            if let Some(depth) = unset_at(values, &keys) {
                let path = keys[..=depth].join(".");
                if !awaited.contains(&path) {
                    awaited.push(path);
                }
            }
        }
    }
    awaited
}

/// The index of the first key of `keys` whose value is null or absent.
fn unset_at(node: &Node, keys: &[&str]) -> Option<usize> {
    let mut current = node;
    for (depth, key) in keys.iter().enumerate() {
        let Value::Map(items) = &current.value else {
            return None;
        };
        match items.iter().find(|i| i.key.display() == *key) {
            Some(item) if item.value.is_null() => return Some(depth),
            Some(item) => current = &item.value,
            None => return Some(depth),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Node {
        crate::yaml::parse_file(crate::source::FileId(0), text, &Default::default())
            .expect("parses")
            .docs
            .remove(0)
            .value
    }

    #[test]
    fn null_and_absent_values_are_awaited_set_ones_are_not() {
        let v = values("version: null\nport: 8080\nstorage: \"\"\ndb:\n  host: null\n");
        let line = "version: #@ data.values.version or assert.fail(\"missing version\")";
        assert_eq!(awaited_values([line], &v), ["version"]);
        assert_eq!(
            awaited_values(["x: #@ data.values.db.host.name"], &v),
            ["db.host"]
        );
        assert_eq!(
            awaited_values(["x: #@ data.values.missing"], &v),
            ["missing"]
        );
        // An empty string is a value the package gives: not awaited.
        let empty = "s: #@ data.values.storage or assert.fail(\"storage must be set\")";
        assert!(awaited_values([empty, "p: #@ data.values.port"], &v).is_empty());
    }
}
