import { run } from './cli.js';
import { InterruptedError } from './errors/errors.js';
import { ProcessOutput } from './io/stdio.js';
import { SIGNAL_EXIT } from './errors/exit-codes.js';
import { systemClock } from './time/clock.js';

/** Whether stdout and stderr are one pipe or socket (`2>&1 | head -1`): the same file behind fds 1 and 2. */
function sharedPipe(): boolean {
  try {
    const { fstatSync } = process.getBuiltinModule('node:fs');
    const [out, err] = [fstatSync(1), fstatSync(2)];
    return (out.isFIFO() || out.isSocket()) && out.dev === err.dev && out.ino === err.ino;
  } catch {
    return false;
  }
}

/** The real process: wires stdio, env and signals, and is the only place that exits. */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const controller = new AbortController();
  let interrupts = 0;
  // Ctrl-C, a CI runner's SIGTERM and a closed terminal's SIGHUP stop the run gracefully, with exit 130, 143 or 129.
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = () => {
      interrupts++;
      // A second signal means "now": skip the graceful wind-down.
      if (interrupts > 1) process.exit(SIGNAL_EXIT[signal]);
      controller.abort(new InterruptedError('interrupted', { signal }));
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  const code = await run(argv, {
    stdout: new ProcessOutput(1, () => process.stdout),
    stderr: new ProcessOutput(2, () => process.stderr),
    stdin: () => process.stdin,
    stdinIsTTY: () => process.getBuiltinModule('node:tty').isatty(0),
    sharedPipe,
    env: process.env,
    clock: systemClock,
    signal: controller.signal,
  });
  // The process ends on its own once stdout is drained: process.exit() can hang joining V8's worker threads
  // (nodejs/node#54918). The unref'd timer only bounds a handle left open by mistake.
  process.exitCode = code;
  // After a signal the handlers stay: a second one during the wind-down still ends the run at once with its exit code.
  if (interrupts === 0) for (const off of handlers) off();
  setTimeout(() => process.exit(code), 2000).unref();
}
