#!/usr/bin/env python3
"""Regenerate the shapes of Tekton's API types that confvet checks Tekton
documents against (src/check/tekton/data/shapes.json, see the README there).

Tekton's webhooks decode every document strictly into the Go types of its
version (knative's admission controllers with "disallow unknown fields"), so
the fields a document may have are the JSON names of those Go structs. This
script reads them from the Go sources themselves: each struct's exported
fields and their `json` tags, with embedded structs promoted as
encoding/json promotes them, from the kinds' root types down.

  git clone https://github.com/tektoncd/pipeline && git -C pipeline checkout 3ee1745ae5b2d9175b11917d7c1935eaad44910c
  git clone https://github.com/tektoncd/triggers && git -C triggers checkout 088902973c89e356b40bc0745618df0e9b2d8198
  scripts/tekton-schemas.py --pipeline pipeline --pipeline-commit 3ee1745ae5b2d9175b11917d7c1935eaad44910c \\
      --triggers triggers --triggers-commit 088902973c89e356b40bc0745618df0e9b2d8198

The output has `kinds` ([group, version, kind, root type]), `types` (one
struct a line: its JSON field names, each with the shape of its value) and
`kubernetes` (where each Kubernetes type Tekton embeds is found in confvet's
Kubernetes schemas, src/check/kubernetes/data/: a kind and a path from it).

A shape is a string:
  ""          a scalar (its type is not checked here)
  "*"         open: anything (a param value, a raw extension, a pod template)
  "@"         a resource of its own (a TriggerTemplate's resourcetemplates):
              checked as a document of its apiVersion and kind, if of `kinds`
  "v1.Step"   a struct of this file's `types`
  "k8s:NAME"  a Kubernetes type, checked against confvet's Kubernetes schemas
  "[]SHAPE"   a list of SHAPE;  "{}SHAPE"  a map of string keys to SHAPE

Types from packages outside the two repositories are mapped by EXTERNAL
below; a type the script does not know stops it, so that a regeneration
never leaves a new field unchecked (or open) in silence.
"""

import argparse
import json
import os
import re
import sys

PIPELINE_MODULE = "github.com/tektoncd/pipeline"
TRIGGERS_MODULE = "github.com/tektoncd/triggers"

# Package import path -> the prefix of its types' names in the output.
PACKAGES = {
    PIPELINE_MODULE + "/pkg/apis/pipeline/v1": "v1",
    PIPELINE_MODULE + "/pkg/apis/pipeline/v1beta1": "v1beta1",
    PIPELINE_MODULE + "/pkg/apis/pipeline/v1alpha1": "v1alpha1",
    PIPELINE_MODULE + "/pkg/apis/pipeline/pod": "pod",
    PIPELINE_MODULE + "/pkg/apis/resource/v1alpha1": "resource.v1alpha1",
    TRIGGERS_MODULE + "/pkg/apis/triggers/v1beta1": "triggers.v1beta1",
    TRIGGERS_MODULE + "/pkg/apis/triggers/v1alpha1": "triggers.v1alpha1",
}

# (group, version, kind, package, root struct): the kinds Tekton's webhooks
# serve (cmd/webhook/main.go of each repository) that confvet checks.
KINDS = [
    ("tekton.dev", "v1", kind, "v1", kind)
    for kind in ("Task", "Pipeline", "TaskRun", "PipelineRun")
] + [
    ("tekton.dev", "v1beta1", kind, "v1beta1", kind)
    for kind in ("Task", "Pipeline", "TaskRun", "PipelineRun", "StepAction", "CustomRun")
] + [
    ("tekton.dev", "v1alpha1", "StepAction", "v1alpha1", "StepAction"),
] + [
    ("triggers.tekton.dev", "v1beta1", kind, "triggers.v1beta1", kind)
    for kind in ("TriggerTemplate", "TriggerBinding", "ClusterTriggerBinding", "EventListener", "Trigger")
] + [
    ("triggers.tekton.dev", "v1alpha1", kind, "triggers.v1alpha1", kind)
    for kind in (
        "TriggerTemplate",
        "TriggerBinding",
        "ClusterTriggerBinding",
        "EventListener",
        "Trigger",
        "Interceptor",
        "ClusterInterceptor",
    )
]

