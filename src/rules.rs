//! The rule table: every rule id confvet can report, with its kind, default
//! severity, one-line summary and documentation. `confvet rules`,
//! `confvet explain`, SARIF `tool.driver.rules` and the JSON output all read
//! this one table. Ids are stable: a retired id is never reused.

use serde::Serialize;

/// The class of a problem, as in the conformance README.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A file is not well-formed YAML or JSON, or its template code does not parse.
    Syntax,
    /// A schema, rule set or declaration is itself invalid.
    Schema,
    /// A value has a type its schema does not allow.
    Type,
    /// A key the schema does not declare.
    UnknownKey,
    /// A value breaks a validation rule.
    Validation,
    /// A reference points at nothing.
    Reference,
    /// A value was given for a data value marked deprecated.
    Deprecated,
    /// A construct ytt itself rejects or ignores, which confvet implements.
    Compat,
    /// Input confvet did not check as a whole: a unit past its time or
    /// memory limit.
    Limit,
    /// confvet itself failed (a bug): the run exits 2.
    Internal,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Syntax => "syntax",
            Kind::Schema => "schema",
            Kind::Type => "type",
            Kind::UnknownKey => "unknown-key",
            Kind::Validation => "validation",
            Kind::Reference => "reference",
            Kind::Deprecated => "deprecated",
            Kind::Compat => "compat",
            Kind::Limit => "limit",
            Kind::Internal => "internal",
        }
    }
}

/// How bad a finding is. Order matters: `Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One rule's documentation.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub id: &'static str,
    pub kind: Kind,
    pub severity: Severity,
    /// One line, no trailing period.
    pub summary: &'static str,
    /// Markdown with the fixed sections "What it does", "Why", "Example".
    pub docs: &'static str,
}

impl Rule {
    /// The rule's documentation page: what `confvet explain` prints and
    /// `docs/rules/<id>.md` holds (a test keeps the two the same).
    pub fn page(&self) -> String {
        format!(
            "# {}\n\n{}\n\nKind: {}. Default severity: {}.\n\n{}\n",
            self.id,
            self.summary,
            self.kind.as_str(),
            self.severity.as_str(),
            self.docs
        )
    }
}

/// The index of the documentation pages, `docs/rules/README.md`.
pub fn index_page() -> String {
    let mut page = String::from(
        "# Rules\n\nEvery rule confvet reports, by system. Each page is what `confvet explain <rule>` prints; generated from `src/rules.rs` (`CONFVET_UPDATE_DOCS=1 cargo test --test rule_docs`).\n",
    );
    let mut system = "";
    for rule in RULES {
        let this = rule.id.split('/').next().unwrap_or(rule.id);
        if this != system {
            system = this;
            page.push_str(&format!(
                "\n## {system}\n\n| Rule | Severity | Summary |\n|---|---|---|\n"
            ));
        }
        page.push_str(&format!(
            "| [`{}`]({}.md) | {} | {} |\n",
            rule.id,
            rule.id,
            rule.severity.as_str(),
            rule.summary.replace('|', "\\|")
        ));
    }
    page
}

macro_rules! rule {
    ($id:literal, $kind:ident, $severity:ident, $summary:literal, $docs:expr) => {
        Rule {
            id: $id,
            kind: Kind::$kind,
            severity: Severity::$severity,
            summary: $summary,
            docs: $docs,
        }
    };
}

/// How a Tekton reference finds the Task or Pipeline it names: the rules
/// that compare a call site with its callee say it in `confvet explain`.
macro_rules! tekton_resolution {
    () => {
        "\n\n## Which Task a reference means\nA `taskRef` (`pipelineRef`) by name is followed to the Task (Pipeline) of that `metadata.name` among the linted files that is nearest the referring file: one in the referring file itself, else the one whose directory shares the most leading path components with the referrer's. Only resources of the referrer's own git repository (the nearest directory holding `.git`) are candidates; a tree without `.git` is one repository. When several are equally near and declare different params, results or workspaces, none is followed. A resource laid out as a versioned catalog package, `<name>/<version>/<file>`, is followed only from files inside that package (its tests), since a Pipeline elsewhere does not say which version it runs with. A `resolver: git` ref is followed when its `pathInRepo` names a file of the same repository (relative to the directory holding `.git`, else the linted directory) and no `url` or `repo` names another repository; a `$(params.x)` in those params is what the enclosing run binds to `x`, else the default its Pipeline declares, and in a Pipelines-as-Code template a `url` of `{{ repo_url }}` is this repository; every other resolver, `bundle` and custom task is unknown. An unknown callee is never a finding, and no check that needs it is made."
    };
}

