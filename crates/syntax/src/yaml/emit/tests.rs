//! Output cases: each input is parsed as confvet parses it and printed as
//! `ytt -f` prints it. Every expected text was produced by the reference
//! ytt (`ytt -f input.yml`, ytt built from carvel-dev/ytt at 4b40e30), so
//! these pin go-yaml v2's emitter as ytt runs it; the binary is not needed
//! to run them.

use super::document_set_to_yaml;
use crate::source::FileId;
use crate::yaml::{Node, ParseOptions, parse_file};

/// What `ytt -f` prints for this file.
pub(super) fn ytt_print(input: &str) -> String {
    let set = parse_file(FileId(0), input, &ParseOptions::default())
        .unwrap_or_else(|e| panic!("{input:?} does not parse: {}", e.message));
    let docs: Vec<Option<&Node>> = set.docs.iter().map(|d| Some(&d.value)).collect();
    document_set_to_yaml(&docs)
}

/// `name: input => expected;`, one test each.
macro_rules! cases {
    ($($name:ident: $input:expr => $want:expr;)*) => {
        $(
            #[test]
            fn $name() {
                let got = $crate::yaml::emit::tests::ytt_print($input);
                assert_eq!(got, $want, "input: {:?}", $input);
            }
        )*
    };
}
pub(super) use cases;

