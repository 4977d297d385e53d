#!/usr/bin/env python3
"""Regenerate the schemas of the custom kinds confvet ships beside the
built-in Kubernetes ones (src/check/kubernetes/data/bundled.json).

The kinds are those confvet already understands: KubeVirt's VirtualMachine
and VirtualMachineInstance (kubevirt.io v1 and v1alpha3, one schema), and
Carvel's Package and PackageMetadata (data.packaging.carvel.dev), its
PackageInstall and PackageRepository (packaging.carvel.dev) and App
(kappctrl.k14s.io). Their sources are the projects' own CRD schemas (see
src/check/kubernetes/data/README.md):

  # KubeVirt keeps the openAPIV3Schema of each CRD as YAML in Go strings
  git show v1.9.0:pkg/virt-operator/resource/generate/components/validations_generated.go > kubevirt.go
  # kapp-controller's CRDs; Package and PackageMetadata are served by its
  # aggregated API server from the same Go types as the InternalPackage and
  # InternalPackageMetadata CRDs that store them
  git show v0.53.1:config/config/crds.yml > kapp-controller-crds.yml

  scripts/bundled-schemas.py --kubevirt kubevirt.go --kubevirt-version v1.9.0 \\
      --kapp-controller kapp-controller-crds.yml --kapp-controller-version v0.53.1

The file has the format of the built-in versions' files, written by the
same code (scripts/kubernetes-schemas.py, whose list of kept keywords and
writer this script loads): `kinds` as [group, version, kind, index] and
`definitions`, one a line, keeping only what validation reads. A structural
CRD schema has no `$ref`; large sub-schemas (and the ones two kinds share,
such as a VirtualMachineInstance's spec, which is also a VirtualMachine's
template) are written as definitions of their own and referred to by index,
so that a regeneration reads as a diff of the parts that changed.
"""

import argparse
import hashlib
import importlib.util
import json
import os
import re
import sys

import yaml



