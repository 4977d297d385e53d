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
"""

import argparse
import glob
import json
import os
import sys

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


class Converter:
    def __init__(self, definitions):
        self.names = sorted(definitions)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.definitions = definitions
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
        gvks = s.get("x-kubernetes-group-version-kind") or []
        if gvks and "properties" in out:
            # openapi2jsonschema pins apiVersion and kind with an enum; the
            # kinds table already chose this definition by them.
            for key in ("apiVersion", "kind"):
                out["properties"].get(key, {}).pop("enum", None)
        return out

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
    for key in ("kubernetes", "source"):
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
        converter = Converter(definitions)
        document = converter.document(version, source)
        name, size = write(document, args.out)
        print(
            f"{name}: {len(document['definitions'])} definitions, {len(document['kinds'])} kinds, "
            f"{size} bytes; {len(converter.warnings)} warnings"
        )
        for warning in converter.warnings if args.verbose else converter.warnings[:5]:
            print(f"  {warning}")


if __name__ == "__main__":
    main()
