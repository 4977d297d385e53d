#!/usr/bin/env python3
"""Import circles between the files of each crate, as a ratchet.

The crates of the workspace (src/ and crates/*/src/) cannot import each
other in a circle: the compiler refuses it. Inside a crate it is allowed,
so this checks the files of each crate.

Each `crate::`, `super::` and `self::` path in a file (in `use` lines and
in code) is resolved to the file of the longest module prefix it names;
files that reach each other through such edges form a circle (a strongly
connected component of more than one file). Data should flow one way, so
no circle may appear: `scripts/import-circles.txt` lists the circles the
code still has, one a line (its files, sorted, space-separated), and this
fails when a circle is not within one listed, or a listed one is gone or
shrank (then update the list: the ratchet only tightens).

    scripts/import-circles.py            check against the list
    scripts/import-circles.py --write    rewrite the list
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def crate_sources():
    """The source folder of each crate: the root's, then crates/*/src."""
    return [SRC] + sorted(p for p in (ROOT / "crates").glob("*/src") if p.is_dir())
LIST = ROOT / "scripts" / "import-circles.txt"

PATH = re.compile(r"\b(crate|super|self)((?:::(?:\{[^;]*?\}|[A-Za-z_][A-Za-z0-9_]*|\*))+)", re.S)


def module_of(file, src):
    """A file's module path, as a list of names (crate root: [])."""
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def file_of(modules, parts):
    """The file of the longest prefix of `parts` that is a module."""
    for n in range(len(parts), -1, -1):
        found = modules.get(tuple(parts[:n]))
        if found is not None:
            return found
    return None


def expand(tail):
    """`::a::{b, c::d}` as [[a, b], [a, c, d]]."""
    tail = tail.lstrip(":")
    if not tail:
        return [[]]
    if tail.startswith("{"):
        depth, items, start = 0, [], 1
        for i, ch in enumerate(tail):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    items.append(tail[start:i])
                    break
            elif ch == "," and depth == 1:
                items.append(tail[start:i])
                start = i + 1
        paths = []
        for item in items:
            item = item.strip().split(" as ")[0].strip()
            if item and item != "self":
                paths.extend(expand("::" + item) if not item.startswith("{") else expand(item))
            elif item == "self":
                paths.append([])
        return paths
    head, _, rest = tail.partition("::")
    return [[head] + p for p in expand(rest)]


def is_binary(file, src):
    """The `confvet` binary's own files: main.rs and its `commands/`."""
    if src != SRC:
        return False
    rel = file.relative_to(src)
    return rel == Path("main.rs") or rel.parts[0] == "commands"


