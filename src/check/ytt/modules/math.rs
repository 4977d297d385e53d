//! `@ytt:math`: every function of ytt's math module (Python's names:
//! `ceil`, `floor` giving ints, `fabs`, `copysign`, `mod`, `pow`,
//! `remainder`, `round`, `exp`, `sqrt`, trigonometric and hyperbolic
//! functions, `degrees`, `radians`, `log(x, base=e)`, `gamma`) and the
//! constants `e` and `pi`. Arguments may be ints or floats; results are
//! floats. The functions are the platform's IEEE ones: ytt warns that its
//! own results are not bit-identical across CPU architectures either, and
//! a last digit may differ from the reference ytt's.

use super::Context;
use super::native::{Call, Failure, Native, NativeFn, Outcome, YttModule, go_type, native};
use starlark::eval::Evaluator;
use starlark::values::float::StarlarkFloat;
use starlark::values::{Heap, UnpackValue, Value};
use std::f64::consts::{E, PI};

/// A float function of ytt's module: its name in ytt (the name errors
/// show) and what it computes.
enum Function {
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
}

fn table() -> Vec<(&'static str, &'static str, Function)> {
    use Function::{Binary, Unary};
    vec![
        ("copysign", "copysign", Binary(f64::copysign)),
        ("fabs", "fabs", Unary(f64::abs)),
        // ytt names its `mod` builtin "round".
        ("mod", "round", Binary(|x, y| x % y)),
        ("pow", "pow", Binary(pow)),
        ("remainder", "remainder", Binary(remainder)),
        ("round", "round", Unary(f64::round)),
        ("exp", "exp", Unary(f64::exp)),
        ("sqrt", "sqrt", Unary(f64::sqrt)),
        ("acos", "acos", Unary(f64::acos)),
        ("asin", "asin", Unary(f64::asin)),
        ("atan", "atan", Unary(f64::atan)),
        ("atan2", "atan2", Binary(f64::atan2)),
        ("cos", "cos", Unary(f64::cos)),
        ("hypot", "hypot", Binary(f64::hypot)),
        ("sin", "sin", Unary(f64::sin)),
        ("tan", "tan", Unary(f64::tan)),
        ("degrees", "degrees", Unary(|x| 360.0 * x / (2.0 * PI))),
        ("radians", "radians", Unary(|x| 2.0 * PI * x / 360.0)),
        ("acosh", "acosh", Unary(f64::acosh)),
        ("asinh", "asinh", Unary(f64::asinh)),
        ("atanh", "atanh", Unary(f64::atanh)),
        ("cosh", "cosh", Unary(f64::cosh)),
        ("sinh", "sinh", Unary(f64::sinh)),
        ("tanh", "tanh", Unary(f64::tanh)),
        ("gamma", "gamma", Unary(gamma)),
    ]
}

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    let mut members = vec![
        (
            "ceil".to_string(),
            builtin(heap, "ceil", native!(ceil), None),
        ),
        (
            "floor".to_string(),
            builtin(heap, "floor", native!(floor), None),
        ),
        ("log".to_string(), builtin(heap, "log", native!(log), None)),
        ("e".to_string(), heap.alloc(StarlarkFloat(E))),
        ("pi".to_string(), heap.alloc(StarlarkFloat(PI))),
    ];
    for (member, name, function) in table() {
        let call = match function {
            Function::Unary(_) => native!(unary),
            Function::Binary(_) => native!(binary),
        };
        members.push((
            member.to_string(),
            builtin(heap, name, call, Some(function)),
        ));
    }
    heap.alloc(YttModule::new("math", members))
}

fn builtin<'v>(
    heap: Heap<'v>,
    name: &'static str,
    call: NativeFn,
    function: Option<Function>,
) -> Value<'v> {
    let data =
        function.map(|f| std::sync::Arc::new(f) as std::sync::Arc<dyn std::any::Any + Send + Sync>);
    heap.alloc(Native::with(name, call, Vec::new(), data))
}

/// An int or float argument as a float (ytt's `AsFloat64`).
fn float(value: Value<'_>) -> Result<f64, Failure> {
    if value.get_type() == "int" {
        if let Ok(Some(i)) = i64::unpack_value(value) {
            return Ok(i as f64);
        }
        return value
            .to_str()
            .parse::<f64>()
            .map_err(|_| Failure::Message("expected int64 value".into()));
    }
    if let Ok(Some(f)) = StarlarkFloat::unpack_value(value) {
        return Ok(f.0);
    }
    Err(Failure::Message(format!(
        "expected float value, but was {}",
        go_type(value)
    )))
}

