"""`confvet server` in a real editor: Emacs 28 with eglot 1.9, in batch mode,
with no user init file but the block of docs/editors.md for Emacs (eglot
runs `confvet server` for yaml-mode buffers, `confvet` found on PATH: the
debug binary). emacs_test.el opens values.yml of a ytt package whose
schema declares `replicas` an integer while the values file gives the
string "3"; then:

- flymake must show one diagnostic: line 3, column 11, an error of rule
  ytt/type-mismatch with the mismatch's message;
- the quick fix at it (`eglot-code-actions`, executed as eglot executes the
  action a user picks) must write `replicas: 3` in the buffer (unsaved),
  and the diagnostic must go;
- the hover on `replicas` must name the data value, its type, the
  schema's description and the value;
- in a template of the package, M-. (xref) on `data.values.replicas` must
  lead to `replicas` in the schema, and completion after `data.values.`
  must offer the schema's keys;
- the server must answer eglot's `shutdown` (M-x eglot-shutdown) and be
  gone after it.

Emacs comes from Debian's `emacs-nox` and eglot from `elpa-eglot`
(`.ci/run` installs them); without them the test says it skipped, except
in CI (CI or CONFVET_REQUIRE_SHARED=1 set), where it fails.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from common import DEBUG_BIN, TempDir, check, editor, readme_example, run, write

SCHEMA = """\
#@data/values-schema
---
#@schema/desc "How many pods run"
replicas: 1
image: shop
"""
VALUES = """\
#@data/values
---
replicas: "3"
"""
TEMPLATE = """\
#@ load("@ytt:data", "data")
---
kind: Deployment
spec:
  replicas: #@ data.values.replicas
"""
DRIVER = Path(__file__).with_name("emacs_test.el")


def main():
    emacs = editor("emacs", "emacs_test", "emacs-nox elpa-eglot")
    if emacs is None:
        return
    version = run([emacs, "--version"]).stdout.splitlines()[0]
    with TempDir() as tmp:
        package = tmp / "package"
        write(package, {"schema.yml": SCHEMA, "values.yml": VALUES, "template.yml": TEMPLATE})
        write(tmp, {"docs.el": readme_example("emacs-eglot", "docs/editors.md")})
        out = tmp / "result.json"
        env = dict(
            os.environ,
            PATH=os.pathsep.join([str(DEBUG_BIN), os.environ["PATH"]]),
            # No user configuration, and Emacs's state stays in the temporary directory.
            HOME=str(tmp / "home"),
            CONFVET_EMACS_DOCS_BLOCK=str(tmp / "docs.el"),
            CONFVET_EMACS_FILE=str(package / "values.yml"),
            CONFVET_EMACS_TEMPLATE=str(package / "template.yml"),
            CONFVET_EMACS_OUT=str(out),
        )
        (tmp / "home").mkdir()
        proc = run([emacs, "--batch", "--no-init-file", "-l", str(DRIVER)],
                   cwd=package, env=env, timeout=120, stdin=subprocess.DEVNULL)
        check(out.exists(), f"{version} wrote no result", proc)
        result = json.loads(out.read_text())

        def expect(condition, what):
            """Fails with `what`, the result and Emacs's messages."""
            shown = {k: v for k, v in result.items() if k != "messages"}
            check(condition, f"{what}\n--- result\n{json.dumps(shown, indent=2)}\n"
                  f"--- Emacs's *Messages*\n{result.get('messages', '')}", proc)

        expect(result.get("error") is None, f"the Emacs Lisp driver failed: {result.get('error')}")
        expect(result["server_program"] == str(DEBUG_BIN / "confvet"),
               "eglot does not run the debug binary")
        expect(result["major_mode"] == "yaml-mode", "values.yml is not in yaml-mode")
        expect(result["managed"] and result["command"][-2:] == ["confvet", "server"],
               "eglot does not manage values.yml with `confvet server`")
        expect(result["opened"], "no diagnostic within 15 s")
        diagnostics = result["diagnostics"]
        expect(len(diagnostics) == 1, "one diagnostic expected")
        diagnostic = diagnostics[0]
        expect((diagnostic["line"], diagnostic["column"]) == (3, 11), "the diagnostic is not at 3:11")
        expect(diagnostic["code"] == "ytt/type-mismatch", "not a ytt/type-mismatch")
        expect(diagnostic["type"] == "eglot-error", "not an error")
        expect("replicas: expected integer, found string" in diagnostic["text"],
               "the message does not say the mismatch")
        expect((result.get("actions") or [None])[0] == "write 3 (unsafe fix)", "the quick fix is not offered first")
        expect(result.get("fixed_text") == VALUES.replace('"3"', "3"),
               "the quick fix did not write replicas: 3")
        expect(result.get("cleared"), "the diagnostic stayed after the fix")
        hover = result.get("hover") or ""
        for part in ["data.values.replicas: int", "How many pods run", "`3`"]:
            expect(part in hover, f"the hover does not say {part}")
        expect(result.get("template_managed"), "eglot does not manage template.yml")
        expect(result.get("definitions") == [{"file": "schema.yml", "line": 4}],
               "M-. on data.values.replicas does not go to replicas in the schema")
        expect(sorted(result.get("completions") or []) == ["image", "replicas"],
               "the completions after data.values. are not the schema's keys")
        expect(result.get("stopped"), "the server still runs after eglot-shutdown")
    print(f"{version}, eglot {result['eglot_version']}: the diagnostic at 3:11, "
          "its quick fix applied, the hover on the data value, definition and "
          "completion in a template; server stopped")


if __name__ == "__main__":
    sys.exit(main())
