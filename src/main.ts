// `petstore --version` never gets here: bin/petstore answers it. The CLI itself is imported lazily,
// so dist/main.js stays one small file.

/** The real process: wires stdio, env and signals, and is the only place that exits. */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { InterruptedError, SIGNAL_EXIT, run, systemClock } = await import('./cli.js');
  const controller = new AbortController();
  let interrupts = 0;
  // Ctrl-C, a CI runner's SIGTERM and a closed terminal's SIGHUP all stop the run gracefully; the
  // exit code says which (130, 143, 129).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      interrupts++;
      // A second signal means "now": skip the graceful wind-down.
      if (interrupts > 1) process.exit(SIGNAL_EXIT[signal]);
      controller.abort(new InterruptedError('interrupted', { signal }));
    });
  }
  const code = await run(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: () => process.stdin,
    stdinIsTTY: () => process.getBuiltinModule('node:tty').isatty(0),
    env: process.env,
    clock: systemClock,
    signal: controller.signal,
  });
  // Let stdout drain to a pipe before exiting, so no data is cut off.
  process.exitCode = code;
  if (process.stdout.writableNeedDrain) await new Promise((r) => process.stdout.once('drain', r));
  process.exit(code);
}
