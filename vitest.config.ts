import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects (docs/testing.md): "fast" is what `npm test` runs, "slow" the soak tests of
// `npm run test:slow`. `npx vitest run <file>` runs that file whichever project holds it.
export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    setupFiles: ['test/setup/fast-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Vitest's default is one worker fewer than the cores: a single worker on a 2-core machine. The
    // end-to-end files spend most of their time waiting on child processes, sockets and rate-limit
    // windows, so one worker more than the cores keeps both busy: 89 -> 77 s on the 2-core machine
    // (VITEST_MAX_WORKERS=n overrides).
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/slow/**'] },
      },
      { extends: true, test: { name: 'slow', include: ['test/slow/**/*.test.ts'] } },
    ],
  },
});
