"""The GitHub Action (action.yml), tested outside GitHub.

action.yml and the README's example workflow are validated against GitHub's
schemas (check-jsonschema's vendored copies). Then the action's own shell
steps run as a runner would run them: the step's `run` text with bash, its
`env:` resolved from the inputs (action.yml's defaults unless a test sets
one) and from earlier steps' outputs, with fresh GITHUB_OUTPUT files, a
GITHUB_STEP_SUMMARY, GITHUB_PATH and RUNNER_TEMP. The `uses:` steps
(cache, SARIF upload) are not run, but their `if:` and `with:` are
evaluated, so the test sees whether the upload would happen and with what.
"""

import json
import os
import re
import shutil
import stat
from pathlib import Path

from common import (
    DEBUG_BIN,
    ROOT,
    SCHEMA,
    VENV_BIN,
    TempDir,
    check,
    readme_example,
    run,
    values,
    write,
)

import yaml

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def path_without(*programs):
    """PATH without the directories that hold any of `programs`."""
    dirs = os.environ["PATH"].split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not any((Path(d) / p).exists() for p in programs))


class ActionRun:
    """One job that uses the action, in a fresh temporary directory."""

    def __init__(self, tmp, inputs=None, path=None, action_path=ROOT):
        self.inputs = inputs or {}
        self.action_path = Path(action_path)
        self.workspace = tmp / "workspace"
        self.runner_temp = tmp / "runner-temp"
        self.summary = tmp / "step-summary.md"
        self.github_path = tmp / "github-path"
        for d in (self.workspace, self.runner_temp):
            d.mkdir(parents=True, exist_ok=True)
        self.summary.write_text("")
        self.github_path.write_text("")
        self.path = path or f"{DEBUG_BIN}{os.pathsep}{path_without('confvet')}"
        self.outputs = {}
        self.steps = ACTION["runs"]["steps"]

    def step(self, key):
        for step in self.steps:
            if key in (step.get("id"), step.get("name")):
                return step
        raise AssertionError(f"action.yml has no step {key}")

    def value(self, expr):
        """The value of one expression such as `inputs.paths`."""
        parts = expr.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            declared = ACTION["inputs"][parts[1]]
            return str(self.inputs.get(parts[1], declared.get("default", "")))
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
        raise AssertionError(f"the test cannot evaluate ${{{{ {expr} }}}}")

    def resolve(self, text):
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), str(text))

    def condition(self, step):
        """The step's `if:`: `a == 'x' && b != 'y'`, all the action uses."""
        for clause in step.get("if", "true").split("&&"):
            clause = clause.strip()
            if clause == "true":
                continue
            found = re.fullmatch(r"([\w.-]+) (==|!=) '([^']*)'", clause)
            check(found is not None, f"the test cannot evaluate if: {clause}")
            lhs, op, literal = found.groups()
            if (self.value(lhs) == literal) != (op == "=="):
                return False
        return True

    def with_(self, key):
        return {k: self.resolve(v) for k, v in self.step(key).get("with", {}).items()}

    def run(self, key):
        """Runs one `run:` step as the runner does; returns the process."""
        step = self.step(key)
        check(step.get("shell") == "bash", f"step {key} runs with bash")
        script = self.runner_temp / "step.sh"
        script.write_text(step["run"])
        github_output = self.runner_temp / "github-output"
        github_output.write_text("")
        added_paths = [line for line in self.github_path.read_text().splitlines() if line]
        env = {
            "PATH": os.pathsep.join([*reversed(added_paths), self.path]),
            "HOME": os.environ.get("HOME", "/"),
            "GITHUB_ACTION_PATH": str(self.action_path),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(github_output),
            "GITHUB_PATH": str(self.github_path),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(self.runner_temp),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            **{k: self.resolve(v) for k, v in step.get("env", {}).items()},
        }
        proc = run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workspace,
            env=env,
        )
        outputs = {}
        for line in github_output.read_text().splitlines():
            name, _, value = line.partition("=")
            outputs[name] = value
        self.outputs[step.get("id", key)] = outputs
        return proc

    def lint(self):
        """The find, lint and verdict steps, as on a runner with confvet."""
        proc = self.run("find")
        check(proc.returncode == 0, "find succeeds", proc)
        lint = self.run("lint")
        check(lint.returncode == 0, "the lint step never fails by itself", lint)
        return lint, self.run("Verdict")


def annotations(stdout, command):
    return [line for line in stdout.splitlines() if line.startswith(f"::{command} ")]


