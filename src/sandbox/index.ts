// Public entry points of the sandbox.
export { startSandbox, generateKey, GET_PET_SUNSET } from './server.js';
export type { SandboxOptions, SandboxHandle, RecordedRequest, SandboxStats, SandboxLimits, InjectedFailure } from './server.js';
export { runSandbox, formatBanner, type SandboxIO } from './run.js';
export { parseSandboxOptions, parseDuration, toSandboxOptions, DEFAULT_PORT, DEFAULT_HOST, type SandboxCommandOptions } from './options.js';
export { ERROR_CODES, SandboxOptionError, SandboxStartError, type ErrorCode } from './errors.js';
export type { Pet, NewPet, PetStatus, Plan } from './types.js';
export { PLAN_LIMITS } from './types.js';