SCALAR, OPEN = "", "*"
K8S_CORE = "k8s.io/api/core/v1"
K8S_META = "k8s.io/apimachinery/pkg/apis/meta/v1"

# Types of other modules, by import path and name: their shape. A Kubernetes
# type is checked against confvet's Kubernetes schemas (KUBERNETES says
# where each is); a type that decodes itself (UnmarshalJSON) is a scalar or
# open, as what it accepts is its own business.
EXTERNAL = {
    (K8S_META, "TypeMeta"): {"apiVersion": SCALAR, "kind": SCALAR},
    (K8S_META, "ObjectMeta"): "k8s:io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    (K8S_META, "LabelSelector"): "k8s:io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
    (K8S_META, "Duration"): SCALAR,
    (K8S_META, "Time"): SCALAR,
    ("k8s.io/apimachinery/pkg/runtime", "TypeMeta"): {"apiVersion": SCALAR, "kind": SCALAR},
    # Raw JSON kept as it is (a custom task's spec, a template's resources).
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): OPEN,
    ("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", "JSON"): OPEN,
    ("k8s.io/apimachinery/pkg/types", "UID"): SCALAR,
    ("k8s.io/apimachinery/pkg/selection", "Operator"): SCALAR,
    ("knative.dev/pkg/apis", "URL"): SCALAR,
    # knative.dev/pkg/apis/duck/v1 podspec_types.go: `Template PodSpecable
    # json:"template,omitempty"`, where `type PodSpecable corev1.PodTemplateSpec`.
    ("knative.dev/pkg/apis/duck/v1", "WithPodSpec"): {
        "template": "k8s:io.k8s.api.core.v1.PodTemplateSpec"
    },
}

# Tekton's own types left open on purpose: a TaskRun's or PipelineRun's
# `podTemplate` (pod.PodTemplate is an alias of pod.Template), which Tekton
# merges into the pods it makes and which a cluster's defaults fill in.
OPEN_TYPES = {
    (PIPELINE_MODULE + "/pkg/apis/pipeline/pod", "Template"),
    (PIPELINE_MODULE + "/pkg/apis/pipeline/pod", "AffinityAssistantTemplate"),
}

# Tekton's types that hold a whole resource of their own (a raw extension):
# a TriggerTemplate's `resourcetemplates`, which Triggers creates as they
# are, so that Tekton's webhook decodes each strictly as its kind. Shape
# "@": checked as a document when its apiVersion and kind are of KINDS,
# else open.
RESOURCE_TYPES = {
    (TRIGGERS_MODULE + "/pkg/apis/triggers/v1beta1", "TriggerResourceTemplate"),
    (TRIGGERS_MODULE + "/pkg/apis/triggers/v1alpha1", "TriggerResourceTemplate"),
}
RESOURCE = "@"

# External types that decode themselves (UnmarshalJSON): a struct that
# embeds one gets its method, and decodes as it does.
EXTERNAL_DECODERS = {
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"),
    ("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", "JSON"),
    (K8S_META, "Duration"),
    (K8S_META, "Time"),
    ("knative.dev/pkg/apis", "URL"),
}