def test_metadata_validates(tmp):
    proc = run(
        [
            VENV_BIN / "check-jsonschema",
            "--builtin-schema",
            "vendor.github-actions",
            ROOT / "action.yml",
        ]
    )
    check(proc.returncode == 0, "action.yml validates against the action metadata schema", proc)
    workflow = tmp / "workflow.yml"
    workflow.write_text(readme_example("github-workflow"))
    proc = run(
        [VENV_BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", workflow]
    )
    check(proc.returncode == 0, "the README's workflow validates against the workflow schema", proc)
    example = yaml.safe_load(workflow.read_text())
    check(
        example["permissions"].get("security-events") == "write",
        "the README's workflow may upload SARIF",
    )
    # And the schema check is not vacuous: a step without `shell` is invalid.
    broken = yaml.safe_load((ROOT / "action.yml").read_text())
    del broken["runs"]["steps"][0]["shell"]
    (tmp / "broken.yml").write_text(yaml.safe_dump(broken))
    proc = run(
        [
            VENV_BIN / "check-jsonschema",
            "--builtin-schema",
            "vendor.github-actions",
            tmp / "broken.yml",
        ]
    )
    check(proc.returncode != 0, "a run step without a shell is rejected", proc)


def test_bad_package_fails_after_writing_everything(tmp):
    job = ActionRun(tmp, {"paths": "shop"})
    shutil.copytree(ROOT / "examples" / "shop", job.workspace / "shop")
    job.summary.write_text("earlier step's summary\n")
    lint, verdict = job.lint()

    check(
        job.outputs["find"] == {"found": "true"}, f"confvet on PATH is used: {job.outputs['find']}"
    )
    check(not job.condition(job.step("restore")), "no cache restore with confvet on PATH")
    check(not job.condition(job.step("Build confvet")), "no build with confvet on PATH")

    out = job.outputs["lint"]
    check(out.get("exit-code") == "1", f"exit code 1 recorded: {out}", lint)
    sarif_file = job.runner_temp / "confvet.sarif"
    check(out.get("sarif-file") == str(sarif_file), f"SARIF in RUNNER_TEMP: {out}")
    sarif = json.loads(sarif_file.read_text())
    results = sarif["runs"][0]["results"]
    check(len(results) == 3, f"3 results in the SARIF: {len(results)}")
    check(
        all(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith(
                "shop/config/"
            )
            for r in results
        ),
        "SARIF locations are relative to the workspace",
    )

    errors = annotations(lint.stdout, "error")
    check(len(errors) == 3, "one annotation per finding", lint)
    check(
        all("file=shop/config/" in e for e in errors),
        "annotations name files relative to the workspace",
        lint,
    )
    check(
        "ytt/validation" in lint.stdout and "-->" in lint.stdout,
        "the log has the text report",
        lint,
    )

    summary = job.summary.read_text()
    check(
        summary.startswith(
            "earlier step's summary\n### confvet: 3 errors, 0 warnings in 3 files\n"
        ),
        f"the summary is appended, with the counts:\n{summary}",
    )
    check(
        "| Severity | Rule | Location | Message |" in summary,
        f"the summary has the table:\n{summary}",
    )
    check(summary.count("\n| error | `") == 3, f"one row per finding:\n{summary}")
    check(
        "| `ytt/validation` | shop/config/values.yml:11:14 |" in summary,
        f"rows have rule and location:\n{summary}",
    )

    upload = job.step("Upload SARIF to code scanning")
    check(job.condition(upload), "the SARIF is uploaded")
    check(
        job.with_("Upload SARIF to code scanning")
        == {"sarif_file": str(sarif_file), "category": ""},
        f"upload-sarif gets the file: {job.with_('Upload SARIF to code scanning')}",
    )
    check(verdict.returncode == 1, "fail-on error fails on errors", verdict)
    check(annotations(verdict.stdout, "error"), "the verdict says why", verdict)


def test_fail_on_levels(tmp):
    # One deprecated value: a warning, no error.
    schema = SCHEMA + '#@schema/deprecated "use image"\nold_image: ""\n'
    for fail_on, files, expected in [
        ("never", {"schema.yml": SCHEMA, "values.yml": values(50)}, 0),
        ("warning", {"schema.yml": schema, "values.yml": "#@data/values\n---\nold_image: x\n"}, 1),
        ("error", {"schema.yml": schema, "values.yml": "#@data/values\n---\nold_image: x\n"}, 0),
        ("error", {"schema.yml": SCHEMA, "values.yml": values(5)}, 0),
    ]:
        run_dir = tmp / f"{fail_on}-{expected}-{len(files['schema.yml'])}"
        job = ActionRun(run_dir, {"paths": "pkg", "fail-on": fail_on})
        write(job.workspace / "pkg", files)
        lint, verdict = job.lint()
        check(
            job.outputs["lint"].get("exit-code") == str(expected),
            f"fail-on {fail_on}: exit code {expected}, got {job.outputs['lint']}",
            lint,
        )
        check(verdict.returncode == expected, f"fail-on {fail_on}: verdict {expected}", verdict)
        if "old_image" in files["values.yml"]:
            check(len(annotations(lint.stdout, "warning")) == 1, "the warning is annotated", lint)


def test_annotations_are_capped(tmp):
    # 12 unknown keys (errors) and 11 deprecated values (warnings).
    schema = SCHEMA + "".join(f'#@schema/deprecated "gone"\nold{n}: ""\n' for n in range(11))
    given = "".join(f"typo{n}: 1\n" for n in range(12)) + "".join(f"old{n}: x\n" for n in range(11))
    job = ActionRun(tmp, {"paths": "pkg"})
    write(
        job.workspace / "pkg", {"schema.yml": schema, "values.yml": "#@data/values\n---\n" + given}
    )
    lint, verdict = job.lint()
    check(len(annotations(lint.stdout, "error")) == 10, "10 error annotations", lint)
    check(len(annotations(lint.stdout, "warning")) == 10, "10 warning annotations", lint)
    notices = annotations(lint.stdout, "notice")
    check(
        len(notices) == 1 and "3 more findings (2 errors, 1 warning)" in notices[0],
        "a notice counts the rest",
        lint,
    )
    summary = job.summary.read_text()
    check(
        summary.count("\n| error | ") == 12 and summary.count("\n| warning | ") == 11,
        f"the summary lists every finding:\n{summary}",
    )
    check(
        len(json.loads((job.runner_temp / "confvet.sarif").read_text())["runs"][0]["results"])
        == 23,
        "the SARIF has every finding",
    )
    check(verdict.returncode == 1, "errors fail", verdict)


def test_inputs(tmp):
    # Two packages given on two lines, a SARIF file in a new folder, no annotations, no upload.
    job = ActionRun(
        tmp,
        {
            "paths": "a\n  b ",
            "sarif-file": "reports/confvet.sarif",
            "annotations": "false",
            "upload-sarif": "false",
            "category": "configs",
        },
    )
    write(job.workspace / "a", {"schema.yml": SCHEMA, "values.yml": values(50)})
    write(job.workspace / "b", {"schema.yml": SCHEMA, "values.yml": values(60)})
    lint, verdict = job.lint()
    check(not annotations(lint.stdout, "error"), "annotations: false writes none", lint)
    check(
        job.outputs["lint"].get("sarif-file") == "reports/confvet.sarif", f"{job.outputs['lint']}"
    )
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads((job.workspace / "reports/confvet.sarif").read_text())["runs"][0][
            "results"
        ]
    }
    check(uris == {"a/values.yml", "b/values.yml"}, f"both paths are linted: {uris}")
    check(
        not job.condition(job.step("Upload SARIF to code scanning")),
        "upload-sarif: false uploads nothing",
    )
    check(verdict.returncode == 1, "errors fail", verdict)