def edges(src):
    files = sorted(src.rglob("*.rs"))
    crates = {True: {}, False: {}}
    for file in files:
        crates[is_binary(file, src)][tuple(module_of(file, src))] = file
    graph = {file: set() for file in files}
    # Names a module takes from another crate (`pub use confvet_ytt::{engine}`
    # in check/ytt/mod.rs): a path through one leaves this crate, so it is
    # no import of a file here.
    foreign = {}
    for file in files:
        text = re.sub(r"//[^\n]*", "", file.read_text())
        names = foreign.setdefault(tuple(module_of(file, src)), set())
        for match in re.finditer(r"\buse\s+([A-Za-z_][A-Za-z0-9_]*)((?:::[^;]*)?);", text, re.S):
            head, tail = match.group(1), match.group(2)
            if head in ("crate", "self", "super", "std", "core", "alloc"):
                continue
            if not tail:
                continue
            if tail.strip().startswith(" as ") or " as " in tail and "{" not in tail:
                names.add(tail.split(" as ")[-1].strip())
            for path in expand(tail):
                if path:
                    names.add(path[-1].split(" as ")[-1].strip())
        for match in re.finditer(r"\buse\s+([A-Za-z_][A-Za-z0-9_]*)\s+as\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", text):
            if match.group(1) not in ("crate", "self", "super"):
                names.add(match.group(2))

    def leaves_crate(path):
        return any(
            len(path) > n and path[n] in foreign.get(tuple(path[:n]), ())
            for n in range(len(path))
        )

    def add(file, modules, path):
        if leaves_crate(path):
            return
        target = file_of(modules, path)
        # Every use counts, a module's use of its own submodules too: a
        # mod.rs that dispatches to its children while they use its types
        # is a circle (the shared types belong in a file of their own).
        if target is not None and target != file:
            graph[file].add(target)

    for file in files:
        modules = crates[is_binary(file, src)]
        text = file.read_text()
        # Unit tests (a module inside the file, where `super` is the file
        # itself) are not the file's imports.
        text = re.split(r"#\[cfg\(test\)\]\s*mod \w+ \{", text)[0]
        # Comments and strings would name paths that are not imports.
        text = re.sub(r"//[^\n]*", "", text)
        text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
        here = module_of(file, src)
        # A child module is named without `self::` (`use data::X` in the
        # mod.rs that declares `mod data`).
        children = [k[-1] for k in modules if len(k) == len(here) + 1 and list(k[:-1]) == here]
        if children:
            bare = re.compile(
                r"(?<![A-Za-z0-9_:])(" + "|".join(map(re.escape, children)) + r")((?:::(?:\{[^;]*?\}|[A-Za-z_][A-Za-z0-9_]*|\*))+)",
                re.S,
            )
            for match in bare.finditer(text):
                for path in expand("::" + match.group(1) + match.group(2)):
                    add(file, modules, here + path)
        if is_binary(file, src):
            for match in re.finditer(r"\bconfvet((?:::(?:\{[^;]*?\}|[A-Za-z_][A-Za-z0-9_]*|\*))+)", text, re.S):
                for path in expand(match.group(1)):
                    target = file_of(crates[False], path)
                    if target is not None:
                        graph[file].add(target)
        # Modules a `use` names (`use super::{kubevirt, tekton};`): code
        # that goes on through them (`tekton::links::f`) imports the file
        # it reaches, which the `use` line alone does not say.
        aliases = {}
        for match in PATH.finditer(text):
            anchor, tail = match.group(1), match.group(2)
            if anchor == "crate":
                base = []
            elif anchor == "self":
                base = here
            else:
                base = here[:-1]
                rest = tail
                while rest.startswith("::super"):
                    base = base[:-1]
                    rest = rest[len("::super"):]
                tail = rest
            for path in expand(tail):
                add(file, modules, base + path)
                if path and tuple(base + path) in modules:
                    aliases[path[-1]] = base + path
        for match in re.finditer(r"\buse\s[^;]*?\bas\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", text):
            aliases.pop(match.group(1), None)
        if aliases:
            through = re.compile(
                r"(?<![A-Za-z0-9_:])(" + "|".join(map(re.escape, aliases)) + r")((?:::[A-Za-z_][A-Za-z0-9_]*)+)"
            )
            for match in through.finditer(text):
                path = aliases[match.group(1)] + match.group(2).lstrip(":").split("::")
                add(file, modules, path)
    return graph


def circles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(str(f.relative_to(ROOT)) for f in component))

    for v in graph:
        if v not in index:
            visit(v)
    return sorted(found)


def main():
    found = sorted(c for src in crate_sources() for c in circles(edges(src)))
    lines = [" ".join(c) for c in found]
    if "--write" in sys.argv:
        LIST.write_text("".join(line + "\n" for line in lines))
        print(f"wrote {len(lines)} circles to {LIST.relative_to(ROOT)}")
        return 0
    known = [set(line.split()) for line in LIST.read_text().splitlines() if line.strip()]
    failed = False
    for circle in found:
        if not any(set(circle) <= k for k in known):
            print("new import circle: " + " <-> ".join(circle), file=sys.stderr)
            failed = True
    for k in known:
        if not any(set(c) == k for c in found):
            print(
                "a listed circle is gone or smaller: run scripts/import-circles.py --write",
                file=sys.stderr,
            )
            print("  was: " + " ".join(sorted(k)), file=sys.stderr)
            failed = True
    files = sum(len(c) for c in found)
    crates = crate_sources()
    read = sum(len(list(src.rglob("*.rs"))) for src in crates)
    print(f"import circles: {len(found)} ({files} files), in {len(crates)} crates of {read} files")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
