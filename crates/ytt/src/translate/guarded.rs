//! Work checked before it is done, where starlark-rust has no hook:
//!
//! - Growth in one step. `"x" * 2000000000`, `sep.join([s] * 1000)`,
//!   `"%s%s" % (s, s)`, `"{0}{0}".format(s)`, `s.replace("a", long)` or a
//!   big integer squared would make starlark-rust allocate gigabytes at
//!   once, and a failed allocation aborts the process: no limit checked
//!   between statements can stop it. confvet rewrites `a * b`, `a + b`,
//!   `a % b`, `a << b` (and their `x op= b` forms, but `+=`, which extends
//!   a list in place) into `__ytt_mul(a, b)` and its siblings, and
//!   `s.join(xs)`, `s.format(…)` and the other methods that can grow into
//!   `__ytt_method(s, "join", xs)`: each measures its result first (the
//!   engine's `amplify`) and otherwise does what the operation does.
//!   ytt itself refuses repetitions past 2^30 elements ("excessive repeat").
//! - Comprehensions. `[0 for a in range(10**6) for b in range(10**6)]` runs
//!   no statement, so the statement budget never sees it; each
//!   comprehension's `for x in xs` becomes `for x in __ytt_iter(xs)`, which
//!   draws `len(xs)` from the evaluation's iteration budget.

use starlark::syntax::ast::{AssignOp, AstExpr, AstStmt, BinOp, ClauseP, ExprP, StmtP};
use starlark::syntax::{AstModule, Dialect};

/// String (and list) methods whose result (or error) can be far larger
/// than their operands: routed through `__ytt_method`.
pub const GUARDED_METHODS: &[&str] = &[
    "format",
    "join",
    "replace",
    "split",
    "rsplit",
    "splitlines",
    "elems",
    "codepoints",
    "elem_ords",
    "codepoint_ords",
    "extend",
    // Not growing, but their error names the whole list or dict: one shared
    // a million times would be written out to gigabytes.
    "index",
    "remove",
    "pop",
];

/// What a guard does to its source range.
#[derive(Clone, Copy)]
enum Kind {
    /// `left op right` becomes `func(left, right)`; with `assign`, the
    /// statement `left op= right` becomes `left = func(left, right)`.
    Binary {
        op: &'static str,
        func: &'static str,
        assign: bool,
    },
    /// A comprehension's iterable: `whole` becomes `__ytt_iter(whole)`.
    Wrap,
    /// `left.name(right)`: `left` the object, `right` the arguments
    /// inside the parentheses; becomes `__ytt_method(left, "name", right)`.
    Method { name: &'static str },
    /// `left.name` not called there (`j = s.join`): becomes
    /// `__ytt_bind(left, "name")`, the method with its guard.
    Bind { name: &'static str },
}

/// One rewrite found in the source: byte ranges of the whole expression and
/// of its two parts.
#[derive(Clone)]
struct Guard {
    whole: (usize, usize),
    left: (usize, usize),
    right: (usize, usize),
    kind: Kind,
}

fn range(span: starlark::codemap::Span) -> (usize, usize) {
    (span.begin().get() as usize, span.end().get() as usize)
}

/// `span` widened over the parentheses around it: the parser's span of
/// `(a)` is `a`'s, and a rewrite must keep each parenthesis on its side.
fn widen(source: &str, span: (usize, usize)) -> (usize, usize) {
    let (mut start, mut end) = balance(source, span);
    loop {
        let before = source[..start].trim_end();
        let after = source[end..].trim_start();
        if !(before.ends_with('(') && after.starts_with(')')) {
            return (start, end);
        }
        start = before.len() - 1;
        end = source.len() - after.len() + 1;
    }
}

/// `span` stretched over the brackets it leaves open: the parser's span of
/// `"x" + ("y")` ends at `"y"`, before the `)` that closes what it opened
/// (and that of `("x") + "y"` starts after the `(`).
fn balance(source: &str, (mut start, mut end): (usize, usize)) -> (usize, usize) {
    let Some(text) = source.get(start..end) else {
        return (start, end);
    };
    let mut depth = 0i32;
    let mut lowest = 0i32;
    let mut strings = super::scan::StringScan::default();
    for c in text.chars() {
        if strings.in_string(c) || strings.opens(c) {
            continue;
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                lowest = lowest.min(depth);
            }
            _ => {}
        }
    }
    if strings.quote.is_some() {
        return (start, end);
    }
    // Closers before any opener: the openers are before the span.
    let mut missing = -lowest;
    while missing > 0 {
        let before = source[..start].trim_end();
        if !before.ends_with(['(', '[', '{']) {
            return (start, end);
        }
        start = before.len() - 1;
        missing -= 1;
    }
    // Openers left open: their closers follow the span.
    let mut open = depth - lowest;
    while open > 0 {
        let after = source[end..].trim_start();
        if !after.starts_with([')', ']', '}']) {
            return (start, end);
        }
        end = source.len() - after.len() + 1;
        open -= 1;
    }
    (start, end)
}

fn growing(name: &str) -> Option<&'static str> {
    GUARDED_METHODS.iter().find(|m| **m == name).copied()
}