def test_errors_that_are_not_findings_always_fail(tmp):
    # A path that does not exist (and input that a shell would run if the
    # action spliced it into a script), then a usage error.
    marker = tmp / "spliced"
    job = ActionRun(
        tmp / "missing",
        {"paths": f"missing $(touch {marker}) `touch {marker}`", "fail-on": "never"},
    )
    lint, verdict = job.lint()
    check(not marker.exists(), "inputs are never run as shell code")
    check(
        job.outputs["lint"].get("exit-code") == "2",
        f"a missing path is exit code 2: {job.outputs['lint']}",
        lint,
    )
    check(verdict.returncode == 2, "exit code 2 fails even with fail-on never", verdict)

    job = ActionRun(tmp / "usage", {"fail-on": "sometimes"})
    lint, verdict = job.lint()
    check(
        job.outputs["lint"].get("exit-code") == "2",
        f"a bad fail-on is a usage error: {job.outputs['lint']}",
        lint,
    )
    check("sarif-written" not in job.outputs["lint"], "no SARIF after a usage error", lint)
    check(not job.condition(job.step("Upload SARIF to code scanning")), "nothing to upload")
    check(verdict.returncode == 2, "a usage error fails", verdict)

    job = ActionRun(tmp / "not-run")
    verdict = job.run("Verdict")
    check(verdict.returncode != 0, "no recorded exit code fails", verdict)


def test_config_input(tmp):
    # The `config` input names a file outside the workspace root's default
    # search; it makes validation findings warnings, so fail-on error passes.
    job = ActionRun(tmp, {"paths": "pkg", "config": "ci/confvet.yaml"})
    write(job.workspace / "pkg", {"schema.yml": SCHEMA, "values.yml": values(50)})
    write(job.workspace / "ci", {"confvet.yaml": "rules:\n  ytt/validation: warning\n"})
    lint, verdict = job.lint()
    check(
        job.outputs["lint"].get("exit-code") == "0",
        f"the config is read: {job.outputs['lint']}",
        lint,
    )
    check(len(annotations(lint.stdout, "warning")) == 1, "the finding is a warning now", lint)
    check(verdict.returncode == 0, "warnings pass fail-on error", verdict)


