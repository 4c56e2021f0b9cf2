// mkdirSync(dir, { recursive: true }) never returns (Node 20 to 24) when a folder on the way exists and
// making one in it fails with ENOENT (/proc/self/x; a file system that refuses new folders that way):
// it makes the parent (EEXIST), tries the child again (ENOENT), and so on, at full CPU and inside one
// call, so not even SIGTERM's handler runs. Here each level is tried once: a second ENOENT is an error.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The two calls makeDir makes; a test passes its own to stage another process's mkdir in between. */
export interface DirCalls {
  mkdirSync(path: string, options: { mode: number }): unknown;
  statSync(path: string): { isDirectory(): boolean };
}

const NODE_CALLS: DirCalls = { mkdirSync, statSync };

/**
 * Makes `dir` and any missing parents with `mode`, like mkdirSync(dir, { recursive: true, mode }):
 * answers the first folder it made (undefined when `dir` was already there), and throws the system's
 * error (its code: ENOTDIR, EACCES, EEXIST for a file in the way, ENOENT…) when it cannot. A folder
 * that another process makes meanwhile, at any level, counts as already there.
 */
export function makeDir(dir: string, mode: number, calls: DirCalls = NODE_CALLS): string | undefined {
  const path = resolve(dir);
  const made = (): boolean => {
    try {
      calls.mkdirSync(path, { mode });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && calls.statSync(path).isDirectory()) return false;
      throw error;
    }
  };
  try {
    return made() ? path : undefined;
  } catch (error) {
    const parent = dirname(path);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) throw error;
    const first = makeDir(parent, mode, calls);
    return made() ? (first ?? path) : first;
  }
}
