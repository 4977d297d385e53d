//! Unit tests of the YAML parser: spans, scalars, comments, limits.

use super::{ParseError, ParseErrorKind, ParseOptions, parse_file};
use crate::source::{FileId, Span};
use crate::yaml::node::{
    Annotated, ArrayItem, Comment, CommentKind, DocumentSet, MapItem, Node, ScalarStyle,
    ScalarValue, Value,
};

const F: FileId = FileId(7);

fn parse(text: &str) -> DocumentSet {
    match parse_file(F, text, &ParseOptions::default()) {
        Ok(set) => set,
        Err(e) => panic!("parse failed: {e:?}"),
    }
}

fn parse_err(text: &str) -> ParseError {
    match parse_file(F, text, &ParseOptions::default()) {
        Ok(set) => panic!("expected an error, got {set:?}"),
        Err(e) => e,
    }
}

fn at(text: &str, span: Span) -> &str {
    assert_eq!(span.file, F);
    &text[span.range()]
}

fn map(node: &Node) -> &[MapItem] {
    match &node.value {
        Value::Map(items) => items,
        other => panic!("not a map: {other:?}"),
    }
}

fn arr(node: &Node) -> &[ArrayItem] {
    match &node.value {
        Value::Array(items) => items,
        other => panic!("not an array: {other:?}"),
    }
}

fn get<'n>(node: &'n Node, key: &str) -> &'n MapItem {
    map(node)
        .iter()
        .find(|i| i.key.text == key)
        .unwrap_or_else(|| panic!("no key {key}"))
}

fn val(node: &Node) -> &ScalarValue {
    &node.as_scalar().expect("scalar").resolved
}

fn line(text: &str, offset: u32) -> usize {
    text[..offset as usize].matches('\n').count() + 1
}

fn texts(comments: &[Comment]) -> Vec<&str> {
    comments.iter().map(|c| c.text.as_str()).collect()
}

#[test]
fn spans_cover_keys_values_and_items() {
    let text = "a: 1\nb:\n  - x\n  - &k [1, 2]\n  -\n  - y: z\nc: \"q\"\nd:\ne: |\n  l1\n  l2\n\nf: >-\n  folded\n";
    let set = parse(text);
    assert_eq!(set.docs.len(), 1);
    let doc = &set.docs[0];
    assert!(!doc.has_start_marker);
    assert_eq!(doc.span.start, 0);
    let root = &doc.value;
    assert_eq!(at(text, root.span), text.trim_end());
    let a = get(root, "a");
    assert_eq!(at(text, a.key_span), "a");
    assert_eq!(at(text, a.value.span), "1");
    assert_eq!(val(&a.value), &ScalarValue::Int(1));
    let b = get(root, "b");
    assert_eq!(at(text, b.value.span), "- x\n  - &k [1, 2]\n  -\n  - y: z");
    let items = arr(&b.value);
    assert_eq!(items.len(), 4);
    assert_eq!(at(text, items[0].span), "- x");
    assert_eq!(at(text, items[0].value.span), "x");
    assert_eq!(at(text, items[1].span), "- &k [1, 2]");
    assert_eq!(at(text, items[1].value.span), "[1, 2]");
    assert_eq!(at(text, arr(&items[1].value)[1].span), "2");
    assert_eq!(at(text, items[2].span), "-");
    assert!(items[2].value.is_null());
    assert_eq!(items[2].value.span.start, items[2].span.start + 1);
    assert!(items[2].value.span.range().is_empty());
    assert_eq!(at(text, items[3].span), "- y: z");
    assert_eq!(at(text, items[3].value.span), "y: z");
    let c = get(root, "c");
    assert_eq!(at(text, c.value.span), "\"q\"");
    assert_eq!(
        c.value.as_scalar().unwrap().style,
        ScalarStyle::DoubleQuoted
    );
    let d = get(root, "d");
    assert!(d.value.is_null());
    assert_eq!(d.value.as_scalar().unwrap().text, "");
    // Empty value: an empty span right after the `:`.
    let colon = text.find("d:").unwrap() + 2;
    assert_eq!(d.value.span.range(), colon..colon);
    let e = get(root, "e");
    assert_eq!(at(text, e.value.span), "|\n  l1\n  l2");
    assert_eq!(e.value.as_scalar().unwrap().text, "l1\nl2\n");
    assert_eq!(e.value.as_scalar().unwrap().style, ScalarStyle::Literal);
    let f = get(root, "f");
    assert_eq!(at(text, f.value.span), ">-\n  folded");
    assert_eq!(f.value.as_scalar().unwrap().style, ScalarStyle::Folded);
}

