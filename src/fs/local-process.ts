// A lock or a rate-limit lease names its process by pid and host: whether it runs can be told only on its own host.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export const thisHost = hostname().replace(/[\s@/#~]/g, '_') || 'localhost';

/** Whether a process of this host with this pid runs (under any user). A zombie (killed, not reaped) holds nothing. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  return !zombie(pid);
}

function zombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}