def built_in_script():
    """scripts/kubernetes-schemas.py, whose list of kept keywords this
    conversion shares."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kubernetes-schemas.py")
    spec = importlib.util.spec_from_file_location("kubernetes_schemas", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Keywords that carry a constraint, kept as they are (a CRD's schema is
# never `$ref` and always says its type).
BUILT_IN = built_in_script()
KEPT = ("type",) + BUILT_IN.KEPT

# Dropped on purpose: documentation, defaults (applied by the server, never
# a violation), the map type (an apply hint) and CEL rules, which confvet
# does not evaluate (what they reject is not reported).
DROPPED = (
    "description",
    "default",
    "example",
    "title",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
)

# What controller-gen writes for a resource.Quantity: an int or a string
# matching this pattern. It becomes `format: quantity`, which the validator
# checks as the built-in kinds' quantities.
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]

# A sub-schema whose compact JSON is longer than this becomes a definition
# of its own (identical ones are written once).
SPLIT_ABOVE = 1000

# (CRD name in the source, group, served versions, kind, whether it has the
# status subresource). validations_generated.go holds only the schemas; the
# subresources are set in pkg/virt-operator/resource/generate/components/
# crds.go: NewVirtualMachineCrd adds `Status`, NewVirtualMachineInstanceCrd
# none (a VMI's status is validated with the rest of it).
KUBEVIRT_KINDS = (
    ("virtualmachine", "kubevirt.io", ("v1", "v1alpha3"), "VirtualMachine", True),
    ("virtualmachineinstance", "kubevirt.io", ("v1", "v1alpha3"), "VirtualMachineInstance", False),
)
# The CRD's kind, and the group and kind the schema is served as.
KAPP_CONTROLLER_KINDS = {
    "InternalPackage": ("data.packaging.carvel.dev", "Package"),
    "InternalPackageMetadata": ("data.packaging.carvel.dev", "PackageMetadata"),
    "PackageInstall": ("packaging.carvel.dev", "PackageInstall"),
    "PackageRepository": ("packaging.carvel.dev", "PackageRepository"),
    "App": ("kappctrl.k14s.io", "App"),
}


class Conversion:
    def __init__(self):
        self.warnings = []

    def schema(self, s, where):
        out = {k: s[k] for k in KEPT if k in s}
        if out.get("type") == "integer" and out.get("format") in ("int32", "int64"):
            # The API server does not check an integer's format for a custom
            # resource, and controller-gen writes int32 for a Go uint32 too
            # (KubeVirt's CPU cores): only a built-in kind's Go decoding
            # refuses a value wider than its field.
            del out["format"]
        any_of = s.get("anyOf")
        if any_of is not None:
            if any_of == INT_OR_STRING_ANY_OF and s.get("x-kubernetes-int-or-string"):
                if s.get("pattern") == QUANTITY_PATTERN:
                    del out["x-kubernetes-int-or-string"], out["pattern"]
                    out["format"] = "quantity"
            else:
                self.warnings.append(f"{where}: anyOf left unchecked")
        if "properties" in s:
            out["properties"] = {
                name: self.schema(p, f"{where}.{name}") for name, p in s["properties"].items()
            }
        if "items" in s:
            out["items"] = self.schema(s["items"], f"{where}[]")
        extra = s.get("additionalProperties")
        if extra is not None:
            out["additionalProperties"] = (
                extra if isinstance(extra, bool) else self.schema(extra, f"{where}{{}}")
            )
        known = set(KEPT) | set(DROPPED) | {"anyOf", "properties", "items", "additionalProperties"}
        for key in sorted(set(s) - known):
            self.warnings.append(f"{where}: keyword {key} dropped")
        return out


def compact(value):
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class Definitions:
    """The kinds' schemas, with large and shared sub-schemas split off into
    definitions of their own."""

    def __init__(self):
        self.split = {}  # digest of a split sub-schema's text -> the sub-schema

    def children(self, s):
        """The sub-schemas of a schema, as (container, key) pairs."""
        for name in s.get("properties", {}):
            yield s["properties"], name
        if "items" in s:
            yield s, "items"
        if isinstance(s.get("additionalProperties"), dict):
            yield s, "additionalProperties"

    def split_large(self, s):
        """Split the large sub-schemas of `s`, deepest first; a split one is
        replaced by a reference to the digest of its compact text (an
        index later)."""
        for container, key in list(self.children(s)):
            child = container[key]
            self.split_large(child)
            text = compact(child)
            if len(text) > SPLIT_ABOVE:
                digest = hashlib.sha256(text.encode()).hexdigest()
                self.split.setdefault(digest, child)
                container[key] = {"$ref": digest}

    def number(self, roots):
        """Roots first, then split definitions in the order a walk from the
        roots meets them; references become indices."""
        definitions = list(roots)
        index = {}

        def references(s):
            for container, key in self.children(s):
                child = container[key]
                if "$ref" in child:
                    yield child["$ref"]
                else:
                    yield from references(child)

        at = 0
        while at < len(definitions):
            for text in references(definitions[at]):
                if text not in index:
                    index[text] = len(definitions)
                    definitions.append(self.split[text])
            at += 1

        def renumber(s):
            for container, key in self.children(s):
                child = container[key]
                if "$ref" in child:
                    container[key] = {"$ref": index[child["$ref"]]}
                else:
                    renumber(child)

        for s in definitions:
            renumber(s)
        return definitions


def kubevirt_schemas(path):
    """The openAPIV3Schema of each CRD in validations_generated.go."""
    with open(path) as f:
        text = f.read()
    found = dict(re.findall(r'^\t"([a-z]+)": `(.*?)`,$', text, re.S | re.M))
    if not found:
        raise SystemExit(f"{path}: no CRDsValidation entries")
    return {name: yaml.safe_load(body)["openAPIV3Schema"] for name, body in found.items()}


def kapp_controller_schemas(path):
    """Each CRD's kind with its versions: name, served, openAPIV3Schema and
    whether the version has the status subresource."""
    with open(path) as f:
        documents = [d for d in yaml.safe_load_all(f) if d]
    return {
        d["spec"]["names"]["kind"]: [
            (
                v["name"],
                v.get("served", False),
                v["schema"]["openAPIV3Schema"],
                "status" in (v.get("subresources") or {}),
            )
            for v in d["spec"]["versions"]
        ]
        for d in documents
        if d.get("kind") == "CustomResourceDefinition"
    }


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kubevirt", required=True, metavar="validations_generated.go")
    parser.add_argument("--kubevirt-version", required=True, metavar="TAG")
    parser.add_argument("--kapp-controller", required=True, metavar="crds.yml")
    parser.add_argument("--kapp-controller-version", required=True, metavar="TAG")
    parser.add_argument("--out", default=BUILT_IN.DATA, metavar="DIR", help="where bundled.json goes")
    parser.add_argument("--verbose", action="store_true", help="print every warning")
    args = parser.parse_args()

    conversion = Conversion()
    kinds = []  # (group, version, kind, root)
    roots = []
    # (group, kind) -> whether its served versions have the status
    # subresource (the data says it by kind: a kind whose versions differ
    # would need more).
    status = {}
    kubevirt = kubevirt_schemas(args.kubevirt)
    for name, group, versions, kind, has_status in KUBEVIRT_KINDS:
        roots.append(conversion.schema(kubevirt[name], kind))
        kinds += [(group, version, kind, len(roots) - 1) for version in versions]
        status[(group, kind)] = {has_status}
    kapp_controller = kapp_controller_schemas(args.kapp_controller)
    for crd_kind, (group, kind) in KAPP_CONTROLLER_KINDS.items():
        for version, served, schema, has_status in kapp_controller[crd_kind]:
            if served:
                roots.append(conversion.schema(schema, kind))
                kinds.append((group, version, kind, len(roots) - 1))
                status.setdefault((group, kind), set()).add(has_status)
    for (group, kind), found in status.items():
        if len(found) != 1:
            raise SystemExit(f"{kind}: only some versions have the status subresource")
    for root, (_, _, kind, _) in zip(roots, kinds):
        missing = {"apiVersion", "kind", "metadata"} - set(root.get("properties", {}))
        if missing:
            raise SystemExit(f"{kind}: the schema does not declare {sorted(missing)}")

    definitions = Definitions()
    for root in roots:
        definitions.split_large(root)
    # The built-in versions' writer names the file by its `kubernetes` key:
    # these kinds are the same whatever the version.
    document = {
        "kubernetes": "bundled",
        "source": f"kubevirt/kubevirt {args.kubevirt_version} "
        "pkg/virt-operator/resource/generate/components/validations_generated.go; "
        f"carvel-dev/kapp-controller {args.kapp_controller_version} config/config/crds.yml",
        # The kinds whose `status` the API server drops on create and
        # update (confvet does not check it there).
        "status_subresource": sorted([list(k) for k, found in status.items() if True in found]),
        "kinds": sorted([list(k) for k in kinds]),
        "definitions": definitions.number(roots),
    }
    name, size = BUILT_IN.write(document, args.out)
    print(
        f"{name}: {len(document['definitions'])} definitions, {len(document['kinds'])} kinds, "
        f"{size} bytes; {len(conversion.warnings)} warnings"
    )
    for warning in conversion.warnings if args.verbose else conversion.warnings[:5]:
        print(f"  {warning}", file=sys.stderr)


if __name__ == "__main__":
    main()