#[test]
fn flow_collections_span_their_brackets() {
    let text = "m: {a: 1, b: [x, 'y']}\n";
    let set = parse(text);
    let m = get(&set.docs[0].value, "m");
    assert_eq!(at(text, m.value.span), "{a: 1, b: [x, 'y']}");
    let b = get(&m.value, "b");
    assert_eq!(at(text, b.value.span), "[x, 'y']");
    let items = arr(&b.value);
    assert_eq!(at(text, items[1].span), "'y'");
    assert_eq!(
        items[1].value.as_scalar().unwrap().style,
        ScalarStyle::SingleQuoted
    );
}

#[test]
fn scalars_keep_text_style_and_tag() {
    let text = "a: !!str 3\nb: !!int \"3\"\nc: yes\nd: '1.5'\ne: 0755\n~: null\n";
    let root = parse(text).docs.remove(0).value;
    let a = get(&root, "a").value.as_scalar().unwrap().clone();
    assert_eq!(a.tag.as_deref(), Some("!!str"));
    assert_eq!(a.resolved, ScalarValue::Str("3".into()));
    assert_eq!(val(&get(&root, "b").value), &ScalarValue::Int(3));
    assert_eq!(val(&get(&root, "c").value), &ScalarValue::Bool(true));
    assert_eq!(val(&get(&root, "d").value), &ScalarValue::Str("1.5".into()));
    assert_eq!(val(&get(&root, "e").value), &ScalarValue::Int(493));
    // Keys are resolved scalars too.
    let null_key = &map(&root)[5];
    assert_eq!(null_key.key.resolved, ScalarValue::Null);
    assert_eq!(at(text, null_key.key_span), "~");
}

#[test]
fn mismatched_tag_is_an_error() {
    let text = "a: !!int abc\n";
    let e = parse_err(text);
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert_eq!(e.message, "cannot decode !!str `abc` as a !!int");
    assert_eq!(at(text, e.span), "abc");
}

#[test]
fn strict_mode_rejects_yaml_1_1_bools() {
    let text = "enabled: yes\nok: true\n";
    let options = ParseOptions {
        strict: true,
        ..ParseOptions::default()
    };
    let e = parse_file(F, text, &options).unwrap_err();
    assert_eq!(
        e.message,
        "Found 'yes' ambigious (could be !!str or !!bool)"
    );
    assert_eq!(at(text, e.span), "yes");
    assert!(parse_file(F, "a: \"yes\"\nb: true\n", &options).is_ok());
    // Without --strict, `yes` is simply true.
    assert_eq!(
        val(&get(&parse(text).docs[0].value, "enabled").value),
        &ScalarValue::Bool(true)
    );
}

