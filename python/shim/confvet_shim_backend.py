"""A PEP 517 build backend for the root package, `confvet-pre-commit`.

It builds a wheel with metadata only: its version is the crate's (read from
Cargo.toml) and it requires `confvet` of exactly that version, the wheel of
python/confvet. No file is installed but the metadata, so pip installs it
offline in an instant and then fetches `confvet` as any dependency. See the
comment in the root pyproject.toml for why it exists.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

NAME = "confvet-pre-commit"
DIST = NAME.replace("-", "_")


def crate_version(root="."):
    """The `version` of Cargo.toml's [package] table."""
    with open(os.path.join(root, "Cargo.toml"), encoding="utf-8") as cargo:
        text = cargo.read()
    package = re.search(r"^\[package\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    found = package and re.search(r'^version\s*=\s*"([^"]+)"', package.group(1), re.M)
    if not found:
        raise RuntimeError("Cargo.toml has no [package] version")
    return found.group(1)


def metadata(version):
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {version}\n"
        "Summary: Installs the confvet wheel of the same version (for the confvet pre-commit hook)\n"
        "License: MIT\n"
        "Requires-Python: >=3.8\n"
        f"Requires-Dist: confvet=={version}\n"
    )


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def _write_wheel(directory, version, files):
    """files: {dist-info file name: text}; returns the wheel's file name."""
    dist_info = f"{DIST}-{version}.dist-info"
    wheel_name = f"{DIST}-{version}-py3-none-any.whl"
    record = ""
    with zipfile.ZipFile(os.path.join(directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as whl:
        for name, text in files.items():
            data = text.encode()
            whl.writestr(f"{dist_info}/{name}", data)
            record += _record_line(f"{dist_info}/{name}", data)
        record += f"{dist_info}/RECORD,,\n"
        whl.writestr(f"{dist_info}/RECORD", record)
    return wheel_name


def _dist_info_files(version):
    return {
        "METADATA": metadata(version),
        "WHEEL": "Wheel-Version: 1.0\nGenerator: confvet_shim_backend\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = crate_version()
    dist_info = f"{DIST}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for name, text in _dist_info_files(version).items():
        with open(os.path.join(metadata_directory, dist_info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, crate_version(), _dist_info_files(crate_version()))


def build_sdist(sdist_directory, config_settings=None):
    """The files the backend needs: pyproject.toml, Cargo.toml, itself."""
    version = crate_version()
    base = f"{DIST}-{version}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        for path in ("pyproject.toml", "Cargo.toml", "python/shim/confvet_shim_backend.py"):
            sdist.add(path, arcname=f"{base}/{path}")
        info = metadata(version).encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(info)
        sdist.addfile(entry, io.BytesIO(info))
    return name
