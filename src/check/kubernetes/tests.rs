//! Each class of violation on small documents, parsed with confvet's own
//! parser, against the shipped schemas and against small schemas of our own
//! for what the built-in kinds do not use (nullable, preserved and embedded
//! fields, enums of other types than string).

use super::schema::Schema;
use super::*;
use crate::source::FileId;
use crate::yaml::{ParseOptions, parse_file};
use ViolationClass::{Enum, Format, Required, Type, UnknownField};

fn parse(text: &str) -> Node {
    let set = parse_file(FileId(0), text, &ParseOptions::default()).expect("parses");
    set.docs.into_iter().next().expect("one document").value
}

/// Violations of `text` under the newest version, each as (class, path,
/// the text of its span).
fn violations(text: &str) -> Vec<(ViolationClass, String, String)> {
    match validate(&parse(text), Version::newest()) {
        Validation::Checked(found) => found
            .into_iter()
            .map(|v| (v.class, v.path, text[v.span.range()].to_string()))
            .collect(),
        other => panic!("expected a schema, got {other:?}"),
    }
}

fn only(text: &str) -> Violation {
    match validate(&parse(text), Version::newest()) {
        Validation::Checked(mut found) if found.len() == 1 => found.remove(0),
        other => panic!("expected one violation, got {other:?}"),
    }
}

const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
  creationTimestamp: null
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 1
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        imagePullPolicy: IfNotPresent
        ports:
        - containerPort: 8080
          name: http
        resources:
          limits:
            cpu: 500m
            memory: 1Gi
          requests:
            cpu: 0.5
            memory: 512Mi
        env:
        - name: MODE
          value: fast
      volumes: null
";

#[test]
fn a_valid_deployment_has_no_violation() {
    assert_eq!(violations(DEPLOYMENT), vec![]);
}

/// The one violation of the deployment with `from` changed to `to`: its
/// class, path, message, did-you-mean and the text of its span.
fn changed(from: &str, to: &str) -> (ViolationClass, String, String, Option<String>, String) {
    let text = DEPLOYMENT.replacen(from, to, 1);
    let found = only(&text);
    let at = text[found.span.range()].to_string();
    (
        found.class,
        found.path,
        found.message,
        found.did_you_mean,
        at,
    )
}

#[test]
fn an_unknown_field_is_reported_at_its_key_with_a_suggestion() {
    assert_eq!(
        changed("imagePullPolicy", "imagePullPolcy"),
        (
            UnknownField,
            "spec.template.spec.containers[0].imagePullPolcy".into(),
            "unknown field \"imagePullPolcy\"".into(),
            Some("imagePullPolicy".into()),
            "imagePullPolcy".into()
        )
    );
}

#[test]
fn a_value_outside_a_built_in_enum_is_an_enum_violation() {
    let found = changed("imagePullPolicy: IfNotPresent", "imagePullPolicy: Alwayz");
    // `""` is allowed (it reads as unset) and not offered.
    let supported = r#""Always", "Never", "IfNotPresent""#;
    assert_eq!(
        found,
        (
            Enum,
            "spec.template.spec.containers[0].imagePullPolicy".into(),
            format!("unsupported value \"Alwayz\": supported values: {supported}"),
            Some("Always".into()),
            "Alwayz".into()
        )
    );
    // "" is the unset pull policy, which the server defaults.
    for clean in ["imagePullPolicy: \"\"", "imagePullPolicy: Always"] {
        let text = DEPLOYMENT.replacen("imagePullPolicy: IfNotPresent", clean, 1);
        assert_eq!(violations(&text), vec![], "{clean}");
    }
}

#[test]
fn built_in_enums_cover_services_and_claims() {
    let service = "\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: Nodeport
  ports:
  - port: 80
    protocol: TCP
";
    assert_eq!(
        violations(service),
        vec![(Enum, "spec.type".into(), "Nodeport".into())]
    );
    let claim = "\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes:
  - ReadWriteOnce
  - ReadWriteAll
  volumeMode: Filesystem
  resources:
    requests:
      storage: 1Gi
";
    assert_eq!(
        violations(claim),
        vec![(Enum, "spec.accessModes[1]".into(), "ReadWriteAll".into())]
    );
}

