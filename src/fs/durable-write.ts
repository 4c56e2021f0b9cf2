// Replacing a file so that a crash at any instant leaves the old content or the new, never a part: the one rule
// for config.json, the seeding journal's copies and the sandbox's data file.
import { closeSync, fchmodSync, fdatasyncSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function syncFolder(path: string): void {
  try {
    const fd = openSync(dirname(path), 'r');
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse to sync a folder; the file's own data is still synced.
  }
}

// Written under `temporary`, fdatasynced, renamed over `path`, folder synced; `mode` exact; a failure removes `temporary`.
export function replaceDurably(path: string, content: string | Buffer, temporary: string, mode?: number): void {
  try {
    const fd = openSync(temporary, 'w', mode ?? 0o666);
    try {
      if (mode !== undefined) fchmodSync(fd, mode);
      writeFileSync(fd, content);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // Never made.
    }
    throw error;
  }
  syncFolder(path);
}