#[test]
fn own_line_annotations_go_to_the_next_node() {
    let text = "#@ load(\"@ytt:data\", \"data\")\n#@data/values\n---\n#@schema/validation min=1\n#@schema/nullable\n# plain note\nport: 80\nname: web #! trailing ytt comment\n";
    let set = parse(text);
    assert_eq!(set.docs.len(), 1);
    let doc = &set.docs[0];
    assert!(doc.has_start_marker);
    assert_eq!(at(text, doc.span), "---");
    assert_eq!(
        texts(&doc.comments),
        ["@ load(\"@ytt:data\", \"data\")", "@data/values"]
    );
    assert!(doc.has_annotation("data/values"));
    assert!(
        matches!(&doc.comments[0].kind, CommentKind::Code(c) if c == "load(\"@ytt:data\", \"data\")")
    );
    let port = get(&doc.value, "port");
    assert_eq!(
        texts(&port.comments),
        [
            "@schema/validation min=1",
            "@schema/nullable",
            " plain note"
        ]
    );
    let validation = port.annotation("schema/validation").unwrap();
    assert!(validation.own_line);
    assert_eq!(at(text, validation.span), "#@schema/validation min=1");
    let args = validation.args_offset as usize;
    assert_eq!(&text[args..args + 5], "min=1");
    assert_eq!(port.comments[2].kind, CommentKind::Plain);
    let name = get(&doc.value, "name");
    assert_eq!(texts(&name.comments), ["! trailing ytt comment"]);
    assert!(!name.comments[0].own_line);
    assert_eq!(name.comments[0].kind, CommentKind::Ytt);
    assert!(set.trailing_comments.is_empty());
}

#[test]
fn line_end_comments_go_to_the_node_on_that_line() {
    let text = "port: 80 #@schema/nullable\nkey: #@ data.values.x\nlist:\n- #@ item()\n  a: 1\n  b: 2 #@ b\n- plain #@ p\n";
    let root = parse(text).docs.remove(0).value;
    let port = get(&root, "port");
    assert_eq!(texts(&port.comments), ["@schema/nullable"]);
    assert!(!port.comments[0].own_line);
    assert_eq!(texts(&get(&root, "key").comments), ["@ data.values.x"]);
    let list = get(&root, "list");
    assert!(list.comments.is_empty());
    let items = arr(&list.value);
    // `- #@ x` with a map on the next line: the array item starts on the `-` line.
    assert_eq!(line(text, items[0].span.start), 4);
    assert_eq!(at(text, items[0].span), "- #@ item()\n  a: 1\n  b: 2");
    assert_eq!(texts(&items[0].comments), ["@ item()"]);
    let inner = map(&items[0].value);
    assert!(inner[0].comments.is_empty());
    assert_eq!(texts(&inner[1].comments), ["@ b"]);
    assert_eq!(texts(&items[1].comments), ["@ p"]);
}

#[test]
fn comments_in_flow_collections_and_at_the_end() {
    let text = "ports: [80, #@ a\n  443, # b\n  8080]\n# tail 1\n#@ tail 2\n";
    let set = parse(text);
    let ports = get(&set.docs[0].value, "ports");
    // Line 1 starts the map item and the item `80`: the last one owns it.
    assert!(ports.comments.is_empty());
    let items = arr(&ports.value);
    assert_eq!(texts(&items[0].comments), ["@ a"]);
    assert_eq!(texts(&items[1].comments), [" b"]);
    assert!(items[2].comments.is_empty());
    assert_eq!(texts(&set.trailing_comments), [" tail 1", "@ tail 2"]);
    assert!(set.trailing_comments.iter().all(|c| c.own_line));
}

#[test]
fn comment_before_implicit_document_goes_to_the_document() {
    let text = "#@ load(\"x.star\", \"f\")\na: 1\n";
    let set = parse(text);
    assert_eq!(texts(&set.docs[0].comments), ["@ load(\"x.star\", \"f\")"]);
    assert!(map(&set.docs[0].value)[0].comments.is_empty());
    let a = text.find("a: 1").unwrap();
    assert_eq!(set.docs[0].span.range(), a..a);
}