#[test]
fn metadata_is_checked_as_object_meta() {
    let (class, path, _, did_you_mean, _) = changed(
        "  labels:\n    app.kubernetes",
        "  lables:\n    app.kubernetes",
    );
    assert_eq!((class, path.as_str()), (UnknownField, "metadata.lables"));
    assert_eq!(did_you_mean.as_deref(), Some("labels"));
}

#[test]
fn a_string_where_an_integer_belongs_is_a_type_violation() {
    assert_eq!(
        changed("replicas: 2", "replicas: \"2\""),
        (
            Type,
            "spec.replicas".into(),
            "expected integer, got string \"2\"".into(),
            None,
            "\"2\"".into()
        )
    );
}

#[test]
fn scalars_are_typed_as_go_yaml_v2_types_them() {
    // `yes` is a boolean in YAML 1.1, and a number is no string.
    let text = DEPLOYMENT
        .replace("value: fast", "value: yes")
        .replace("app: web\n    spec", "app: 1\n    spec");
    assert_eq!(
        violations(&text),
        vec![
            (
                Type,
                "spec.template.metadata.labels[app]".into(),
                "1".into()
            ),
            (
                Type,
                "spec.template.spec.containers[0].env[0].value".into(),
                "yes".into()
            ),
        ]
    );
}

#[test]
fn a_missing_required_field_is_reported_at_the_map() {
    let (class, path, message, _, at) =
        changed("      - name: web\n        image", "      - image");
    assert_eq!(
        (class, path.as_str(), message.as_str()),
        (
            Required,
            "spec.template.spec.containers[0]",
            "missing required field \"name\""
        )
    );
    assert!(at.starts_with("image: nginx"));
}

#[test]
fn int_or_string_takes_either_and_nothing_else() {
    let (class, path, message, _, _) = changed("maxUnavailable: 1", "maxUnavailable: true");
    assert_eq!(
        (class, path.as_str(), message.as_str()),
        (
            Type,
            "spec.strategy.rollingUpdate.maxUnavailable",
            "expected integer or string, got boolean true"
        )
    );
}

#[test]
fn quantities_are_strings_of_their_format_or_numbers() {
    let (class, path, message, _, _) = changed("memory: 1Gi", "memory: 1GB");
    assert_eq!(
        (class, path.as_str()),
        (
            Format,
            "spec.template.spec.containers[0].resources.limits[memory]"
        )
    );
    assert!(
        message.starts_with("\"1GB\" is not a quantity: unit \"GB\" is not one of Ki, Mi"),
        "{message}"
    );
    // apimachinery trims a quantity and reads a missing number as 0.
    for taken in ["memory: \" 1Gi \"", "memory: Gi"] {
        let text = DEPLOYMENT.replacen("memory: 1Gi", taken, 1);
        assert_eq!(violations(&text), vec![], "{taken}");
    }
}

#[test]
fn bytes_are_base64_and_integers_fit_their_width() {
    let secret =
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  ok: aGVsbG8=\n  bad: hello!\n";
    assert_eq!(
        violations(secret),
        vec![(Format, "data[bad]".into(), "hello!".into())]
    );
    let (_, _, message, _, _) = changed("replicas: 2", "replicas: 3000000000");
    assert_eq!(message, "3000000000 overflows int32");
}

#[test]
fn null_is_the_zero_value_of_built_in_fields() {
    // The null field is fine; the unknown one still is not, null or not.
    let (_, path, _, _, _) = changed(
        "imagePullPolicy: IfNotPresent",
        "imagePullPolicy: ~\n        resources2: null",
    );
    assert_eq!(path, "spec.template.spec.containers[0].resources2");
}

