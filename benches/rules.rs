//! Custom-rule throughput: one lambda rule evaluated over 100,000 values, as
//! the validator calls it (the issue's bar: 200,000 evaluations per second
//! per core). Run with `cargo bench --bench rules`.

use confvet::check::ytt::engine::Engine;
use confvet::check::ytt::starlark::StarValue;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn lambda_rule(c: &mut Criterion) {
    let engine = Engine::new(
        std::path::Path::new("."),
        confvet::check::ytt::workspace::MODULES,
    );
    let args = engine
        .eval_args(None, r#"("a port", lambda v: v >= 1 and v <= 65535)"#)
        .expect("rule arguments evaluate");
    let StarValue::Tuple(items) = &args.positional[0] else {
        panic!("a rule tuple");
    };
    let StarValue::Other {
        handle: Some(rule), ..
    } = &items[1]
    else {
        panic!("a function");
    };
    let values: Vec<StarValue> = (0..100_000)
        .map(|i| StarValue::Int(i * 7 % 70_000))
        .collect();
    let mut group = c.benchmark_group("custom-rule");
    group.throughput(Throughput::Elements(values.len() as u64));
    group.sample_size(10);
    group.bench_function("lambda over 100,000 values", |b| {
        b.iter(|| {
            let mut passed = 0;
            for value in &values {
                if matches!(
                    engine.call(&rule.0, &[value], &[]),
                    Ok(StarValue::Bool(true))
                ) {
                    passed += 1;
                }
            }
            black_box(passed)
        })
    });
    group.finish();
}

criterion_group!(benches, lambda_rule);
criterion_main!(benches);
