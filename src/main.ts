// `petstore --version` never gets here: bin/petstore answers it. The CLI itself is imported lazily,
// so dist/main.js stays one small file.

/** The real process: wires stdio, env and Ctrl-C, and is the only place that exits. */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { InterruptedError, ExitCode, run, systemClock } = await import('./cli.js');
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    // A second Ctrl-C means "now": skip the graceful wind-down.
    if (interrupts > 1) process.exit(ExitCode.interrupted);
    controller.abort(new InterruptedError());
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
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
