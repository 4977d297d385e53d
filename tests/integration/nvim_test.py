"""`confvet server` in a real editor: Neovim, headless, with no user
configuration but the block of docs/editors.md for Neovim 0.7 to 0.10 (an autocmd
that starts the server with `vim.lsp.start_client`, `confvet` found on
PATH), opens a ytt template whose line 4 is an `assert.fail` and waits for
the diagnostic: it must be on that line with the failure's message and its
rule. Then the line is deleted in the buffer (unsaved) and the diagnostic
must go, and the server must stop when Neovim asks it to.

Neovim comes from Debian's `neovim` package (`.ci/run` installs it); without
it the test says it skipped, except in CI (CI or CONFVET_REQUIRE_SHARED=1
set), where it fails.
"""

import json
import os
import subprocess
import sys

from common import DEBUG_BIN, TempDir, check, editor, readme_example, run, write

TEMPLATE = """\
#@ load("@ytt:assert", "assert")
---
kind: Deployment
#@ assert.fail("replicas must be set")
replicas: 2
"""
FAIL_LINE = 3  # 0-based: the template's line 4

# Runs after Neovim has loaded the template: the block of docs/editors.md, then the
# filetype a user's `filetype on` would set, which fires its autocmd.
# Every outcome, an error too, ends in the JSON file and a quit, so a
# failure never leaves Neovim waiting for input.
INIT = """\
local out = os.getenv('CONFVET_NVIM_OUT')
local result = {}
local ok, err = pcall(function()
  dofile(os.getenv('CONFVET_NVIM_README_BLOCK'))
  vim.bo.filetype = 'yaml'
  -- A client is the buffer's once it has initialized.
  vim.wait(10000, function() return next(vim.lsp.buf_get_clients(0)) ~= nil end, 20)
  local _, client = next(vim.lsp.buf_get_clients(0))
  assert(client and client.name == 'confvet', 'confvet is not attached to the buffer')
  result.opened = vim.wait(10000, function() return #vim.diagnostic.get(0) > 0 end, 50)
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(result.diagnostics, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, severity = d.severity,
      message = d.message, source = d.source, code = d.code,
    })
  end
  -- The fix, typed but not saved: the server lints the buffer.
  vim.api.nvim_buf_set_lines(0, 3, 4, false, {})
  result.cleared = vim.wait(10000, function() return #vim.diagnostic.get(0) == 0 end, 50)
  client.stop()
  result.stopped = vim.wait(5000, function() return client.is_stopped() end, 50)
end)
result.error = (not ok) and tostring(err) or nil
local file = assert(io.open(out, 'w'))
file:write(vim.fn.json_encode(result))
file:close()
vim.cmd('qa!')
"""


def main():
    nvim = editor("nvim", "nvim_test", "neovim")
    if nvim is None:
        return
    version = run([nvim, "--version"]).stdout.splitlines()[0]
    with TempDir() as tmp:
        package = tmp / "package"
        write(package, {"template.yaml": TEMPLATE})
        write(tmp, {"init.lua": INIT, "readme.lua": readme_example("neovim-0.7", "docs/editors.md")})
        out = tmp / "result.json"
        env = dict(
            os.environ,
            PATH=os.pathsep.join([str(DEBUG_BIN), os.environ["PATH"]]),
            CONFVET_NVIM_README_BLOCK=str(tmp / "readme.lua"),
            CONFVET_NVIM_OUT=str(out),
            # Neovim's state and LSP log stay in the temporary directory.
            XDG_STATE_HOME=str(tmp / "state"),
            XDG_CACHE_HOME=str(tmp / "cache"),
            XDG_DATA_HOME=str(tmp / "data"),
        )
        command = [nvim, "--headless", "--clean", "-u", "NONE", "template.yaml",
                   "-c", f"luafile {tmp / 'init.lua'}"]
        proc = run(command, cwd=package, env=env, timeout=60, stdin=subprocess.DEVNULL)
        check(out.exists(), f"{version} wrote no result", proc)
        result = json.loads(out.read_text())
        check(result.get("error") is None, f"the Lua init failed: {result.get('error')}", proc)
        check(result["opened"], f"no diagnostic within 10 s: {result}")
        diagnostics = result["diagnostics"]
        check(len(diagnostics) == 1, f"one diagnostic expected: {diagnostics}")
        diagnostic = diagnostics[0]
        check(diagnostic["lnum"] == FAIL_LINE, f"diagnostic not on line 4: {diagnostic}")
        check("replicas must be set" in diagnostic["message"], f"message: {diagnostic}")
        check(diagnostic["code"] == "ytt/template-fail", f"code: {diagnostic}")
        check(diagnostic["source"] == "confvet", f"source: {diagnostic}")
        check(diagnostic["severity"] == 1, f"not an error: {diagnostic}")
        check(result["cleared"], f"the diagnostic stayed after the line was deleted: {result}")
        check(result["stopped"], f"the server did not stop when asked: {result}")
    print(f"{version}: the diagnostic at line 4, gone once the line is deleted; server stopped")


if __name__ == "__main__":
    sys.exit(main())
