"""What the integration tests share: the project root, the tools of the
virtual environment, temporary ytt packages and the README's examples."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The virtual environment's scripts (pre-commit, check-jsonschema).
VENV_BIN = Path(sys.executable).parent
# `cargo build` puts the binary under test here; tests/integration/run.sh builds it.
TARGET_DIR = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
DEBUG_BIN = TARGET_DIR / "debug"
# The `confvet` wheel that wheel_test.py builds; precommit_test.py installs
# the pre-commit hook from it (standing in for PyPI).
WHEEL_DIR = TARGET_DIR / "integration-wheels"

SCHEMA = """\
#@data/values-schema
---
#@schema/validation min=1, max=10
replicas: 2
image: shop
"""


def crate_version():
    """The version in Cargo.toml."""
    return tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]["version"]


def path_without(*programs):
    """PATH without the directories that hold any of `programs`."""
    dirs = os.environ["PATH"].split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not any((Path(d) / p).exists() for p in programs))


def values(replicas):
    return f"#@data/values\n---\nreplicas: {replicas}\n"


def write(root, files):
    """Writes {relative path: text} below root."""
    for name, text in files.items():
        path = Path(root) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run(cmd, **kwargs):
    """Runs cmd and returns the completed process (text, output captured)."""
    return subprocess.run(cmd, check=False, capture_output=True, text=True, **kwargs)


def check(condition, what, proc=None):
    """Fails with `what` and, if given, the process's output."""
    if not condition:
        detail = f"\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}" if proc else ""
        raise AssertionError(f"{what}{detail}")


def editor(program, test, install):
    """The path of an editor a test drives; None, said as a skip, when it
    is not installed here. In CI (`CI`, or `.ci/run`'s
    CONFVET_REQUIRE_SHARED=1) a missing editor fails instead."""
    found = shutil.which(program)
    if found is None:
        if os.environ.get("CI") or os.environ.get("CONFVET_REQUIRE_SHARED") == "1":
            raise AssertionError(f"{program} not found (needed in CI: apt-get install {install})")
        print(f"{test}: SKIPPED, {program} not found: the server was not tried in it")
    return found


def readme_example(marker, page="docs/integrations.md"):
    """The fenced code block that follows `<!-- marker -->` in `page`: by
    default the manual's docs/integrations.md, where the README's
    integrations section lives."""
    text = (ROOT / page).read_text()
    found = re.search(rf"<!-- {re.escape(marker)} -->\s*```[a-z]*\n(.*?)\n```", text, re.DOTALL)
    check(found is not None, f"{page} has no example after <!-- {marker} -->")
    return found.group(1) + "\n"


class TempDir:
    """A temporary directory, removed afterwards unless KEEP_TEMP is set."""

    def __enter__(self):
        self.path = Path(tempfile.mkdtemp(prefix="confvet-integration-"))
        return self.path

    def __exit__(self, *exc):
        if os.environ.get("KEEP_TEMP"):
            print(f"kept {self.path}")
        else:
            shutil.rmtree(self.path, ignore_errors=True)
