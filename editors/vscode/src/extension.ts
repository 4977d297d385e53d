// Starts `confvet server` (the language server over stdio) for YAML and
// Starlark files: its diagnostics and quick fixes come through
// vscode-languageclient, which also reads `confvet.trace.server`. The
// binary is `confvet.path`, else the one a platform-specific .vsix bundles
// in bin/, else `confvet` on PATH.
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { bundledBinaryName, resolveServerBinary } from "./server-path";

let client: LanguageClient | undefined;

/** The server's command line from the settings as they are now. */
function serverCommand(context: vscode.ExtensionContext): { command: string; args: string[] } {
  const config = vscode.workspace.getConfiguration("confvet");
  const bundled = context.asAbsolutePath(`bin/${bundledBinaryName(process.platform)}`);
  const { command } = resolveServerBinary(config.get<string>("path"), bundled, fs.existsSync);
  return { command, args: ["server", ...config.get<string[]>("args", [])] };
}

async function start(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<void> {
  const { command, args } = serverCommand(context);
  log.info(`starting ${command} ${args.join(" ")}`);
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    // The server lints files with their unit on disk: `file:` documents only.
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "file", language: "starlark" },
      { scheme: "file", pattern: "**/*.star" },
    ],
    // One channel for every server this window starts, so that a restart
    // does not add another "confvet" to the Output view.
    outputChannel: log,
  };
  const started = new LanguageClient("confvet", "confvet", serverOptions, clientOptions);
  client = started;
  try {
    await started.start();
  } catch (error) {
    void vscode.window.showErrorMessage(
      `confvet: could not start \`${command} server\` (${String(error)}). ` +
        "Set `confvet.path` to the confvet binary, or install the extension's .vsix for your platform, which bundles it.",
    );
  }
}

async function stop(log: vscode.LogOutputChannel): Promise<void> {
  const running = client;
  client = undefined;
  // A client whose start failed has no server to stop (and stop() throws).
  if (running?.isRunning()) {
    try {
      await running.stop();
    } catch (error) {
      log.error(`stopping the server failed: ${String(error)}`);
    }
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel("confvet", { log: true });
  const restart = async (): Promise<void> => {
    await stop(log);
    await start(context, log);
  };
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand("confvet.restartServer", restart),
    // A new binary or new arguments take a new server.
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("confvet.path") || event.affectsConfiguration("confvet.args")) {
        void restart();
      }
    }),
  );
  await start(context, log);
}

export async function deactivate(): Promise<void> {
  const running = client;
  client = undefined;
  if (running?.isRunning()) {
    await running.stop();
  }
}