#[test]
fn an_unknown_kind_or_version_has_no_schema() {
    let custom = parse("apiVersion: example.com/v1\nkind: Widget\nspec: {size: 3}\n");
    assert_eq!(
        validate(&custom, Version::newest()),
        Validation::NoSchema {
            api_version: Some("example.com/v1".into()),
            kind: Some("Widget".into())
        }
    );
    let removed = parse("apiVersion: extensions/v1beta1\nkind: Deployment\n");
    assert!(matches!(
        validate(&removed, Version::newest()),
        Validation::NoSchema { .. }
    ));
    let no_kind = parse("a: 1\n");
    assert!(matches!(
        validate(&no_kind, Version::newest()),
        Validation::NoSchema { kind: None, .. }
    ));
}

#[test]
fn versions_are_named_by_minor() {
    let names: Vec<&str> = Version::all().map(Version::name).collect();
    assert_eq!(names, ["1.35", "1.36", "1.37"]);
    assert_eq!(Version::parse("v1.36.4").map(Version::name), Some("1.36"));
    assert_eq!(Version::parse("1.37"), Some(Version::newest()));
    assert_eq!(Version::parse("1.20"), None);
}

#[test]
fn every_shipped_definition_reads() {
    for version in Version::all() {
        let schemas = version.schemas();
        assert!(schemas.kind_count() > 300, "{}", version.name());
        assert_eq!(
            schemas.set.unreadable_definitions(),
            Vec::<usize>::new(),
            "{}",
            version.name()
        );
        assert!(schemas.kind("apps/v1", "Deployment").is_some());
        assert!(schemas.kind("v1", "ConfigMap").is_some());
    }
}

/// A set of one schema of our own, decoded as a custom resource is (null
/// only where `nullable`).
fn custom(schema: &str) -> SchemaSet {
    let schema: Schema = serde_json::from_str(schema).expect("schema");
    SchemaSet::compiled(vec![schema], false)
}

fn custom_violations(set: &SchemaSet, text: &str) -> Vec<(ViolationClass, String, String)> {
    validate_against(&parse(text), set, 0)
        .into_iter()
        .map(|v| (v.class, v.path, v.message))
        .collect()
}

/// An expected violation of a custom schema.
fn expect(class: ViolationClass, path: &str, message: &str) -> (ViolationClass, String, String) {
    (class, path.to_string(), message.to_string())
}

#[test]
fn enums_list_the_supported_values() {
    let set = custom(
        r#"{"type":"object","properties":{"policy":{"type":"string","enum":["Always","Never"]},
            "level":{"type":"integer","enum":[1,2]}}}"#,
    );
    assert_eq!(custom_violations(&set, "policy: Never\nlevel: 2\n"), vec![]);
    let policy = "unsupported value \"Sometimes\": supported values: \"Always\", \"Never\"";
    assert_eq!(
        custom_violations(&set, "policy: Sometimes\nlevel: 3\n"),
        vec![
            expect(Enum, "policy", policy),
            expect(Enum, "level", "unsupported value 3: supported values: 1, 2"),
        ]
    );
}

#[test]
fn nullable_preserved_and_embedded_fields() {
    let set = custom(
        r#"{"type":"object","properties":{
            "name":{"type":"string"},
            "note":{"type":"string","nullable":true},
            "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
                    "properties":{"size":{"type":"integer"}}},
            "template":{"type":"object","x-kubernetes-embedded-resource":true,
                        "properties":{"spec":{"type":"object"}}},
            "tags":{"type":"object","additionalProperties":{"type":"string"}}}}"#,
    );
    let text = "\
name: ~
note: ~
free: {size: 3, anything: [1, 2]}
template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {x: 1}}
tags: {a: b}
";
    assert_eq!(
        custom_violations(&set, text),
        vec![expect(Type, "name", "expected string, got null")]
    );
    let text = "free: {size: big}\ntemplate: {spek: {}}\ntags: {a: 1}\n";
    assert_eq!(
        custom_violations(&set, text),
        vec![
            expect(Type, "free.size", "expected integer, got string \"big\""),
            expect(UnknownField, "template.spek", "unknown field \"spek\""),
            expect(Type, "tags[a]", "expected string, got integer 1"),
        ]
    );
}

