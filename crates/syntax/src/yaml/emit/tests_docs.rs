//! Document sets (how `ytt -f` joins and skips documents) and the API's
//! single-document entry points. Expected texts come from the reference ytt.

use super::tests::{cases, ytt_print};
use super::{document_set_to_yaml, to_yaml};
use crate::source::FileId;
use crate::yaml::{ParseOptions, parse_file};

cases! {
    docs_separated:
        "a: 1\n---\nb: 2\n---\n- c\n"
        => "a: 1\n---\nb: 2\n---\n- c\n";
    docs_empty_first_documents_skipped:
        "---\n---\na: 1\n"
        => "a: 1\n";
    docs_only_null:
        "--- null\n"
        => "";
    docs_empty_file:
        ""
        => "";
    docs_only_comment:
        "# only comment\n"
        => "";
    docs_only_markers:
        "---\n---\n"
        => "";
    docs_empty_map_and_array_skipped:
        "{}\n---\n[]\n---\na: 1\n---\n~\n---\nb: 2\n"
        => "a: 1\n---\nb: 2\n";
    docs_scalars:
        "--- \"\"\n--- []\n--- false\n--- 0\n--- {}\n--- \"x\"\n"
        => "\"\"\n---\nfalse\n---\n0\n---\nx\n";
    docs_floats:
        "--- 1.5\n--- -0.0\n--- .inf\n"
        => "1.5\n---\n-0\n---\n.inf\n";
    docs_literal_keep_then_more:
        "--- \"a\\nb\\n\\n\"\n--- x\n"
        => "|+\n  a\n  b\n\n---\nx\n";
    docs_document_end_marker:
        "a: 1\n...\n"
        => "a: 1\n";
    docs_literal_keep_at_end:
        "--- |+\n  a\n\n"
        => "|+\n  a\n\n";
}

fn first_doc(input: &str) -> crate::yaml::Node {
    let set = parse_file(FileId(0), input, &ParseOptions::default()).expect("parses");
    set.docs.into_iter().next().expect("one document").value
}

#[test]
fn none_documents_are_skipped() {
    let a = first_doc("a: 1\n");
    let b = first_doc("- b\n");
    assert_eq!(document_set_to_yaml(&[]), "");
    assert_eq!(document_set_to_yaml(&[None, None]), "");
    assert_eq!(
        document_set_to_yaml(&[None, Some(&a), None, Some(&b), None]),
        "a: 1\n---\n- b\n"
    );
}

/// `yaml.encode()` in a ytt template: `#@ yaml.encode({})` gives "{}\n",
/// `yaml.encode([])` "[]\n", `yaml.encode(None)` "" (checked with ytt).
#[test]
fn to_yaml_prints_one_value_as_yaml_encode_does() {
    assert_eq!(to_yaml(&first_doc("{}\n")), "{}\n");
    assert_eq!(to_yaml(&first_doc("[]\n")), "[]\n");
    assert_eq!(to_yaml(&first_doc("null\n")), "");
    assert_eq!(to_yaml(&first_doc("x\n")), "x\n");
    assert_eq!(
        to_yaml(&first_doc("k: [1, {z: null}]\n")),
        "k:\n- 1\n- z: null\n"
    );
    // `--data-values-inspect` prints nothing for empty data values.
    assert_eq!(document_set_to_yaml(&[Some(&first_doc("{}\n"))]), "");
}

/// Every single-document case prints the same through `to_yaml`.
#[test]
fn to_yaml_agrees_with_the_document_set_for_one_document() {
    for input in ["a: 1\n", "- x\n", "\"a\\nb\"\n", "3\n", "k:\n  - v\n"] {
        let node = first_doc(input);
        assert_eq!(to_yaml(&node), ytt_print(input), "{input:?}");
    }
}
