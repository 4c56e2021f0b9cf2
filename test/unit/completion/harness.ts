// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are zsh code, whose ${...} is zsh's
// Runs generated completion scripts in real shells, the way the shells call
// them on <TAB>. Shared by the unit tests (generated in-process, a stub
// `petstore` on PATH for environment names) and the e2e test (the built CLI).

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli.js';
import { shQuote } from '../../../src/completion/model.js';

const SEP = '\u001e';

/** The CLI's command tree, with actions that do nothing. */
export function programTree(): Command {
  return buildProgram({ lazy: () => async () => {} });
}

export function hasShell(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' }).status === 0;
}

export interface Sandbox {
  dir: string;
  /** Goes first on PATH. */
  binDir: string;
  cleanup(): void;
}

/** A temp folder with a bin/ for PATH; `petstore` there prints `envs` for `__complete envs` (or runs `exec`). */
export function shellSandbox(opts: { envs?: string[]; exec?: string } = {}): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-completion-'));
  const binDir = join(dir, 'bin');
  mkdirSync(binDir);
  const body = opts.exec ?? `[ "$1 $2" = "__complete envs" ] && printf '%s\\n' ${(opts.envs ?? ['production', 'staging']).map(shQuote).join(' ')}\nexit 0`;
  writeFileSync(join(binDir, 'petstore'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(binDir, 'petstore'), 0o755);
  return { dir, binDir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function shellEnv(sb: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${sb.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: sb.dir, LANG: 'C', ...extra };
}

function run(cmd: string, args: string[], sb: Sandbox, env?: Record<string, string>): string {
  const r = spawnSync(cmd, args, { cwd: sb.dir, env: shellEnv(sb, env), encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`${cmd} exited ${r.status ?? r.signal}: ${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

function blocks(out: string, count: number): string[][] {
  const parts = out.split(`${SEP}\n`).slice(0, count);
  return parts.map((p) => p.split('\n').filter((l) => l !== ''));
}

/**
 * Completes each command line (the last word is the one being completed, '' for
 * a fresh word) with the bash script, as bash does: COMP_WORDS, COMP_CWORD, then
 * the function registered with `complete -F`. Returns COMPREPLY per line.
 */
export function bashComplete(script: string, lines: string[][], sb: Sandbox, env?: Record<string, string>): string[][] {
  const file = join(sb.dir, 'petstore.bash');
  writeFileSync(file, script);
  const test = [
    `source ${shQuote(file)}`,
    `fn=$(complete -p petstore | sed -E 's/.*-F ([^ ]+) .*/\\1/')`,
    `t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}; COMPREPLY=(); "$fn" petstore "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\\n' "\${COMPREPLY[@]}"; printf '${SEP}\\n'; }`,
    ...lines.map((words) => `t ${words.map(shQuote).join(' ')}`),
  ].join('\n');
  return blocks(run('bash', ['--norc', '--noprofile', '-c', test], sb, env), lines.length);
}

/** fish's own completion engine (`complete -C`) on each command line. Returns the candidates (no descriptions). */
export function fishComplete(script: string, lines: string[], sb: Sandbox, env?: Record<string, string>): string[][] {
  const file = join(sb.dir, 'petstore.fish');
  writeFileSync(file, script);
  const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const test = [`source ${q(file)}`, ...lines.map((l) => `complete -C ${q(l)} | string split -f1 \\t; printf '${SEP}\\n'`)].join('\n');
  return blocks(run('fish', ['--no-config', '-c', test], sb, env), lines.length);
}

/**
 * The zsh script's own logic with the completion system's functions stubbed
 * (compadd, _describe, _files, compset filter by the current word): works
 * without a terminal. Returns the candidates per line.
 */
export function zshCompleteStubbed(script: string, lines: string[][], sb: Sandbox, env?: Record<string, string>): string[][] {
  const file = join(sb.dir, '_petstore');
  writeFileSync(file, script);
  const test = [
    'compdef() { : }',
    'compadd() { while (( $# )) && [[ $1 != -- ]]; do shift; done; shift; local w; for w in "$@"; do [[ $w == ${cur}* ]] && print -r -- $w; done }',
    '_describe() { local name=${@[-1]} i; for i in ${(P)name}; do i=${i%%:*}; [[ $i == ${cur}* ]] && print -r -- $i; done }',
    '_files() { print -r -- __files__ }',
    'compset() { [[ $1 == -P ]] && cur=${cur#*=} }',
    `source ${shQuote(file)}`,
    `t() { words=("$@"); CURRENT=$#; _petstore; printf '${SEP}\\n' }`,
    ...lines.map((words) => `t ${words.map(shQuote).join(' ')}`),
  ].join('\n');
  return blocks(run('zsh', ['-f', '-c', test], sb, env), lines.length);
}

/**
 * Real zsh completion: an interactive zsh in a pseudo-terminal (zpty) with
 * compinit, the script autoloaded from $fpath as _petstore, and <TAB> typed
 * after `line`. compadd is wrapped only to report what the completion system
 * matched. Returns the matches.
 */
export function zshCompleteReal(script: string, line: string, sb: Sandbox, env?: Record<string, string>): string[] {
  const fdir = join(sb.dir, 'zfunc');
  mkdirSync(fdir, { recursive: true });
  writeFileSync(join(fdir, '_petstore'), script);
  const driver = join(sb.dir, 'driver.zsh');
  writeFileSync(
    driver,
    [
      'zmodload zsh/zpty',
      'zpty z zsh -f -i',
      `zpty -w z ${shQuote(`fpath=(${fdir} $fpath); autoload -U compinit; compinit -u -D`)}`,
      `zpty -w z 'bindkey "^I" complete-word; zstyle ":completion:*" insert-tab false'`,
      `zpty -w z 'comppostfuncs=( __done ); __done() { print "\\n<<DONE>>"; exit }'`,
      `zpty -w z 'compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; builtin compadd -A __hits "$@"; local h; for h in $__hits; do echo; print -r -- "MATCH:$h"; done; builtin compadd "$@" }'`,
      `zpty -w z 'print READY'`,
      "zpty -r z out '*READY*'",
      "zpty -r z out '*READY*'",
      `zpty -w -n z ${shQuote(`${line}\t`)}`,
      'out=""',
      "while zpty -r z chunk; do out+=$chunk; [[ $out == *'<<DONE>>'* ]] && break; done",
      "print -r -- ${out//$'\\r'/}",
      'zpty -d z',
    ].join('\n'),
  );
  const out = run('zsh', ['-f', driver], sb, env);
  return out
    .split('\n')
    .filter((l) => l.startsWith('MATCH:'))
    .map((l) => l.slice('MATCH:'.length));
}