# Where confvet finds each Kubernetes type Tekton embeds: a kind of the
# built-in schemas and the path from it (`[]` steps into a list's items).
KUBERNETES = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": ("v1", "ConfigMap", "metadata"),
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": ("apps/v1", "Deployment", "spec.selector"),
    "io.k8s.api.core.v1.PodTemplateSpec": ("apps/v1", "Deployment", "spec.template"),
    "io.k8s.api.core.v1.Container": ("v1", "Pod", "spec.containers[]"),
    "io.k8s.api.core.v1.ContainerPort": ("v1", "Pod", "spec.containers[].ports[]"),
    "io.k8s.api.core.v1.EnvFromSource": ("v1", "Pod", "spec.containers[].envFrom[]"),
    "io.k8s.api.core.v1.EnvVar": ("v1", "Pod", "spec.containers[].env[]"),
    "io.k8s.api.core.v1.ResourceRequirements": ("v1", "Pod", "spec.containers[].resources"),
    "io.k8s.api.core.v1.VolumeMount": ("v1", "Pod", "spec.containers[].volumeMounts[]"),
    "io.k8s.api.core.v1.VolumeDevice": ("v1", "Pod", "spec.containers[].volumeDevices[]"),
    "io.k8s.api.core.v1.Probe": ("v1", "Pod", "spec.containers[].livenessProbe"),
    "io.k8s.api.core.v1.Lifecycle": ("v1", "Pod", "spec.containers[].lifecycle"),
    "io.k8s.api.core.v1.SecurityContext": ("v1", "Pod", "spec.containers[].securityContext"),
    "io.k8s.api.core.v1.Volume": ("v1", "Pod", "spec.volumes[]"),
    "io.k8s.api.core.v1.PersistentVolumeClaim": ("v1", "PersistentVolumeClaim", ""),
    "io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource": ("v1", "Pod", "spec.volumes[].persistentVolumeClaim"),
    "io.k8s.api.core.v1.EmptyDirVolumeSource": ("v1", "Pod", "spec.volumes[].emptyDir"),
    "io.k8s.api.core.v1.ConfigMapVolumeSource": ("v1", "Pod", "spec.volumes[].configMap"),
    "io.k8s.api.core.v1.SecretVolumeSource": ("v1", "Pod", "spec.volumes[].secret"),
    "io.k8s.api.core.v1.ProjectedVolumeSource": ("v1", "Pod", "spec.volumes[].projected"),
    "io.k8s.api.core.v1.CSIVolumeSource": ("v1", "Pod", "spec.volumes[].csi"),
    "io.k8s.api.core.v1.ObjectReference": ("v1", "Event", "involvedObject"),
}


def fail(message):
    print(f"tekton-schemas: {message}", file=sys.stderr)
    sys.exit(1)


def strip_comments(text):
    """The Go text without comments (strings and raw strings kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c in "`\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if c != "`" and text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Package:
    """The type declarations of one Go package, with its files' imports."""

    def __init__(self, path, directory):
        self.path = path
        self.structs = {}  # name -> [(field name or None, type text, tag, file imports)]
        self.named = {}  # name -> (type text, file imports): `type X []Y`, aliases
        self.decoders = set()  # types with their own UnmarshalJSON
        if not os.path.isdir(directory):
            fail(f"no package directory {directory}")
        for name in sorted(os.listdir(directory)):
            if name.endswith(".go") and not name.endswith("_test.go"):
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    self.read(strip_comments(f.read()))

    def read(self, text):
        imports = {}
        # `import "path"`, `import alias "path"` and `import ( ... )` blocks
        # only: a string alone on a line elsewhere is no import.
        blocks = re.findall(r"^import\s*\(([^)]*)\)", text, re.M)
        blocks += re.findall(r"^import\s+((?:[\w.]+\s+)?\"[^\"]+\")\s*$", text, re.M)
        for block in blocks:
            for alias, path in re.findall(r'^\s*([\w.]+\s+)?"([^"]+)"\s*$', block, re.M):
                alias = alias.strip() if alias else path.rsplit("/", 1)[-1]
                imports[alias] = path
        for receiver in re.findall(r"^func\s*\(\s*\w*\s*\*?(\w+)\s*\)\s*UnmarshalJSON\(", text, re.M):
            self.decoders.add(receiver)
        lines = text.split("\n")
        i, grouped = 0, False
        while i < len(lines):
            line = lines[i].strip()
            if re.match(r"^type\s*\($", line):
                grouped = True
            elif grouped and line == ")":
                grouped = False
            declaration = re.match(r"^(?:type\s+)?(\w+)\s+(=\s*)?(.+)$", line)
            if (line.startswith("type ") or grouped) and declaration:
                name, _, rest = declaration.groups()
                if rest.rstrip() in ("struct {", "struct{"):
                    i = self.read_struct(name, lines, i + 1, imports)
                    continue
                if rest.strip() not in ("struct{}", "struct {}") and not rest.startswith("interface"):
                    self.named[name] = (rest.strip(), imports)
                elif rest.strip() in ("struct{}", "struct {}"):
                    self.structs[name] = []
            i += 1

    def read_struct(self, name, lines, i, imports):
        fields = []
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            if line == "}":
                self.structs[name] = fields
                return i
            if not line:
                continue
            tag_match = re.search(r"`([^`]*)`\s*$", line)
            tag = tag_match.group(1) if tag_match else ""
            body = line[: tag_match.start()].strip() if tag_match else line
            if body.endswith("{"):
                # An inline struct or interface type over several lines:
                # skipped, and failed on if a kind reaches it.
                depth = 1
                while i < len(lines) and depth:
                    depth += lines[i].count("{") - lines[i].count("}")
                    i += 1
                body = re.sub(r"\s(struct|interface)\s*\{.*", " <inline>", body)
            elif "{" in body.replace("interface{}", "").replace("struct{}", ""):
                body = re.sub(r"\s(struct|interface)\s*\{.*", " <inline>", body)
            parts = body.split(None, 1)
            if len(parts) == 1:
                fields.append((None, parts[0], tag, imports))
            else:
                for field in parts[0].rstrip(",").split(","):
                    fields.append((field.strip(), parts[1].strip(), tag, imports))
        fail(f"{self.path}.{name}: unterminated struct")


