import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { missingTool } from './tools.js';

/**
 * A 16 KiB tmpfs at `dir` (made if missing): a real disk that fills up. True when mounted; false when
 * this process may not mount one (it takes root with CAP_SYS_ADMIN): the caller skips, through
 * missingTool, which fails instead under CI.
 */
export function mountTiny(dir: string): boolean {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
}

/** Unmounts what mountTiny mounted at `dir` (if it did) and removes the folder. */
export function unmountTiny(dir: string, mounted: boolean): void {
  if (mounted) spawnSync('umount', [dir], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A 16 KiB tmpfs at `where()` for the calling describe block: mounted before its tests, removed after.
 * `skipped(ctx)` skips a test (through missingTool) when it could not be mounted.
 */
export function useTinyTmpfs(where: () => string): { readonly dir: string; skipped: (ctx: { skip: () => void }) => boolean } {
  let dir = '';
  let mounted = false;
  beforeAll(() => {
    dir = where();
    mounted = mountTiny(dir);
  });
  afterAll(() => unmountTiny(dir, mounted));
  return {
    get dir() {
      return dir;
    },
    skipped(ctx) {
      if (!missingTool('a tmpfs mount (mount, as root)', mounted)) return false;
      ctx.skip();
      return true;
    },
  };
}
