import type { Command } from 'commander';
import type { SHELLS } from '../flag-values.js';
import { bashScript, zshScript } from './posix.js';
import { fishScript } from './fish.js';
import { completionSpec, type CompletionSpec } from './model.js';
import { powerShellScript } from './powershell.js';

export { SHELLS } from '../flag-values.js';
export type Shell = (typeof SHELLS)[number];

const SCRIPTS: Record<Shell, (spec: CompletionSpec) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript, powershell: powerShellScript };

export function completionScript(shell: Shell, program: Command): string {
  return SCRIPTS[shell](completionSpec(program));
}