#[test]
fn multi_document_files() {
    let text = "a: 1\n---\n#@data/values\n---\nb: 2\n--- # marker comment\nc: 3\n...\n";
    let set = parse(text);
    assert_eq!(set.docs.len(), 4);
    assert!(!set.docs[0].has_start_marker);
    assert!(set.docs[1].has_start_marker);
    assert!(set.docs[1].value.is_null());
    // The annotation between two `---` belongs to the later document,
    // although the parser reports it inside the earlier, empty one.
    assert!(set.docs[1].comments.is_empty());
    assert!(set.docs[2].has_annotation("data/values"));
    assert_eq!(line(text, set.docs[2].span.start), 4);
    assert_eq!(at(text, set.docs[2].span), "---");
    assert_eq!(texts(&set.docs[3].comments), [" marker comment"]);
    assert_eq!(
        val(&get(&set.docs[3].value, "c").value),
        &ScalarValue::Int(3)
    );
}

#[test]
fn block_of_annotations_on_one_key_in_nested_maps() {
    let text = "spec:\n  #@overlay/match by=\"name\"\n  #@overlay/match-child-defaults missing_ok=True\n\n  #@schema/desc \"the image\"\n  image: nginx\n  other: 1\n";
    let root = parse(text).docs.remove(0).value;
    let spec = get(&root, "spec");
    assert!(spec.comments.is_empty());
    let image = get(&spec.value, "image");
    assert_eq!(image.annotations().count(), 3);
    assert_eq!(
        image.annotation("overlay/match").map(|c| &c.kind),
        Some(&CommentKind::Annotation {
            name: "overlay/match".into(),
            args: "by=\"name\"".into()
        })
    );
    assert!(get(&spec.value, "other").comments.is_empty());
}

#[test]
fn anchors_and_aliases_copy_the_subtree() {
    let text = "base: &b\n  x: 1\n  y: [1, 2]\ncopy: *b\nlist:\n- &s hello\n- *s\n";
    let root = parse(text).docs.remove(0).value;
    let base = get(&root, "base");
    let copy = get(&root, "copy");
    assert_eq!(at(text, copy.value.span), "*b");
    assert_eq!(map(&copy.value).len(), 2);
    assert_eq!(map(&copy.value)[0].key.text, "x");
    assert_eq!(
        map(&base.value)[1].value.value,
        map(&copy.value)[1].value.value
    );
    assert_eq!(at(text, base.value.span), "x: 1\n  y: [1, 2]");
    let items = arr(&get(&root, "list").value);
    assert_eq!(at(text, items[0].span), "- &s hello");
    assert_eq!(at(text, items[0].value.span), "hello");
    assert_eq!(at(text, items[1].span), "- *s");
    assert_eq!(val(&items[1].value), &ScalarValue::Str("hello".into()));
}

#[test]
fn comments_near_aliases_stay_in_order() {
    let text = "base: &b\n  #@ note\n  x: 1\nuse: *b #@ here\nafter: 2\n";
    let root = parse(text).docs.remove(0).value;
    assert_eq!(
        texts(&get(&get(&root, "base").value, "x").comments),
        ["@ note"]
    );
    assert_eq!(texts(&get(&root, "use").comments), ["@ here"]);
    assert!(get(&root, "after").comments.is_empty());
}

