#!/usr/bin/env python3
"""Regenerate the Kubernetes schemas that confvet ships (src/check/kubernetes/data/).

Reads the definitions of the built-in kinds of one or more Kubernetes minor
versions and writes, per version, one compact JSON file that keeps only
what validation needs: types, properties, required, enum, items,
additionalProperties, format, bounds, pattern, nullable and the
x-kubernetes-* markers; every `$ref` becomes the index of its definition in
the file's `definitions` array, and `kinds` maps group/version/kind to the
definition of the top-level object. Descriptions, defaults and patch hints are
dropped.

Two sources are read (see src/check/kubernetes/data/README.md):

  # the JSON Schemas of the PyPI package kubernetes-validate (the default source)
  pip download --no-deps kubernetes-validate==1.37.0 -d /tmp/kv && unzip -d /tmp/kv/whl /tmp/kv/*.whl
  scripts/kubernetes-schemas.py --kubernetes-validate /tmp/kv/whl/kubernetes_validate 1.35 1.36 1.37

  # a folder of Kubernetes OpenAPI v3 documents (api/openapi-spec/v3 of a
  # release branch, or kubectl-validate's pkg/openapiclient/builtins/1.NN)
  scripts/kubernetes-schemas.py --openapi-v3 DIR 1.35

`--out DIR` writes elsewhere (to compare two sources).

Neither source has the `enum` of a built-in kind's field: the published
documents leave it out (kubernetes/kubernetes#113830), although the API server
serves it. `--k8s-api GITDIR`, a clone of kubernetes/api (k8s.io/api), adds it
the way kube-openapi makes it: a field whose Go type is marked `+enum` gets the
values of that type's constants, read from the newest tag v0.NN.* of each
version. "" is added to each, and some fields are left without (EXCLUDED).

  scripts/kubernetes-schemas.py --kubernetes-validate /tmp/kv/whl/kubernetes_validate \
      --k8s-api /path/to/kubernetes-api-clone 1.35 1.36 1.37
"""

import argparse
import glob
import io
import json
import os
import re
import subprocess
import sys
import tarfile

DATA = os.path.join(os.path.dirname(__file__), "..", "src", "check", "kubernetes", "data")

# Keywords that carry a constraint, kept as they are.
KEPT = (
    "required",
    "enum",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "nullable",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
)

# Keywords dropped on purpose: documentation, defaults, patch and apply hints.
DROPPED = (
    "description",
    "default",
    "x-kubernetes-group-version-kind",
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-map-type",
    "x-kubernetes-unions",
    "example",
    "title",
)

# Definitions whose wire form is not their Go struct: written as markers the
# validator knows (an int or a string; a quantity string or a number).
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


# Enum fields given no `enum`, with why. Besides these, two classes are left
# out as a whole: fields of *Status definitions (the server writes status,
# and drops what a manifest says there when it creates the object), and
# fields marked `+featureGate=` in k8s.io/api (a server with the gate off
# drops the field without checking its value).
EXCLUDED = {
    # Behind the alpha gate ContainerStopSignals (not marked on this field):
    # with the gate off the field is dropped unchecked.
    "io.k8s.api.core.v1.Lifecycle.stopSignal": "feature gate ContainerStopSignals",
}
# Device taints and tolerations of dynamic resource allocation are behind
# the gate DRADeviceTaints: with it off a claim's tolerations are dropped
# unchecked. Their values are also documented as growing ("more effects may
# get added"; consumers treat unknown ones like None).
for _version in ("v1", "v1alpha3", "v1beta1", "v1beta2"):
    for _field in ("DeviceTaint.effect", "DeviceToleration.effect", "DeviceToleration.operator"):
        EXCLUDED[f"io.k8s.api.resource.{_version}.{_field}"] = "feature gate DRADeviceTaints"


def is_status(definition):
    return definition.endswith("Status")


TYPE_LINE = re.compile(r"^type\s+(\w+)\s+(.+?)\s*(\{)?\s*$")
# `Name Type = "v"`, `Name = Type("v")`, `Name Type = Other`, `Name = Type(pkg.Other)`, `Name = "v"`
CONST_LINE = re.compile(r'^\s*(?:const\s+)?(\w+)\s*(\w+)?\s*=\s*(?:(\w+)\()?("[^"]*"|[\w.]+)\)?\s*(?://.*)?$')
FIELD_LINE = re.compile(r'^\s*(\w+)\s+([\w.*\[\]]+)\s+`json:"([^"]*)"')
EMBEDDED_LINE = re.compile(r'^\s*\*?(\w+)\s+`json:"(?:,inline)?"')
IMPORT_LINE = re.compile(r'^\s*(?:import\s+)?(\w+)?\s*"k8s\.io/api/([\w/]+)"')


