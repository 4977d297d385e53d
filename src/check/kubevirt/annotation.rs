//! The `validations` annotation: JSON text to rules, with Go `encoding/json`
//! semantics (spec §2, §3) and problems placed inside the YAML block scalar.

use super::json::{self, J, Jv};
use super::jsonpath::{self, Step};

/// A compiled `jsonpath::` string.
#[derive(Debug, Clone)]
pub struct Path {
    /// The expression after `jsonpath::` and `$`.
    pub text: String,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone)]
pub enum IntArg {
    Lit(i64),
    Path(Path),
}

#[derive(Debug, Clone)]
pub enum StrArg {
    Lit(String),
    Path(Path),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleType {
    Integer,
    String,
    Enum,
    Regex,
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub name: String,
    pub rule: RuleType,
    pub path: Path,
    pub message: String,
    pub valid: Option<Path>,
    pub just_warning: bool,
    pub values: Vec<StrArg>,
    pub min: Option<IntArg>,
    pub max: Option<IntArg>,
    pub regex: Option<regex::Regex>,
    pub regex_text: String,
    /// Offset of the rule's `{` in the JSON text.
    pub off: usize,
}

/// A problem in the annotation, at an offset of the JSON text.
#[derive(Debug, Clone)]
pub struct Problem {
    pub off: usize,
    pub message: String,
    pub warning: bool,
    pub syntax: bool,
}

pub struct Parsed {
    /// None: the annotation is unusable (a fatal parse error).
    pub rules: Option<Vec<Rule>>,
    pub problems: Vec<Problem>,
}

fn problem(off: usize, message: String) -> Problem {
    Problem {
        off,
        message,
        warning: false,
        syntax: false,
    }
}

/// A `jsonpath::` string that does not compile: a fatal parse error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSONPath `{text}`: {}", match .reason {
    Some(reason) => reason.to_string(),
    None => "a path must start with `jsonpath::`".to_string(),
})]
struct InvalidPath {
    text: String,
    /// None: it does not start with `jsonpath::`.
    reason: Option<jsonpath::PathError>,
}

/// Compile a `jsonpath::` string.
fn compile_path(s: &str) -> Result<Path, InvalidPath> {
    let invalid = |reason| InvalidPath {
        text: s.to_string(),
        reason,
    };
    let Some(rest) = s.strip_prefix("jsonpath::") else {
        return Err(invalid(None));
    };
    let e = rest.strip_prefix('$').unwrap_or(rest);
    let steps = if e.starts_with(['.', '[']) {
        jsonpath::compile(e).map_err(|reason| invalid(Some(reason)))?
    } else {
        // `.spec.template` + E: compiles, never matches; §3 reports it.
        let joined = format!(".x{e}");
        jsonpath::compile(&joined).map_err(|reason| invalid(Some(reason)))?;
        Vec::new()
    };
    Ok(Path {
        text: e.to_string(),
        steps,
    })
}

/// Go's rounding of a float to an integer: halves away from zero.
fn round(f: f64) -> i64 {
    f.round() as i64
}