#[test]
fn merge_keys_add_missing_keys() {
    let text = "defaults: &d\n  a: 1\n  b: 2\nsvc:\n  <<: *d\n  b: 20\n  <<: {z: 0}\n  <<: []\n";
    let root = parse(text).docs.remove(0).value;
    let svc = map(&get(&root, "svc").value);
    let keys: Vec<_> = svc.iter().map(|i| i.key.text.as_str()).collect();
    // The merged `b` comes first; the map's own `b` after it wins, there.
    assert_eq!(keys, ["a", "b", "z"]);
    assert_eq!(val(&svc[0].value), &ScalarValue::Int(1));
    assert_eq!(val(&svc[1].value), &ScalarValue::Int(20));
    // ytt's go-yaml refuses any item of a sequence of maps, and an
    // alias of anything but a map (an empty sequence too).
    for text in [
        "d: &d {a: 1}\ne: &e {b: 2}\nsvc:\n  <<: [*d, *e]\n",
        "svc:\n  <<: [{a: 1}]\n",
        "d: &d {a: 1}\nsvc:\n  <<:\n  - *d\n",
        "l: &l []\nsvc:\n  <<: *l\n",
    ] {
        let e = parse_err(text);
        assert_eq!(
            e.message, "map merge requires map or sequence of maps as the value",
            "{text}"
        );
    }
    // A merge after the map's own key overrides it, as ytt reads it.
    let text = "d: &d {a: 1, b: 2}\nsvc:\n  b: 20\n  <<: *d\n  c: 3\n";
    let root = parse(text).docs.remove(0).value;
    let svc = map(&get(&root, "svc").value);
    let keys: Vec<_> = svc.iter().map(|i| i.key.text.as_str()).collect();
    assert_eq!(keys, ["b", "a", "c"]);
    assert_eq!(val(&svc[0].value), &ScalarValue::Int(2));
    let text = "a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n";
    assert!(parse_file(F, text, &ParseOptions::default()).is_ok());
    let e = parse_err("a: &a 1\nb:\n  <<: *a\n");
    assert_eq!(
        e.message,
        "map merge requires map or sequence of maps as the value"
    );
}

#[test]
fn duplicate_keys_are_reported_like_ytt() {
    let text = "replicas: 1\nname: x\nreplicas: 3\n";
    let e = parse_err(text);
    assert_eq!(e.kind, ParseErrorKind::DuplicateKey);
    assert_eq!(
        e.message,
        "expected key 'replicas' to not be specified again"
    );
    assert_eq!(e.span.start as usize, text.rfind("replicas").unwrap());
    assert_eq!(at(text, e.span), "replicas");
    // Different types are different keys; nested maps are separate.
    assert!(
        parse_file(
            F,
            "1: a\n\"1\": b\nm: {1: x}\nn: {1: y}\n",
            &ParseOptions::default()
        )
        .is_ok()
    );
    let mut big: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
    big.push_str("k17: again\n");
    let e = parse_err(&big);
    assert_eq!(e.message, "expected key 'k17' to not be specified again");
    assert_eq!(line(&big, e.span.start), 41);
    let e = parse_err("m: {a: 1, a: 2}\n");
    assert_eq!(e.message, "expected key 'a' to not be specified again");
    assert_eq!(e.span.start, 10);
}

#[test]
fn same_line_comment_goes_to_the_innermost_node() {
    let text = "items:\n- name: a #@ on name\n  port: 1\n";
    let root = parse(text).docs.remove(0).value;
    let items = arr(&get(&root, "items").value);
    assert!(items[0].comments.is_empty());
    assert_eq!(texts(&get(&items[0].value, "name").comments), ["@ on name"]);
}

#[test]
fn a_file_of_too_many_nodes_is_refused_at_the_node_past_the_limit() {
    let options = ParseOptions {
        max_nodes: 1_000,
        ..ParseOptions::default()
    };
    let text: String = (0..600).map(|i| format!("k{i}: {i}\n")).collect();
    let e = parse_file(FileId(0), &text, &options).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert!(
        e.message.contains("more than 1000 YAML nodes"),
        "{}",
        e.message
    );
    let fits: String = (0..400).map(|i| format!("k{i}: {i}\n")).collect();
    assert!(parse_file(FileId(0), &fits, &options).is_ok());
}

