// Which `confvet` binary the extension starts: kept free of `vscode` so
// that node:test can run it outside the editor (src/test/).

/** The name of the binary a platform-specific .vsix bundles under bin/. */
export function bundledBinaryName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "confvet.exe" : "confvet";
}

/** Where the server's binary comes from. */
export type ServerSource = "setting" | "bundled" | "path";

/**
 * The binary to run: `confvet.path` when it is set (not blank), else the
 * binary bundled in the extension when there is one, else `confvet` as
 * looked up on PATH.
 */
export function resolveServerBinary(
  configured: string | undefined,
  bundled: string,
  exists: (file: string) => boolean,
): { command: string; source: ServerSource } {
  const setting = configured?.trim();
  if (setting) {
    return { command: setting, source: "setting" };
  }
  if (exists(bundled)) {
    return { command: bundled, source: "bundled" };
  }
  return { command: "confvet", source: "path" };
}
