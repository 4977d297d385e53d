//! Tests of the engine: data values in templates, loads kept inside the
//! package.

use super::*;

#[test]
fn templates_see_the_data_values_as_structs() {
    let values = crate::yaml::parse_file(
        crate::source::FileId(0),
        "db:\n  port: 5432\n  my-key: x\nports:\n- num: 1\n",
        &Default::default(),
    )
    .expect("values parse")
    .docs
    .remove(0)
    .value;
    let engine = Engine::for_templates(Path::new("."), &values, crate::workspace::MODULES);
    let text = "#@ load(\"@ytt:data\", \"data\")\n#@ port = data.values.db.port\n#@ odd = getattr(data.values.db, \"my-key\")\n#@ n = data.values.ports[0].num\n";
    let module = engine
        .compile_yaml_file("t.yml", text, Path::new("."))
        .unwrap_or_else(|e| panic!("{e:?}"));
    let get =
        |name: &str| crate::starlark::to_star_value(module.get(name).expect("defined").value(), 0);
    assert_eq!(get("port"), StarValue::Int(5432));
    assert_eq!(get("odd"), StarValue::Str("x".into()));
    assert_eq!(get("n"), StarValue::Int(1));
    // Schema and data-values files still see an empty struct.
    let plain = Engine::new(Path::new("."), crate::workspace::MODULES);
    let empty = plain.compile_yaml_file(
        "t.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ x = hasattr(data.values, \"db\")\n",
        Path::new("."),
    );
    let empty = empty.unwrap_or_else(|e| panic!("{e:?}"));
    let has_db = crate::starlark::to_star_value(empty.get("x").expect("x").value(), 0);
    assert_eq!(has_db, StarValue::Bool(false));
}

#[test]
fn loads_stay_inside_the_package() {
    let engine = Engine::new(Path::new("/nonexistent/package"), crate::workspace::MODULES);
    let err = engine
        .compile_yaml_file(
            "t.yml",
            "#@ load(\"../../etc/passwd.star\", \"x\")\n",
            Path::new("/nonexistent/package"),
        )
        .unwrap_err();
    assert!(err.message.contains("not found in the package"), "{err:?}");
}
