import type { Command } from 'commander';
import { SHELLS } from '../flag-values.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionSpec } from './model.js';
import { powerShellScript } from './powershell.js';
import { zshScript } from './zsh.js';

export { SHELLS } from '../flag-values.js';
export type Shell = (typeof SHELLS)[number];

export function isShell(value: string): value is Shell {
  return (SHELLS as readonly string[]).includes(value);
}

export function completionScript(shell: Shell, program: Command): string {
  const spec = completionSpec(program);
  switch (shell) {
    case 'bash':
      return bashScript(spec);
    case 'zsh':
      return zshScript(spec);
    case 'fish':
      return fishScript(spec);
    case 'powershell':
      return powerShellScript(spec);
  }
}
