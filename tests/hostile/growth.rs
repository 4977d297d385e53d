//! Growth in one step: an operation whose result is far larger than its
//! operands (`sep.join` over one long string repeated, `%`, `format`,
//! `replace`, `split`, a big integer squared, a builtin walking a billion
//! items). Each is refused before it allocates, a finding at its own line,
//! and the healthy package beside them is still linted.

use super::{assert_healthy_linted, healthy_package, run_capped};
use common::TempDir;
use std::time::{Duration, Instant};

use super::common;

/// (package, ytt code before the document, the expression a value takes,
/// what the finding says, its line when not the value's).
/// `len(s + s + … + s)`, 40 terms: each partial sum is made, and their
/// total passes the heap limit within the one expression.
const CONCATENATION: &str = "len(s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s)";

type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<usize>,
);

const CASES: &[Case] = &[
    (
        "join",
        "#@ s = \"x\" * 10000000\n#@ l = [s] * 1000\n",
        "len(\"\".join(l))",
        "str.join: the result would pass",
        None,
    ),
    (
        "join-separator",
        "#@ s = \"x\" * 10000000\n",
        "len(s.join([\"a\"] * 1000))",
        "str.join: the result would pass",
        None,
    ),
    (
        "percent",
        "#@ s = \"x\" * 10000000\n",
        "len((\"%s\" * 100) % tuple([s] * 100))",
        "string formatting: the result would pass",
        None,
    ),
    (
        "percent-dict",
        "#@ s = \"x\" * 10000000\n",
        "len((\"%(a)s\" * 100) % {\"a\": s})",
        "string formatting: the result would pass",
        None,
    ),
    (
        "format",
        "#@ s = \"x\" * 10000000\n",
        "len((\"{0}\" * 100).format(s))",
        "str.format: the result would pass",
        None,
    ),
    (
        "format-shared",
        "#@ s = [[\"x\" * 100] * 1000] * 1000\n",
        "len(\"{0!r}{0!r}\".format(s))",
        "str.format: the result would pass",
        None,
    ),
    (
        "replace",
        "#@ s = \"x\" * 10000000\n",
        "len(s.replace(\"x\", \"y\" * 100))",
        "str.replace: the result would pass",
        None,
    ),
    (
        "replace-empty",
        "#@ s = \"x\" * 10000000\n",
        "len(s.replace(\"\", \"yyyyyyyyyy\"))",
        "str.replace: the result would pass",
        None,
    ),
    (
        "split",
        "#@ s = \"a,\" * 2000000\n",
        "len(s.split(\",\"))",
        "str.split: the result would pass",
        None,
    ),
    (
        "splitlines",
        "#@ s = \"\\n\" * 4000000\n",
        "len(s.splitlines())",
        "str.splitlines: the result would pass",
        None,
    ),
    (
        "elems",
        "#@ s = \"ab\" * 5000000\n",
        "len(list(s.elems()))",
        "str.elems: the result would pass",
        None,
    ),
    (
        "bound-join",
        "#@ s = \"x\" * 10000000\n#@ j = \"\".join\n",
        "len(j([s] * 1000))",
        "str.join: the result would pass",
        None,
    ),
    (
        "getattr-format",
        "#@ s = \"x\" * 10000000\n",
        "len(getattr(\"{0}\" * 100, \"format\")(s))",
        "str.format: the result would pass",
        None,
    ),
    (
        "index-miss",
        "#@ x = [[\"x\" * 100] * 1000] * 1000000\n",
        "x.index([1])",
        "index: value too large",
        None,
    ),
    (
        "pop-miss",
        "#@ d = {\"a\": [[\"x\" * 100] * 1000] * 1000000}\n",
        "d.pop(\"b\")",
        "pop: value too large",
        None,
    ),
    (
        "concatenation",
        "#@ s = \"x\" * 1000000\n",
        CONCATENATION,
        "concatenation: the result would pass",
        None,
    ),
    (
        "regexp",
        "#@ load(\"@ytt:regexp\", \"regexp\")\n#@ s = \"x\" * 10000000\n",
        "len(regexp.replace(\"x\", s, \"$0\" * 50))",
        "regexp.replace: the result would pass",
        None,
    ),
    (
        "square",
        "#@ x = 3\n#@ for i in range(40):\n#@   x = x * x\n#@ end\n",
        "x",
        "integer product: the integer would have more than",
        Some(3),
    ),
    (
        "shift",
        "#@ x = 1\n#@ for i in range(100):\n#@   x = x << 100000\n#@ end\n",
        "x",
        "left shift: the integer would have more than",
        Some(3),
    ),
    (
        "int",
        "#@ s = \"9\" * 10000000\n",
        "int(s)",
        "int(): the integer would have more than",
        None,
    ),
    (
        "list-range",
        "",
        "len(list(range(100000000)))",
        "items walked by builtins",
        None,
    ),
    (
        "max-range",
        "",
        "max(range(2000000000))",
        "items walked by builtins",
        None,
    ),
    (
        "sorted-alias",
        "#@ f = sorted\n",
        "len(f(range(100000000)))",
        "items walked by builtins",
        None,
    ),
    (
        "extend",
        "#@ l = []\n#@ l.extend(range(100000000))\n",
        "len(l)",
        "items walked by builtins",
        Some(2),
    ),
];

#[test]
fn growth_in_one_call_is_refused_before_it_allocates() {
    let dir = TempDir::new("hostile-growth");
    healthy_package(&dir);
    for (name, code, expr, ..) in CASES {
        dir.write(
            &format!("bad/{name}/deploy.yml"),
            format!("{code}---\nv: #@ {expr}\n"),
        );
    }
    // In a validation rule too.
    dir.write(
        "bad/rule/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation (\"big\", lambda v: len(\"\".join([\"x\" * 10000000] * 1000)) > 0)\nx: 1\n",
    );
    let mut args = vec!["lint".to_string()];
    args.extend(CASES.iter().map(|(name, ..)| format!("bad/{name}")));
    args.extend(["bad/rule", "healthy", "--format", "json"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = Instant::now();
    let run = run_capped(&dir, &args, &[]);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    let expected = CASES
        .iter()
        .map(|(name, code, _, says, line)| {
            // The value's line: after the code and the `---`.
            let line = line.unwrap_or(code.lines().count() + 2);
            (format!("bad/{name}/deploy.yml"), *says, Some(line))
        })
        .chain([(
            "bad/rule/schema.yml".to_string(),
            "str.join: the result would pass",
            None,
        )]);
    for (file, says, line) in expected {
        let found = findings.iter().find(|f| {
            f["file"] == file.as_str() && f["message"].as_str().is_some_and(|m| m.contains(says))
        });
        let Some(found) = found else {
            panic!("{file}: no finding saying {says:?}: {findings:?}");
        };
        if let Some(line) = line {
            assert_eq!(found["line"], line, "{file}: {found}");
        }
    }
    assert_healthy_linted(&run.found());
    // Refused, not made: seconds, far from what making gigabytes takes (a
    // debug build on a busy machine is only held to the hang guard).
    if !cfg!(debug_assertions) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }
}