#[test]
fn syntax_errors_point_at_the_problem() {
    let text = "a: b: c\n";
    let e = parse_err(text);
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert_eq!(e.message, "mapping values are not allowed in this context");
    assert_eq!(line(text, e.span.start), 1);

    let text = "service:\n  port: 80\n   name: web\n";
    let e = parse_err(text);
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert_eq!(line(text, e.span.start), 3, "{e:?}");

    let e = parse_err("a: \"unclosed\nb: 1\n");
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert!(!e.message.is_empty());

    let text = "a:\n\tb: 1\n";
    let e = parse_err(text);
    assert_eq!(line(text, e.span.start), 2, "{e:?}");

    let e = parse_err("a: *nowhere\n");
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert!(
        e.message.contains("nowhere") || e.message.contains("anchor"),
        "{e:?}"
    );
}

#[test]
fn deep_flow_nesting_is_an_error_not_a_crash() {
    let text = "[".repeat(10_000);
    let e = parse_err(&text);
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert_eq!(e.message, "nesting depth exceeds the maximum of 200");
    let text = format!("{}{}", "{a: ".repeat(10_000), "}".repeat(10_000));
    assert_eq!(
        parse_err(&text).message,
        "nesting depth exceeds the maximum of 200"
    );
}

#[test]
fn deep_block_nesting_is_an_error_not_a_crash() {
    let mut text = String::new();
    for depth in 0..10_000 {
        text.push_str(&" ".repeat(depth));
        text.push_str("a:\n");
    }
    let e = parse_err(&text);
    assert_eq!(e.message, "nesting depth exceeds the maximum of 200");
    assert_eq!(line(&text, e.span.start), 201);
    let text = "- ".repeat(10_000) + "x\n";
    assert_eq!(
        parse_err(&text).message,
        "nesting depth exceeds the maximum of 200"
    );
}

#[test]
fn nesting_up_to_the_limit_parses_on_a_small_stack() {
    let text = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let set = parse_file(F, &text, &ParseOptions::default()).map(|s| s.docs.len());
            drop(text);
            set
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), Ok(1));
    // An alias that would nest deeper than the limit is refused too.
    let text = format!(
        "a: &a {}1{}\nb: [[[[*a]]]]\n",
        "[".repeat(198),
        "]".repeat(198)
    );
    assert_eq!(
        parse_err(&text).message,
        "nesting depth exceeds the maximum of 200"
    );
}

#[test]
fn alias_bomb_is_refused() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let e = parse_err(&text);
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert_eq!(e.message, "alias expansion exceeds 100000 nodes");
    assert_eq!(&text[e.span.range()][..2], "*a");
    // A modest number of aliases is fine.
    let small = "a: &a [1, 2]\nb: [*a, *a, *a]\n";
    assert_eq!(arr(&get(&parse(small).docs[0].value, "b").value).len(), 3);
}

#[test]
fn self_referencing_alias_is_an_error() {
    let e = parse_err("a: &a [1, *a]\n");
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert_eq!(e.message, "anchor 'a' value contains itself");
}

#[test]
fn empty_and_marker_only_files() {
    assert_eq!(parse("").docs.len(), 0);
    assert_eq!(parse("\n\n  \n").docs.len(), 0);
    let set = parse("# only\n# comments\n");
    assert_eq!(set.docs.len(), 0);
    assert_eq!(texts(&set.trailing_comments), [" only", " comments"]);
    let set = parse("---\n");
    assert_eq!(set.docs.len(), 1);
    assert!(set.docs[0].has_start_marker);
    assert!(set.docs[0].value.is_null());
    assert_eq!(set.docs[0].value.type_name(), "null");
    let set = parse("---");
    assert_eq!(set.docs.len(), 1);
    assert!(set.docs[0].value.is_null());
    assert_eq!(parse("...\n").docs.len(), 0);
    assert_eq!(parse("---\n...\n---\n").docs.len(), 2);
}

