"""The Python wheel (python/confvet): built with maturin as the release
workflow builds it (with the dev profile here, which reuses `cargo build`'s
dependencies), installed from the wheel alone into a fresh virtual
environment, then run: `confvet --version`, and a lint of examples/ that
reports the examples' deliberate errors. The wheel stays in WHEEL_DIR for
precommit_test.py. Also the root package that pre-commit installs for the
`confvet` hook: its build backend gives it Cargo.toml's version and makes it
require the wheel of that very version.
"""

import importlib.util
import os
import shutil
import sys
import time
import zipfile

from common import (
    ROOT,
    VENV_BIN,
    WHEEL_DIR,
    TempDir,
    check,
    crate_version,
    run,
)


def build_wheel():
    shutil.rmtree(WHEEL_DIR, ignore_errors=True)
    start = time.monotonic()
    proc = run(
        [VENV_BIN / "maturin", "build", "--profile", "dev", "--out", WHEEL_DIR],
        cwd=ROOT / "python" / "confvet",
    )
    check(proc.returncode == 0, "maturin builds the wheel", proc)
    wheels = list(WHEEL_DIR.glob("confvet-*.whl"))
    check(len(wheels) == 1, f"one wheel: {wheels}", proc)
    check(
        wheels[0].name.startswith(f"confvet-{crate_version()}-py3-none-"),
        f"the wheel has the crate's version: {wheels[0].name}",
    )
    print(f"ok maturin build: {wheels[0].name} in {time.monotonic() - start:.0f} s")


def test_installed_wheel_runs(tmp):
    start = time.monotonic()
    proc = run([sys.executable, "-m", "venv", "--without-pip", tmp / "venv"])
    check(proc.returncode == 0, "a fresh virtual environment", proc)
    # Without a pip of its own (faster): the integration venv's pip installs
    # into it, from the wheel alone.
    proc = run(
        [
            VENV_BIN / "python",
            "-m",
            "pip",
            "--python",
            tmp / "venv" / "bin" / "python",
            "install",
            "--no-index",
            "--find-links",
            WHEEL_DIR,
            "--disable-pip-version-check",
            "confvet",
        ]
    )
    check(proc.returncode == 0, "pip installs the wheel", proc)
    installed = time.monotonic() - start
    confvet = tmp / "venv" / "bin" / "confvet"
    proc = run([confvet, "--version"])
    check(
        proc.returncode == 0 and proc.stdout.strip() == f"confvet {crate_version()}",
        "the installed confvet runs",
        proc,
    )
    proc = run([confvet, "lint", "examples/"], cwd=ROOT)
    check(proc.returncode == 1, "the examples' deliberate errors fail the lint", proc)
    for finding in [
        "error[ytt/validation]",
        "--> examples/shop/config/values.yml",
        "error[kubevirt/validation]",
        "--> examples/kubevirt/web-01.yaml",
        "error[tekton/param-reference]",
        "--> examples/tekton/build-task.yaml",
    ]:
        check(finding in proc.stdout, f"the lint reports {finding}", proc)
    print(f"ok the wheel installs ({installed:.1f} s) and lints examples/")


def test_pre_commit_package_follows_the_crate(tmp):
    path = ROOT / "python" / "shim" / "confvet_shim_backend.py"
    spec = importlib.util.spec_from_file_location("confvet_shim_backend", path)
    backend = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(backend)
    cwd = os.getcwd()
    os.chdir(ROOT)  # where pip runs the backend
    try:
        name = backend.build_wheel(str(tmp))
    finally:
        os.chdir(cwd)
    version = crate_version()
    check(name == f"confvet_pre_commit-{version}-py3-none-any.whl", f"the shim's wheel: {name}")
    with zipfile.ZipFile(tmp / name) as whl:
        metadata = whl.read(f"confvet_pre_commit-{version}.dist-info/METADATA").decode()
        names = whl.namelist()
    check(f"\nVersion: {version}\n" in metadata, f"the shim has Cargo.toml's version:\n{metadata}")
    check(
        f"\nRequires-Dist: confvet=={version}\n" in metadata,
        f"the shim requires the wheel of that version:\n{metadata}",
    )
    check(all(".dist-info/" in n for n in names), f"the shim installs no file: {names}")
    print("ok the pre-commit package has the crate's version and requires its wheel")


def main():
    build_wheel()
    for test in (test_installed_wheel_runs, test_pre_commit_package_follows_the_crate):
        with TempDir() as tmp:
            test(tmp)


if __name__ == "__main__":
    main()
