// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell code, whose ${...} is the shell's
// Runs the completion scripts in real shells, the way the shells call them on <TAB>, with the built CLI
// (or a stub) as `petstore` on PATH answering `petstore __complete`. Used by the e2e test.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SEP = '\u001e';

export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
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

/** A temp folder with a bin/ for PATH; `petstore` there runs `exec`. */
export function shellSandbox(opts: { exec: string }): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-completion-'));
  const binDir = join(dir, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'petstore'), `#!/bin/sh\n${opts.exec}\n`);
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
