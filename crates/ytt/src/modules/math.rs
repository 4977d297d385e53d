//! `@ytt:math`: every function of ytt's math module (Python's names:
//! `ceil`, `floor` giving ints, `fabs`, `copysign`, `mod`, `pow`,
//! `remainder`, `round`, `exp`, `sqrt`, trigonometric and hyperbolic
//! functions, `degrees`, `radians`, `log(x, base=e)`, `gamma`) and the
//! constants `e` and `pi`. Arguments may be ints or floats; results are
//! floats. `pow`, `gamma` and `remainder` are Go's algorithms, ported, so
//! they give Go's digits; the others are the platform's IEEE functions,
//! whose last digit can differ from Go's (ytt warns that its own results
//! are not bit-identical across CPU architectures either).

use super::context::Context;
use super::native::{Call, Failure, Native, NativeFn, Outcome, YttModule, native};
use crate::starlark::go::go_type;
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
            crate::yaml::float::format_float(value)
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

/// Go's `math.Pow`: special cases, then `x**yf` by exp and log and
/// `x**yi` by repeated squaring, as Go computes it (the platform's `powf`
/// rounds differently).
fn pow(x: f64, y: f64) -> f64 {
    let is_odd_int = |v: f64| {
        if v.abs() >= (1u64 << 53) as f64 {
            return false;
        }
        let (int, frac) = (v.trunc(), v.fract());
        frac == 0.0 && (int as i64) & 1 == 1
    };
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if y == 1.0 {
        return x;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return if y < 0.0 {
            if x.is_sign_negative() && is_odd_int(y) {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        } else if x.is_sign_negative() && is_odd_int(y) {
            x
        } else {
            0.0
        };
    }
    if y.is_infinite() {
        return if x == -1.0 {
            1.0
        } else if (x.abs() < 1.0) == (y > 0.0) {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if x.is_infinite() {
        if x < 0.0 {
            return pow(1.0 / x, -y);
        }
        return if y < 0.0 { 0.0 } else { f64::INFINITY };
    }
    if y == 0.5 {
        return x.sqrt();
    }
    if y == -0.5 {
        return 1.0 / x.sqrt();
    }
    let (mut yi, mut yf) = (y.abs().trunc(), y.abs().fract());
    if yf != 0.0 && x < 0.0 {
        return f64::NAN;
    }
    if yi >= 2f64.powi(63) {
        return if x == -1.0 {
            1.0
        } else if (x.abs() < 1.0) == (y > 0.0) {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let mut a1 = 1.0;
    let mut ae: i64 = 0;
    if yf != 0.0 {
        if yf > 0.5 {
            yf -= 1.0;
            yi += 1.0;
        }
        a1 = (yf * x.ln()).exp();
    }
    let (mut x1, mut xe) = frexp(x);
    let mut i = yi as i64;
    while i != 0 {
        if !(-(1 << 12)..=(1 << 12)).contains(&xe) {
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }
    if y < 0.0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    ldexp(a1, ae)
}

/// Go's `math.Frexp`: `f = frac × 2^exp`, `frac` in [½, 1).
fn frexp(f: f64) -> (f64, i64) {
    if f == 0.0 || !f.is_finite() {
        return (f, 0);
    }
    let (mut f, mut exp) = (f, 0i64);
    if f.abs() < f64::MIN_POSITIVE {
        f *= (1u64 << 52) as f64;
        exp = -52;
    }
    let bits = f.to_bits();
    exp += ((bits >> 52) & 0x7ff) as i64 - 1022;
    let bits = (bits & !(0x7ff << 52)) | (1022 << 52);
    (f64::from_bits(bits), exp)
}

/// Go's `math.Ldexp`: `frac × 2^exp`, rounding subnormal results as Go.
fn ldexp(frac: f64, exp: i64) -> f64 {
    if frac == 0.0 || !frac.is_finite() {
        return frac;
    }
    let (frac, e) = frexp(frac);
    let mut exp = exp + e;
    let bits = frac.to_bits();
    exp += ((bits >> 52) & 0x7ff) as i64 - 1023;
    if exp < -1075 {
        return 0.0f64.copysign(frac);
    }
    if exp > 1023 {
        return f64::INFINITY.copysign(frac);
    }
    let mut m = 1.0;
    if exp < -1022 {
        exp += 53;
        m = 1.0 / (1u64 << 53) as f64;
    }
    let bits = (bits & !(0x7ff << 52)) | (((exp + 1023) as u64) << 52);
    m * f64::from_bits(bits)
}

/// Go's `math.Remainder`: the IEEE 754 remainder, x - n*y with n the
/// nearest integer to x/y (ties to even), computed exactly.
fn remainder(x: f64, y: f64) -> f64 {
    const TINY: f64 = 4.450_147_717_014_403e-308;
    if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
        return f64::NAN;
    }
    if y.is_infinite() {
        return x;
    }
    let sign = x < 0.0;
    let (mut x, y) = (x.abs(), y.abs());
    if x == y {
        return if sign { -0.0 } else { 0.0 };
    }
    if y <= f64::MAX / 2.0 {
        x %= y + y;
    }
    if y < TINY {
        if x + x > y {
            x -= y;
            if x + x >= y {
                x -= y;
            }
        }
    } else {
        let half = 0.5 * y;
        if x > half {
            x -= y;
            if x >= half {
                x -= y;
            }
        }
    }
    if sign { -x } else { x }
}

const GAM_P: [f64; 7] = [
    1.601_195_224_767_518_6e-4,
    1.191_351_470_065_863_8e-3,
    1.042_137_975_617_615_7e-2,
    4.763_678_004_571_372e-2,
    2.074_482_276_484_359_8e-1,
    4.942_148_268_014_971e-1,
    1.0,
];
const GAM_Q: [f64; 8] = [
    -2.315_818_733_241_201_4e-5,
    5.396_055_804_933_034e-4,
    -4.456_419_138_517_972e-3,
    1.181_397_852_220_604_3e-2,
    3.582_363_986_054_986_5e-2,
    -2.345_917_957_182_433_5e-1,
    7.143_049_170_302_731e-2,
    1.0,
];
const GAM_S: [f64; 5] = [
    7.873_113_957_930_936e-4,
    -2.295_499_616_133_781_3e-4,
    -2.681_326_178_057_812_4e-3,
    3.472_222_216_054_586_6e-3,
    8.333_333_333_334_822e-2,
];

/// Go's `stirling`: Gamma by Stirling's formula, as two factors.
fn stirling(x: f64) -> (f64, f64) {
    if x > 200.0 {
        return (f64::INFINITY, 1.0);
    }
    const SQRT_TWO_PI: f64 = 2.506_628_274_631_000_7;
    const MAX_STIRLING: f64 = 143.01608;
    let w = 1.0 / x;
    let w = 1.0 + w * ((((GAM_S[0] * w + GAM_S[1]) * w + GAM_S[2]) * w + GAM_S[3]) * w + GAM_S[4]);
    let mut y1 = x.exp();
    let mut y2 = 1.0;
    if x > MAX_STIRLING {
        let v = pow(x, 0.5 * x - 0.25);
        (y1, y2) = (v, v / y1);
    } else {
        y1 = pow(x, x - 0.5) / y1;
    }
    (y1, SQRT_TWO_PI * w * y2)
}

/// Go's `math.Gamma` (Cephes' algorithm, ported from Go).
fn gamma(x: f64) -> f64 {
    const EULER: f64 = 0.577_215_664_901_532_9;
    let is_neg_int = x < 0.0 && x.fract() == 0.0;
    if is_neg_int || x == f64::NEG_INFINITY || x.is_nan() {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    if x == 0.0 {
        return f64::INFINITY.copysign(x);
    }
    let q = x.abs();
    let mut p = q.floor();
    if q > 33.0 {
        if x >= 0.0 {
            let (y1, y2) = stirling(x);
            return y1 * y2;
        }
        let sign = if (p as i64) & 1 == 0 { -1.0 } else { 1.0 };
        let mut z = q - p;
        if z > 0.5 {
            p += 1.0;
            z = q - p;
        }
        z = q * (PI * z).sin();
        if z == 0.0 {
            return f64::INFINITY * sign;
        }
        let (sq1, sq2) = stirling(q);
        let absz = z.abs();
        let d = absz * sq1 * sq2;
        let z = if d.is_infinite() {
            PI / absz / sq1 / sq2
        } else {
            PI / d
        };
        return sign * z;
    }
    let (mut x, mut z) = (x, 1.0);
    while x >= 3.0 {
        x -= 1.0;
        z *= x;
    }
    let small = |x: f64, z: f64| {
        if x == 0.0 {
            f64::INFINITY
        } else {
            z / ((1.0 + EULER * x) * x)
        }
    };
    while x < 0.0 {
        if x > -1e-09 {
            return small(x, z);
        }
        z /= x;
        x += 1.0;
    }
    while x < 2.0 {
        if x < 1e-09 {
            return small(x, z);
        }
        z /= x;
        x += 1.0;
    }
    if x == 2.0 {
        return z;
    }
    let x = x - 2.0;
    let p = (((((x * GAM_P[0] + GAM_P[1]) * x + GAM_P[2]) * x + GAM_P[3]) * x + GAM_P[4]) * x
        + GAM_P[5])
        * x
        + GAM_P[6];
    let q = ((((((x * GAM_Q[0] + GAM_Q[1]) * x + GAM_Q[2]) * x + GAM_Q[3]) * x + GAM_Q[4]) * x
        + GAM_Q[5])
        * x
        + GAM_Q[6])
        * x
        + GAM_Q[7];
    z * p / q
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
        // math.gamma(x) as the reference ytt prints it.
        assert_eq!(gamma(0.1), 9.513507698668732);
        assert_eq!(gamma(0.5), 1.7724538509055159);
        assert_eq!(gamma(10.1), 454760.7514415855);
        assert_eq!(gamma(100.7), 2.3417900214543253e+157);
        assert_eq!(gamma(1e-5), 99999.42279422554);
        // math.pow(x, 1.7) for a few x, as the reference ytt prints them.
        assert_eq!(pow(0.1, 1.7), 0.019952623149688802);
        assert_eq!(pow(2.9, 1.7), 6.110497861271663);
        assert_eq!(pow(100.7, 1.7), 2541.8510629458706);
        assert_eq!(pow(1e-5, 1.7), 3.1622776601683824e-09);
        assert_eq!(pow(2.0, 10.0), 1024.0);
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(ldexp(0.5, 4), 8.0);
    }
}