/// Every rule, grouped by system.
pub static RULES: &[Rule] = &[
    rule!(
        "yaml/syntax",
        Syntax,
        Error,
        "A file is not well-formed YAML",
        "## What it does\nReports the first place where a YAML file cannot be parsed: bad indentation, an unclosed quote, a tab used for indentation, a file that is not UTF-8 text, nesting deeper than confvet follows, or an alias that expands to too many nodes.\n\n## Why\nNothing else in the file can be checked, and every tool that reads it (ytt, kubectl, Tekton) will reject it.\n\n## Example\n```yaml\nservice:\n  port: 80\n   name: web   # indented under a scalar\n```"
    ),
    rule!(
        "yaml/duplicate-key",
        Syntax,
        Error,
        "A map has the same key twice",
        "## What it does\nReports a key given a second time in one map.\n\n## Why\nYAML forbids it; ytt rejects the file (`expected key 'x' to not be specified again`) and other readers silently keep one of the two values.\n\n## Example\n```yaml\nreplicas: 1\nreplicas: 3\n```"
    ),
    rule!(
        "ytt/type-mismatch",
        Type,
        Error,
        "A data value has a type its schema does not allow",
        "## What it does\nChecks every data value against the type ytt infers from the schema's default (string, integer, float, boolean, map, array), after each data-values document is merged, as ytt does, but reports every mismatch at once.\n\n## Why\nytt stops with `One or more data values were invalid` when the package is rendered.\n\n## Example\n```yaml\n#@data/values-schema\n---\nreplicas: 1\n---\n#@data/values\n---\nreplicas: \"3\"   # found: string, expected: integer\n```"
    ),
    rule!(
        "ytt/unknown-key",
        UnknownKey,
        Error,
        "A data value is not declared in the schema",
        "## What it does\nReports keys that the data-values schema does not declare, with a did-you-mean hint for near misses. Without a schema, a `#@data/values` overlay may only change keys that already exist unless `#@overlay/match missing_ok=True` is given.\n\n## Why\nytt rejects the value (`Given data value is not declared in schema`), most often a typo.\n\n## Example\n```yaml\nserviceaccount: payments   # schema declares service_account\n```"
    ),
    rule!(
        "ytt/validation",
        Validation,
        Error,
        "A data value breaks a validation rule",
        "## What it does\nRuns every `@schema/validation` and `@assert/validate` rule on the final data values, as ytt does: named rules (`min`, `max`, `min_len`, `max_len`, `not_null`, `one_of`, `one_not_null`) and custom rules, skipped on null unless `not_null=True`. Each broken rule is one finding at the value, with the rule as a related location.\n\n## Why\nytt refuses to render the package (`Validating final data values`).\n\n## Example\n```yaml\n#@schema/validation min=1, max=32767\nport: 70000   # must be: a value <= 32767\n```"
    ),
    rule!(
        "ytt/template-fail",
        Validation,
        Error,
        "A template's assert.fail() or fail() stops rendering",
        "## What it does\nRenders every template of the package with the final data values, as `ytt -f` does, and reports an explicit failure (`assert.fail(\"...\")`, `fail(\"...\")`) at the line that failed. With the values as shipped it is a warning (a package may leave a required value to its consumer); with values given by flags or a config scenario it is an error. `@assert/validate` rules on output nodes run on the rendered values (`ytt/validation`).\n\n## Why\nytt stops with the failure's message when the package is rendered; a required value left empty is the usual cause.\n\n## Example\n```yaml\nstorageClassName: #@ data.values.storage_class or assert.fail(\"storage_class must be set\")\n```"
    ),
    rule!(
        "ytt/template-error",
        Validation,
        Error,
        "A template cannot be rendered: ytt stops with an error",
        "## What it does\nRenders every template of the package as `ytt -f` does and reports the first error of each template file (a Starlark error, a value that cannot be converted to YAML, a map key given twice, a plain `#` comment without `--ignore-unknown-comments`) at the line that failed. Other templates are still rendered. With the values as shipped it is a warning; with values given by flags or a config scenario it is an error. Once every template rendered, overlay documents are applied as ytt applies them; one that does not apply (an `expects=` not met, a map over a scalar) is an error at its `@overlay/match` line, with ytt's message; related locations say what ytt does not: for a `subset` or `map_key` matcher that found nothing, the nearest candidates and the key where each differs; for too many matches, where each is; for an `@overlay/assert`, where the target differs.\n\n## Why\n`ytt -f` fails on the package with this error.\n\n## Example\n```yaml\nreplicas: #@ data.values.replicas + \"1\"\n```"
    ),
    rule!(
        "ytt/overlay-unchecked",
        Validation,
        Warning,
        "The package's overlays were not checked: confvet cannot read one of its YAML files as ytt does",
        "## What it does\nOverlay documents (`@overlay/match`) apply to every document `ytt -f` outputs, plain YAML files included, which `lint` reads for them. When one of those files cannot be read as ytt reads it (YAML confvet does not parse, a template of another package), confvet cannot tell what the overlays match, so it does not apply them and says so here, at the first overlay.\n\n## Why\nA missing document would make an overlay's `expects=` fail where ytt's does not; confvet's gap is never the package's error.\n\n## Example\n```yaml\n#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"})   # upstream/vendored.yaml not read\n---\nspec:\n  replicas: 3\n```"
    ),
    rule!(
        "ytt/schema",
        Schema,
        Error,
        "A data-values schema is itself invalid",
        "## What it does\nReports schema documents ytt rejects: a null default without a type, an array schema without exactly one item, a `@schema/default` of the wrong type, schema annotations with bad arguments, schema or data-values files that also hold other documents.\n\n## Why\nytt stops with `Invalid schema` before looking at any value.\n\n## Example\n```yaml\n#@data/values-schema\n---\nports: []   # an array schema needs exactly one item\n```"
    ),
    rule!(
        "ytt/rule-annotation",
        Schema,
        Error,
        "A validation annotation has bad arguments",
        "## What it does\nChecks the arguments of `@schema/validation` and `@assert/validate`: known keyword names, argument types (`min_len` a number, `not_null` a boolean, `one_of` a sequence), rule tuples of a description and a function.\n\n## Why\nytt rejects the annotation (`Invalid @schema/validation annotation`).\n\n## Example\n```yaml\n#@schema/validation min_len=\"8\"\npassword: \"\"\n```"
    ),
    rule!(
        "ytt/starlark-syntax",
        Syntax,
        Error,
        "Starlark code in an annotation does not parse",
        "## What it does\nReports annotation arguments that are not valid Starlark (an unclosed parenthesis, a rule tuple after a keyword argument).\n\n## Why\nytt fails while templating the file, before any value is checked.\n\n## Example\n```yaml\n#@schema/validation min=1, (\"positive\", lambda v: v > 0)\nreplicas: 1\n```"
    ),
    rule!(
        "ytt/undefined",
        Reference,
        Error,
        "An annotation uses a name that is not defined",
        "## What it does\nReports names in annotation arguments that nothing defines or loads.\n\n## Why\nytt stops with `undefined` while templating the schema file.\n\n## Example\n```yaml\n#@schema/validation (\"a port\", is_port)\nport: 80   # is_port is never defined\n```"
    ),
    rule!(
        "ytt/when",
        Schema,
        Error,
        "A when= predicate fails, returns a non-boolean or takes the wrong arguments",
        "## What it does\nEvaluates each `when=` predicate as ytt does, with `(value)` or `(value, ctx)`, and reports one that fails, returns something other than a boolean, or takes another number of parameters.\n\n## Why\nytt aborts all validation with `Validating <path>: ...`.\n\n## Example\n```yaml\n#@schema/validation min=1, when=lambda v: fail(\"cannot decide\")\nreplicas: 0\n```"
    ),
    rule!(
        "ytt/package-schema-drift",
        Schema,
        Error,
        "A Carvel Package's values schema differs from its ytt package's schema",
        "## What it does\nCompares `spec.valuesSchema.openAPIv3` of a Carvel `Package` resource (`data.packaging.carvel.dev/v1alpha1`) with the OpenAPI export of the ytt package it ships (`confvet schema DIR --ytt-compatible`, or with the rules when the Package holds rule keywords such as `minimum`), and reports the first key where they differ. The ytt package is the one the configuration names (`ytt.packages[].package-resource`), else the one a `git` fetch's `subPath` (and the `ytt` template's `paths`) points at in this repository, else the only ytt package below the Package file's directory; when none of these finds exactly one, nothing is compared. Documentation keys at the top (`title`, `description`, `examples`) may be added freely.\n\n## Why\nkapp-controller shows and validates consumers' values with the schema in the Package; a copy left behind after the schema changed accepts values the package rejects, or rejects valid ones.\n\n## Example\n```yaml\napiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nspec:\n  valuesSchema:\n    openAPIv3:\n      properties:\n        replicas:\n          type: integer\n          default: 1   # the schema now says 2\n```"
    ),
    rule!(
        "ytt/unknown-comment",
        Syntax,
        Error,
        "A schema or data-values file has a plain # comment",
        "## What it does\nReports the first plain `#` comment in a schema or data-values file, which ytt templates.\n\n## Why\nytt rejects it (`Expected ytt-formatted string (use '#@' for annotations or code, '#!' for comments)`) unless `--ignore-unknown-comments` is given; confvet takes that flag too.\n\n## Example\n```yaml\n# Copyright 2021   <- write #! instead\n#@data/values\n---\nreplicas: 1\n```"
    ),
    rule!(
        "ytt/compat",
        Compat,
        Warning,
        "A construct confvet implements but the ytt command rejects or ignores",
        "## What it does\nMarks every use of the seed design that the ytt command does not have: named rules such as `format=`, `starts_with=`, `multiple_of=`; a `(description, value)` tuple as a named rule's argument; a third rule-tuple item as the message template; `@schema/validation-defaults-for-strings`; `@schema/removed`. confvet checks them; the warning says what ytt will do.\n\n## Why\nPackages are deployed with ytt: ytt fails on the rejected constructs and skips the ignored ones.\n\n## Example\n```yaml\n#@schema/validation format=\"hostname\"   # ytt: unknown keyword argument\ningress_host: example.com\n```"
    ),
    rule!(
        "ytt/unknown-annotation",
        Compat,
        Warning,
        "An unknown @schema/ annotation, most often a typo",
        "## What it does\nReports `@schema/...` annotations that neither ytt nor confvet knows, with a did-you-mean hint.\n\n## Why\nytt ignores them silently, so `@schema/defualt` leaves the default unchanged without a word.\n\n## Example\n```yaml\n#@schema/nulable\ntls: {}\n```"
    ),
    rule!(
        "ytt/deprecated",
        Deprecated,
        Warning,
        "A value is given for a data value marked @schema/deprecated",
        "## What it does\nWarns where a data-values file or flag sets a value whose schema node carries `@schema/deprecated \"notice\"`, quoting the notice.\n\n## Why\nytt accepts it silently; the notice tells what to use instead.\n\n## Example\n```yaml\n#@schema/deprecated \"use ingress.class_name instead\"\ningress_class: nginx\n```"
    ),
    rule!(
        "ytt/removed",
        UnknownKey,
        Error,
        "A value is given for a data value marked @schema/removed",
        "## What it does\nReports a value given for a schema node annotated `@schema/removed \"notice\"` (seed design).\n\n## Why\nThe package no longer reads it: the value has no effect.\n\n## Example\n```yaml\n#@schema/removed \"set tls.enabled instead\"\nuse_tls: false\n```"
    ),
    rule!(
        "ytt/flag",
        Syntax,
        Error,
        "A data-value flag is malformed or names a missing file",
        "## What it does\nChecks `--data-value`, `--data-value-yaml` and `--data-value-file` arguments: `KEY=VALUE` form, readable files.\n\n## Why\nytt refuses to run with them.\n\n## Example\n```sh\nconfvet lint config --data-value replicas\n```"
    ),
    rule!(
        "kubevirt/annotation",
        Schema,
        Error,
        "A validations annotation is not a usable JSON rule list",
        "## What it does\nParses a Template's `validations` annotation (or a VM's `vm.kubevirt.io/validations`) as the template validator does, with Go `encoding/json` rules: strict JSON, a top-level array of objects, members of the right JSON type, `jsonpath::` paths that compile. The problem is placed at its line inside the YAML block scalar.\n\n## Why\nThe validator rejects every VM bound to the template with the decoding error; none of the rules is applied.\n\n## Example\n```yaml\nvalidations: |\n  [\n    {\"name\": \"memory\", \"rule\": \"integer\", \"path\": \"jsonpath::.spec.domain.memory.guest\", \"message\": \"too little memory\", \"min\": 1},\n  ]\n```"
    ),
    rule!(
        "kubevirt/rule",
        Schema,
        Error,
        "A validation rule is malformed",
        "## What it does\nReports rules the validator cannot apply: a duplicate name, a missing or unknown `rule` type, a missing `name`, `message` or `path`, a path that does not start with `.` or `[` after `jsonpath::`, a regex that is not RE2. Such a rule is not evaluated further.\n\n## Why\nThe validator fails every VM with `duplicate Rule Name`, `unrecognized Rule type`, `missing required key` or `invalid JSONPath`.\n\n## Example\n```json\n{\"name\": \"cores\", \"rule\": \"value-set\", \"path\": \"jsonpath::.spec.domain.cpu.cores\"}\n```"
    ),
    rule!(
        "kubevirt/rule-without-arguments",
        Schema,
        Warning,
        "A validation rule has no argument for its type",
        "## What it does\nWarns about an integer rule without `min`/`max`, a string rule without `minLength`/`maxLength`, an enum without `values` or a regex without `regex`.\n\n## Why\nSuch a rule checks nothing (integer, string, regex) or rejects every value (enum); arguments of another rule type are ignored.\n\n## Example\n```json\n{\"name\": \"cores\", \"rule\": \"integer\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"message\": \"cores\", \"minLength\": 1}\n```"
    ),
    rule!(
        "kubevirt/validation",
        Validation,
        Error,
        "A VirtualMachine breaks a template validation rule",
        "## What it does\nEvaluates each rule that applies to a VirtualMachine (its own `vm.kubevirt.io/validations`, else its template's `validations`) on the VM's `spec.template`, as the validator's typed view sees it, and reports every value that breaks it. Rules with `justWarning: true` give warnings.\n\n## Why\nThe template validator webhook rejects the VM at admission.\n\n## Example\n```yaml\ndomain:\n  cpu:\n    cores: 6   # rule core-limits: max 4\n```"
    ),
    rule!(
        "kubevirt/path-not-found",
        Reference,
        Error,
        "A rule's JSONPath finds nothing on the VirtualMachine",
        "## What it does\nReports a rule path or JSONPath argument that is not found on the VM nor on the validator's reference VM, that yields no values, or an argument path yielding other than one value.\n\n## Why\nThe validator fails the rule with `invalid JSONPath`, `no values were found` or `expected one value`, which rejects the VM even for `justWarning` rules.\n\n## Example\n```json\n{\"path\": \"jsonpath::.spec.domain.resources.requests.memory\"}\n```\nwith a VM that sets no memory request."
    ),
    rule!(
        "kubevirt/value-type",
        Type,
        Error,
        "A value has the wrong type for the rule that checks it",
        "## What it does\nReports a value an integer rule cannot read as an integer or quantity (a string such as `q35`, an optional integer field, a fractional quantity), or a value a string, enum or regex rule cannot read as a string.\n\n## Why\nThe validator fails the rule with `mismatching type`, which rejects the VM.\n\n## Example\n```json\n{\"rule\": \"integer\", \"path\": \"jsonpath::.spec.domain.machine.type\", \"min\": 1}\n```"
    ),
    rule!(
        "kubevirt/template-not-found",
        Reference,
        Warning,
        "A VirtualMachine names a template that is not among the linted files",
        "## What it does\nWarns when a VM's template labels or annotations name a template (name and namespace) that no linted Template matches, so its validations cannot be checked.\n\n## Why\nThe validator admits such a VM without checks; a typo in the template name silently disables validation.\n\n## Example\n```yaml\nlabels:\n  vm.kubevirt.io/template: fedora-server-smal\n  vm.kubevirt.io/template.namespace: openshift\n```"
    ),
    rule!(
        "tekton/declaration",
        Schema,
        Error,
        "A param declaration is invalid",
        "## What it does\nChecks each param declaration of a Task, Pipeline or inline spec: the type is string, array or object, an object param has properties whose keys are strings, names have the right format, enum is only on string params and has no repeats.\n\n## Why\nThe Tekton webhook rejects the resource, or the param cannot be referenced.\n\n## Example\n```yaml\nparams:\n  - name: gitrepo\n    type: object   # no properties\n```"
    ),
    rule!(
        "tekton/result-declaration",
        Schema,
        Error,
        "A result declaration is invalid",
        "## What it does\nChecks each result declaration: name format, type string/array/object, properties on object results with string keys.\n\n## Why\nThe Tekton webhook rejects the Task, or the result cannot be referenced from a Pipeline.\n\n## Example\n```yaml\nresults:\n  - name: image\n    type: integer\n```"
    ),
    rule!(
        "tekton/duplicate",
        Schema,
        Error,
        "A param or result declaration name is given twice",
        "## What it does\nReports the second and later declarations with the same name in one params or results list of a Task, Pipeline or inline spec.\n\n## Why\nTekton rejects duplicate param declarations (`parameter appears more than once`); duplicate results are ambiguous.\n\n## Example\n```yaml\nparams:\n  - name: a\n  - name: a\n```"
    ),
    rule!(
        "tekton/duplicate-binding",
        Validation,
        Error,
        "A run or pipeline task gives a param value twice",
        "## What it does\nReports the second and later bindings with the same name in the params of a TaskRun, a PipelineRun or a pipeline task.\n\n## Why\nTekton rejects them (`parameter names must be unique`, `expected exactly one, got both`).\n\n## Example\n```yaml\nparams:\n  - name: url\n    value: a\n  - name: url\n    value: b\n```"
    ),
    rule!(
        "tekton/default",
        Type,
        Error,
        "A param default has the wrong type",
        "## What it does\nChecks that a default is a string, a sequence or a mapping as the declared type requires.\n\n## Why\nThe webhook rejects the declaration.\n\n## Example\n```yaml\nparams:\n  - name: flags\n    type: array\n    default: '-v'\n```"
    ),
    rule!(
        "tekton/value-type",
        Type,
        Error,
        "A member of an array or object value is not a string",
        "## What it does\nReports items of array values and values of object keys that are numbers, booleans, null or nested: in a param's `default`, and in a binding (pipeline task, TaskRun, PipelineRun) to a param the callee declares as `array` or `object`. A binding whose value has such a member is not reported when the callee param is a `string` or the callee is unknown: Tekton then keeps the value's JSON text as a string (`prefetch-input: [{\"path\": \".\", \"type\": \"gomod\"}]`).\n\n## Why\nArray and object members are strings. `ParamValue.UnmarshalJSON` (pkg/apis/pipeline/v1/param_types.go) tries `[]string`, then `map[string]string`, and otherwise keeps the value's JSON text as a string: a string param gets that text, but an array or object param gets a string, a type mismatch.\n\n## Example\n```yaml\ndefault:\n  port: 8080\n```"
    ),
    rule!(
        "tekton/default-unknown-key",
        UnknownKey,
        Warning,
        "An object default has a key that properties does not declare",
        "## What it does\nWarns about keys of an object default that are not declared in properties.\n\n## Why\nThe key is dead data: references to it are rejected.\n\n## Example\n```yaml\nproperties: {url: {}}\ndefault: {url: x, branch: main}\n```"
    ),
    rule!(
        "tekton/partial-default",
        Validation,
        Warning,
        "An object default does not give every declared key",
        "## What it does\nWarns when a top-level Task or Pipeline object default misses declared keys.\n\n## Why\nEvery caller must then supply the rest.\n\n## Example\n```yaml\nproperties: {url: {}, rev: {}}\ndefault: {url: x}\n```"
    ),
    rule!(
        "tekton/enum-default",
        Validation,
        Error,
        "A param default is not in the param's enum",
        "## What it does\nChecks that a non-empty string default of a param with an enum is one of the enum values.\n\n## Why\nThe Tekton webhook rejects the declaration (`param default value ... not in the enum list`).\n\n## Example\n```yaml\nenum: [a, b]\ndefault: c\n```"
    ),
    rule!(
        "tekton/enum",
        Validation,
        Error,
        "A value given for a param is not in its enum",
        concat!(
            "## What it does\nChecks the values runs and pipeline tasks give to params with an enum: a literal value must be in the enum; a pipeline param passed on as `$(params.p)` must have an enum that is a subset of it.\n\n## Why\nTekton fails the run (`is not in the enum list`, `is not a subset of the referenced ... task param enum`).\n\n## Example\n```yaml\nparams:\n  - name: mode   # enum: [fast, slow]\n    value: medium\n```",
            tekton_resolution!()
        )
    ),
    rule!(
        "tekton/param-reference",
        Reference,
        Error,
        "A param reference points at nothing",
        "## What it does\nReports $(params.x) references to undeclared params or undeclared object keys, and malformed references.\n\nAn undeclared param is an error in the step (and `stepTemplate`) fields Tekton's webhook checks: `name`, `image`, `workingDir`, `script`, `command`, `args`, `env[].value`, `volumeMounts[].name|mountPath|subPath`, `onError`. Elsewhere in a Task (volumes, sidecars, `env[].valueFrom`, workspaces, ...) the reconciler substitutes every param the run passes, declared or not, so a reference there is fine when the run passes it: for an inline `taskSpec`, when its pipeline task (or TaskRun) binds the name; for a named Task, when some run in view that resolves to it binds the name, or when no run in view calls it at all. Otherwise it is a warning: the text stays literal. In a named Task, a name there within two edits of a declared param (not a sibling such as `image2` of `image1`) is a warning with a did-you-mean even with no run in view, unless a run in view passes that very name: it is almost surely a typo.\n\n## Why\nTekton rejects the resource or leaves the text unsubstituted.\n\n## Example\n```yaml\nargs: ['$(params.nope)']\n```"
    ),
    rule!(
        "tekton/param-type",
        Type,
        Error,
        "A param reference does not fit the param type or the place",
        "## What it does\nReports whole arrays/objects where a string is needed, non-isolated array references and selectors that do not fit the type.\n\n## Why\nTekton rejects the resource or never substitutes the reference.\n\n## Example\n```yaml\nimage: $(params.gitrepo)\n```"
    ),
    rule!(
        "tekton/binding-type",
        Type,
        Error,
        "A provided param value has the wrong type",
        concat!(
            "## What it does\nCompares the type of a binding's value with the callee's declared type.\n\n## Why\nTekton fails the run: param types don't match.\n\n## Example\n```yaml\nparams:\n  - name: repo\n    value: just-a-string   # object expected\n```",
            tekton_resolution!()
        )
    ),
    rule!(
        "tekton/missing-param",
        Validation,
        Error,
        "A required param has no value",
        concat!(
            "## What it does\nReports callee params without default that the call site does not bind.\n\n## Why\nTekton fails the run: missing values for params.\n\n## Example\n```yaml\ntaskRef: {name: build}   # build needs param url\n```",
            tekton_resolution!()
        )
    ),
    rule!(
        "tekton/unknown-binding",
        Reference,
        Warning,
        "A binding names a param the callee does not declare but nearly does",
        concat!(
            "## What it does\nWarns about a binding (in a pipeline task, TaskRun or PipelineRun) to a param that the Task or Pipeline it calls does not declare, when the name is within two edits of a declared one (or equal but for case, `-` and `_`). Only when the callee is known (spec § 2.1), and not when the callee's spec uses the name anyway: the reconciler substitutes every passed param into the spec, declared or not (spec § 6.3).\n\n## Why\nTekton accepts extra params and drops them: the run goes on with the declared param's default, which is rarely what the author meant.\n\n## Example\n```yaml\nparams:\n  - name: EXTRA_ARG    # the Task declares EXTRA_ARGS, default \"\"\n    value: --insecure\n```",
            tekton_resolution!()
        )
    ),
    rule!(
        "tekton/missing-keys",
        Validation,
        Error,
        "An object param value misses declared keys",
        concat!(
            "## What it does\nChecks that default and provided value together give every declared key.\n\n## Why\nTekton fails the run: missing keys.\n\n## Example\n```yaml\nvalue: {url: x}   # properties url, rev\n```",
            tekton_resolution!()
        )
    ),
    rule!(
        "tekton/run-param-result",
        Validation,
        Error,
        "A PipelineRun param value uses a task result",
        "## What it does\nReports $(tasks.t.results.r) in PipelineRun spec.params.\n\n## Why\nTekton rejects it.\n\n## Example\n```yaml\nparams:\n  - name: a\n    value: $(tasks.t.results.r)\n```"
    ),
    rule!(
        "tekton/result-reference",
        Reference,
        Error,
        "A task result reference points at nothing",
        "## What it does\nReports $(tasks.t.results.r) references to tasks that are not in the tasks section (finally tasks read the results of `tasks`; pipeline results may name finally tasks as $(finally.t.results.r)), undeclared results or keys, and malformed references; inside a Task, $(results.r.path) for an undeclared result or anything but `.path`.\n\n## Why\nTekton rejects the Pipeline or fails the run.\n\n## Example\n```yaml\nvalue: $(tasks.bulid.results.image)\n```"
    ),
    rule!(
        "tekton/result-type",
        Type,
        Error,
        "A task result reference does not fit the result type or the place",
        "## What it does\nReports a key on a string or array result, an index on a string or object result, and a whole array or object result (`$(tasks.t.results.r)`, `$(tasks.t.results.r[*])`) inside a longer string, as an item that is not isolated, or a whole object as an item. A result of a task with a `matrix` is an array of the runs' values.\n\n## Why\nTekton rejects the Pipeline or never substitutes the reference.\n\n## Example\n```yaml\nvalue: $(tasks.build.results.digest.sha256)\nvalue: \"files: $(tasks.list.results.files[*])\"\n```"
    ),
    rule!(
        "tekton/pipeline-result",
        Validation,
        Error,
        "A pipeline result holds no task result expression",
        "## What it does\nReports pipeline results whose value has no $(tasks...) expression.\n\n## Why\nTekton rejects the Pipeline.\n\n## Example\n```yaml\nresults:\n  - name: image\n    value: fixed\n```"
    ),
    rule!(
        "tekton/removed-api-version",
        Deprecated,
        Warning,
        "A Task, Pipeline, TaskRun or PipelineRun of tekton.dev/v1alpha1, which Tekton no longer serves",
        "## What it does\nWarns once per `tekton.dev/v1alpha1` `Task`, `Pipeline`, `TaskRun` or `PipelineRun` document, at its `apiVersion` line. Such a document is not checked otherwise. Other v1alpha1 kinds that Tekton still serves (`StepAction`, `VerificationPolicy`) are left alone.\n\n## Why\nTekton v0.38.0 removed these kinds at v1alpha1 (TEP-0105, tektoncd/pipeline#5005; docs/deprecations.md): applying the file fails with `no matches for kind \"Task\" in version \"tekton.dev/v1alpha1\"`. The fields moved: write the document for `tekton.dev/v1`.\n\n## Example\n```yaml\napiVersion: tekton.dev/v1alpha1   # write tekton.dev/v1\nkind: Task\n```"
    ),
    rule!(
        "tekton/pac-placeholder",
        Reference,
        Warning,
        "A Pipelines-as-Code {{ placeholder }} that PaC does not define",
        "## What it does\nIn a file Pipelines-as-Code reads as a template (under a `.tekton/` folder, or holding `pipelinesascode.tekton.dev/` annotations), warns about a `{{ name }}` placeholder that is none of PaC's dynamic variables (`revision`, `repo_url`, `repo_owner`, `repo_name`, `source_url`, `source_branch`, `target_branch`, `target_namespace`, `sender`, `event_type`, `git_auth_secret`, `pull_request_number`, `pull_request_labels`, `trigger_comment`), not a field of the event (`body.…`, `headers…`, `files.…`) and not a param of a PaC `Repository` in the same repository (`spec.params`, `spec.incoming[].params`). Only a name within two edits of a defined one is reported (a typo): other names are often meant for a later tool (`{{hash}}` for a cache Task) or for params of a Repository that lives on the cluster, not in the repository. Placeholders holding template code of another tool (`{{.Status}}`, `{{ range … }}`) are left alone. Before such a file is parsed, confvet fills its placeholders in as PaC does, so an unquoted `revision: {{revision}}` is not a YAML syntax error.\n\n## Why\nPaC replaces the placeholders it defines as text before the YAML is parsed (pkg/templates/templating.go) and leaves any other one as written: the run gets the literal text, or, unquoted, the file stops being valid YAML.\n\n## Example\n```yaml\nparams:\n  - name: revision\n    value: {{ revison }}   # PaC defines revision\n```"
    ),
    rule!(
        "tekton/trigger-param-reference",
        Reference,
        Error,
        "A TriggerTemplate references a param it does not declare",
        "## What it does\nReports each `$(tt.params.x)` in the `resourcetemplates` of a TriggerTemplate (or of a trigger's inline `template.spec`), in values and keys, whose name is not declared in the template's `spec.params`, with a did-you-mean hint. Names are matched as tektoncd/triggers does (`paramsRegexp`, `[_a-zA-Z][_a-zA-Z0-9.-]*`).\n\n## Why\nTekton Triggers rejects the TriggerTemplate: `invalid value: undeclared param '$(tt.params.x)'` (`verifyParamDeclarations` in pkg/apis/triggers/v1beta1/trigger_template_validation.go).\n\n## Example\n```yaml\nspec:\n  params:\n    - name: gitrevision\n  resourcetemplates:\n    - apiVersion: tekton.dev/v1\n      kind: PipelineRun\n      spec:\n        params:\n          - name: revision\n            value: $(tt.params.git-revision)   # did you mean gitrevision?\n```"
    ),
    rule!(
        "tekton/trigger-missing-param",
        Validation,
        Error,
        "A trigger's bindings do not give a required TriggerTemplate param",
        "## What it does\nFor each trigger (an EventListener's `triggers[]` item or a Trigger resource) whose TriggerTemplate (`template.ref` or an inline `template.spec`) and every binding (`ref` to a TriggerBinding or ClusterTriggerBinding, inline `name`/`value`) are among the linted files, reports each template param without a `default` that no binding gives. Reported at the trigger's `template.ref`, with the param's declaration. When a binding or the template is not found, or several resources of the name are equally near (same or nearest directory first), nothing is reported.\n\n## Why\nTekton Triggers substitutes only the params the bindings give and the defaults (`applyEventValuesToParams` in pkg/template/event.go, `applyParamsToResourceTemplate` in pkg/template/resource.go); `$(tt.params.x)` of a param with neither stays as literal text in the PipelineRun or TaskRun it creates.\n\n## Example\n```yaml\ntriggers:\n  - bindings:\n      - ref: push-binding          # gives gitrevision only\n    template:\n      ref: build-template          # param gitrepositoryurl has no default\n```"
    ),
    rule!(
        "tekton/trigger-duplicate-param",
        Validation,
        Error,
        "A param is bound twice in a TriggerBinding or by a trigger's bindings",
        "## What it does\nReports a param name given twice in the `spec.params` of a TriggerBinding or ClusterTriggerBinding, and a param that two bindings of one trigger give (inline `name`/`value` bindings and the bindings a `ref` names, when found among the linted files).\n\n## Why\nTekton Triggers rejects the binding (`validateParams` in pkg/apis/triggers/v1beta1/trigger_binding_validation.go: expected exactly one), and fails every event of a trigger whose bindings repeat a name (`resolveBindingsToParams` in pkg/template/resource.go: duplicate param name).\n\n## Example\n```yaml\nbindings:\n  - ref: git-binding             # gives gitrevision\n  - name: gitrevision\n    value: $(body.after)\n```"
    ),
    rule!(
        "tekton/trigger-legacy-param",
        Reference,
        Warning,
        "A TriggerTemplate passes $(params.x) for one of its params to a run",
        "## What it does\nWarns about `$(params.x)`, x a param of the TriggerTemplate, in the param values of a PipelineRun or TaskRun in its `resourcetemplates` (not inside an inline `pipelineSpec` or `taskSpec`, where `$(params.x)` is the run's own param).\n\n## Why\nSince Triggers v0.8 only `$(tt.params.x)` is substituted (commit 288a03f, \"Remove deprecated params from TriggerTemplate\"; `applyParamToResourceTemplate` in pkg/template/resource.go), and Tekton does not substitute a run's param values: the run gets the text `$(params.x)`.\n\n## Example\n```yaml\nparams:\n  - name: revision\n    value: $(params.gitrevision)   # write $(tt.params.gitrevision)\n```"
    ),
    rule!(
        "tekton/missing-workspace",
        Validation,
        Error,
        "A run or pipeline task does not bind a required workspace",
        "## What it does\nReports a workspace that a Task or Pipeline declares without `optional: true` and that the pipeline task, TaskRun or PipelineRun calling it does not bind. The callee must be known: an inline spec, or a `taskRef`/`pipelineRef` that resolves to a file. A pipeline task's inline taskSpec whose steps use `$(workspaces.w...)` gets `w` propagated from the PipelineRun (TEP-0111), so it is not reported there. At most ten are reported per call site. A TaskRun's omission is a warning (see below).\n\n## Why\nTekton fails the run: `declared workspace \"w\" is required but has not been bound` (pkg/workspace/validate.go `ValidateBindings`, run for every TaskRun, including those a PipelineRun creates) and `pipeline requires workspace with name \"w\" be provided by pipelinerun` (pkg/reconciler/pipelinerun/resources/pipelinerunresolution.go `ValidateWorkspaceBindings`). A cluster whose config-defaults set `default-task-run-workspace-binding` binds a TaskRun's missing workspaces itself; confvet cannot see that setting.\n\n## Example\n```yaml\ntasks:\n  - name: fetch\n    taskRef:\n      name: git-clone   # declares workspace output\n    # no workspaces: [{name: output, workspace: ...}]\n```"
    ),
    rule!(
        "tekton/workspace-reference",
        Reference,
        Error,
        "A workspace binding or reference names a workspace that is not declared",
        "## What it does\nReports a pipeline task binding (`workspace:`, or `name:` when `workspace:` is left out) to a workspace the Pipeline does not declare; a binding of a TaskRun or of a pipeline task with a resolved `taskRef` whose name the Task does not declare; `$(workspaces.w.path)` (or `.claim`, `.volume`) and step or sidecar `workspaces[].name` naming a workspace the Task does not declare (a warning inside an env value, which harms only a program that reads the variable). `$(workspaces.w.bound)` is left alone: unsubstituted it is never `true`, so a condition on it reads \"not bound\", as upstream's own examples use it. Workspaces propagated from a run (TEP-0111) count as declared: a TaskRun's inline taskSpec may use what the TaskRun binds, a pipeline task's inline taskSpec what the pipeline task or the PipelineRun binds, and a Pipeline's inline taskSpecs are not reported as their PipelineRun is not known. Names with `$(` are not judged. In a named Task's own spec, `$(workspaces.w…)` of an undeclared workspace is a warning: the webhook accepts it, and an inline copy of the Task (Pipelines-as-Code embeds each Task a `pipelinesascode.tekton.dev/task` annotation names) gets every workspace its pipeline task binds (TEP-0111); in such a PipelineRun, bindings to workspaces the Task does not declare are not reported.\n\n## Why\nThe Tekton webhook rejects a Pipeline whose task binds an undeclared workspace (`pipeline task \"t\" expects workspace with name \"w\" but none exists in pipeline spec`, pkg/apis/pipeline/v1/pipeline_validation.go `validatePipelineWorkspacesUsage`); a TaskRun fails with `workspace binding \"w\" does not match any declared workspace` (pkg/workspace/validate.go `ValidateBindings`); `validateWorkspaceUsages` (task_validation.go) rejects an undefined step workspace; and `$(workspaces.w.path)` of an undeclared workspace is never substituted (pkg/reconciler/taskrun/resources/apply.go `ApplyWorkspaces`), so the step gets the literal text.\n\n## Example\n```yaml\nworkspaces:\n  - name: source\nsteps:\n  - name: build\n    image: golang\n    workingDir: $(workspaces.src.path)   # declared: source\n```"
    ),
    rule!(
        "tekton/run-after",
        Reference,
        Error,
        "A runAfter entry names no pipeline task it can wait for",
        "## What it does\nReports a `runAfter` entry of a pipeline task that names no task of the `tasks` section (with a did-you-mean hint), one that names a finally task, and `runAfter` on a finally task. Entries with `$(` are not judged.\n\n## Why\nThe Tekton webhook rejects the Pipeline: `validateGraph` (pkg/apis/pipeline/v1/pipeline_validation.go) builds the task graph of `tasks` only (pkg/reconciler/pipeline/dag/dag.go `Build`: `task a depends on b but b wasn't present in Pipeline`), and `validateFinalTasks` rejects `runAfter` under `finally`, whose tasks run after every task.\n\n## Example\n```yaml\ntasks:\n  - name: test\n    runAfter: [biuld]   # did you mean build?\n```"
    ),
    rule!(
        "tekton/cycle",
        Validation,
        Error,
        "The pipeline tasks depend on each other in a cycle",
        "## What it does\nFinds cycles in the graph of the `tasks` section, whose edges are `runAfter` entries and the tasks named by `$(tasks.t.results.r...)` in params, `matrix`, `when` and an inline taskSpec's steps and sidecars. Each cycle is reported once, at its first task, with every dependency of the cycle as a related location.\n\n## Why\nThe Tekton webhook rejects the Pipeline: `cycle detected; task \"a\" depends on \"b\"` (pkg/apis/pipeline/v1/pipeline_validation.go `validateGraph`, pkg/reconciler/pipeline/dag/dag.go `findCyclesInDependencies`; the edges are `PipelineTask.Deps` in pipeline_types.go).\n\n## Example\n```yaml\ntasks:\n  - name: build\n    runAfter: [test]\n  - name: test\n    params:\n      - name: image\n        value: $(tasks.build.results.image)\n```"
    ),
    rule!(
        "tekton/volume-mount",
        Reference,
        Warning,
        "A volumeMount names no volume of the Task",
        "## What it does\nWarns about a `volumeMounts[].name` of a step, sidecar or stepTemplate that names no volume in the Task's `volumes`, no workspace, no `tekton-internal-` volume and no volume of the TaskRun's `podTemplate` (or a PipelineRun's `taskRunTemplate`/`taskRunSpecs` pod templates) in the same document. Names with `$(` are not judged.\n\n## Why\nKubernetes rejects a pod whose container mounts a volume the pod lacks, so the TaskRun fails. The pod's volumes are Tekton's own, the Task's, the workspaces' and the pod template's (pkg/pod/pod.go `Build`). A warning, not an error: a pod template the files do not show (the TaskRun of another file, or the cluster's `default-pod-template` in config-defaults) may add the volume, as docs/podtemplates.md allows.\n\n## Example\n```yaml\nvolumes:\n  - name: cache\nsteps:\n  - name: build\n    volumeMounts:\n      - name: cahce   # did you mean cache?\n        mountPath: /cache\n```"
    ),
    rule!(
        "tekton/duplicate-env",
        Validation,
        Warning,
        "A step or sidecar sets one env variable twice",
        "## What it does\nWarns about an env variable given twice in one container after the stepTemplate merge: twice in the stepTemplate (every step gets both), twice in a step of a Task without stepTemplate, or twice in a sidecar. A step's variable that replaces the stepTemplate's of the same name is not reported, nor a step's repeat when a stepTemplate exists (the merge folds it into the first).\n\n## Why\nKubernetes keeps the last value and warns that it hides the earlier one; the first is dead and usually a mistake. The merge is `MergeStepsWithStepTemplate` (pkg/apis/pipeline/v1/merge.go), a strategic merge patch in which `env` merges by name.\n\n## Example\n```yaml\nsteps:\n  - name: build\n    env:\n      - name: GOFLAGS\n        value: -mod=vendor\n      - name: GOFLAGS\n        value: -v\n```"
    ),
    rule!(
        "config/invalid",
        Schema,
        Error,
        "The configuration file has a wrong value",
        "## What it does\nChecks each value of `.confvet.yaml` (or the `--config` file): its type, glob patterns, rule ids (with a did-you-mean hint), severities, system names, package directories and scenario files that must exist inside the configuration's directory, `KEY=VALUE` data values, scenario names given once per package, and environment prefixes (`data-values-env`) that only `--allow-config-env` allows.\n\n## Why\nA configuration confvet misreads lints the wrong files or with the wrong rules, silently. While the file has an error, confvet lints nothing and exits 1. The configuration is the repository's, written by whoever opens a pull request: a path that leads out of its directory (absolute, `..`, or through a symbolic link) or names a special file (a named pipe, a device, `/proc`) is refused before anything is read, and the run exits 2.\n\n## Example\n```yaml\nrules:\n  ytt/validaton: off   # unknown rule: did you mean ytt/validation?\n```"
    ),
    rule!(
        "config/unknown-key",
        UnknownKey,
        Error,
        "The configuration file has a key confvet does not know",
        "## What it does\nReports keys of `.confvet.yaml` that confvet does not read, with a did-you-mean hint.\n\n## Why\nA misspelt key is ignored: `exlude:` excludes nothing. Set this rule to `warning` to let a newer configuration through an older confvet.\n\n## Example\n```yaml\nexlude:\n  - vendor/\n```"
    ),
    rule!(
        "confvet/internal",
        Internal,
        Error,
        "confvet itself failed on this file or unit",
        "## What it does\nReports a bug in confvet: checking a file or a unit (a ytt package, the Tekton or KubeVirt files) stopped with an internal error. The other files and units are still linted, and the run exits 2.\n\n## Why\nNothing in a repository should be able to crash the linter; this finding names where it happened so the input can be reported (with the file, if it may be shared) and the bug fixed.\n\n## Example\n```text\nerror[confvet/internal]: internal error while checking unit shop/config (...); please report it\n```"
    ),
    rule!(
        "confvet/unit-limit",
        Limit,
        Error,
        "A ytt package took more time or memory than a unit may, and was not checked",
        "## What it does\nReports a ytt package whose check (or render) ran past the time limit (`--unit-timeout`: 10 s of CPU time, or six times that of wall time) or needed more memory than a unit may hold (`--unit-memory`, 512 MiB). The package is not checked; the other units are, and the run goes on.\n\n## Why\nMost runaway code is stopped at the statement or call that crosses a limit, with its own finding. A few operations cannot be stopped from inside: comparing or hashing two structures that share their parts (`a == b` over billions of elements), or writing such a structure into an error message. Real packages check in well under a second and a few tens of MiB; raise the limits if yours is bigger.\n\n## Example\n```text\nerror[confvet/unit-limit]: ytt unit shop/config was not checked: it ran for more than 10 s, the limit (--unit-timeout)\n```"
    ),
    rule!(
        "confvet/symlink",
        Reference,
        Warning,
        "A symbolic link lint did not follow",
        "## What it does\nWarns at each symbolic link that lint leaves out, with the reason: a link among a ytt package's files that `--allow-symlink-destination` does not allow (ytt refuses such a package without the flag; lint leaves the link out and checks the rest), a YAML file or folder that leads out of the linted paths, a link in a data values folder. Nothing is read through the link, and its destination is not shown.\n\n## Why\nA repository is untrusted input: a link to `/proc/self/environ` or to a file beside the checkout must not make confvet read it, or print it in a report that code scanning publishes. Leaving the link out in silence would hide part of the package instead.\n\n## Example\n```text\nwarning[confvet/symlink]: symbolic link config/values.yml not followed: it leads out of the ytt package; ytt reads a link among a package's files only where --allow-symlink-destination allows its destination\n```"
    ),
    rule!(
        "confvet/invalid-suppression",
        Syntax,
        Warning,
        "A confvet suppression comment is malformed and suppresses nothing",
        "## What it does\nReports a `# confvet:` (or `#! confvet:`) comment that confvet cannot use: no reason after the rule ids, an unknown rule id, `ignore` without rule ids, a missing `]`, or a word other than `ignore` and `disable-file`.\n\n## Why\nA suppression must say which rule it silences and why, so a reviewer can judge it; a comment that does not is ignored, and the finding it meant to hide is still reported.\n\n## Example\n```yaml\nreplicas: 50  # confvet: ignore[ytt/validation]   <- add the reason\n```"
    ),
    rule!(
        "confvet/unused-suppression",
        Reference,
        Warning,
        "A suppression comment names a rule that reports nothing there",
        "## What it does\nWarns about each rule id of an `ignore[...]` comment that hides no finding on its line (or the line below, for a comment on a line of its own), and of a `disable-file` comment that hides none in its file. Only in units (a ytt package, the Tekton or KubeVirt files) left without errors: an error can stop a check before it reaches the suppressed rule.\n\n## Why\nThe problem was fixed or the comment sits on the wrong line; a stale suppression would silently hide the next real problem there.\n\n## Example\n```yaml\nreplicas: 3  # confvet: ignore[ytt/validation] load test   <- 3 is valid now\n```"
    ),
];