fn binary_guard(op: BinOp) -> Option<(&'static str, &'static str)> {
    Some(match op {
        BinOp::Multiply => ("*", "__ytt_mul"),
        BinOp::Add => ("+", "__ytt_add"),
        BinOp::Percent => ("%", "__ytt_mod"),
        BinOp::LeftShift => ("<<", "__ytt_shl"),
        _ => return None,
    })
}

fn assign_guard(op: AssignOp) -> Option<(&'static str, &'static str)> {
    Some(match op {
        AssignOp::Multiply => ("*=", "__ytt_mul"),
        AssignOp::Percent => ("%=", "__ytt_mod"),
        AssignOp::LeftShift => ("<<=", "__ytt_shl"),
        _ => return None,
    })
}

fn guards_in_expr(expr: &AstExpr, source: &str, found: &mut Vec<Guard>) {
    match &expr.node {
        ExprP::Op(left, op, right) => {
            if let Some((op, func)) = binary_guard(*op) {
                let (left, right) = (
                    widen(source, range(left.span)),
                    widen(source, range(right.span)),
                );
                found.push(Guard {
                    whole: (left.0, right.1),
                    left,
                    right,
                    kind: Kind::Binary {
                        op,
                        func,
                        assign: false,
                    },
                });
            }
        }
        ExprP::Call(callee, args) => {
            if let ExprP::Dot(object, name) = &callee.node
                && let Some(name) = growing(&name.node)
            {
                let object_span = widen(source, range(object.span));
                let whole = (object_span.0, range(expr.span).1);
                let callee_end = range(callee.span).1;
                // The arguments: between the `(` after the callee and the
                // call's closing `)`.
                if let Some(open) = source[callee_end..whole.1].find('(') {
                    found.push(Guard {
                        whole,
                        left: object_span,
                        right: (callee_end + open + 1, whole.1 - 1),
                        kind: Kind::Method { name },
                    });
                    // The object and the arguments, not the method itself.
                    guards_in_expr(object, source, found);
                    for arg in &args.args {
                        guards_in_expr(arg.node.expr(), source, found);
                    }
                    return;
                }
            }
        }
        ExprP::Dot(object, name) => {
            if let Some(name) = growing(&name.node) {
                let object_span = widen(source, range(object.span));
                found.push(Guard {
                    whole: (object_span.0, range(expr.span).1),
                    left: object_span,
                    right: object_span,
                    kind: Kind::Bind { name },
                });
            }
        }
        ExprP::ListComprehension(_, first, clauses)
        | ExprP::DictComprehension(_, first, clauses) => {
            let fors = std::iter::once(&**first).chain(clauses.iter().filter_map(|c| match c {
                ClauseP::For(f) => Some(f),
                ClauseP::If(_) => None,
            }));
            for clause in fors {
                let over = range(clause.over.span);
                found.push(Guard {
                    whole: over,
                    left: over,
                    right: over,
                    kind: Kind::Wrap,
                });
            }
        }
        _ => {}
    }
    expr.node
        .visit_expr(|child| guards_in_expr(child, source, found));
}