def k8s_api_files(gitdir, version):
    """The Go files of the newest tag v0.NN.* of a kubernetes/api clone (a
    release before a pre-release), by path."""
    minor = version.split(".")[1]
    tags = subprocess.run(
        ["git", "-C", gitdir, "tag", "--list", f"v0.{minor}.*"], capture_output=True, text=True, check=True
    ).stdout.split()

    def order(tag):
        numbers = re.match(r"v0\.\d+\.(\d+)(?:-(\w+)\.(\d+))?$", tag)
        if numbers is None:
            return (-1,)
        patch, pre, pre_number = numbers.groups()
        rank = {"alpha": 0, "beta": 1, "rc": 2}.get(pre, 3)
        return (int(patch), rank, int(pre_number or 0))

    if not tags:
        raise SystemExit(f"no tag v0.{minor}.* in {gitdir}")
    tag = max(tags, key=order)
    archive = subprocess.run(["git", "-C", gitdir, "archive", tag], capture_output=True, check=True).stdout
    files = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            name = member.name
            if name.endswith(".go") and not name.endswith("_test.go") and "generated" not in os.path.basename(name):
                files[name] = tar.extractfile(member).read().decode()
    return tag, files


def go_enums(files):
    """{definition: {property: (values, is_list)}} for every field whose Go
    type is a `+enum` string type (kube-openapi's rule), from the Go sources
    of k8s.io/api; fields marked `+featureGate=` are left out."""
    packages = {}
    for path in sorted(files):
        package = os.path.dirname(path)
        pkg = packages.setdefault(package, {"enums": set(), "consts": [], "structs": {}, "imports": {}, "aliases": {}})
        comment = []
        struct = None
        field_comment = []
        for line in files[path].split("\n"):
            imported = IMPORT_LINE.match(line)
            if imported:
                pkg["imports"][imported.group(1) or imported.group(2).rsplit("/", 1)[-1]] = imported.group(2)
            if struct is not None:
                if line.startswith("}"):
                    struct = None
                    continue
                if line.strip().startswith("//"):
                    field_comment.append(line.strip())
                    continue
                field = FIELD_LINE.match(line)
                gated = any(c.startswith("// +featureGate=") for c in field_comment)
                field_comment = []
                if field:
                    name = field.group(3).split(",")[0]
                    if name and name != "-":
                        struct["fields"].append((name, field.group(2), gated))
                embedded = EMBEDDED_LINE.match(line)
                if embedded:
                    struct["embedded"].append(embedded.group(1))
                continue
            if line.strip().startswith("//"):
                comment.append(line.strip())
                continue
            declared = TYPE_LINE.match(line)
            if declared:
                name, underlying = declared.group(1), declared.group(2)
                if underlying == "string" and "// +enum" in comment:
                    pkg["enums"].add(name)
                if underlying.startswith("= "):
                    pkg["aliases"][name] = underlying[2:].strip()
                if underlying.startswith("struct"):
                    struct = pkg["structs"].setdefault(name, {"fields": [], "embedded": []})
                    field_comment = []
            else:
                constant = CONST_LINE.match(line)
                if constant:
                    pkg["consts"].append((constant.group(1), constant.group(2) or constant.group(3), constant.group(4)))
            comment = []

    def qualified(package, name):
        if "." not in name:
            return package, name
        alias, name = name.split(".", 1)
        return packages.get(package, {}).get("imports", {}).get(alias), name

    def constant_value(package, raw, depth=0):
        if raw.startswith('"'):
            return raw[1:-1]
        package, name = qualified(package, raw)
        for cname, _, cvalue in packages.get(package, {}).get("consts", []):
            if cname == name and depth < 4:
                return constant_value(package, cvalue, depth + 1)
        return None

    values = {}
    for package, pkg in packages.items():
        for _, type_name, raw in pkg["consts"]:
            value = constant_value(package, raw)
            if type_name in pkg["enums"] and value is not None:
                known = values.setdefault((package, type_name), [])
                if value not in known:
                    known.append(value)

    def enum_of(package, go_type):
        base = go_type.lstrip("*[]")
        base = packages[package]["aliases"].get(base, base)
        return values.get(qualified(package, base)), go_type.startswith("[]")

    def fields(pkg, struct_name, seen=()):
        struct = pkg["structs"].get(struct_name)
        if struct is None or struct_name in seen:
            return []
        found = list(struct["fields"])
        for embedded in struct["embedded"]:
            found += fields(pkg, embedded, seen + (struct_name,))
        return found

    enums = {}
    for package, pkg in packages.items():
        prefix = "io.k8s.api." + package.replace("/", ".")
        for struct_name in pkg["structs"]:
            for name, go_type, gated in fields(pkg, struct_name):
                allowed, is_list = enum_of(package, go_type)
                if allowed and not gated and not go_type.startswith("map["):
                    enums.setdefault(f"{prefix}.{struct_name}", {})[name] = (allowed, is_list)
    return enums


