// Marks that a process leaves in a file other processes read (a lock, a rate-limit lease) name it by
// pid and host: whether it is still running can be told only on its own host.
import { hostname } from 'node:os';

/** This host's name as one word without the separators those marks use (a nodename may hold spaces, or be empty). */
export const thisHost = hostname().replace(/[\s@/#~]/g, '_') || 'localhost';

/** Whether a process of this host with this pid exists (under any user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
