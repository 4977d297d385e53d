//! Work checked before it is done, where starlark-rust has no hook:
//!
//! - Repetition. `"x" * 2000000000` or `[0] * 10**9` would make
//!   starlark-rust allocate gigabytes in one step, and a failed allocation
//!   aborts the process: no limit checked between statements can stop it.
//!   ytt refuses repetitions past 2^30 elements ("excessive repeat");
//!   confvet rewrites every `a * b` (and `x *= b`) into `__ytt_mul(a, b)`,
//!   which refuses a repetition past a size limit before making it and
//!   multiplies as `*` does otherwise.
//! - Comprehensions. `[0 for a in range(10**6) for b in range(10**6)]` runs
//!   no statement, so the statement budget never sees it; each
//!   comprehension's `for x in xs` becomes `for x in __ytt_iter(xs)`, which
//!   draws `len(xs)` from the evaluation's iteration budget.

use starlark::syntax::ast::{AssignOp, AstExpr, AstStmt, BinOp, ClauseP, ExprP, StmtP};
use starlark::syntax::{AstModule, Dialect};

/// One rewrite found in the source: a multiplication (byte ranges of the
/// whole expression and of its two operands), or an iterable to wrap.
#[derive(Clone)]
struct Product {
    whole: (usize, usize),
    left: (usize, usize),
    right: (usize, usize),
    /// `x *= e`: the statement becomes `x = __ytt_mul(x, e)`.
    assign: bool,
    /// A comprehension's iterable: `whole` becomes `__ytt_iter(whole)`.
    wrap: bool,
}

fn range(span: starlark::codemap::Span) -> (usize, usize) {
    (span.begin().get() as usize, span.end().get() as usize)
}

fn products_in_expr(expr: &AstExpr, found: &mut Vec<Product>) {
    match &expr.node {
        ExprP::Op(left, BinOp::Multiply, right) => found.push(Product {
            whole: range(expr.span),
            left: range(left.span),
            right: range(right.span),
            assign: false,
            wrap: false,
        }),
        ExprP::ListComprehension(_, first, clauses)
        | ExprP::DictComprehension(_, first, clauses) => {
            let fors = std::iter::once(&**first).chain(clauses.iter().filter_map(|c| match c {
                ClauseP::For(f) => Some(f),
                ClauseP::If(_) => None,
            }));
            for clause in fors {
                let over = range(clause.over.span);
                found.push(Product {
                    whole: over,
                    left: over,
                    right: over,
                    assign: false,
                    wrap: true,
                });
            }
        }
        _ => {}
    }
    expr.node.visit_expr(|child| products_in_expr(child, found));
}

fn products_in_stmt(stmt: &AstStmt, found: &mut Vec<Product>) {
    if let StmtP::AssignModify(target, AssignOp::Multiply, value) = &stmt.node {
        found.push(Product {
            whole: range(stmt.span),
            left: range(target.span),
            right: range(value.span),
            assign: true,
            wrap: false,
        });
    }
    stmt.node.visit_stmt(|child| products_in_stmt(child, found));
}

/// Parse `source` with its multiplications and comprehensions guarded: it
/// is parsed once, and again only when it has something to rewrite (the
/// rewrite keeps every line where it was). A parse error is `source`'s own.
pub fn parse_guarded(name: &str, source: String, dialect: &Dialect) -> starlark::Result<AstModule> {
    let ast = AstModule::parse(name, source.clone(), dialect)?;
    let mut found = Vec::new();
    ast.statement()
        .visit_expr(|e| products_in_expr(e, &mut found));
    products_in_stmt(ast.statement(), &mut found);
    if found.is_empty() {
        return Ok(ast);
    }
    // Outer products first, so that inner ones are rewritten inside them.
    // A wrapped iterable before a product of the same span.
    found.sort_by_key(|p| (p.whole.0, std::cmp::Reverse(p.whole.1), !p.wrap));
    AstModule::parse(name, rewrite(&source, 0, source.len(), &found), dialect)
}

/// The text of `source[start..end]` with every product inside rewritten.
fn rewrite(source: &str, start: usize, end: usize, products: &[Product]) -> String {
    let mut out = String::with_capacity(end - start + 16);
    let mut at = start;
    let mut i = 0;
    while i < products.len() {
        let p = &products[i];
        if p.whole.0 < at || p.whole.1 > end {
            i += 1;
            continue;
        }
        out.push_str(&source[at..p.whole.0]);
        // The products inside this one's operands.
        let inner: Vec<Product> = products[i + 1..]
            .iter()
            .filter(|q| q.whole.0 >= p.whole.0 && q.whole.1 <= p.whole.1)
            .cloned()
            .collect();
        if p.wrap {
            let inside = rewrite(source, p.whole.0, p.whole.1, &inner);
            out.push_str(&format!("__ytt_iter({inside})"));
            at = p.whole.1;
            i += 1;
            while i < products.len() && products[i].whole.0 < p.whole.1 {
                i += 1;
            }
            continue;
        }
        let left = rewrite(source, p.left.0, p.left.1, &inner);
        let right = rewrite(source, p.right.0, p.right.1, &inner);
        // What lies between the operands: the operator, blanks, maybe a
        // line break; kept but for the operator, so lines stay where they
        // were.
        let between =
            source[p.left.1..p.right.0].replacen(if p.assign { "*=" } else { "*" }, ",", 1);
        if p.assign {
            out.push_str(&format!("{left} = __ytt_mul({left}{between}{right})"));
        } else {
            out.push_str(&format!("__ytt_mul({left}{between}{right})"));
        }
        at = p.whole.1;
        // Skip the products inside this one: they are rewritten already.
        i += 1;
        while i < products.len() && products[i].whole.0 < p.whole.1 {
            i += 1;
        }
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
        let mut found = Vec::new();
        ast.statement()
            .visit_expr(|e| products_in_expr(e, &mut found));
        products_in_stmt(ast.statement(), &mut found);
        found.sort_by_key(|p| (p.whole.0, std::cmp::Reverse(p.whole.1), !p.wrap));
        rewrite(source, 0, source.len(), &found)
    }

    #[test]
    fn every_product_becomes_a_guarded_call_and_lines_stay() {
        assert_eq!(guarded("x = 2 * 3\n"), "x = __ytt_mul(2 , 3)\n");
        assert_eq!(
            guarded("x = [0] * (n * 2) + 1\n"),
            "x = __ytt_mul([0] , (__ytt_mul(n , 2))) + 1\n"
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
}