class Converter:
    def __init__(self, definitions, enums=None):
        self.names = sorted(definitions)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.definitions = definitions
        self.enums = enums or {}
        self.enum_fields = 0
        self.warnings = []

    def ref(self, ref):
        name = ref.rsplit("/", 1)[-1]
        if name not in self.index:
            raise SystemExit(f"unresolved $ref {ref}")
        return self.index[name]

    def schema(self, s, where):
        out = {}
        # OpenAPI v3 wraps a $ref with siblings in allOf; JSON Schema has it bare.
        all_of = s.get("allOf")
        if all_of is not None:
            if len(all_of) == 1 and set(all_of[0]) == {"$ref"}:
                out["$ref"] = self.ref(all_of[0]["$ref"])
            else:
                self.warnings.append(f"{where}: allOf of {len(all_of)} left unchecked")
        if "$ref" in s:
            out["$ref"] = self.ref(s["$ref"])
        for key in ("oneOf", "anyOf", "not"):
            if key in s:
                self.warnings.append(f"{where}: {key} left unchecked")
        kind = s.get("type")
        if isinstance(kind, list):
            # openapi2jsonschema adds "null" to every type: that is how Go
            # decodes null (the zero value), which the validator assumes for
            # built-in kinds anyway, so it is not kept as nullable.
            kinds = [k for k in kind if k != "null"]
            kind = kinds[0] if len(kinds) == 1 else None
            if len(kinds) > 1:
                self.warnings.append(f"{where}: type {kinds} left unchecked")
        if kind is not None:
            out["type"] = kind
        for key in KEPT:
            if key in s:
                out[key] = s[key]
        if "properties" in s:
            out["properties"] = {
                name: self.schema(p, f"{where}.{name}") for name, p in s["properties"].items()
            }
        if "items" in s:
            items = s["items"]
            if isinstance(items, dict):
                out["items"] = self.schema(items, f"{where}[]")
            else:
                self.warnings.append(f"{where}: tuple items left unchecked")
        if "additionalProperties" in s:
            extra = s["additionalProperties"]
            out["additionalProperties"] = (
                extra if isinstance(extra, bool) else self.schema(extra, f"{where}{{}}")
            )
        unknown = set(s) - set(KEPT) - set(DROPPED) - {
            "type",
            "properties",
            "items",
            "additionalProperties",
            "allOf",
            "oneOf",
            "anyOf",
            "not",
            "$ref",
        }
        for key in sorted(unknown):
            self.warnings.append(f"{where}: keyword {key} dropped")
        return out

    def definition(self, name):
        if name == INT_OR_STRING:
            return {"x-kubernetes-int-or-string": True}
        if name == QUANTITY:
            return {"format": "quantity"}
        s = self.definitions[name]
        out = self.schema(s, name)
        self.add_enums(name, out)
        gvks = s.get("x-kubernetes-group-version-kind") or []
        if gvks and "properties" in out:
            # openapi2jsonschema pins apiVersion and kind with an enum; the
            # kinds table already chose this definition by them.
            for key in ("apiVersion", "kind"):
                out["properties"].get(key, {}).pop("enum", None)
        return out

    def add_enums(self, name, out):
        """`enum` from the Go `+enum` types, on string fields and the items
        of string arrays only, with "" beside the values: a Go string
        field decodes "" as its zero value, which the server defaults or
        reads as unset (Toleration's `operator: ""` means Equal), and the
        validator never reports "" anyway (a ytt package renders it where
        its consumer gives the value)."""
        if is_status(name):
            return
        for field, (allowed, is_list) in sorted(self.enums.get(name, {}).items()):
            if f"{name}.{field}" in EXCLUDED:
                continue
            target = out.get("properties", {}).get(field)
            if target is not None and is_list:
                target = target.get("items") if target.get("type") == "array" else None
            if target is None or target.get("type") != "string" or "enum" in target:
                self.warnings.append(f"{name}.{field}: no string field to take the enum")
                continue
            target["enum"] = list(allowed) + ([""] if "" not in allowed else [])
            self.enum_fields += 1

    def kinds(self):
        table = []
        for name in self.names:
            for gvk in self.definitions[name].get("x-kubernetes-group-version-kind") or []:
                table.append([gvk.get("group", ""), gvk["version"], gvk["kind"], self.index[name]])
        table.sort()
        return table

    def document(self, version, source):
        return {
            "kubernetes": version,
            "source": source,
            "kinds": self.kinds(),
            "definitions": [self.definition(n) for n in self.names],
        }