#[test]
fn crlf_line_endings_keep_spans_and_lines() {
    let text = "#@data/values\r\n---\r\na: 1 # one\r\nb:\r\n  - x\r\n# tail\r\n";
    let set = parse(text);
    let doc = &set.docs[0];
    assert!(doc.has_annotation("data/values"));
    assert_eq!(doc.comments[0].text, "@data/values");
    assert_eq!(at(text, doc.comments[0].span), "#@data/values");
    let a = get(&doc.value, "a");
    assert_eq!(at(text, a.value.span), "1");
    assert_eq!(texts(&a.comments), [" one"]);
    assert_eq!(at(text, a.comments[0].span), "# one");
    let b = get(&doc.value, "b");
    assert_eq!(line(text, b.key_span.start), 4);
    assert_eq!(at(text, arr(&b.value)[0].span), "- x");
    assert_eq!(texts(&set.trailing_comments), [" tail"]);
}

#[test]
fn byte_order_mark_is_skipped() {
    let text = "\u{feff}a: 1\nb: 2\n";
    let root = parse(text).docs.remove(0).value;
    assert_eq!(map(&root)[0].key.text, "a");
    assert_eq!(at(text, map(&root)[0].key_span), "a");
    let text = "\u{feff}# c\na: 1\n";
    let set = parse(text);
    assert!(set.docs[0].comments[0].own_line);
}

/// go-yaml v2 (ytt, Kubernetes) reads a quoted scalar whose next lines
/// sit at its key's indentation, as CRDs reformatted by some tools have
/// them; YAML 1.2 wants them indented more.
#[test]
fn quoted_continuation_lines_at_the_key_indentation_are_read() {
    let text = "a:\n  description: 'one\n  two'\n  type: string\nb: \"x\n  y\"\n";
    let root = parse(text).docs.remove(0).value;
    let inner = map(&map(&root)[0].value);
    assert_eq!(val(&inner[0].value), &ScalarValue::Str("one two".into()));
    assert_eq!(inner[1].key.text, "type");
    assert_eq!(val(&map(&root)[1].value), &ScalarValue::Str("x y".into()));
}

#[test]
fn tabs_after_values_are_fine() {
    let text = "a:\t1\nb: x\t# c\n";
    let root = parse(text).docs.remove(0).value;
    assert_eq!(val(&get(&root, "a").value), &ScalarValue::Int(1));
    assert_eq!(texts(&get(&root, "b").comments), [" c"]);
}

#[test]
fn garbage_never_panics() {
    // A small deterministic generator over bytes that matter to YAML.
    let alphabet = b"-:?[]{},#&*!|>'\"%@`\t\r\n .0123456789abcdefxyz~<=\\\xef\xbb\xbf\xff\xc3";
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..3000 {
        let len = (round % 97) + 1;
        let mut bytes = Vec::with_capacity(len);
        for _ in 0..len {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bytes.push(alphabet[(state % alphabet.len() as u64) as usize]);
        }
        let text = String::from_utf8_lossy(&bytes);
        match parse_file(F, &text, &ParseOptions::default()) {
            Ok(set) => {
                for doc in &set.docs {
                    assert!(doc.span.end as usize <= text.len());
                }
            }
            Err(e) => {
                assert!(e.span.end as usize <= text.len());
                assert!(text.is_char_boundary(e.span.start as usize));
            }
        }
    }
}

#[test]
fn large_generated_file_parses_quickly() {
    let mut text = String::with_capacity(5_300_000);
    let mut i = 0;
    while text.len() < 5_000_000 {
        text.push_str(&format!(
            "#@data/values\n---\nname: item-{i}\nreplicas: {i}\nports:\n- 80\n- 443 #@ x\nlabels: {{app: web, tier: \"front\"}}\n"
        ));
        i += 1;
    }
    let started = std::time::Instant::now();
    let set = parse(&text);
    assert_eq!(set.docs.len(), i);
    assert!(set.docs[i - 1].has_annotation("data/values"));
    let ports = arr(&get(&set.docs[i - 1].value, "ports").value);
    assert_eq!(texts(&ports[1].comments), ["@ x"]);
    assert!(
        started.elapsed().as_secs() < 30,
        "took {:?}",
        started.elapsed()
    );
}