/// The project's home page; SARIF's `informationUri` and the base of every
/// rule's documentation URL.
pub const HOMEPAGE: &str = "https://github.com/confvet/confvet";

/// Where a rule's documentation page lives: `docs/rules/<id>.md` in the
/// repository, generated from this table (`confvet explain` shows the same
/// text).
pub fn doc_url(id: &str) -> String {
    format!("{HOMEPAGE}/blob/main/docs/rules/{id}.md")
}

/// What `--select`, `--ignore` and the configuration's `rules` name: one
/// rule, or every rule of a system (`ytt/*`; on the command line also `ytt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Rule(&'static str),
    System(&'static str),
}

impl Selector {
    /// The selector `text` names; the error says what was wrong and what
    /// would be right (the nearest rule id, or where the ids are listed).
    pub fn parse(text: &str) -> Result<Selector, String> {
        let group = text.strip_suffix("/*").unwrap_or(text);
        if let Some(system) = GROUPS.iter().find(|system| **system == group) {
            return Ok(Selector::System(system));
        }
        if let Some(rule) = find(text) {
            return Ok(Selector::Rule(rule.id));
        }
        let ids: Vec<String> = RULES.iter().map(|r| r.id.to_string()).collect();
        Err(match crate::suggest::did_you_mean(text, &ids) {
            Some(near) => format!("unknown rule \"{text}\"; did you mean \"{near}\"?"),
            None => format!(
                "unknown rule \"{text}\"; `confvet rules` lists them, and `ytt/*` names a whole system ({})",
                GROUPS.join(", ")
            ),
        })
    }

