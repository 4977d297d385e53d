// The JSON Schema of .confvet.yaml, which the extension gives to the YAML
// extension (yamlValidation): its source is the repository's schema/,
// copied into the package when it is built.
const fs = require("fs");
const path = require("path");

const source = path.join(__dirname, "..", "..", "..", "schema", "confvet.schema.json");
const target = path.join(__dirname, "..", "schema", "confvet.schema.json");
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.copyFileSync(source, target);