/// Translate Go RE2 to the Rust regex crate: Perl classes are ASCII in RE2.
pub fn compile_regex(re: &str) -> Result<regex::Regex, regex::Error> {
    let mut out = String::with_capacity(re.len());
    let mut chars = re.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str("[\\t\\n\\x0C\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\x0C\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    regex::Regex::new(&out)
}

/// Parse the annotation text.
pub fn parse(text: &str) -> Parsed {
    if text.is_empty() {
        return Parsed {
            rules: Some(Vec::new()),
            problems: Vec::new(),
        };
    }
    let top = match json::parse(text) {
        Ok(v) => v,
        Err(e) => {
            return Parsed {
                rules: None,
                problems: vec![Problem {
                    off: e.off,
                    message: format!("the validations annotation is not valid JSON: {}", e.msg),
                    warning: false,
                    syntax: true,
                }],
            };
        }
    };
    let items = match top.v {
        J::Null => Vec::new(),
        J::Arr(items) => items,
        other => {
            return Parsed {
                rules: None,
                problems: vec![problem(
                    top.off,
                    format!(
                        "the validations annotation must be a JSON array of rules, found {}",
                        other.type_name()
                    ),
                )],
            };
        }
    };
    let mut fatal = Vec::new();
    let mut raw = Vec::new();
    for item in &items {
        match &item.v {
            J::Obj(_) => raw.push(decode(item, &mut fatal)),
            // Go decodes null into a zero rule.
            J::Null => raw.push(decode(
                &Jv {
                    off: item.off,
                    v: J::Obj(Vec::new()),
                },
                &mut fatal,
            )),
            other => fatal.push(problem(
                item.off,
                format!(
                    "each validation rule must be a JSON object, found {}",
                    other.type_name()
                ),
            )),
        }
    }
    if !fatal.is_empty() {
        return Parsed {
            rules: None,
            problems: fatal,
        };
    }
    // §3: rule-level checks.
    let mut problems = Vec::new();
    let mut rules = Vec::new();
    let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
    for r in raw.into_iter().flatten() {
        if names.contains(&r.name) {
            problems.push(problem(
                r.name_off.unwrap_or(r.off),
                format!("duplicate rule name `{}`", r.name),
            ));
            continue;
        }
        names.insert(r.name.clone());
        rules.extend(checked_rule(r, &mut problems));
    }
    Parsed {
        rules: Some(rules),
        problems,
    }
}

/// One decoded rule checked as KubeVirt's validator checks it (§3): None,
/// with its problems, when the validator would reject it.
fn checked_rule(r: Raw, problems: &mut Vec<Problem>) -> Option<Rule> {
    let rule_type = rule_type(&r, problems);
    let fields_ok = fields_are_valid(&r, rule_type, problems);
    let (regex_ok, regex) = compiled_regex(&r, rule_type, problems);
    let (Some(rule_type), true, true) = (rule_type, fields_ok, regex_ok) else {
        return None;
    };
    let (min, max) = match rule_type {
        RuleType::Integer => (r.min.clone(), r.max.clone()),
        RuleType::String => (r.min_length.clone(), r.max_length.clone()),
        _ => (None, None),
    };
    let no_args = match rule_type {
        RuleType::Integer | RuleType::String => min.is_none() && max.is_none(),
        RuleType::Enum => r.values.as_ref().is_none_or(|v| v.is_empty()),
        RuleType::Regex => r.regex.as_ref().is_none_or(|v| v.is_empty()),
    };
    if no_args {
        problems.push(Problem {
            off: r.off,
            message: format!("rule `{}` has no arguments for its type", r.name),
            warning: true,
            syntax: false,
        });
    }
    Some(Rule {
        name: r.name,
        rule: rule_type,
        path: r.path.unwrap_or(Path {
            text: String::new(),
            steps: Vec::new(),
        }),
        message: r.message,
        valid: r.valid,
        just_warning: r.just_warning,
        values: r.values.unwrap_or_default(),
        min,
        max,
        regex,
        regex_text: r.regex.unwrap_or_default(),
        off: r.off,
    })
}

/// The rule's type, or None (with a problem) when it has none KubeVirt knows.
fn rule_type(r: &Raw, problems: &mut Vec<Problem>) -> Option<RuleType> {
    match r.rule.as_deref() {
        Some("integer") => Some(RuleType::Integer),
        Some("string") => Some(RuleType::String),
        Some("enum") => Some(RuleType::Enum),
        Some("regex") => Some(RuleType::Regex),
        Some("") | None => {
            problems.push(problem(
                r.off,
                format!("rule `{}` has no `rule` type", r.name),
            ));
            None
        }
        Some(other) => {
            problems.push(problem(
                r.rule_off.unwrap_or(r.off),
                format!(
                    "rule `{}`: unrecognized rule type `{other}` (expected integer, string, enum or regex)",
                    r.name
                ),
            ));
            None
        }
    }
}

/// Whether the rule's name, message, paths and argument paths are valid.
fn fields_are_valid(r: &Raw, rule_type: Option<RuleType>, problems: &mut Vec<Problem>) -> bool {
    let mut ok = true;
    if r.name.is_empty() {
        problems.push(problem(r.off, "rule is missing its `name`".into()));
        ok = false;
    }
    if r.message.is_empty() {
        problems.push(problem(
            r.off,
            format!("rule `{}` is missing its `message`", r.name),
        ));
        ok = false;
    }
    match &r.path {
        None => {
            problems.push(problem(
                r.off,
                format!("rule `{}` is missing its `path`", r.name),
            ));
            ok = false;
        }
        Some(p) if p.text.is_empty() => {
            problems.push(problem(
                r.path_off.unwrap_or(r.off),
                format!("rule `{}`: the `path` is empty", r.name),
            ));
            ok = false;
        }
        Some(p) if !p.text.starts_with(['.', '[']) => {
            problems.push(problem(
                r.path_off.unwrap_or(r.off),
                format!(
                    "rule `{}`: the path `{}` must start with `.` or `[` after `jsonpath::` (it would be read as `.spec.template{}` and never match)",
                    r.name, p.text, p.text
                ),
            ));
            ok = false;
        }
        Some(_) => {}
    }
    if let Some(v) = &r.valid
        && !v.text.starts_with(['.', '['])
    {
        problems.push(problem(
            r.valid_off.unwrap_or(r.off),
            format!(
                "rule `{}`: the valid path `{}` must start with `.` or `[` after `jsonpath::`",
                r.name, v.text
            ),
        ));
        ok = false;
    }
    let own_args: &[&str] = match rule_type {
        Some(RuleType::Integer) => &["min", "max"],
        Some(RuleType::String) => &["minLength", "maxLength"],
        Some(RuleType::Enum) => &["values"],
        _ => &[],
    };
    for (_, off, text) in r.bad_args.iter().filter(|(k, _, _)| own_args.contains(k)) {
        problems.push(problem(
            *off,
            format!(
                "rule `{}`: the argument path `{text}` must start with `.` or `[` after `jsonpath::`",
                r.name
            ),
        ));
        ok = false;
    }
    ok
}

/// A regex rule's pattern compiled as RE2 reads it: (whether it is valid,
/// the pattern).
fn compiled_regex(
    r: &Raw,
    rule_type: Option<RuleType>,
    problems: &mut Vec<Problem>,
) -> (bool, Option<regex::Regex>) {
    let mut ok = true;
    let mut regex = None;
    if rule_type == Some(RuleType::Regex)
        && let Some(text) = &r.regex
        && !text.is_empty()
    {
        match compile_regex(text) {
            Ok(re) => regex = Some(re),
            Err(e) => {
                problems.push(problem(
                    r.regex_off.unwrap_or(r.off),
                    format!(
                        "rule `{}`: the `regex` `{text}` is not a valid RE2 expression: {}",
                        r.name,
                        e.to_string().lines().last().unwrap_or("")
                    ),
                ));
                ok = false;
            }
        }
    }
    (ok, regex)
}

#[derive(Default)]
struct Raw {
    off: usize,
    name: String,
    name_off: Option<usize>,
    rule: Option<String>,
    rule_off: Option<usize>,
    path: Option<Path>,
    path_off: Option<usize>,
    message: String,
    valid: Option<Path>,
    valid_off: Option<usize>,
    just_warning: bool,
    values: Option<Vec<StrArg>>,
    min: Option<IntArg>,
    max: Option<IntArg>,
    min_length: Option<IntArg>,
    max_length: Option<IntArg>,
    regex: Option<String>,
    regex_off: Option<usize>,
    /// Argument paths that do not start with `.` or `[`: (key offset, text).
    bad_args: Vec<(&'static str, usize, String)>,
}

const KEYS: [&str; 11] = [
    "rule",
    "name",
    "path",
    "message",
    "valid",
    "justWarning",
    "values",
    "min",
    "max",
    "minLength",
    "maxLength",
];

/// Decode one rule object; fatal problems go to `fatal`.
fn decode(item: &Jv, fatal: &mut Vec<Problem>) -> Option<Raw> {
    let J::Obj(members) = &item.v else {
        return None;
    };
    let mut r = Raw {
        off: item.off,
        ..Raw::default()
    };
    let before = fatal.len();
    for m in members {
        let key = KEYS
            .iter()
            .chain(["regex"].iter())
            .find(|k| k.eq_ignore_ascii_case(&m.key))
            .copied();
        let Some(key) = key else { continue };
        let v = &m.value.v;
        let mut bad = |what: &str| {
            fatal.push(problem(
                m.key_off,
                format!(
                    "rule member `{key}` must be {what}, found {}",
                    v.type_name()
                ),
            ))
        };
        let string = |v: &J| match v {
            J::Null => Some(String::new()),
            J::Str(s) => Some(s.clone()),
            _ => None,
        };
        match key {
            "rule" => match string(v) {
                Some(s) => {
                    r.rule = (!matches!(v, J::Null)).then_some(s);
                    r.rule_off = Some(m.key_off);
                }
                None => bad("a string"),
            },
            "name" => match string(v) {
                Some(s) => {
                    r.name = s;
                    r.name_off = Some(m.key_off);
                }
                None => bad("a string"),
            },
            "message" => match string(v) {
                Some(s) => r.message = s,
                None => bad("a string"),
            },
            "regex" => match v {
                J::Null => r.regex = None,
                J::Str(s) => {
                    r.regex = Some(s.clone());
                    r.regex_off = Some(m.key_off);
                }
                _ => bad("a string"),
            },
            "justWarning" => match v {
                J::Null => {}
                J::Bool(b) => r.just_warning = *b,
                _ => bad("a boolean (true or false)"),
            },
            "path" | "valid" => match v {
                J::Null if key == "valid" => r.valid = None,
                J::Str(s) => match compile_path(s) {
                    Ok(p) => {
                        if key == "path" {
                            r.path = Some(p);
                            r.path_off = Some(m.key_off);
                        } else {
                            r.valid = Some(p);
                            r.valid_off = Some(m.key_off);
                        }
                    }
                    Err(e) => fatal.push(problem(m.key_off, format!("rule member `{key}`: {e}"))),
                },
                J::Null => fatal.push(problem(
                    m.key_off,
                    "rule member `path`: invalid JSONPath (null)".into(),
                )),
                _ => bad("a string in `jsonpath::` form"),
            },
            "values" => match v {
                J::Null => r.values = None,
                J::Arr(items) => {
                    if let Some(values) = decode_values(items, m.key_off, &mut r.bad_args, fatal) {
                        r.values = Some(values);
                    }
                }
                _ => bad("an array of strings"),
            },
            _ => {
                let arg = decode_int_arg(v, (key, m.key_off), &mut r.bad_args, fatal);
                match key {
                    "min" => r.min = arg,
                    "max" => r.max = arg,
                    "minLength" => r.min_length = arg,
                    _ => r.max_length = arg,
                }
            }
        }
    }
    (fatal.len() == before).then_some(r)
}

/// A rule's `values`: literal strings and `jsonpath::` paths; None, with a
/// fatal problem, when one member is neither.
fn decode_values(
    items: &[Jv],
    key_off: usize,
    bad_args: &mut Vec<(&'static str, usize, String)>,
    fatal: &mut Vec<Problem>,
) -> Option<Vec<StrArg>> {
    let mut out = Vec::new();
    for it in items {
        match &it.v {
            J::Str(s) if s.starts_with("jsonpath::") => match compile_path(s) {
                Ok(p) => {
                    if !p.text.starts_with(['.', '[']) {
                        bad_args.push(("values", key_off, s.clone()));
                    }
                    out.push(StrArg::Path(p))
                }
                Err(e) => {
                    fatal.push(problem(key_off, format!("rule member `values`: {e}")));
                    return None;
                }
            },
            J::Str(s) => out.push(StrArg::Lit(s.clone())),
            other => {
                fatal.push(problem(
                    key_off,
                    format!(
                        "rule member `values` must be an array of strings, found {}",
                        other.type_name()
                    ),
                ));
                return None;
            }
        }
    }
    Some(out)
}

/// One of `min`, `max`, `minLength`, `maxLength`: a number or a
/// `jsonpath::` path; what else is written is a fatal problem.
fn decode_int_arg(
    v: &J,
    (key, key_off): (&'static str, usize),
    bad_args: &mut Vec<(&'static str, usize, String)>,
    fatal: &mut Vec<Problem>,
) -> Option<IntArg> {
    match v {
        J::Null => None,
        J::Num(f) => Some(IntArg::Lit(round(*f))),
        J::Str(s) if s.starts_with("jsonpath::") => match compile_path(s) {
            Ok(p) => {
                if !p.text.starts_with(['.', '[']) {
                    bad_args.push((key, key_off, s.clone()));
                }
                Some(IntArg::Path(p))
            }
            Err(e) => {
                fatal.push(problem(key_off, format!("rule member `{key}`: {e}")));
                None
            }
        },
        J::Str(s) => {
            fatal.push(problem(
                key_off,
                format!(
                    "rule member `{key}` must be a number or a `jsonpath::` path, found the string \"{s}\""
                ),
            ));
            None
        }
        _ => {
            fatal.push(problem(
                key_off,
                format!(
                    "rule member `{key}` must be a number or a `jsonpath::` path, found {}",
                    v.type_name()
                ),
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_case_insensitive_and_numbers_rounded() {
        let p = parse(
            r#"[{"NAME": "a", "Rule": "integer", "path": "jsonpath::$.spec.domain.cpu.cores", "MESSAGE": "m", "min": 4.5, "max": -2.5, "extra": 1}]"#,
        );
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let rules = p.rules.unwrap();
        assert_eq!(rules[0].name, "a");
        assert_eq!(rules[0].path.text, ".spec.domain.cpu.cores");
        assert!(matches!(rules[0].min, Some(IntArg::Lit(5))));
        assert!(matches!(rules[0].max, Some(IntArg::Lit(-3))));
    }

    #[test]
    fn fatal_and_rule_level_problems() {
        let p = parse(
            r#"[{"name": "a", "rule": "integer", "path": "jsonpath::.x", "message": "m", "min": "1"}]"#,
        );
        assert!(p.rules.is_none());
        assert!(p.problems[0].message.contains("min"));
        let p = parse(r#"[{"name": "a", "rule": "value-set", "path": "jsonpath::.x"}]"#);
        assert_eq!(p.rules.unwrap().len(), 0);
        assert_eq!(p.problems.len(), 2);
        assert!(compile_regex(r"^\d+$").unwrap().is_match("42"));
        assert!(!compile_regex(r"^\d+$").unwrap().is_match("٤٢"));
        assert!(compile_regex("(?=a)").is_err());
    }
}
