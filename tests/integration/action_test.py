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

import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import stat
import tarfile
import threading
import time
from pathlib import Path

from common import (
    DEBUG_BIN,
    ROOT,
    SCHEMA,
    VENV_BIN,
    TempDir,
    check,
    crate_version,
    path_without,
    readme_example,
    run,
    values,
    write,
)

import yaml

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class ActionRun:
    """One job that uses the action, in a fresh temporary directory."""

    def __init__(self, tmp, inputs=None, path=None, action_path=ROOT, env=None):
        self.inputs = inputs or {}
        self.env = env or {}
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
            **self.env,
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
        """The find, cache key, lint and verdict steps, as on a runner with
        confvet (the cache's restore and save are `uses:` steps)."""
        proc = self.run("find")
        check(proc.returncode == 0, "find succeeds", proc)
        if self.condition(self.step("cache-key")):
            keyed = self.run("cache-key")
            check(keyed.returncode == 0, "the cache is keyed", keyed)
        lint = self.run("lint")
        check(lint.returncode == 0, "findings never fail the lint step by itself", lint)
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

    for name in ("release.yml", "ci.yml"):
        workflow = ROOT / ".github" / "workflows" / name
        proc = run(
            [VENV_BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", workflow]
        )
        check(proc.returncode == 0, f"{name} validates against the workflow schema", proc)
        jobs = yaml.safe_load(workflow.read_text())["jobs"]
        check(
            all("permissions" in job for job in jobs.values()),
            f"every job of {name} says which permissions it needs",
        )


PINNED = re.compile(r"^\s*(?:- )?uses: [\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$")


def test_every_action_is_pinned(tmp):
    """Every `uses:` names a full commit SHA, with its tag in a comment."""
    for name, text in [
        ("action.yml", (ROOT / "action.yml").read_text()),
        ("release.yml", (ROOT / ".github" / "workflows" / "release.yml").read_text()),
        ("ci.yml", (ROOT / ".github" / "workflows" / "ci.yml").read_text()),
        ("the README's workflow", readme_example("github-workflow")),
    ]:
        uses = [line for line in text.splitlines() if re.match(r"^\s*(- )?uses:", line)]
        # The README's example uses confvet itself by its tag: it has no SHA yet.
        # ... and ci.yml runs the action of its own checkout (`uses: ./`).
        uses = [line for line in uses if "confvet/confvet@" not in line and "uses: ./" not in line]
        check(uses, f"{name} uses actions")
        unpinned = [line.strip() for line in uses if not PINNED.match(line)]
        check(not unpinned, f"{name}: not pinned to a commit SHA: {unpinned}")


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


def test_matrix_shards_report_what_one_job_reports(tmp):
    # The README's matrix workflow: each job's `with:` as the matrix gives it.
    workflow = yaml.safe_load(readme_example("github-matrix"))
    job = workflow["jobs"]["confvet"]
    shards = job["strategy"]["matrix"]["shard"]
    uses = [step for step in job["steps"] if "confvet/confvet" in step.get("uses", "")]
    check(len(uses) == 1, "the matrix example uses the action once")

    def sarif_of(label, inputs):
        run_ = ActionRun(tmp / label, inputs)
        for i in range(8):
            write(run_.workspace / f"pkg{i}", {"schema.yml": SCHEMA, "values.yml": values(20 + i)})
        lint, _ = run_.lint()
        check(run_.outputs["lint"].get("sarif-written") == "true", f"{label}: SARIF written", lint)
        return json.loads(Path(run_.outputs["lint"]["sarif-file"]).read_text())["runs"][0]

    def results(run_):
        return sorted(
            (r["partialFingerprints"]["confvet/v1"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in run_["results"]
        )

    whole = results(sarif_of("whole", {}))
    check(len(whole) == 8, f"one job finds every package's error: {whole}")
    union, ids = [], set()
    for shard in shards:
        inputs = {
            key: str(value).replace("${{ matrix.shard }}", str(shard))
            for key, value in uses[0]["with"].items()
        }
        part = sarif_of(f"shard-{shard.replace('/', '-')}", inputs)
        union += results(part)
        ids.add(part["automationDetails"]["id"])
    check(sorted(union) == whole, f"the shards together report what one job reports: {union}")
    check(len(ids) == len(shards), f"each shard is a category of its own: {ids}")


def check_lint_error(job, what):
    """Exit code 2: the lint step fails with the error, nothing is uploaded."""
    proc = job.run("find")
    check(proc.returncode == 0, "find succeeds", proc)
    lint = job.run("lint")
    check(lint.returncode == 2, f"{what}: the lint step fails", lint)
    check(job.outputs["lint"].get("exit-code") == "2", f"{what}: exit code 2 recorded", lint)
    errors = annotations(lint.stdout, "error")
    check(
        len(errors) == 1 and "confvet could not lint (exit code 2" in errors[0],
        f"{what}: the step's error says why",
        lint,
    )
    check("sarif-written" not in job.outputs["lint"], f"{what}: no SARIF to upload", lint)
    check(
        not job.condition(job.step("Upload SARIF to code scanning")),
        f"{what}: the upload step does not run",
    )
    return errors[0]


def test_errors_that_are_not_findings_always_fail(tmp):
    # A path that does not exist (and input that a shell would run if the
    # action spliced it into a script): confvet still writes a SARIF file,
    # with an empty run that would close every open alert.
    marker = tmp / "spliced"
    job = ActionRun(
        tmp / "missing",
        {"paths": f"missing $(touch {marker}) `touch {marker}`", "fail-on": "never"},
    )
    error = check_lint_error(job, "a missing path")
    check(not marker.exists(), "inputs are never run as shell code")
    check("missing" in error, f"the error names the path: {error}")
    check(
        (job.runner_temp / "confvet.sarif").exists(),
        "the test is not vacuous: confvet wrote a SARIF file, which is not uploaded",
    )

    error = check_lint_error(ActionRun(tmp / "usage", {"fail-on": "sometimes"}), "a usage error")
    check("sometimes" in error and "\x1b" not in error, f"the error is clap's, plain: {error}")

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


def test_allow_config_env_input(tmp):
    # The repository's configuration reads the environment only when the
    # workflow says so, and even then its values are named, never shown.
    marker = "ghp_ACTIONMARKERSECRET0123456789"
    schema = '#@data/values-schema\n---\n#@schema/validation one_of=["shop"]\nimage: shop\n'
    config = "ytt:\n  packages:\n    - path: pkg\n      scenarios:\n        - name: ci\n          data-values-env: APP\n"
    for allowed in ("false", "true"):
        case = tmp / allowed
        job = ActionRun(
            case,
            {"paths": "pkg", "allow-config-env": allowed, "upload-sarif": "false"},
            env={"APP_image": marker},
        )
        write(job.workspace, {"pkg/schema.yml": schema, ".confvet.yaml": config})
        lint, verdict = job.lint()
        sarif = (job.runner_temp / "confvet.sarif").read_text()
        for text in (lint.stdout, lint.stderr, sarif, job.summary.read_text()):
            check(marker not in text, "the secret is never printed", lint)
        expected = "--allow-config-env" if allowed == "false" else "the value of APP_image"
        check(expected in lint.stdout, f"allow-config-env: {allowed} says {expected}", lint)
        check(verdict.returncode == 1, "an error either way", verdict)


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


def test_source_build(tmp):
    bin_dir = fake_cargo(tmp)
    no_confvet = f"{bin_dir}{os.pathsep}{path_without('confvet')}"

    # `source` builds even when a confvet is on PATH.
    job = ActionRun(tmp / "source", {"version": "source"}, path=f"{DEBUG_BIN}{os.pathsep}{no_confvet}")
    job.run("find")
    found = job.outputs["find"]
    root = job.runner_temp / "confvet-install"
    check(
        found.get("found") == "false"
        and found.get("install") == "source"
        and found.get("root") == str(root),
        f"{found}",
    )
    check(
        re.fullmatch(r"confvet-Linux-X64-source-[0-9a-f]{32}", found.get("cache-key", "")),
        f"{found}",
    )
    check(not job.condition(job.step("Download confvet")), "no download for a source build")
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
    # The installed binary is on PATH for the lint step, before any other.
    proc = job.run("lint")
    check("confvet 9.9.9" in proc.stdout, "the installed confvet runs", proc)
    job.outputs["restore"] = {"cache-hit": "true"}
    check(not job.condition(job.step("Build confvet")), "a cache hit builds nothing")

    # Without cargo the build says what to do.
    job = ActionRun(tmp / "no-cargo", {"version": "source"}, path=path_without("confvet", "cargo"))
    job.run("find")
    proc = job.run("Build confvet")
    check(proc.returncode != 0 and "Rust toolchain" in proc.stdout, "no cargo: a clear error", proc)


class Releases:
    """A local stand-in for GitHub's release downloads: an HTTP server on
    127.0.0.1 serving v<version>/confvet-<target>.tar.gz, made from the
    freshly built binary as the release workflow archives it, and its
    confvet-<target>.sha256 (sha256sum's output)."""

    TARGET = "x86_64-unknown-linux-musl"  # ActionRun's runner: Linux, X64

    def __init__(self, tmp):
        self.root = tmp / "releases"
        self.root.mkdir()

    def publish(self, version, checksum=None):
        folder = self.root / f"v{version}"
        folder.mkdir()
        archive = f"confvet-{self.TARGET}.tar.gz"
        with tarfile.open(folder / archive, "w:gz") as tar:
            tar.add(DEBUG_BIN / "confvet", arcname="confvet")
        digest = checksum or hashlib.sha256((folder / archive).read_bytes()).hexdigest()
        (folder / f"confvet-{self.TARGET}.sha256").write_text(f"{digest}  {archive}\n")

    def __enter__(self):
        handler = functools.partial(Quiet, directory=str(self.root))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def download(tmp, releases, inputs=None):
    """find and Download confvet on a runner without confvet (nor cargo)."""
    job = ActionRun(
        tmp,
        inputs,
        path=path_without("confvet", "cargo"),
        env={"CONFVET_RELEASES_URL": releases.url},
    )
    proc = job.run("find")
    check(proc.returncode == 0, "find succeeds", proc)
    check(job.condition(job.step("Download confvet")), "the release is downloaded")
    for step in ("restore", "Build confvet", "Save the confvet build"):
        check(not job.condition(job.step(step)), f"no {step} for a download")
    return job, job.run("Download confvet")


def test_download_release(tmp):
    version = crate_version()
    with Releases(tmp) as releases:
        releases.publish(version)
        releases.publish("0.0.7")

        # By default: the release of the action's own version (Cargo.toml's).
        start = time.monotonic()
        job, proc = download(tmp / "default", releases, {"paths": "shop"})
        took = time.monotonic() - start
        check(
            job.outputs["find"]
            == {
                "found": "false",
                "root": str(job.runner_temp / "confvet-install"),
                "install": "download",
                "version": version,
                "target": Releases.TARGET,
            },
            f"find: {job.outputs['find']}",
        )
        check(proc.returncode == 0, "the download step succeeds", proc)
        check("SHA-256 verified" in proc.stdout, "the checksum is checked", proc)
        installed = job.runner_temp / "confvet-install" / "bin" / "confvet"
        check(installed.is_file(), "the binary is installed", proc)
        check(f"confvet {version}" in proc.stdout, "the step prints its version", proc)
        check(
            job.github_path.read_text().splitlines() == [str(installed.parent)],
            "its folder is added to PATH",
        )
        shutil.copytree(ROOT / "examples" / "shop", job.workspace / "shop")
        lint = job.run("lint")
        check(
            job.outputs["lint"].get("exit-code") == "1" and "ytt/validation" in lint.stdout,
            "the lint step runs the downloaded confvet",
            lint,
        )
        print(f"  installed from the release URL in {took:.1f} s")

        # `version: X.Y.Z` downloads that release.
        job, proc = download(tmp / "pinned", releases, {"version": "0.0.7"})
        check(job.outputs["find"].get("version") == "0.0.7", f"{job.outputs['find']}")
        check(proc.returncode == 0 and "/v0.0.7/" in proc.stdout, "release v0.0.7", proc)

        # A version that was never released: a clear error.
        job, proc = download(tmp / "unreleased", releases, {"version": "9.9.9"})
        check(
            proc.returncode != 0 and "could not download" in proc.stdout and "9.9.9" in proc.stdout,
            "a missing release fails with a clear error",
            proc,
        )

    # A version that is not one, or a runner without a release binary.
    job = ActionRun(
        tmp / "bad-version", {"version": "latest\n::notice::injected"}, path=path_without("confvet")
    )
    proc = job.run("find")
    check(proc.returncode != 0 and "version must be" in proc.stdout, "a bad version", proc)
    check(
        not annotations(proc.stdout, "notice") and "latest%0A::notice::injected" in proc.stdout,
        "an input in an error message cannot start a workflow command",
        proc,
    )
    job = ActionRun(tmp / "arm32", path=path_without("confvet"), env={"RUNNER_ARCH": "ARM"})
    proc = job.run("find")
    check(
        proc.returncode != 0 and "version: source" in proc.stdout,
        "no release binary for the runner: says what to do",
        proc,
    )

    # A confvet on PATH of another version than asked for is not used.
    job = ActionRun(tmp / "other-version", {"version": "1.2.3"})
    job.run("find")
    check(job.outputs["find"].get("found") == "false", f"{job.outputs['find']}")


def test_wrong_checksum_installs_nothing(tmp):
    with Releases(tmp) as releases:
        releases.publish(crate_version(), checksum="0" * 64)
        job, proc = download(tmp, releases)
    check(proc.returncode != 0, "a wrong checksum fails the step", proc)
    errors = annotations(proc.stdout, "error")
    check(
        len(errors) == 1 and "SHA-256" in errors[0] and "0" * 64 in errors[0],
        "the error says which checksum did not match",
        proc,
    )
    check(
        not (job.runner_temp / "confvet-install" / "bin" / "confvet").exists(),
        "no binary is installed",
    )
    check(job.github_path.read_text() == "", "nothing is added to PATH")


def test_archive_names_match_the_release(tmp):
    """The release workflow uploads exactly what the download step fetches."""
    release = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())
    job = release["jobs"]["binaries"]
    upload = next(s for s in job["steps"] if "upload-rust-binary-action" in s.get("uses", ""))
    check(
        {k: upload["with"][k] for k in ("bin", "archive", "tar", "zip", "checksum")}
        == {
            "bin": "confvet",
            "archive": "$bin-$target",
            "tar": "unix",
            "zip": "windows",
            "checksum": "sha256",
        },
        f"confvet-<target>.tar.gz, .zip on Windows, .sha256: {upload['with']}",
    )
    released = {entry["target"] for entry in job["strategy"]["matrix"]["include"]}
    step_sh = (ROOT / "action" / "step.sh").read_text()
    downloaded = set(re.findall(r"^\s+\w+/\w+\) target=(\S+) ;;$", step_sh, re.M))
    check(
        released == downloaded and len(released) == 5,
        f"the same targets: released {released}, downloaded {downloaded}",
    )
    wheels = {e["target"] for e in release["jobs"]["wheels"]["strategy"]["matrix"]["include"]}
    check(released <= wheels, f"a wheel for every released binary's platform: {wheels}")
    # A VS Code .vsix for every released binary, for each platform that
    # editors/vscode/scripts/package-target.sh packages.
    vscode = release["jobs"]["vscode"]["strategy"]["matrix"]["include"]
    script = (ROOT / "editors/vscode/scripts/package-target.sh").read_text()
    cases = script.split("case $target in")[1].split("esac")[0]
    platforms = set(re.findall(r"[a-z0-9]+-(?:x64|arm64)", cases))
    check(
        {e["target"] for e in vscode} == released and {e["vscode"] for e in vscode} == platforms,
        f"a .vsix per released binary and packaged platform: {vscode}, {platforms}",
    )


def test_the_lint_cache_is_kept_between_runs(tmp):
    def job(label, inputs=None):
        job = ActionRun(tmp / label, {"paths": "pkg", **(inputs or {})})
        write(job.workspace / "pkg", {"schema.yml": SCHEMA, "values.yml": values(50)})
        return job

    first = job("first")
    lint, _ = first.lint()
    keyed = first.outputs["cache-key"]
    cache_dir = Path(keyed["dir"])
    check(cache_dir.parent == first.runner_temp, "the cache is kept outside the workspace", lint)
    check((cache_dir / "results.json").is_file(), "the run stored its results", lint)
    check(not (first.workspace / ".confvet-cache").exists(), "nothing is written in the workspace")
    check(keyed["key"].startswith(keyed["restore-keys"]), f"the key extends the restore prefix: {keyed}")
    check(crate_version() in keyed["key"], f"the key names confvet's version: {keyed}")
    for step in ("Restore the confvet cache", "Save the confvet cache"):
        check(first.condition(first.step(step)), f"{step} runs")
        check(first.with_(step)["path"] == keyed["dir"], f"{step} keeps the cache directory")
    check(first.with_("Restore the confvet cache")["restore-keys"] == keyed["restore-keys"], "restore by prefix")

    # The next run restores it (what actions/cache does) and reports the same.
    second = job("second")
    shutil.copytree(cache_dir, second.runner_temp / "confvet-cache")
    again, _ = second.lint()
    check(second.outputs["cache-key"]["restore-keys"] == keyed["restore-keys"], "the same prefix")
    check(annotations(again.stdout, "error") == annotations(lint.stdout, "error"), "the same findings", again)

    # A changed configuration is another cache.
    third = job("third")
    write(third.workspace, {".confvet.yaml": "rules:\n  ytt/validation: warning\n"})
    third.lint()
    check(third.outputs["cache-key"]["restore-keys"] != keyed["restore-keys"], "the configuration keys the cache")

    off = job("off", {"cache": "false"})
    off.lint()
    check("cache-key" not in off.outputs, "no key without the cache")
    check(not off.condition(off.step("Save the confvet cache")), "nothing is saved")
    check(not (off.runner_temp / "confvet-cache").exists(), "nothing is cached", None)
    check(not (off.workspace / ".confvet-cache").exists(), "nothing is written in the workspace")


def test_cache_key_follows_the_source(tmp):
    action_copy = tmp / "action-source"
    for name in ("src", "action"):
        shutil.copytree(ROOT / name, action_copy / name)
    for name in ("Cargo.toml", "Cargo.lock"):
        shutil.copy(ROOT / name, action_copy / name)

    def key(label):
        job = ActionRun(
            tmp / label, {"version": "source"}, path=path_without("confvet"), action_path=action_copy
        )
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
