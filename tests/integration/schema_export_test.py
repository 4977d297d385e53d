"""`confvet schema` output checked by the validators of the field: every
corpus package's OpenAPI export (with rules) is a valid OpenAPI 3.0 document
for openapi-spec-validator, and its JSON Schema export a valid 2020-12
schema for the `jsonschema` package's metaschema check. The project's own
example package is always checked; the corpus only when ../shared is there
(it says so when it skips).
"""

import json
import shutil
import sys

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from common import DEBUG_BIN, ROOT, TempDir, check, run

CONFVET = DEBUG_BIN / "confvet"
CORPUS = ROOT.parent / "shared" / "corpus" / "ytt"


def packages():
    yield ROOT / "examples" / "shop" / "config"
    if not CORPUS.is_dir():
        print("skipped: ../shared/corpus/ytt not found; only examples/ checked")
        return
    yield from sorted(p.parent for p in CORPUS.rglob("expect.yml"))


def export(package, scratch, fmt):
    proc = run([CONFVET, "schema", ".", "--format", fmt], cwd=scratch)
    check(proc.returncode == 0, f"confvet schema {package} --format {fmt}", proc)
    return proc.stdout


def main():
    checked = 0
    with TempDir() as tmp:
        for package in packages():
            scratch = tmp / str(checked)
            shutil.copytree(package, scratch, ignore=shutil.ignore_patterns("expect.yml"))
            document = yaml.safe_load(export(package, scratch, "openapi-v3"))
            try:
                validate(document)
            except OpenAPIValidationError as error:
                raise AssertionError(f"{package}: not OpenAPI 3.0: {error}") from None
            schema = json.loads(export(package, scratch, "json-schema"))
            try:
                Draft202012Validator.check_schema(schema)
            except SchemaError as error:
                raise AssertionError(f"{package}: not JSON Schema 2020-12: {error}") from None
            checked += 1
        # The validators are not vacuous: a broken document fails each.
        broken = dict(document, openapi="3.0.0")
        broken["components"] = {"schemas": {"dataValues": {"type": "map"}}}
        try:
            validate(broken)
            raise AssertionError("openapi-spec-validator accepted `type: map`")
        except OpenAPIValidationError:
            pass
        try:
            Draft202012Validator.check_schema({"type": 3})
            raise AssertionError("the metaschema check accepted `type: 3`")
        except SchemaError:
            pass
    print(f"ok {checked} packages: OpenAPI 3.0 and JSON Schema 2020-12 exports valid")


if __name__ == "__main__":
    sys.exit(main())
