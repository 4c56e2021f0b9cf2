import fc from 'fast-check';

// Property tests explore new random inputs on every local run. CI pins the seed so that a landing
// run is reproducible; FC_SEED=<n> replays any run (fast-check prints the seed of a failure).
const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : process.env.CI ? 20261121 : undefined;
if (seed !== undefined) fc.configureGlobal({ seed });
