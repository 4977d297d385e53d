// node:test of the binary's resolution (run from out/ by `npm test`).
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { bundledBinaryName, resolveServerBinary } from "../server-path";

const bundled = "/ext/bin/confvet";
const present = (file: string): boolean => file === bundled;
const absent = (): boolean => false;

void test("confvet.path wins over the bundled binary", () => {
  assert.deepEqual(resolveServerBinary("/opt/confvet", bundled, present), {
    command: "/opt/confvet",
    source: "setting",
  });
  assert.deepEqual(resolveServerBinary("  confvet  ", bundled, present), {
    command: "confvet",
    source: "setting",
  });
});

void test("without confvet.path, the bundled binary when it exists", () => {
  for (const configured of [undefined, "", "   "]) {
    assert.deepEqual(resolveServerBinary(configured, bundled, present), {
      command: bundled,
      source: "bundled",
    });
  }
});

void test("without either, confvet on PATH", () => {
  assert.deepEqual(resolveServerBinary(undefined, bundled, absent), {
    command: "confvet",
    source: "path",
  });
  assert.deepEqual(resolveServerBinary("", bundled, absent), { command: "confvet", source: "path" });
});

void test("the bundled binary's name per platform", () => {
  assert.equal(bundledBinaryName("win32"), "confvet.exe");
  assert.equal(bundledBinaryName("linux"), "confvet");
  assert.equal(bundledBinaryName("darwin"), "confvet");
});
