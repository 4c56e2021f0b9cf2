// Tests that need a program outside Node (zsh, fish, openssl, util-linux `script`, the system Node):
// on a developer's machine without it they skip; in CI (CI set) they never skip: a missing tool fails
// the run, naming it, because a skipped test is a test CI did not run (.ci/run installs them).

/**
 * Whether tests needing `tool` should be skipped: `present` is how the caller found out whether it is
 * there. Use as `describe.skipIf(missingTool('zsh', hasShell('zsh')))`. Throws when CI is set and the
 * tool is missing.
 */
export function missingTool(tool: string, present: boolean): boolean {
  if (present) return false;
  if (process.env.CI) {
    throw new Error(`${tool} is missing: with CI set, a test that needs it fails instead of being skipped (see docs/testing.md)`);
  }
  return true;
}