fn guards_in_stmt(stmt: &AstStmt, source: &str, found: &mut Vec<Guard>) {
    if let StmtP::AssignModify(target, op, value) = &stmt.node
        && let Some((op, func)) = assign_guard(*op)
    {
        found.push(Guard {
            whole: range(stmt.span),
            left: range(target.span),
            right: widen(source, range(value.span)),
            kind: Kind::Binary {
                op,
                func,
                assign: true,
            },
        });
    }
    stmt.node
        .visit_stmt(|child| guards_in_stmt(child, source, found));
}

/// Every guard of `ast`, outer ones first (a comprehension's iterable
/// before an operation of the same span), so that the guards inside one
/// follow it.
fn guards(ast: &AstModule, source: &str) -> Vec<Guard> {
    let mut found = Vec::new();
    ast.statement()
        .visit_expr(|e| guards_in_expr(e, source, &mut found));
    guards_in_stmt(ast.statement(), source, &mut found);
    found.sort_by_key(|g| {
        (
            g.whole.0,
            std::cmp::Reverse(g.whole.1),
            !matches!(g.kind, Kind::Wrap),
        )
    });
    found
}

/// Parse `source` with its growing operations and comprehensions guarded:
/// it is parsed once, and again only when it has something to rewrite (the
/// rewrite keeps every line where it was). A parse error is `source`'s own.
pub fn parse_guarded(name: &str, source: String, dialect: &Dialect) -> starlark::Result<AstModule> {
    let ast = AstModule::parse(name, source.clone(), dialect)?;
    let found = guards(&ast, &source);
    if found.is_empty() {
        return Ok(ast);
    }
    AstModule::parse(name, rewrite(&source, 0, source.len(), &found), dialect)
}

/// How many of `guards` (sorted outer first) lie inside the first one.
fn nested_in_first(guards: &[Guard]) -> usize {
    let end = guards[0].whole.1;
    guards[1..].partition_point(|g| g.whole.0 < end)
}

