#!/usr/bin/env python3
"""Benchmark of `confvet server` against the goals of its issue, on a
workspace (the corpus copied 10x: scripts/corpus-copies.sh 10 DIR):

- initialize to the first diagnostics of an opened file;
- a keystroke (an edit of one line) to its new diagnostics, in a Tekton
  file and in a template of a corpus ytt package (p50/p95 of N edits);
- a keystroke typing a catalog Pipeline's metadata.name, which the
  Tekton files' grouping reads (p50/p95 of N edits, typed at once after
  opening it, while the workspace's navigators' index is built);
- server memory (VmHWM, VmRSS) after opening 50 files across packages;
- hover and definition answers (p50/p95).

With --big-document MB instead, no workspace: memory (VmHWM) of the server
on one ytt template of MB megabytes in a package of its own, after
opening it and after each of five edits made as soon as the folder is
indexed (the goal: under 300 MB for 5 MB).

Run by hand, never in tests:
  cargo build --release && scripts/bench-server.py DIR [--bin B] [--edits N]
  scripts/bench-server.py --big-document 5 [--bin B]
"""
import argparse, json, os, random, subprocess, sys, tempfile, time
from pathlib import Path


class Client:
    def __init__(self, argv, root):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=root)
        self.next_id = 0
        self.pending = []

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def receive(self):
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("the server closed its output")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message
            if message.get("method") and "id" in message:  # a request to the client
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            else:
                self.pending.append(message)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics_for(self, uri, version):
        """Wait for the diagnostics of `uri` at `version` (or later)."""
        while True:
            for i, message in enumerate(self.pending):
                params = message.get("params", {})
                if (message.get("method") == "textDocument/publishDiagnostics"
                        and params.get("uri") == uri
                        and (version is None or (params.get("version") or 0) >= version)):
                    del self.pending[i]
                    return params["diagnostics"]
            message = self.receive()
            if message.get("method") and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            else:
                self.pending.append(message)

    def memory(self):
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        return {k: int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM")}


def uri(path):
    return "file://" + str(path)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def ms(values):
    return (f"p50 {percentile(values, 50) * 1000:.1f} ms, p95 {percentile(values, 95) * 1000:.1f} ms,"
            f" max {max(values) * 1000:.1f} ms (n={len(values)})")


def big_document(binary, megabytes):
    """The server's memory on one big ytt template, edited as soon as its
    folder is indexed (when the navigators' index is built beside it)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        (root / "values.yml").write_text("#@data/values\n---\nbase: 1\n")
        lines = ["#@ load(\"@ytt:data\", \"data\")\n---\nitems:\n"]
        size, i = 0, 0
        while size < megabytes * 1_000_000:
            line = (f"- name: item-{i}\n  value: #@ data.values.base + {i}\n"
                    f"  labels: {{app: x{i}, tier: \"t{i % 7}\"}}\n")
            lines.append(line)
            size += len(line)
            i += 1
        text = "".join(lines)
        template = root / "big.yml"
        template.write_text(text)
        client = Client([binary, "server"], root)
        client.request("initialize", {"processId": os.getpid(), "rootUri": uri(root), "capabilities": {}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(template), "languageId": "yaml", "version": 1, "text": text}})
        client.diagnostics_for(uri(template), None)
        print(f"{len(text) / 1e6:.1f} MB document opened: {client.memory()} MB")
        while not any("indexed" in json.dumps(m) for m in client.pending):
            client.pending.append(client.receive())
        for version in range(2, 7):
            text += f"#! edit {version}\n"
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri(template), "version": version},
                                                     "contentChanges": [{"text": text}]})
            client.diagnostics_for(uri(template), None)
            print(f"after edit {version - 1}: {client.memory()} MB")
        client.proc.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace", type=Path, nargs="?")
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / "target/release/confvet"))
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--big-document", type=float, metavar="MB")
    args = parser.parse_args()
    args.bin = str(Path(args.bin).resolve())
    if args.big_document:
        return big_document(args.bin, args.big_document)
    if args.workspace is None:
        parser.error("a workspace, or --big-document MB")
    root = args.workspace.resolve()
    tekton = root / "copy1/tekton/tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-param-array-indexing.yaml"
    package = root / "copy1/ytt/kadras-io__package-for-contour/package/config"
    template = sorted(p for p in package.iterdir() if p.suffix in (".yml", ".yaml") and "#@" in p.read_text() and "data.values" in p.read_text())[0]
    started = time.perf_counter()
    client = Client([args.bin, "server"], root)
    client.request("initialize", {"processId": os.getpid(), "rootUri": uri(root), "capabilities": {
        "textDocument": {"publishDiagnostics": {"versionSupport": True}}}})
    client.notify("initialized", {})
    text = tekton.read_text()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(tekton), "languageId": "yaml", "version": 1, "text": text}})
    client.diagnostics_for(uri(tekton), 1)
    print(f"initialize to first diagnostics (Tekton file): {(time.perf_counter() - started) * 1000:.0f} ms")

    def keystrokes(path, text, anchor):
        times = []
        version = 1
        if path != tekton:
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": "yaml", "version": 1, "text": text}})
            client.diagnostics_for(uri(path), 1)
        for i in range(args.edits):
            version += 1
            # One character typed at the end of a comment line.
            edited = text + f"# edit {i}\n"
            begin = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version},
                                                     "contentChanges": [{"text": edited}]})
            client.diagnostics_for(uri(path), version)
            times.append(time.perf_counter() - begin)
        return times

    print("keystroke, Tekton file:", ms(keystrokes(tekton, text, None)))

    # The name of a Pipeline typed, one letter more at each keystroke.
    pipeline = root / "copy1/tekton/tektoncd-catalog/pipeline/buildpacks/0.2/buildpacks.yaml"
    pipeline_text = pipeline.read_text()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(pipeline), "languageId": "yaml", "version": 1, "text": pipeline_text}})
    client.diagnostics_for(uri(pipeline), 1)
    times = []
    for i in range(args.edits):
        renamed = pipeline_text.replace("  name: buildpacks\n", "  name: buildpacks-" + "abcdefgh"[: i % 8 + 1] + "\n", 1)
        begin = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri(pipeline), "version": i + 2},
                                                 "contentChanges": [{"text": renamed}]})
        client.diagnostics_for(uri(pipeline), i + 2)
        times.append(time.perf_counter() - begin)
    print("keystroke, a Pipeline's metadata.name:", ms(times))
    template_text = template.read_text()
    # ytt rejects plain `#` comments: the edit is a `#!` comment.
    def ytt_keystrokes():
        times = []
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(template), "languageId": "yaml", "version": 1, "text": template_text}})
        client.diagnostics_for(uri(template), 1)
        for i in range(args.edits):
            edited = template_text + f"#! edit {i}\n"
            begin = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri(template), "version": i + 2},
                                                     "contentChanges": [{"text": edited}]})
            client.diagnostics_for(uri(template), i + 2)
            times.append(time.perf_counter() - begin)
        return times
    print(f"keystroke, ytt template ({template.relative_to(root)}):", ms(ytt_keystrokes()))

    # Hover and definition on `data.values.` in the template, and on
    # `$(params.` in the Tekton file.
    def positions(text, needle):
        out = []
        for n, line in enumerate(text.splitlines()):
            column = line.find(needle)
            if column >= 0:
                out.append({"line": n, "character": column + len(needle) + 1})
        return out
    for label, path, text, needle in (("ytt data.values", template, template_text, "data.values."),
                                      ("Tekton $(params.", tekton, text, "$(params.")):
        places = positions(text, needle)
        if not places:
            print(f"hover/definition, {label}: no place found")
            continue
        for method in ("textDocument/hover", "textDocument/definition"):
            times, answered = [], 0
            for i in range(args.edits):
                place = places[i % len(places)]
                begin = time.perf_counter()
                response = client.request(method, {"textDocument": {"uri": uri(path)}, "position": place})
                times.append(time.perf_counter() - begin)
                answered += bool(response.get("result"))
            print(f"{method.split('/')[1]}, {label}: {ms(times)}, {answered} answered")

    # Memory after 50 files across packages.
    files = sorted(p for p in root.glob("copy*/ytt/*/**/*.yml") if p.is_file())
    random.Random(7).shuffle(files)
    opened = 0
    for path in files:
        if opened == 50:
            break
        try:
            content = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        opened += 1
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": "yaml", "version": 1, "text": content}})
        client.diagnostics_for(uri(path), 1)
    print(f"memory after opening {opened} more files: {client.memory()} MB")
    client.request("shutdown", None)
    client.notify("exit", None)
    client.proc.wait(timeout=10)


if __name__ == "__main__":
    main()