#[test]
fn bounds_and_patterns() {
    let set = custom(
        r#"{"type":"object","properties":{
            "name":{"type":"string","maxLength":5,"pattern":"^[a-z]+$"},
            "count":{"type":"integer","minimum":1,"maximum":10},
            "items":{"type":"array","maxItems":1,"items":{"type":"string"}}}}"#,
    );
    assert_eq!(
        custom_violations(&set, "name: abc\ncount: 10\nitems: [a]\n"),
        vec![]
    );
    let found = custom_violations(&set, "name: abcdefg\ncount: 0\nitems: [a, b]\n");
    let classes: Vec<_> = found.iter().map(|(c, p, _)| (*c, p.as_str())).collect();
    assert_eq!(
        classes,
        [(Format, "name"), (Format, "count"), (Format, "items")]
    );
    assert_eq!(
        custom_violations(&set, "name: ABC\n")[0].2,
        "does not match the pattern \"^[a-z]+$\""
    );
}

/// What the bundled schemas say of `text`.
fn bundled_check(text: &str) -> Vec<Violation> {
    let document = parse(text);
    let api_version = crate::yaml::string(&document, "apiVersion").expect("apiVersion");
    let kind = crate::yaml::string(&document, "kind").expect("kind");
    let bundled = schema::bundled();
    let root = bundled.kind(api_version, kind).expect("a bundled kind");
    validate_against(&document, &bundled.set, root)
}

/// The violations of `text` against the bundled schemas, each as (class,
/// path, message).
fn bundled_violations(text: &str) -> Vec<(ViolationClass, String, String)> {
    (bundled_check(text).into_iter())
        .map(|v| (v.class, v.path, v.message))
        .collect()
}

#[test]
fn a_custom_resource_integer_is_not_held_to_its_format() {
    // KubeVirt's CPU counts are Go uint32s, which controller-gen writes as
    // `format: int32`; the API server checks no integer's format for a
    // custom resource (KubeVirt's own API round-trip data has these).
    let cores = VIRTUAL_MACHINE.replace(
        "        devices:",
        "        cpu: {cores: 4294967291}\n        devices:",
    );
    assert_eq!(bundled_violations(&cores), vec![]);
}