/// The text of `source[start..end]` with every guard inside rewritten.
fn rewrite(source: &str, start: usize, end: usize, guards: &[Guard]) -> String {
    let mut out = String::with_capacity(end - start + 16);
    let mut at = start;
    let mut i = 0;
    while i < guards.len() {
        let g = &guards[i];
        if g.whole.0 < at || g.whole.1 > end {
            i += 1;
            continue;
        }
        out.push_str(&source[at..g.whole.0]);
        // The guards inside this one: the run that follows it.
        let inner = &guards[i + 1..i + 1 + nested_in_first(&guards[i..])];
        match g.kind {
            Kind::Wrap => {
                let inside = rewrite(source, g.whole.0, g.whole.1, inner);
                out.push_str(&format!("__ytt_iter({inside})"));
            }
            Kind::Binary { op, func, assign } => {
                let left = rewrite(source, g.left.0, g.left.1, inner);
                let right = rewrite(source, g.right.0, g.right.1, inner);
                // What lies between the operands: the operator, blanks,
                // maybe a line break; kept but for the operator, so lines
                // stay where they were.
                let between = source[g.left.1..g.right.0].replacen(op, ",", 1);
                if assign {
                    out.push_str(&format!("{left} = {func}({left}{between}{right})"));
                } else {
                    out.push_str(&format!("{func}({left}{between}{right})"));
                }
            }
            Kind::Bind { name } => {
                let object = rewrite(source, g.left.0, g.left.1, inner);
                // `.name` goes; its line breaks stay.
                let breaks = "\n".repeat(source[g.left.1..g.whole.1].matches('\n').count());
                out.push_str(&format!("__ytt_bind({object}, \"{name}\"{breaks})"));
            }
            Kind::Method { name } => {
                let object = rewrite(source, g.left.0, g.left.1, inner);
                let args = rewrite(source, g.right.0, g.right.1, inner);
                // `.name(` goes; its line breaks stay.
                let breaks = "\n".repeat(source[g.left.1..g.right.0].matches('\n').count());
                let args = if args.trim().is_empty() {
                    args
                } else {
                    format!(", {args}")
                };
                out.push_str(&format!("__ytt_method({object}, \"{name}\"{breaks}{args})"));
            }
        }
        at = g.whole.1;
        i += 1 + inner.len();
    }
    out.push_str(&source[at..end]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rewritten text (what `parse_guarded` parses).
    fn guarded(source: &str) -> String {
        let ast = AstModule::parse("t", source.to_string(), &Dialect::Extended).unwrap();
        rewrite(source, 0, source.len(), &guards(&ast, source))
    }

    #[test]
    fn every_product_becomes_a_guarded_call_and_lines_stay() {
        assert_eq!(guarded("x = 2 * 3\n"), "x = __ytt_mul(2 , 3)\n");
        assert_eq!(
            guarded("x = [0] * (n * 2) - 1\n"),
            "x = __ytt_mul([0] , (__ytt_mul(n , 2))) - 1\n"
        );
        assert_eq!(
            guarded("x = a * b * c\n"),
            "x = __ytt_mul(__ytt_mul(a , b) , c)\n"
        );
        assert_eq!(guarded("x *= 3\n"), "x = __ytt_mul(x , 3)\n");
        assert_eq!(guarded("y = (a *\n  b)\n"), "y = (__ytt_mul(a ,\n  b))\n");
        assert_eq!(
            guarded("x = [a * 2 for a in range(3) if a for b in xs]\n"),
            "x = [__ytt_mul(a , 2) for a in __ytt_iter(range(3)) if a for b in __ytt_iter(xs)]\n"
        );
        assert_eq!(
            guarded("d = {k: v for k, v in m.items()}\n"),
            "d = {k: v for k, v in __ytt_iter(m.items())}\n"
        );
        // Stars that are not products are left alone.
        assert_eq!(
            guarded("def f(*a, **k):\n    return g(*a, **k)\n"),
            "def f(*a, **k):\n    return g(*a, **k)\n"
        );
        assert_eq!(guarded("s = \"a * b\"\n"), "s = \"a * b\"\n");
    }

    #[test]
    fn growing_operations_and_methods_become_guarded_calls() {
        assert_eq!(guarded("x = a + b\n"), "x = __ytt_add(a , b)\n");
        assert_eq!(guarded("x += b\n"), "x += b\n");
        assert_eq!(guarded("x = f % (a, b)\n"), "x = __ytt_mod(f , (a, b))\n");
        assert_eq!(guarded("x %= a\n"), "x = __ytt_mod(x , a)\n");
        assert_eq!(guarded("x = 1 << n\n"), "x = __ytt_shl(1 , n)\n");
        assert_eq!(
            guarded("x = \",\".join(xs)\n"),
            "x = __ytt_method(\",\", \"join\", xs)\n"
        );
        assert_eq!(
            guarded("x = \"{}{}\".format(a, b=c)\n"),
            "x = __ytt_method(\"{}{}\", \"format\", a, b=c)\n"
        );
        assert_eq!(
            guarded("x = s.splitlines()\n"),
            "x = __ytt_method(s, \"splitlines\")\n"
        );
        // Nested: the object and the arguments are guarded too; lines stay.
        assert_eq!(
            guarded("x = (a + b).replace(c * 2,\n  d)\n"),
            "x = __ytt_method((__ytt_add(a , b)), \"replace\", __ytt_mul(c , 2),\n  d)\n"
        );
        assert_eq!(
            guarded("x = (s\n  .format(a))\n"),
            "x = (__ytt_method(s, \"format\"\n, a))\n"
        );
        // Parentheses stay on their side of the rewrite.
        assert_eq!(
            guarded("x = (\"%s\" * 2) % (a, b)\n"),
            "x = __ytt_mod((__ytt_mul(\"%s\" , 2)) , (a, b))\n"
        );
        assert_eq!(
            guarded("x = f((a) * (b))\n"),
            "x = f(__ytt_mul((a) , (b)))\n"
        );
        assert_eq!(
            guarded("x = ((s)).format(a)\n"),
            "x = __ytt_method(((s)), \"format\", a)\n"
        );
        // A growing method not called where it is named keeps its guard.
        assert_eq!(
            guarded("j = s.join\nx = f(a.format, b.upper)\n"),
            "j = __ytt_bind(s, \"join\")\nx = f(__ytt_bind(a, \"format\"), b.upper)\n"
        );
        // Other methods, and a function called `join`, stay.
        assert_eq!(guarded("x = s.upper()\n"), "x = s.upper()\n");
        assert_eq!(guarded("x = join(a)\n"), "x = join(a)\n");
    }
}