def json_name(tag):
    """The name in a field's `json` tag: None when there is no tag, "-"
    when it is skipped."""
    match = re.search(r'(?:^|\s)json:"([^"]*)"', tag)
    if not match:
        return None
    name = match.group(1).split(",")[0]
    if match.group(1) == "-":
        return "-"
    return name


class Shapes:
    """The shapes of the types reachable from the kinds."""

    def __init__(self, packages):
        self.packages = packages  # import path -> Package
        self.types = {}  # output name -> {field: shape}
        self.kubernetes = set()
        self.pending = []

    def struct_name(self, package, name):
        return f"{PACKAGES[package.path]}.{name}"

    def shape(self, text, package, imports, where):
        """The shape of a Go type expression written in `package`."""
        text = text.strip()
        if text.startswith("*"):
            return self.shape(text[1:], package, imports, where)
        if text == "[]byte":
            return SCALAR
        if text.startswith("[]"):
            return "[]" + self.shape(text[2:], package, imports, where)
        if text.startswith("map["):
            depth, j = 0, 3
            for j in range(3, len(text)):
                depth += {"[": 1, "]": -1}.get(text[j], 0)
                if depth == 0:
                    break
            return "{}" + self.shape(text[j + 1 :], package, imports, where)
        if text == "<inline>":
            fail(f"{where}: an inline struct or interface field is not understood")
        if text in ("interface{}", "any", "json.RawMessage"):
            return OPEN
        if re.fullmatch(r"u?int(8|16|32|64)?|float(32|64)|string|bool|byte|rune", text):
            return SCALAR
        if "." in text:
            alias, name = text.split(".", 1)
            if alias not in imports:
                fail(f"{where}: unknown package {alias} of {text}")
            return self.named_shape(imports[alias], name, where)
        return self.named_shape(package.path, text, where)

    def named_shape(self, path, name, where):
        external = EXTERNAL.get((path, name))
        if external is not None:
            if isinstance(external, str) and external.startswith("k8s:"):
                self.kubernetes.add(external[4:])
            if isinstance(external, dict):
                return self.inline_external(path, name, external)
            return external
        if path == K8S_CORE:
            full = f"io.k8s.api.core.v1.{name}"
            if full not in KUBERNETES:
                # A named string type of core/v1 (PullPolicy, Protocol).
                if name in CORE_SCALARS:
                    return SCALAR
                fail(f"{where}: Kubernetes type {full} has no place in KUBERNETES")
            self.kubernetes.add(full)
            return "k8s:" + full
        package = self.packages.get(path)
        if package is None:
            fail(f"{where}: type {path}.{name} is not known (add it to EXTERNAL)")
        if (path, name) in RESOURCE_TYPES:
            return RESOURCE
        if (path, name) in OPEN_TYPES or self.decodes_itself(path, name):
            # Decodes itself (a param value: string, list or object), or
            # open on purpose.
            return OPEN
        if name in package.structs:
            full = self.struct_name(package, name)
            if full not in self.types and full not in self.pending:
                self.pending.append(full)
                self.types[full] = None
            return full
        if name in package.named:
            text, imports = package.named[name]
            return self.shape(text.lstrip("= "), package, imports, f"{path}.{name}")
        fail(f"{where}: type {path}.{name} is not declared")

    def decodes_itself(self, path, name):
        """Whether the type has an UnmarshalJSON of its own or promoted
        from an embedded field (Go promotes methods whatever the field's
        JSON name): encoding/json then calls it rather than decoding the
        fields strictly."""
        if (path, name) in EXTERNAL_DECODERS:
            return True
        package = self.packages.get(path)
        if package is None:
            return False
        if name in package.decoders:
            return True
        for field, type_text, _, imports in package.structs.get(name, []):
            if field is not None:
                continue
            target = type_text.lstrip("*")
            if "." in target:
                alias, inner = target.split(".", 1)
                if self.decodes_itself(imports[alias], inner):
                    return True
            elif self.decodes_itself(path, target):
                return True
        return False

    def inline_external(self, path, name, fields):
        full = f"external.{path.rsplit('/', 1)[-1]}.{name}"
        if full not in self.types:
            self.types[full] = dict(fields)
            for shape in fields.values():
                if shape.startswith("k8s:"):
                    self.kubernetes.add(shape[4:])
        return full

    def fields(self, path, name, where, depth=0, open_fields=()):
        """The JSON fields of struct `name` of package `path`, embedded
        structs promoted: {json name: (shape, depth)}; `open_fields` are
        open whatever their type."""
        external = EXTERNAL.get((path, name))
        if isinstance(external, dict):
            return {k: (v, depth) for k, v in external.items()}
        package = self.packages.get(path)
        if package is None or name not in package.structs:
            if package is not None and name in package.named:
                text, imports = package.named[name]
                target = text.lstrip("= ").lstrip("*")
                if "." in target:
                    alias, inner = target.split(".", 1)
                    return self.fields(imports[alias], inner, where, depth)
                return self.fields(path, target, where, depth)
            if external is not None:
                fail(f"{where}: embedded {path}.{name} has no fields here (make it a dict in EXTERNAL)")
            fail(f"{where}: embedded type {path}.{name} is not known")
        out = {}
        for field, type_text, tag, imports in package.structs[name]:
            tagged = json_name(tag)
            if tagged == "-":
                continue
            if field is None and not tagged:
                # Embedded without a name: its fields are promoted.
                target = type_text.lstrip("*")
                if "." in target:
                    alias, inner = target.split(".", 1)
                    promoted = self.fields(imports[alias], inner, f"{where}.{target}", depth + 1)
                else:
                    promoted = self.fields(path, target, f"{where}.{target}", depth + 1)
                for key, value in promoted.items():
                    # The shallower field wins, as in encoding/json.
                    if key not in out or out[key][1] > value[1]:
                        out[key] = value
                continue
            if field is None:
                field = type_text.lstrip("*").split(".")[-1]
            elif not field[0].isupper():
                continue
            key = tagged or field
            if key in open_fields:
                out[key] = (OPEN, depth)
                continue
            shape = self.shape(type_text, package, imports, f"{where}.{field}")
            out[key] = (shape, depth)
        return out

    def run(self, kinds):
        roots = []
        prefixes = {prefix: path for path, prefix in PACKAGES.items()}
        for group, version, kind, prefix, root in kinds:
            package = self.packages[prefixes[prefix]]
            roots.append([group, version, kind, self.named_shape(package.path, root, kind)])
        root_types = {root for *_, root in roots}
        while self.pending:
            full = self.pending.pop(0)
            prefix, name = full.rsplit(".", 1)
            path = prefixes[prefix]
            # What a user's file never sets, and the server writes: the
            # status of every kind is left open.
            open_fields = ("status",) if full in root_types else ()
            fields = self.fields(path, name, full, open_fields=open_fields)
            self.types[full] = {k: v for k, (v, _) in sorted(fields.items())}
        return roots