fn unary<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let x = float(call.one()?)?;
    let Function::Unary(f) = call.data::<Function>()? else {
        return Err("internal: not a unary function".into());
    };
    Ok(call.heap.alloc(StarlarkFloat(f(x))))
}

fn binary<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    call.expect(2, "expected exactly two arguments")?;
    let (x, y) = (float(call.args[0])?, float(call.args[1])?);
    let Function::Binary(f) = call.data::<Function>()? else {
        return Err("internal: not a binary function".into());
    };
    Ok(call.heap.alloc(StarlarkFloat(f(x, y))))
}

/// starlark-go's `UnpackPositionalArgs` for `name(x)` or `name(x, base)`.
fn positional<'v>(call: &Call<'v, '_>, name: &str, max: usize) -> Result<Vec<Value<'v>>, Failure> {
    if !call.kwargs.is_empty() {
        return Err(format!("{name}: unexpected keyword arguments").into());
    }
    if call.args.len() > max {
        return Err(format!(
            "{name}: got {} arguments, want at most {max}",
            call.args.len()
        )
        .into());
    }
    if call.args.is_empty() {
        return Err(format!("{name}: got 0 arguments, want at least 1").into());
    }
    Ok(call.args.clone())
}

/// `ceil` and `floor`: ints stay, floats become ints.
fn rounded<'v>(call: &Call<'v, '_>, name: &str, f: fn(f64) -> f64) -> Outcome<'v> {
    let x = positional(call, name, 1)?[0];
    if x.get_type() == "int" {
        return Ok(x);
    }
    let Ok(Some(StarlarkFloat(value))) = StarlarkFloat::unpack_value(x) else {
        return Err(format!("expected float value, but was {}", go_type(x)).into());
    };
    let value = f(value);
    if !value.is_finite() {
        return Err(format!(
            "cannot convert float {} to integer",
            crate::yaml::scalar::format_float(value)
        )
        .into());
    }
    if value.abs() >= 2f64.powi(63) {
        return Err(format!("integer {value} does not fit in 64 bits").into());
    }
    Ok(call.heap.alloc(value as i64))
}

fn ceil<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rounded(call, "ceil", f64::ceil)
}

fn floor<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rounded(call, "floor", f64::floor)
}

/// `log(x, base=e)`; its errors are not prefixed (ytt does not wrap it).
fn log<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let plain = |f: Failure| match f {
        Failure::Message(m) => Failure::Plain(m),
        other => other,
    };
    let args = positional(call, "log", 2).map_err(plain)?;
    let x = float(args[0]).map_err(plain)?;
    let base = match args.get(1) {
        Some(b) => float(*b).map_err(plain)?,
        None => E,
    };
    Ok(call.heap.alloc(StarlarkFloat(x.ln() / base.ln())))
}

/// Go's `math.Pow` special cases, then the platform's `powf`.
fn pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// IEEE 754 remainder (Go's `math.Remainder`): x - n*y, n the nearest
/// integer to x/y, ties to even.
fn remainder(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
        return f64::NAN;
    }
    if y.is_infinite() {
        return x;
    }
    let n = (x / y).round_ties_even();
    let r = x - n * y;
    if r == 0.0 { 0.0f64.copysign(x) } else { r }
}

/// The Gamma function (Lanczos approximation, exact at positive integers
/// as Go's `math.Gamma`).
fn gamma(x: f64) -> f64 {
    if x == x.floor() {
        if x <= 0.0 {
            return if x == 0.0 {
                f64::INFINITY.copysign(x)
            } else {
                f64::NAN
            };
        }
        if x <= 171.0 {
            return (1..x as u64).fold(1.0, |acc, n| acc * n as f64);
        }
        return f64::INFINITY;
    }
    if x < 0.5 {
        return PI / ((PI * x).sin() * gamma(1.0 - x));
    }
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    (2.0 * PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_functions_give_go_results() {
        // Expected values from the reference ytt.
        assert_eq!(remainder(5.0, 2.0), 1.0);
        assert_eq!(remainder(7.0, 2.0), -1.0);
        assert_eq!(gamma(5.0), 24.0);
        assert!(gamma(0.0).is_infinite());
        assert!(gamma(-1.0).is_nan());
        assert_eq!(f64::round(2.5), 3.0);
        assert_eq!(f64::round(-2.5), -3.0);
        assert!((gamma(0.5) - PI.sqrt()).abs() < 1e-14);
    }
}
