#!/usr/bin/env python3
"""Product code returns typed errors: a `Result<_, String>` outside tests
fails CI (docs/development.md, Errors). Test modules (`tests.rs`, and a
file's part after `#[cfg(test)]`) may use them."""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PATTERN = re.compile(r"Result<.*,\s*String>")


def product_lines(path):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip().startswith("#[cfg(test)]"):
            return
        yield number, line


def main():
    sources = [ROOT / "src"] + sorted((ROOT / "crates").glob("*/src"))
    found = []
    for src in sources:
        for path in sorted(src.rglob("*.rs")):
            if path.name == "tests.rs" or "tests" in path.relative_to(src).parts:
                continue
            for number, line in product_lines(path):
                if PATTERN.search(line.split("//")[0]):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    print(f"Result<_, String> in product code: {len(found)}")
    for line in found:
        print(f"  {line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
