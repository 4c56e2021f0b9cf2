import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerApi(_program: Command, _ctx: CommandContext): void {}