def from_kubernetes_validate(package, version):
    path = os.path.join(package, "kubernetes-json-schema", f"v{version}.0-local", "_definitions.json")
    with open(path) as f:
        return json.load(f)["$defs"]


def from_openapi_v3(folder):
    definitions = {}
    files = sorted(glob.glob(os.path.join(folder, "**", "*.json"), recursive=True))
    if not files:
        raise SystemExit(f"no OpenAPI v3 documents under {folder}")
    for path in files:
        with open(path) as f:
            schemas = json.load(f).get("components", {}).get("schemas", {})
        for name, s in schemas.items():
            if name in definitions and definitions[name] != s:
                print(f"warning: {name} differs between documents; keeping the first", file=sys.stderr)
                continue
            definitions[name] = s
    return definitions


def write(document, out):
    """Compact JSON with one kind and one definition a line, so that a
    regeneration reads as a diff of the definitions that changed."""
    os.makedirs(out, exist_ok=True)

    def compact(value):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)

    lines = ["{"]
    for key in ("kubernetes", "source", "status_subresource"):
        if key in document:
            lines.append(f"{compact(key)}:{compact(document[key])},")
    for key in ("kinds", "definitions"):
        entries = document[key]
        lines.append(f"{compact(key)}:[")
        lines += [compact(e) + ("," if i + 1 < len(entries) else "") for i, e in enumerate(entries)]
        lines.append("]," if key == "kinds" else "]")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    json.loads(text)
    name = f"{document['kubernetes']}.json"
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
    return name, len(text.encode())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--kubernetes-validate", metavar="PACKAGE", help="the kubernetes_validate package folder")
    source.add_argument("--openapi-v3", metavar="DIR", help="a folder of OpenAPI v3 documents of one version")
    parser.add_argument("--k8s-api", metavar="GITDIR", help="a clone of kubernetes/api, for the enums")
    parser.add_argument("--out", default=DATA)
    parser.add_argument("--verbose", action="store_true", help="print every warning")
    parser.add_argument("versions", nargs="+", metavar="1.NN")
    args = parser.parse_args()
    if args.openapi_v3 and len(args.versions) != 1:
        raise SystemExit("--openapi-v3 reads one version")
    for version in args.versions:
        if args.kubernetes_validate:
            definitions = from_kubernetes_validate(args.kubernetes_validate, version)
            source = f"kubernetes-validate (PyPI) v{version}.0-local/_definitions.json"
        else:
            definitions = from_openapi_v3(args.openapi_v3)
            source = f"OpenAPI v3 (api/openapi-spec/v3) of {version}"
        enums = None
        if args.k8s_api:
            tag, files = k8s_api_files(args.k8s_api, version)
            enums = go_enums(files)
            source += f"; enums from k8s.io/api {tag}"
        converter = Converter(definitions, enums)
        document = converter.document(version, source)
        name, size = write(document, args.out)
        print(
            f"{name}: {len(document['definitions'])} definitions, {len(document['kinds'])} kinds, "
            f"{converter.enum_fields} enum fields, {size} bytes; {len(converter.warnings)} warnings"
        )
        for warning in converter.warnings if args.verbose else converter.warnings[:5]:
            print(f"  {warning}")


if __name__ == "__main__":
    main()
