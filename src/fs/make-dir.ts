// mkdirSync(dir, { recursive: true }) never returns (Node 20 to 24) when a folder on the way exists and
// making one in it fails with ENOENT (/proc/self/x; a file system that refuses new folders that way):
// it makes the parent (EEXIST), tries the child again (ENOENT), and so on, at full CPU and inside one
// call, so not even SIGTERM's handler runs. Here each level is tried once: a second ENOENT is an error.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Makes `dir` and any missing parents with `mode`, like mkdirSync(dir, { recursive: true, mode }):
 * answers the first folder it made (undefined when `dir` was already there), and throws the system's
 * error (its code: ENOTDIR, EACCES, EEXIST for a file in the way, ENOENT…) when it cannot.
 */
export function makeDir(dir: string, mode: number): string | undefined {
  const path = resolve(dir);
  try {
    mkdirSync(path, { mode });
    return path;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(path).isDirectory()) return undefined;
    const parent = dirname(path);
    if (code !== 'ENOENT' || parent === path) throw error;
    const first = makeDir(parent, mode);
    mkdirSync(path, { mode });
    return first ?? path;
  }
}
