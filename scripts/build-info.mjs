// What `petstore version` (and --version --verbose) prints on its second line: the commit and the
// build date, for telling two builds apart. A clone without git (or a tarball) says "unknown".
import { execFileSync } from 'node:child_process';

/** esbuild's define of __BUILD__ for src/cli.ts, from the git checkout at root. */
export function buildInfoDefine(root) {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || commit;
  } catch {}
  const date = `${new Date().toISOString().slice(0, 19)}Z`;
  return JSON.stringify({ commit, date });
}
