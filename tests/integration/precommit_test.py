"""The pre-commit hooks (.pre-commit-hooks.yaml), run by pre-commit itself.

The project's working tree (tracked and untracked files, not ignored ones) is
copied into a fresh git repository, so the hooks are tested as they stand,
committed or not. Other temporary repositories hold a ytt package; a changed
values file is staged and a hook runs on it: a value that breaks the
schema's rule must fail with the finding in the output, a good one must
pass; with `args: [--fix]` a fixable file is fixed, and the commit stops
until the fix is staged. `confvet-system` runs the debug binary on PATH, through
`pre-commit try-repo` of the copy. `confvet` (language: python) runs
through `pre-commit try-repo` and from the README's `.pre-commit-config.yaml`
pointed at the copy, with no cargo nor rustc on PATH and pip limited to
the wheel wheel_test.py built (PIP_NO_INDEX, PIP_FIND_LINKS: the wheel
stands in for PyPI; the root package's build needs nothing else).
`confvet-source` (language: rust): pre-commit builds it with
`cargo install` as it does for every user, once for both runs, into the
project's target directory so that later test runs reuse the dependencies'
build.
"""

import os
import shutil
import time

from common import (
    DEBUG_BIN,
    ROOT,
    SCHEMA,
    VENV_BIN,
    WHEEL_DIR,
    TempDir,
    check,
    path_without,
    readme_example,
    run,
    values,
    write,
)

PRE_COMMIT = VENV_BIN / "pre-commit"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "confvet test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "confvet test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def git(repo, *args):
    proc = run(["git", *args], cwd=repo, env={**os.environ, **GIT_IDENTITY})
    check(proc.returncode == 0, f"git {' '.join(args)}", proc)
    return proc.stdout


def snapshot(dest):
    """The working tree as a new git repository with one commit."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT)
    check(listed.returncode == 0, "git ls-files", listed)
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():  # not deleted in the working tree
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "snapshot")
    return dest


def project(dest):
    """A repository with a committed ytt package and an unrelated YAML file."""
    write(
        dest,
        {
            "deploy/pkg/schema.yml": SCHEMA,
            "deploy/pkg/values.yml": values(2),
            "other.yml": "a: 1\n",
        },
    )
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "package")
    return dest


def check_hook(repo, hook, run_hook):
    """A staged values file that breaks its schema fails, a good one passes."""
    write(repo, {"deploy/pkg/values.yml": values(50)})
    git(repo, "add", "deploy/pkg/values.yml")
    bad = run_hook()
    check(bad.returncode == 1, f"{hook}: a staged values file that breaks its schema fails", bad)
    check(
        "error[ytt/validation]: replicas must be a value <= 10, found 50" in bad.stdout,
        f"{hook}: the finding is in the output",
        bad,
    )
    check(
        "--> deploy/pkg/values.yml:3:11" in bad.stdout,
        f"{hook}: at the value's line and column",
        bad,
    )

    write(repo, {"deploy/pkg/values.yml": values(5)})
    git(repo, "add", "deploy/pkg/values.yml")
    good = run_hook()
    check(good.returncode == 0, f"{hook}: a good values file passes", good)
    check("Passed" in good.stdout, f"{hook}: pre-commit reports the hook passed", good)


def check_try_repo(hooks, hook, repo, env):
    """check_hook with `pre-commit try-repo` of the copy `hooks`; returns the seconds taken."""
    start = time.monotonic()
    check_hook(repo, hook, lambda: run([PRE_COMMIT, "try-repo", hooks, hook], cwd=repo, env=env))
    return time.monotonic() - start


def readme_config(hooks):
    """The README's .pre-commit-config.yaml, pointed at the copy `hooks`."""
    config = readme_example("pre-commit-config")
    for placeholder, value in [
        ("https://github.com/confvet/confvet", str(hooks)),
        ("v0.1.0", git(hooks, "rev-parse", "HEAD").strip()),
    ]:
        check(placeholder in config, f"the README's config names {placeholder}")
        config = config.replace(placeholder, value)
    return config