    pub fn matches(&self, id: &str) -> bool {
        match self {
            Selector::Rule(rule) => *rule == id,
            Selector::System(system) => id.split('/').next() == Some(system),
        }
    }
}

/// The groups rule ids start with: the three systems, and the YAML parser,
/// the configuration file and confvet itself.
pub const GROUPS: &[&str] = &["yaml", "ytt", "kubevirt", "tekton", "config", "confvet"];

/// The rule with this id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The default severity of a rule id (error for an unknown id).
pub fn default_severity(id: &str) -> Severity {
    find(id).map_or(Severity::Error, |r| r.severity)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Findings take their kind from this table: every `Finding::new(id,
    /// Kind::K, ...)` in the code must name the kind the table gives `id`.
    #[test]
    fn every_finding_has_its_rules_kind() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let pattern =
            regex::Regex::new(r#"Finding::new\(\s*"([a-z]+/[a-z-]+)",\s*Kind::(\w+)"#).unwrap();
        let mut stack = vec![root];
        let mut checked = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for capture in pattern.captures_iter(&text) {
                        let Some(rule) = find(&capture[1]) else {
                            continue;
                        };
                        checked += 1;
                        assert_eq!(
                            format!("{:?}", rule.kind),
                            &capture[2],
                            "{} makes a {} finding of kind {}",
                            path.display(),
                            &capture[1],
                            &capture[2]
                        );
                    }
                }
            }
        }
        assert!(checked > 50, "only {checked} findings seen");
    }

    #[test]
    fn every_rule_id_used_in_the_code_is_in_the_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let pattern =
            regex::Regex::new(r#""((?:yaml|ytt|kubevirt|tekton|config|confvet)/[a-z-]+)""#)
                .unwrap();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("rules.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for capture in pattern.captures_iter(&text) {
                        let id = &capture[1];
                        // Test fixtures may name rules of later systems.
                        if ["ytt/", "yaml/", "config/", "confvet/"]
                            .iter()
                            .any(|s| id.starts_with(s))
                        {
                            assert!(
                                find(id).is_some(),
                                "{} uses undocumented rule {id}",
                                path.display()
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn selectors_name_rules_and_systems_and_suggest_the_nearest_id() {
        assert_eq!(
            Selector::parse("ytt/validation"),
            Ok(Selector::Rule("ytt/validation"))
        );
        assert_eq!(Selector::parse("ytt/*"), Ok(Selector::System("ytt")));
        assert_eq!(Selector::parse("tekton"), Ok(Selector::System("tekton")));
        let system = Selector::parse("kubevirt").unwrap();
        assert!(system.matches("kubevirt/validation"));
        assert!(!system.matches("ytt/validation"));
        let error = Selector::parse("ytt/validaton").unwrap_err();
        assert!(error.contains("did you mean \"ytt/validation\""), "{error}");
        let error = Selector::parse("nothing/like-it").unwrap_err();
        assert!(error.contains("`confvet rules` lists them"), "{error}");
        assert!(Selector::parse("ytt/").is_err());
    }

    #[test]
    fn every_rule_is_documented_and_named_by_system() {
        let mut seen = std::collections::HashSet::new();
        for rule in RULES {
            assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
            let (system, name) = rule.id.split_once('/').expect("ids are system/name");
            assert!(GROUPS.contains(&system));
            assert!(name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert!(!rule.summary.ends_with('.'), "{}", rule.id);
            for section in ["## What it does", "## Why", "## Example"] {
                assert!(rule.docs.contains(section), "{} lacks {section}", rule.id);
            }
        }
    }
}
