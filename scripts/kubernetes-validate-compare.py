#!/usr/bin/env python3
"""Compare confvet's Kubernetes schema check with kubernetes-validate --strict,
document by document, on what the reference ytt rendered for the corpus.

    python3 -m venv /tmp/kv && /tmp/kv/bin/pip install kubernetes-validate==1.37.0
    cargo test --test corpus kubernetes -- --nocapture | grep '^violation: ' > /tmp/confvet.txt
    /tmp/kv/bin/python scripts/kubernetes-validate-compare.py /tmp/confvet.txt

A second argument names another folder of records (the test reads the same
folder from CONFVET_KUBERNETES_CORPUS), for instance a mutated copy.
kubernetes-validate's own check stops at a document's first error; this
script runs its strict schemas with every error (jsonschema's iter_errors).
Documents are counted where both tools have a schema for the kind, and
those where only one has.
"""

import collections
import glob
import json
import os
import re
import sys

import jsonschema
import kubernetes_validate.utils as kv
import yaml
from referencing import Registry, Resource

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS = os.path.join(HERE, "..", "..", "shared", "corpus", "ytt-render")
DATA = os.path.join(HERE, "..", "src", "check", "kubernetes", "data", "1.37.json")
yaml.SafeLoader.add_constructor("tag:yaml.org,2002:value", kv.construct_value)
SCHEMAS = os.path.join(os.path.dirname(kv.__file__), "kubernetes-json-schema", "v1.37.0-local-strict")
DEFINITIONS = Resource.from_contents(json.load(open(os.path.join(SCHEMAS, "_definitions.json"))))


def reference_errors(doc):
    """kubernetes-validate's errors for `doc`, or None without a schema."""
    # kubernetes-validate names a schema by the first label of the group.
    api = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", doc["apiVersion"])
    path = os.path.join(SCHEMAS, "%s-%s.json" % (doc["kind"].lower(), api))
    if not os.path.exists(path):
        return None
    schema = json.load(open(path))
    registry = DEFINITIONS @ (Resource.from_contents(schema) @ Registry())
    validator = jsonschema.validators.Draft202012Validator(schema, registry=registry)
    return [(".".join(map(str, e.absolute_path)), e.message[:160]) for e in validator.iter_errors(doc)]


def main():
    confvet = collections.defaultdict(list)
    for line in open(sys.argv[1]):
        found = re.match(r"violation: (\S+) run (\d+) document (\d+): (.*)", line.strip())
        confvet[(found[1], int(found[2]), int(found[3]))].append(found[4])
    records = sys.argv[2] if len(sys.argv) > 2 else RECORDS
    kinds = {tuple(k[:3]) for k in json.load(open(DATA))["kinds"]}
    counts = collections.Counter()
    differences = []
    for path in sorted(glob.glob(os.path.join(records, "*.txt"))):
        name = os.path.basename(path)[:-4]
        runs = [
            run
            for run in open(path).read().split("===== $ ytt ")[1:]
            if "--data-values-inspect" not in run.split("\n")[0] and "\n===== exit: 0\n" in run
        ]
        for number, run in enumerate(runs):
            output = run.split("===== stdout:\n", 1)[1].split("===== stderr:\n", 1)[0]
            for index, doc in enumerate(yaml.safe_load_all(output)):
                if not (isinstance(doc, dict) and isinstance(doc.get("apiVersion"), str)):
                    continue
                if not isinstance(doc.get("kind"), str):
                    continue
                group, _, version = doc["apiVersion"].rpartition("/")
                ours = (group, version, doc["kind"]) in kinds
                theirs = reference_errors(doc)
                key = (name, number, index)
                if not ours or theirs is None:
                    which = "neither" if not ours and theirs is None else "only confvet" if ours else "only kubernetes-validate"
                    counts[f"{which} has a schema"] += 1
                    continue
                a, b = bool(confvet.get(key)), bool(theirs)
                verdict = "both report" if a and b else "confvet alone reports" if a else "kubernetes-validate alone reports" if b else "neither reports"
                counts[verdict] += 1
                if a != b:
                    differences.append((verdict, key, confvet.get(key) or theirs))
    for verdict, count in sorted(counts.items()):
        print(f"{count:6} {verdict}")
    for verdict, key, problems in differences:
        print(f"{verdict}: {key[0]} run {key[1]} document {key[2]}")
        for problem in problems:
            print(f"    {problem}")


if __name__ == "__main__":
    main()