def fake_cargo(tmp):
    """A `cargo` that records its arguments and installs a fake confvet."""
    bin_dir = tmp / "fake-bin"
    bin_dir.mkdir()
    cargo = bin_dir / "cargo"
    cargo.write_text(
        "#!/usr/bin/env bash\n"
        'printf "%s\\n" "$CARGO_TARGET_DIR" "$@" >"$(dirname "$0")/cargo-args"\n'
        "while [[ $1 != --root ]]; do shift; done\n"
        'mkdir -p "$2/bin" && printf "#!/bin/sh\\necho confvet 9.9.9\\n" >"$2/bin/confvet" && chmod +x "$2/bin/confvet"\n'
    )
    cargo.chmod(cargo.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def test_install_without_confvet_on_path(tmp):
    bin_dir = fake_cargo(tmp)
    no_confvet = f"{bin_dir}{os.pathsep}{path_without('confvet')}"

    job = ActionRun(tmp / "source", path=no_confvet)
    job.run("find")
    found = job.outputs["find"]
    root = job.runner_temp / "confvet-install"
    check(found.get("found") == "false" and found.get("root") == str(root), f"{found}")
    check(
        re.fullmatch(r"confvet-Linux-X64-source-[0-9a-f]{32}", found.get("cache-key", "")),
        f"{found}",
    )
    check(job.condition(job.step("restore")), "the cache is tried")
    check(
        job.with_("restore") == {"path": str(root), "key": found["cache-key"]},
        f"{job.with_('restore')}",
    )
    job.outputs["restore"] = {"cache-hit": "false"}
    check(job.condition(job.step("Build confvet")), "a cache miss builds")
    proc = job.run("Build confvet")
    check(proc.returncode == 0, "the build step succeeds", proc)
    args = (bin_dir / "cargo-args").read_text().splitlines()
    check(
        args
        == [
            str(job.runner_temp / "confvet-target"),
            "install",
            "--locked",
            "--root",
            str(root),
            "--path",
            str(ROOT),
        ],
        f"cargo installs the action's own source: {args}",
    )
    check(
        job.with_("Save the confvet build") == job.with_("restore"),
        "the build is saved under the same key",
    )
    # The installed binary is on PATH for the lint step.
    proc = job.run("lint")
    check("confvet 9.9.9" in proc.stdout, "the installed confvet runs", proc)
    job.outputs["restore"] = {"cache-hit": "true"}
    check(not job.condition(job.step("Build confvet")), "a cache hit builds nothing")

    job = ActionRun(tmp / "version", {"version": "1.2.3"}, path=no_confvet)
    job.run("find")
    check(
        job.outputs["find"].get("cache-key") == "confvet-Linux-X64-crates-1.2.3",
        f"{job.outputs['find']}",
    )
    job.run("Build confvet")
    args = (bin_dir / "cargo-args").read_text().splitlines()[1:]
    check(
        args
        == [
            "install",
            "--locked",
            "--root",
            str(job.runner_temp / "confvet-install"),
            "confvet",
            "--version",
            "1.2.3",
        ],
        f"a version comes from crates.io: {args}",
    )

    # A confvet on PATH of another version than asked for is not used.
    job = ActionRun(tmp / "other-version", {"version": "1.2.3"})
    job.run("find")
    check(job.outputs["find"].get("found") == "false", f"{job.outputs['find']}")

    # Without cargo the build says what to do.
    job = ActionRun(tmp / "no-cargo", path=path_without("confvet", "cargo"))
    job.run("find")
    proc = job.run("Build confvet")
    check(proc.returncode != 0 and "Rust toolchain" in proc.stdout, "no cargo: a clear error", proc)


def test_cache_key_follows_the_source(tmp):
    action_copy = tmp / "action-source"
    for name in ("src", "action"):
        shutil.copytree(ROOT / name, action_copy / name)
    for name in ("Cargo.toml", "Cargo.lock"):
        shutil.copy(ROOT / name, action_copy / name)

    def key(label):
        job = ActionRun(tmp / label, path=path_without("confvet"), action_path=action_copy)
        job.run("find")
        return job.outputs["find"]["cache-key"]

    first = key("first")
    check(key("again") == first, "the same source gives the same key")
    with open(action_copy / "Cargo.lock", "a") as lock:
        lock.write("\n")
    after_lock = key("lock")
    check(after_lock != first, "a changed Cargo.lock changes the key")
    with open(action_copy / "src" / "main.rs", "a") as main:
        main.write("\n")
    check(key("source") != after_lock, "changed source changes the key")


def main():
    tests = [value for name, value in globals().items() if name.startswith("test_")]
    for test in tests:
        with TempDir() as tmp:
            test(tmp)
        print(f"ok {test.__name__}")


if __name__ == "__main__":
    main()