def main():
    with TempDir() as tmp:
        proc = run([PRE_COMMIT, "validate-manifest", ROOT / ".pre-commit-hooks.yaml"])
        check(proc.returncode == 0, ".pre-commit-hooks.yaml is a valid manifest", proc)
        config = tmp / "pre-commit-config.yaml"
        config.write_text(readme_example("pre-commit-config"))
        proc = run([PRE_COMMIT, "validate-config", config])
        check(proc.returncode == 0, "the README's .pre-commit-config.yaml is valid", proc)
        print("ok manifest and README config")

        hooks = snapshot(tmp / "confvet")
        env = {**os.environ, "PRE_COMMIT_HOME": str(tmp / "pre-commit-home")}

        # try-repo of the copy, with the debug binary on PATH.
        system_env = {**env, "PATH": f"{DEBUG_BIN}{os.pathsep}{env['PATH']}"}
        check_try_repo(hooks, "confvet-system", project(tmp / "try-repo"), system_env)
        print("ok confvet-system with pre-commit try-repo")

        # The prebuilt wheel, without a Rust toolchain and without PyPI.
        wheels = list(WHEEL_DIR.glob("confvet-*.whl"))
        check(len(wheels) == 1, f"wheel_test.py built the wheel into {WHEEL_DIR}: {wheels}")
        python_env = {
            **env,
            "PATH": path_without("cargo", "rustc", "confvet"),
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(WHEEL_DIR),
        }
        check(
            not any(shutil.which(p, path=python_env["PATH"]) for p in ("cargo", "rustc", "confvet")),
            "no cargo, rustc nor confvet on the hook's PATH",
        )
        took = check_try_repo(hooks, "confvet", project(tmp / "try-repo-python"), python_env)
        print(
            "ok confvet (language: python, the wheel) with pre-commit try-repo,"
            f" installed and run twice in {took:.1f} s"
        )

        # The README's config, as a user has it (the same hook).
        repo = project(tmp / "config")
        write(repo, {".pre-commit-config.yaml": readme_config(hooks)})
        git(repo, "add", ".pre-commit-config.yaml")
        git(repo, "commit", "-q", "-m", "pre-commit")
        check_hook(repo, "confvet", lambda: run([PRE_COMMIT, "run"], cwd=repo, env=python_env))
        print("ok confvet from the README's config")

        # The docs hook writes the Markdown reference, and again when the
        # schema changes; pre-commit fails while the file is not staged.
        repo = project(tmp / "schema-docs")
        docs_config = (
            f"repos:\n- repo: {hooks}\n  rev: {git(hooks, 'rev-parse', 'HEAD').strip()}\n"
            "  hooks:\n  - id: confvet-schema-docs\n"
            "    args: [deploy/pkg, --output, deploy/VALUES.md]\n"
        )
        write(repo, {".pre-commit-config.yaml": docs_config})
        git(repo, "add", ".pre-commit-config.yaml")
        # The first run writes the file (a new file is not a change to git).
        first = run([PRE_COMMIT, "run"], cwd=repo, env=python_env)
        check(first.returncode == 0, "confvet-schema-docs: the first run writes the reference", first)
        reference = (repo / "deploy/VALUES.md").read_text()
        check("| `replicas` | integer | `2` |" in reference, "the reference lists replicas", first)
        git(repo, "add", "deploy/VALUES.md")
        again = run([PRE_COMMIT, "run"], cwd=repo, env=python_env)
        check(again.returncode == 0, "confvet-schema-docs: an up-to-date reference passes", again)
        write(repo, {"deploy/pkg/schema.yml": SCHEMA.replace("replicas: 2", "replicas: 3")})
        git(repo, "add", "deploy/pkg/schema.yml")
        stale = run([PRE_COMMIT, "run"], cwd=repo, env=python_env)
        check(stale.returncode == 1, "confvet-schema-docs: a schema change rewrites the reference", stale)
        check("files were modified by this hook" in stale.stdout, "pre-commit saw the change", stale)
        check("`3`" in (repo / "deploy/VALUES.md").read_text(), "the new default is in it", stale)
        print("ok confvet-schema-docs keeps the reference up to date")

        # `args: [--fix]`, as the integration docs give it: the hook fixes
        # the staged file, and pre-commit stops the commit until the fixed
        # file is staged.
        repo = project(tmp / "fix")
        fix_config = (
            f"repos:\n- repo: {hooks}\n  rev: {git(hooks, 'rev-parse', 'HEAD').strip()}\n"
            "  hooks:\n  - id: confvet-system\n    args: [--fix]\n"
        )
        write(repo, {".pre-commit-config.yaml": fix_config})
        git(repo, "add", ".pre-commit-config.yaml")
        write(repo, {"deploy/pkg/values.yml": "# production\n" + values(5)})
        git(repo, "add", "deploy/pkg/values.yml")
        fixed = run([PRE_COMMIT, "run"], cwd=repo, env=system_env)
        check(fixed.returncode == 1, "confvet --fix: the commit stops while the fix is not staged", fixed)
        check("files were modified by this hook" in fixed.stdout, "pre-commit saw the fix", fixed)
        text = (repo / "deploy/pkg/values.yml").read_text()
        check(text.startswith("#! production\n"), f"the plain comment became a ytt comment: {text!r}", fixed)
        git(repo, "add", "deploy/pkg/values.yml")
        again = run([PRE_COMMIT, "run"], cwd=repo, env=system_env)
        check(again.returncode == 0, "confvet --fix: the fixed file passes", again)
        print("ok confvet-system with args: [--fix] fixes the staged file")

        # The source build: pre-commit builds the hook once (cargo install)
        # and keeps it in PRE_COMMIT_HOME for both runs.
        rust_env = {**env, "CARGO_TARGET_DIR": str(ROOT / "target")}
        took = check_try_repo(hooks, "confvet-source", project(tmp / "try-repo-source"), rust_env)
        print(f"ok confvet-source (language: rust) with pre-commit try-repo, built in {took:.0f} s")


if __name__ == "__main__":
    main()
