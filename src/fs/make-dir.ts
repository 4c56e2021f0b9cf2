// Not mkdirSync(dir, { recursive: true }): it loops forever inside one call (no signal handler runs) when a
// folder on the way exists and making one in it fails with ENOENT (/proc/self/x). Here each level is tried once.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The two calls makeDir makes; a test passes its own to stage another process's mkdir in between. */
export interface DirCalls {
  mkdirSync(path: string, options: { mode: number }): unknown;
  statSync(path: string): { isDirectory(): boolean };
}

const NODE_CALLS: DirCalls = { mkdirSync, statSync };

// Makes `dir` and missing parents; answers the first folder it made (undefined when `dir`, or another process's, was there).
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
