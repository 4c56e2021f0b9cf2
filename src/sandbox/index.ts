// What the tests and the bench start: the sandbox server in this process.
export { startSandbox } from './server.js';
export type { SandboxHandle } from './server.js';