fn only_bundled(text: &str) -> Violation {
    let mut found = bundled_check(text);
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

/// The path and suggestion of the one violation of `text`, an unknown field.
fn only_unknown_field(text: &str) -> (String, Option<String>) {
    let found = only_bundled(text);
    assert_eq!(found.class, UnknownField, "{found:?}");
    (found.path, found.did_you_mean)
}

#[test]
fn every_bundled_definition_reads() {
    let bundled = schema::bundled();
    assert_eq!(bundled.set.unreadable_definitions(), Vec::<usize>::new());
    assert_eq!(bundled.kind_count(), 9);
    for (api_version, kind) in [
        ("kubevirt.io/v1", "VirtualMachine"),
        ("kubevirt.io/v1alpha3", "VirtualMachine"),
        ("kubevirt.io/v1", "VirtualMachineInstance"),
        ("kubevirt.io/v1alpha3", "VirtualMachineInstance"),
        ("data.packaging.carvel.dev/v1alpha1", "Package"),
        ("data.packaging.carvel.dev/v1alpha1", "PackageMetadata"),
        ("packaging.carvel.dev/v1alpha1", "PackageInstall"),
        ("packaging.carvel.dev/v1alpha1", "PackageRepository"),
        ("kappctrl.k14s.io/v1alpha1", "App"),
    ] {
        assert!(
            bundled.kind(api_version, kind).is_some(),
            "{kind} {api_version}"
        );
    }
    // Built-in kinds are not bundled, whatever the version.
    assert!(bundled.kind("apps/v1", "Deployment").is_none());
}

/// A VirtualMachine of KubeVirt's template-validator tests (the corpus's
/// `01-vm-without-template.yaml`, as `v1`).
const VIRTUAL_MACHINE: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  creationTimestamp: null
  labels:
    kubevirt.io/vm: vm-test-01
  name: vm-test-01
spec:
  runStrategy: Halted
  template:
    metadata:
      creationTimestamp: null
      labels:
        kubevirt.io/vm: vm-test-01
    spec:
      domain:
        devices:
          interfaces:
          - name: default
            bridge: {}
        machine:
          type: \"\"
        resources:
          requests:
            memory: 64M
      networks:
      - name: default
        pod: {}
      evictionStrategy: LiveMigrate
      terminationGracePeriodSeconds: 0
status: {}
";

#[test]
fn a_valid_virtual_machine_has_no_violation() {
    assert_eq!(bundled_violations(VIRTUAL_MACHINE), vec![]);
    let v1alpha3 = VIRTUAL_MACHINE.replace("kubevirt.io/v1\n", "kubevirt.io/v1alpha3\n");
    assert_eq!(bundled_violations(&v1alpha3), vec![]);
}

#[test]
fn a_virtual_machine_with_a_misspelt_field_or_a_wrong_value() {
    let misspelt = VIRTUAL_MACHINE.replace("runStrategy:", "runStrategyy:");
    assert_eq!(
        only_unknown_field(&misspelt),
        ("spec.runStrategyy".into(), Some("runStrategy".into()))
    );
    // KubeVirt's schema gives runStrategy no enum (its webhook checks the
    // value): a wrong one is not a schema violation.
    let sometimes = VIRTUAL_MACHINE.replace("runStrategy: Halted", "runStrategy: Sometimes");
    assert_eq!(bundled_violations(&sometimes), vec![]);
    let reboot = VIRTUAL_MACHINE.replace(
        "        devices:",
        "        rebootPolicy: Sometimes\n        devices:",
    );
    assert_eq!(
        bundled_violations(&reboot),
        vec![expect(
            Enum,
            "spec.template.spec.domain.rebootPolicy",
            "unsupported value \"Sometimes\": supported values: \"Reboot\", \"Terminate\""
        )]
    );
    // Quantities are checked as the built-in kinds' are.
    let memory = VIRTUAL_MACHINE.replace("memory: 64M", "memory: 64MB");
    let found = only_bundled(&memory);
    assert_eq!(
        (found.class, found.path.as_str()),
        (
            Format,
            "spec.template.spec.domain.resources.requests[memory]"
        )
    );
    let cores = VIRTUAL_MACHINE.replace(
        "terminationGracePeriodSeconds: 0",
        "terminationGracePeriodSeconds: soon",
    );
    assert_eq!(
        bundled_violations(&cores),
        vec![expect(
            Type,
            "spec.template.spec.terminationGracePeriodSeconds",
            "expected integer, got string \"soon\""
        )]
    );
}

const PACKAGE_INSTALL: &str = "\
apiVersion: packaging.carvel.dev/v1alpha1
kind: PackageInstall
metadata:
  name: cert-manager
  namespace: packages
spec:
  serviceAccountName: installer
  packageRef:
    refName: cert-manager.community.tanzu.vmware.com
    versionSelection:
      constraints: 1.8.0
  values:
  - secretRef:
      name: cert-manager-values
";

#[test]
fn a_package_install_with_an_unknown_field() {
    assert_eq!(bundled_violations(PACKAGE_INSTALL), vec![]);
    let text = PACKAGE_INSTALL.replace("    refName:", "    refname:");
    assert_eq!(
        only_unknown_field(&text),
        ("spec.packageRef.refname".into(), Some("refName".into()))
    );
}

/// The deployment with `from` changed to `to`, checked through the catalog
/// as lint does: the text its fixes make, or None without a fix.
fn fixed(from: &str, to: &str) -> Option<String> {
    let text = DEPLOYMENT.replacen(from, to, 1);
    let sources = crate::source::Sources::new();
    let id = sources.add(crate::source::SourceFile::new(
        "deploy.yaml".into(),
        None,
        text.clone(),
    ));
    let set = parse_file(id, &text, &ParseOptions::default()).expect("parses");
    let documents: Vec<&Node> = set.docs.iter().map(|d| &d.value).collect();
    let catalog = Catalog::new(
        Version::newest(),
        crd_files::CrdFiles::index(Vec::new(), &sources, std::path::Path::new(".")),
    );
    let found = catalog.check(&documents, &sources, &mut Lookups::default());
    assert_eq!(found.len(), 1, "{found:?}");
    let fix = found[0].fix.as_ref()?;
    assert_eq!(fix.applicability, crate::edit::Applicability::Unsafe);
    let edits: Vec<&crate::edit::Edit> = fix.edits.iter().collect();
    Some(crate::edit::apply_edits(&text, &edits))
}

#[test]
fn a_misspelt_field_is_renamed_to_the_only_one_within_two_edits() {
    let renamed = fixed("imagePullPolicy", "imagePullPolcy");
    assert_eq!(renamed.as_deref(), Some(DEPLOYMENT));
    // A hint three edits away is no rename.
    assert_eq!(fixed("imagePullPolicy", "imgPullPolcy"), None);
    // Renamed to a field of another shape, the value would be wrong there.
    let image = "        image: nginx:1.27\n";
    let listed = fixed(image, &format!("{image}        arg:\n        - --fast\n"));
    let expected = DEPLOYMENT.replacen(
        image,
        &format!("{image}        args:\n        - --fast\n"),
        1,
    );
    assert_eq!(listed, Some(expected));
    assert_eq!(fixed(image, &format!("{image}        arg: --fast\n")), None);
    // Quoted, the key is renamed inside its quotes.
    let quoted = fixed("imagePullPolicy", "\"imagePullPolcy\"");
    let expected = DEPLOYMENT.replacen("imagePullPolicy", "\"imagePullPolicy\"", 1);
    assert_eq!(quoted, Some(expected));
}

#[test]
fn an_enum_value_in_the_wrong_case_is_written_as_declared() {
    let text = fixed(
        "imagePullPolicy: IfNotPresent",
        "imagePullPolicy: ifnotpresent",
    );
    assert_eq!(text.as_deref(), Some(DEPLOYMENT));
    let quoted = fixed(
        "imagePullPolicy: IfNotPresent",
        "imagePullPolicy: 'ifNotPresent' # pinned",
    );
    assert_eq!(
        quoted.as_deref(),
        Some(
            DEPLOYMENT
                .replacen("IfNotPresent", "'IfNotPresent' # pinned", 1)
                .as_str()
        )
    );
    // Not the same but for case: a hint, no fix.
    assert_eq!(
        fixed("imagePullPolicy: IfNotPresent", "imagePullPolicy: Alwayz"),
        None
    );
}

/// A set of one custom resource's structural schema (as a CRD's), with
/// `properties` for its top level.
fn structural(properties: &str) -> SchemaSet {
    let schema = format!(
        r#"{{"type":"object","properties":{{"metadata":{{"type":"object"}},{properties}}}}}"#
    );
    let schema: Schema = serde_json::from_str(&schema).expect("schema");
    SchemaSet::compiled(vec![schema], true).structural()
}

#[test]
fn a_structural_object_without_properties_keeps_no_field() {
    let set = structural(
        r#""marker":{"type":"object"},
           "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
           "kept":{"type":"array","x-kubernetes-preserve-unknown-fields":true,
                   "items":{"type":"object"}},
           "template":{"type":"object","x-kubernetes-embedded-resource":true,
                       "properties":{"metadata":{"type":"object"}}}"#,
    );
    let text = "\
metadata: {name: a, labels: {x: y}}
marker: {}
free: {any: [1]}
kept: [{any: 1}]
template: {apiVersion: v1, kind: Pod, metadata: {name: p}}
";
    assert_eq!(custom_violations(&set, text), vec![]);
    assert_eq!(
        custom_violations(&set, "marker: {enabled: true}\ntemplate: {spec: {}}\n"),
        vec![
            expect(UnknownField, "marker.enabled", "unknown field \"enabled\""),
            expect(UnknownField, "template.spec", "unknown field \"spec\""),
        ]
    );
    // A built-in kind's object without properties is free-form.
    let set = custom(r#"{"type":"object","properties":{"raw":{"type":"object"}}}"#);
    assert_eq!(custom_violations(&set, "raw: {anything: 1}\n"), vec![]);
}

#[test]
fn an_int_or_string_keeps_its_pattern_and_a_string_every_constraint() {
    let set = structural(&format!(
        r#""memory":{{"x-kubernetes-int-or-string":true,"pattern":{pattern:?}}},
           "name":{{"type":"string","maxLength":5,"pattern":"^[a-z]+$"}}"#,
        pattern = super::formats::QUANTITY_PATTERN
    ));
    assert_eq!(
        custom_violations(&set, "memory: 512Mi\nname: abc\n"),
        vec![]
    );
    assert_eq!(custom_violations(&set, "memory: 512\n"), vec![]);
    let units = "Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E or an exponent such as e3";
    assert_eq!(
        custom_violations(&set, "memory: 512MB\nname: ABCDEFG\n"),
        vec![
            expect(
                Format,
                "memory",
                &format!("\"512MB\" is not a quantity: unit \"MB\" is not one of {units}")
            ),
            expect(Format, "name", "must be no more than 5 characters, is 7"),
            expect(Format, "name", "does not match the pattern \"^[a-z]+$\""),
        ]
    );
}

#[test]
fn a_bundled_quantity_is_matched_as_the_pattern_matches_it() {
    // A VirtualMachine is a custom resource: `Gi` alone, which
    // apimachinery reads as 0, does not match controller-gen's pattern.
    let text = VIRTUAL_MACHINE.replace("memory: 64M", "memory: Gi");
    assert_ne!(text, VIRTUAL_MACHINE);
    let found = only_bundled(&text);
    assert_eq!(
        found.message,
        "\"Gi\" is not a quantity: it has no number before its unit \"Gi\""
    );
}

#[test]
fn which_kinds_reset_their_status() {
    let bundled = schema::bundled();
    assert!(bundled.resets_status("kubevirt.io/v1", "VirtualMachine"));
    assert!(!bundled.resets_status("kubevirt.io/v1", "VirtualMachineInstance"));
    assert!(bundled.resets_status("packaging.carvel.dev/v1alpha1", "PackageInstall"));
    let builtin = Version::newest().schemas();
    assert!(builtin.resets_status("apps/v1", "Deployment"));
    assert!(builtin.resets_status("v1", "Service"));
}

/// The (rule, path) of each finding the catalog makes of `text`'s
/// documents, the CRDs among them defining kinds for the others.
fn catalog_findings(text: &str) -> Vec<(&'static str, String)> {
    let sources = crate::source::Sources::new();
    let id = sources.add(crate::source::SourceFile::new(
        "resources.yaml".into(),
        None,
        text.to_string(),
    ));
    let set = parse_file(id, text, &ParseOptions::default()).expect("parses");
    let documents: Vec<&Node> = set.docs.iter().map(|d| &d.value).collect();
    let catalog = Catalog::new(
        Version::newest(),
        crd_files::CrdFiles::index(Vec::new(), &sources, std::path::Path::new(".")),
    );
    (catalog
        .check(&documents, &sources, &mut Lookups::default())
        .into_iter())
    .map(|f| (f.rule, f.path.unwrap_or_default()))
    .collect()
}

/// A CRD of kind `Gadget`, version `v1`, with `subresources` as given.
fn gadget_crd(subresources: &str) -> String {
    format!(
        "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: gadgets.example.com}}
spec:
  group: example.com
  names: {{kind: Gadget, plural: gadgets}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true{subresources}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          status:
            type: object
            properties:
              phase: {{type: string, enum: [Ready]}}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {{name: g}}
status: {{phase: Broken}}
"
    )
}

#[test]
fn status_is_checked_only_where_the_server_keeps_it() {
    let enum_at_status = vec![("kubernetes/enum", "status.phase".to_string())];
    assert_eq!(catalog_findings(&gadget_crd("")), enum_at_status);
    let status = "\n    subresources: {status: {}}";
    assert_eq!(catalog_findings(&gadget_crd(status)), vec![]);
    let none = "\n    subresources: {status: null}";
    assert_eq!(catalog_findings(&gadget_crd(none)), enum_at_status);
    let service = "\
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ports: [{port: 80}]}]}}
";
    assert_eq!(catalog_findings(service), vec![]);
}