# Named string types of k8s.io/api/core/v1 that Tekton's types use.
CORE_SCALARS = {
    "ContainerRestartPolicy",
    "PullPolicy",
    "TerminationMessagePolicy",
    "ServiceType",
    "ResourceName",
    "ConditionStatus",
    "Protocol",
}


def unreachable(types, roots):
    """The types no kind reaches (dropped: `status` is open)."""
    seen, stack = set(), [root for *_, root in roots]
    while stack:
        name = stack.pop()
        if name in seen or name not in types:
            continue
        seen.add(name)
        for shape in types[name].values():
            stack.append(shape.lstrip("[]{}"))
    return set(types) - seen


def check_kubernetes(names, data_dir):
    """Every place of KUBERNETES leads to an object in each Kubernetes
    version's schemas."""
    for file in sorted(os.listdir(data_dir)):
        if not re.fullmatch(r"1\.\d+\.json", file):
            continue
        with open(os.path.join(data_dir, file), encoding="utf-8") as f:
            data = json.load(f)
        kinds = {(g, v, k): i for g, v, k, i in data["kinds"]}
        definitions = data["definitions"]
        for name in sorted(names):
            api_version, kind, path = KUBERNETES[name]
            group, _, version = api_version.rpartition("/")
            schema = definitions[kinds[(group, version, kind)]]
            for step in re.findall(r"\w+|\[\]", path):
                while "$ref" in schema:
                    schema = definitions[schema["$ref"]]
                schema = schema["items"] if step == "[]" else schema["properties"][step]
            while "$ref" in schema:
                schema = definitions[schema["$ref"]]
            if "properties" not in schema:
                fail(f"{file}: {name} at {kind} {path} is no object")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline", required=True, help="a checkout of tektoncd/pipeline")
    parser.add_argument("--pipeline-commit", required=True)
    parser.add_argument("--triggers", required=True, help="a checkout of tektoncd/triggers")
    parser.add_argument("--triggers-commit", required=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(root, "src/check/tekton/data/shapes.json"))
    args = parser.parse_args()
    packages = {}
    for path in PACKAGES:
        for module, checkout in ((PIPELINE_MODULE, args.pipeline), (TRIGGERS_MODULE, args.triggers)):
            if path.startswith(module + "/"):
                packages[path] = Package(path, os.path.join(checkout, path[len(module) + 1 :]))
    shapes = Shapes(packages)
    roots = shapes.run(KINDS)
    for name in unreachable(shapes.types, roots):
        del shapes.types[name]
    check_kubernetes(shapes.kubernetes, os.path.join(root, "src/check/kubernetes/data"))
    lines = [
        "{",
        '"source":' + json.dumps(
            f"tektoncd/pipeline {args.pipeline_commit}; tektoncd/triggers {args.triggers_commit}"
        ) + ",",
        '"kinds":[',
        ",\n".join(json.dumps(root, separators=(",", ":")) for root in sorted(roots)),
        "],",
        '"kubernetes":{',
        ",\n".join(
            json.dumps(name) + ":" + json.dumps(list(KUBERNETES[name]), separators=(",", ":"))
            for name in sorted(shapes.kubernetes)
        ),
        "},",
        '"types":{',
        ",\n".join(
            json.dumps(name) + ":" + json.dumps(shapes.types[name], separators=(",", ":"))
            for name in sorted(shapes.types)
        ),
        "}",
        "}",
    ]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{args.out}: {len(roots)} kinds, {len(shapes.types)} types, "
          f"{len(shapes.kubernetes)} Kubernetes types")


if __name__ == "__main__":
    main()