cases! {
    plain_strings:
        "a: hello\nb: hello world\nc: a:b\nd: -x\ne: ?x\nf: a,b\ng: a#b\nh: http://x.y/z?q=1\n"
        => "a: hello\nb: hello world\nc: a:b\nd: -x\ne: ?x\nf: a,b\ng: a#b\nh: http://x.y/z?q=1\n";
    ints:
        "a: 0\nb: 42\nc: -7\nd: 1_000\ne: 0x1F\nf: 0o17\ng: 0755\nh: 0b101\ni: 9223372036854775807\nj: -9223372036854775808\n"
        => "a: 0\nb: 42\nc: -7\nd: 1000\ne: 31\nf: 15\ng: 493\nh: 5\ni: 9223372036854775807\nj: -9223372036854775808\n";
    uint_above_i64:
        "a: 9223372036854775808\nb: 18446744073709551615\n"
        => "a: 9223372036854775808\nb: 18446744073709551615\n";
    floats_shortest_g:
        "a: 1.0\nb: 1.5\nc: 0.1\nd: 100000.0\ne: 1000000.0\nf: 123456789.0\ng: 0.0001\nh: 0.00001\ni: 1.5e300\nj: 5e-324\nk: 3.\nl: +.5\nm: 08\n"
        => "a: 1\nb: 1.5\nc: 0.1\nd: 100000\ne: 1e+06\nf: 1.23456789e+08\ng: 0.0001\nh: 1e-05\ni: 1.5e+300\nj: 5e-324\nk: 3\nl: 0.5\nm: 8\n";
    float_specials:
        "a: .inf\nb: -.inf\nc: .nan\nd: +.Inf\ne: .NaN\nf: -0.0\ng: -1e-400\n"
        => "a: .inf\nb: -.inf\nc: .nan\nd: .inf\ne: .nan\nf: -0\ng: -0\n";
    float_out_of_range_is_string:
        "a: 1.0e+400\n"
        => "a: 1.0e+400\n";
    bools:
        "a: true\nb: false\nc: yes\nd: No\ne: on\nf: OFF\ng: y\nh: N\n"
        => "a: true\nb: false\nc: true\nd: false\ne: true\nf: false\ng: true\nh: false\n";
    nulls:
        "a: null\nb: ~\nc:\nd: Null\ne: NULL\n"
        => "a: null\nb: null\nc: null\nd: null\ne: null\n";
    strings_that_read_as_bools:
        "a: \"yes\"\nb: \"on\"\nc: \"y\"\nd: \"True\"\ne: \"OFF\"\nf: \"n\"\n"
        => "a: \"yes\"\nb: \"on\"\nc: \"y\"\nd: \"True\"\ne: \"OFF\"\nf: \"n\"\n";
    strings_that_read_as_numbers:
        "a: \"1\"\nb: \"1.0\"\nc: \"0x1F\"\nd: \"1e3\"\ne: \"+1\"\nf: \"0o17\"\ng: \"1_000\"\nh: \"-.5\"\ni: \".5\"\nj: \"0b101\"\n"
        => "a: \"1\"\nb: \"1.0\"\nc: \"0x1F\"\nd: \"1e3\"\ne: \"+1\"\nf: \"0o17\"\ng: \"1_000\"\nh: \"-.5\"\ni: \".5\"\nj: \"0b101\"\n";
    strings_that_read_as_null:
        "a: \"~\"\nb: \"\"\nc: \"null\"\nd: \"Null\"\n"
        => "a: \"~\"\nb: \"\"\nc: \"null\"\nd: \"Null\"\n";
    strings_that_read_as_float_specials:
        "a: \".inf\"\nb: \"-.inf\"\nc: \".nan\"\nd: \"+.INF\"\n"
        => "a: \".inf\"\nb: \"-.inf\"\nc: \".nan\"\nd: \"+.INF\"\n";
    strings_like_numbers_but_not:
        "a: \"1.2.3\"\nb: \"0x\"\nc: \"1e\"\nd: \"3 apples\"\ne: \"inf\"\nf: \"NaN\"\ng: \"nil\"\nh: \"1.0e+400\"\ni: \"yEs\"\n"
        => "a: 1.2.3\nb: 0x\nc: 1e\nd: 3 apples\ne: inf\nf: NaN\ng: nil\nh: 1.0e+400\ni: yEs\n";
    timestamps_are_quoted:
        "a: 2024-01-01\nb: \"2001-12-14t21:59:43.10-05:00\"\nc: \"2001-12-14 21:59:43.10\"\nd: \"2001-12-14T21:59:43Z\"\ne: \"2024-1-5\"\nf: \"2024-02-29\"\ng: \"2001-12-14 21:59:43,10\"\n"
        => "a: \"2024-01-01\"\nb: \"2001-12-14t21:59:43.10-05:00\"\nc: \"2001-12-14 21:59:43.10\"\nd: \"2001-12-14T21:59:43Z\"\ne: \"2024-1-5\"\nf: \"2024-02-29\"\ng: \"2001-12-14 21:59:43,10\"\n";
    near_timestamps_are_plain:
        "a: 2024-13-01\nb: 2024-02-30\nc: 2023-02-29\nd: 2024-01-01T10:00:00\ne: 2024-01-01T10:00:00+0500\nf: 2024-01-01T25:00:00Z\ng: 02024-01-01\n"
        => "a: 2024-13-01\nb: 2024-02-30\nc: 2023-02-29\nd: 2024-01-01T10:00:00\ne: 2024-01-01T10:00:00+0500\nf: 2024-01-01T25:00:00Z\ng: 02024-01-01\n";
    base60_floats_are_quoted:
        "a: \"12:30\"\nb: \"190:20:30\"\nc: \"-1:30\"\nd: 1:60\ne: \"1:30.5\"\n"
        => "a: \"12:30\"\nb: \"190:20:30\"\nc: \"-1:30\"\nd: 1:60\ne: \"1:30.5\"\n";
    merge_key_text_is_plain:
        "a: \"<<\"\n"
        => "a: <<\n";
    document_markers_in_strings:
        "a: \"---\"\nb: \"--- x\"\nc: \"...\"\nd: \"...x\"\ne: \"--\"\n"
        => "a: '---'\nb: '--- x'\nc: '...'\nd: '...x'\ne: --\n";
    indicators_at_start:
        "a: \"*ref\"\nb: \"&anc\"\nc: \"!tag\"\nd: \"|pipe\"\ne: \">gt\"\nf: \"%pct\"\ng: \"@at\"\nh: \"`bt\"\ni: \"#hash\"\nj: \"[x\"\nk: \"]x\"\nl: \"{x\"\nm: \"}x\"\nn: \",x\"\n"
        => "a: '*ref'\nb: '&anc'\nc: '!tag'\nd: '|pipe'\ne: '>gt'\nf: '%pct'\ng: '@at'\nh: '`bt'\ni: '#hash'\nj: '[x'\nk: ']x'\nl: '{x'\nm: '}x'\nfalse: ',x'\n";
    quote_characters:
        "a: \"'lead\"\nb: \"\\\"lead\"\nc: \"it's\"\nd: \"say \\\"hi\\\"\"\ne: \"back\\\\slash\"\n"
        => "a: '''lead'\nb: '\"lead'\nc: it's\nd: say \"hi\"\ne: back\\slash\n";
    colon_and_dash_with_space:
        "a: \"a: b\"\nb: \"x:\"\nc: \"- a\"\nd: \"-\"\ne: \": x\"\nf: \"? x\"\ng: \"?\"\nh: \":\"\n"
        => "a: 'a: b'\nb: 'x:'\nc: '- a'\nd: '-'\ne: ': x'\nf: '? x'\ng: '?'\nh: ':'\n";
    hash_after_space:
        "a: \"a #b\"\nb: \"a\\t#b\"\n"
        => "a: 'a #b'\nb: \"a\\t#b\"\n";
    leading_and_trailing_spaces:
        "a: \" lead\"\nb: \"trail \"\nc: \" \"\nd: \"  \"\ne: \"a  b\"\n"
        => "a: ' lead'\nb: 'trail '\nc: ' '\nd: '  '\ne: a  b\n";
    tabs:
        "a: \"a\\tb\"\nb: \"\\t\"\nc: \"\\tlead\"\nd: \"trail\\t\"\n"
        => "a: \"a\\tb\"\nb: \"\\t\"\nc: \"\\tlead\"\nd: \"trail\\t\"\n";
    long_string_is_not_folded:
        "a: word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word\nb: \"yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes \"\n"
        => "a: word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word\nb: 'yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes yes '\n";
    literal_strip:
        "a: \"line1\\nline2\"\n"
        => "a: |-\n  line1\n  line2\n";
    literal_clip:
        "a: \"line1\\nline2\\n\"\n"
        => "a: |\n  line1\n  line2\n";
    literal_keep:
        "a: \"line1\\n\\n\"\nb: \"x\\n\\n\\n\"\n"
        => "a: |+\n  line1\n\nb: |+\n  x\n\n\n";
    literal_only_newlines:
        "a: \"\\n\"\nb: \"\\n\\n\"\n"
        => "a: |2+\n\nb: |2+\n\n\n";
    literal_with_indentation_hint:
        "a: \" lead\\nx\"\nb: \"\\nstart\"\nc: \"\\n x\\n\"\n"
        => "a: |2-\n   lead\n  x\nb: |2-\n\n  start\nc: |2\n\n   x\n";
    literal_inner_blank_and_indented_lines:
        "a: \"x\\n\\ny\"\nb: \"x\\n lead2\"\nc: \"x\\n\\n  y\\n\"\n"
        => "a: |-\n  x\n\n  y\nb: |-\n  x\n   lead2\nc: |\n  x\n\n    y\n";
    multiline_that_must_be_double_quoted:
        "a: \"trail \\nx\"\nb: \"x\\ttab\\ny\"\nc: \"end space\\nx \"\nd: \"a\\n \\nb\"\n"
        => "a: \"trail \\nx\"\nb: \"x\\ttab\\ny\"\nc: \"end space\\nx \"\nd: \"a\\n \\nb\"\n";
    carriage_returns:
        "a: \"a\\rb\"\nb: \"a\\r\\nb\"\nc: \"\\r\"\n"
        => "a: \"a\\rb\"\nb: \"a\\r\\nb\"\nc: \"\\r\"\n";
    line_and_paragraph_separators:
        "a: \"\\u2028ls\"\nb: \"x\\u2029\"\nc: \"a\\u2028\\nb\"\nd: \"\\u2028\"\n"
        => "a: '\u{2028}  ls'\nb: 'x\u{2029}'\nc: |-\n  a\u{2028}\n  b\nd: '\u{2028}'\n";
    control_characters:
        "a: \"\\x01ctl\"\nb: \"\\x7Fdel\"\nc: \"\\x1Besc\"\nd: \"\\0nul\"\ne: \"a\\x07\\x08\\x0B\\x0C\"\nf: \"\\x1F\"\n"
        => "a: \"\\x01ctl\"\nb: \"\\x7Fdel\"\nc: \"\\eesc\"\nd: \"\\0nul\"\ne: \"a\\a\\b\\v\\f\"\nf: \"\\x1F\"\n";
    c1_and_nel:
        "a: \"\\x85nel\"\nb: \"\\x80c1\"\nc: \"\\x9F\"\n"
        => "a: \"\\Nnel\"\nb: \"\\x80c1\"\nc: \"\\x9F\"\n";
    unicode_printable_is_plain:
        "a: \"héllo wörld\"\nb: \"日本語\"\nc: \"\\u00A0nbsp\"\nd: \"\\uE000pua\"\ne: \"\\uD7FFx\"\nf: \"\\uFFFD\"\n"
        => "a: héllo wörld\nb: 日本語\nc: \u{A0}nbsp\nd: pua\ne: ퟿x\nf: �\n";
    non_bmp_is_escaped:
        "a: \"\\U0001F600 smile\"\nb: \"x\\U00010000\"\n"
        => "a: \"\\U0001F600 smile\"\nb: \"x\\U00010000\"\n";
    bom_and_noncharacters:
        "a: \"x\\uFEFFy\"\nb: \"\\uFFFEx\"\nc: \"\\uFFFF\"\n"
        => "a: \"x\\uFEFFy\"\nb: \"\\uFFFEx\"\nc: \"\\uFFFF\"\n";
    bom_at_start_escapes_everything:
        "a: \"\\uFEFFbom\"\n"
        => "a: \"\\uFEFF\\x62\\x6F\\x6D\"\n";
    nested_maps:
        "a:\n  b:\n    c:\n      d: 1\n  e: 2\nf: 3\n"
        => "a:\n  b:\n    c:\n      d: 1\n  e: 2\nf: 3\n";
    sequence_under_key_not_indented:
        "a:\n- 1\n- 2\nb:\n  c:\n  - x\n  - y\n"
        => "a:\n- 1\n- 2\nb:\n  c:\n  - x\n  - true\n";
    maps_in_sequence_items:
        "a:\n- x: 1\n  y: 2\n- z: 3\n"
        => "a:\n- x: 1\n  true: 2\n- z: 3\n";
    nested_sequences:
        "a:\n- - a\n  - b\n- - - deep\n"
        => "a:\n- - a\n  - b\n- - - deep\n";
    sequence_item_map_with_sequence_and_map:
        "g:\n- a:\n  - 1\n  b:\n    c: d\n"
        => "g:\n- a:\n  - 1\n  b:\n    c: d\n";
    empty_collections_in_flow_style:
        "a: []\nb: {}\nc:\n- []\n- {}\nd:\n  e: {}\n"
        => "a: []\nb: {}\nc:\n- []\n- {}\nd:\n  e: {}\n";
    null_and_empty_items_in_sequence:
        "a:\n- null\n-\n- \"\"\n- ~\n"
        => "a:\n- null\n- null\n- \"\"\n- null\n";
    sequence_of_sequence_of_map:
        "a:\n-\n  - z: 1\n    w: 2\n"
        => "a:\n- - z: 1\n    w: 2\n";
    root_sequence:
        "- a\n- b: 1\n  c: 2\n- - c\n- []\n"
        => "- a\n- b: 1\n  c: 2\n- - c\n- []\n";
    root_nested_sequences:
        "- - - a\n    - b\n  - c\n"
        => "- - - a\n    - b\n  - c\n";
    root_scalar:
        "--- 3\n"
        => "3\n";
    root_string_needing_quotes:
        "--- \"yes\"\n"
        => "\"yes\"\n";
    root_empty_string:
        "--- \"\"\n"
        => "\"\"\n";
    root_literal:
        "--- \"a\\nb\"\n"
        => "|-\n  a\n  b\n";
    root_literal_keep:
        "--- \"a\\nb\\n\\n\"\n"
        => "|+\n  a\n  b\n\n";
    multiline_strings_in_sequences:
        "- \"a\\nb\"\n- x: \"c\\nd\"\n- - \"e\\nf\"\n"
        => "- |-\n  a\n  b\n- x: |-\n    c\n    d\n- - |-\n    e\n    f\n";
    multiline_under_nested_keys:
        "a:\n  b:\n    c: \"x\\ny\\n\"\n"
        => "a:\n  b:\n    c: |\n      x\n      y\n";
    int_keys:
        "1: one\n-2: minus two\n0x10: sixteen\n"
        => "1: one\n-2: minus two\n16: sixteen\n";
    bool_and_null_keys:
        "true: t\nno: f\nnull: n\n"
        => "true: t\nfalse: f\nnull: false\n";
    float_keys:
        "2.5: x\n.inf: y\n1e6: z\n"
        => "2.5: x\n.inf: true\n1e+06: z\n";
    keys_that_need_quotes:
        "\"1\": a\n\"yes\": b\n\"\": c\n\"~\": d\n\"0x10\": e\n\"1e3\": f\n"
        => "\"1\": a\n\"yes\": b\n\"\": c\n\"~\": d\n\"0x10\": e\n\"1e3\": f\n";
    keys_with_indicators:
        "\"key: x\": 1\n\"- k\": 2\n\"#k\": 3\n\" k\": 4\n\"k \": 5\n\"a,b\": 6\n\"[x]\": 7\n\"-\": 8\n\"a:b\": 9\n"
        => "'key: x': 1\n'- k': 2\n'#k': 3\n' k': 4\n'k ': 5\na,b: 6\n'[x]': 7\n'-': 8\na:b: 9\n";
    keys_with_escapes:
        "\"x\\ty\": 1\n\"\\U0001F600\": 2\n"
        => "\"x\\ty\": 1\n\"\\U0001F600\": 2\n";
    multiline_keys_are_complex:
        "\"k\\ney\": v\n\"k2\\n\": [1]\n"
        => "? |-\n  k\n  ey\n: v\n? |\n  k2\n: - 1\n";
    key_with_line_separator_is_complex:
        "\"a\\u2028b\": 1\n"
        => "? 'a\u{2028}  b'\n: 1\n";
    key_of_128_bytes_is_simple:
        "jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj: w\n"
        => "jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj: w\n";
    key_of_129_bytes_is_complex:
        "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: v\n"
        => "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: v\n";
    long_key_length_counts_bytes:
        "\"日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日\": multi\n\"日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日ab\": multi2\n"
        => "? 日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日\n: multi\n日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日ab: multi2\n";
    complex_key_with_map_value:
        "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm:\n  a: 1\n  b:\n  - 2\n"
        => "? mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n: a: 1\n  b:\n  - 2\n";
    complex_key_with_sequence_value:
        "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn:\n- 1\n- x: 2\n"
        => "? nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\n: - 1\n  - x: 2\n";
    complex_key_with_literal_and_empty_values:
        "ooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo: \"x\\ny\"\nppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp: []\n"
        => "? ooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo\n: |-\n  x\n  y\n? ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp\n: []\n";
    complex_key_in_sequence_item:
        "- qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq: 1\n  r: 2\n"
        => "- ? qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq\n  : 1\n  r: 2\n";
    anchors_and_aliases_are_expanded:
        "base: &b\n  x: 1\ncopy: *b\nlist:\n- &s v\n- *s\n"
        => "base:\n  x: 1\ncopy:\n  x: 1\nlist:\n- v\n- v\n";
    flow_input_is_printed_block:
        "a: {x: 1, y: [1, 2, {z: 3}]}\nb: [a, \"b c\", []]\n"
        => "a:\n  x: 1\n  true:\n  - 1\n  - 2\n  - z: 3\nb:\n- a\n- b c\n- []\n";
    block_scalars_in_input:
        "a: |\n  line1\n  line2\nb: >\n  folded\n  text\nc: |-\n  x\n"
        => "a: |\n  line1\n  line2\nb: |\n  folded text\nc: x\n";
    explicit_tags:
        "a: !!str 3\nb: !!int \"4\"\nc: !!float 5\nd: !!str true\n"
        => "a: \"3\"\nb: 4\nc: 5\nd: \"true\"\n";
    deep_nesting_mixed:
        "a:\n  - b:\n      - c:\n          - d: [e]\n"
        => "a:\n- b:\n  - c:\n    - d:\n      - e\n";
}
