// bash and zsh completion scripts, generated from the command tree (see model.ts): the same functions and walk
// over the typed words, each shell offering its candidates its own way.

import { allCommands, type CompletionSpec, fnName, flagNames, shortDescription, shQuote, subcommandWords, type ValueSource } from './model.js';

type Posix = 'bash' | 'zsh';

/** The code that offers a value's candidates; undefined when there are none. */
function valuesCode(shell: Posix, source: ValueSource, fn: string): string | undefined {
  const bash = shell === 'bash';
  if (source.kind === 'words')
    return bash ? `COMPREPLY=($(compgen -W ${shQuote(source.words.join(' '))} -- "$cur"))` : `compadd -- ${source.words.map(shQuote).join(' ')}`;
  if (source.kind === 'envs') return bash ? `COMPREPLY=($(compgen -W "$(__${fn}_envs)" -- "$cur"))` : `compadd -- \${(f)"$(__${fn}_envs)"}`;
  if (source.kind === 'files') return bash ? `__${fn}_files` : '_files';
  return undefined;
}

/** The items of a flag or subcommand list: words for bash, "word:description" for zsh's _describe. */
function items(shell: Posix, list: { word: string; description: string }[]): string {
  const item = (i: { word: string; description: string }) => (shell === 'bash' ? i.word : `${i.word.replace(/:/g, '\\:')}:${shortDescription(i.description)}`);
  return `items=(${list.map((i) => shQuote(item(i))).join(' ')})`;
}

/** The functions the bash and zsh scripts share word for word; `offer` shows the items of a list. */
function sharedShellFunctions(spec: CompletionSpec, fn: string, arms: ReturnType<typeof shellCaseArms>, offer: string): string {
  return `__${fn}_envs() {
  ${spec.envsCall.map(shQuote).join(' ')} 2>/dev/null
}

# __${fn}_child PATH WORD: sets REPLY to the subcommand WORD names below PATH (or empty).
__${fn}_child() {
  REPLY=
  case "$1" in
${arms.child.join('\n')}
  esac
}

# __${fn}_takes_value PATH FLAG: succeeds when FLAG of the command at PATH takes a value.
__${fn}_takes_value() {
  case "$1" in
${arms.valueFlag.join('\n')}
  esac
  return 1
}

# __${fn}_values PATH FLAG / __${fn}_values PATH "#INDEX": completes the value of FLAG or of positional argument INDEX.
__${fn}_values() {
  case "$1|$2" in
${arms.value.join('\n')}
  esac
}

# __${fn}_list KIND PATH: completes the flags (option) or subcommands (command) of the command at PATH.
__${fn}_list() {
  local -a items
  case "$1|$2" in
${arms.list.join('\n')}
  esac
  (( \${#items[@]} )) || return 1
  ${offer}
}
`;
}

// bash's and zsh's completion function after `head` (a loop over the words before the cursor): the walk sets
// cmdpath, n (positional words after it) and expect (a flag waiting for its value); `hooks` is what differs.
function completeBody(fn: string, head: string, hooks: { skip?: string; onExpect?: string; afterFlag: string; prefix?: string }): string {
  return `${head}
    if [[ -n $expect ]]; then${hooks.skip ?? ''}
      expect=""
      continue
    fi
    if ((dashdash == 0)); then
      case "$w" in
        --) dashdash=1; continue ;;
        -*=*) continue ;;
        -?*) __${fn}_takes_value "$cmdpath" "$w" && expect="$w"; continue ;;
      esac
    fi
    if ((n == 0 && dashdash == 0)); then
      __${fn}_child "$cmdpath" "$w"
      if [[ -n $REPLY ]]; then
        cmdpath="\${cmdpath:+$cmdpath }$REPLY"
        continue
      fi
    fi
    n=$((n + 1))
  done
  if [[ -n $expect ]]; then${hooks.onExpect ?? ''}
    __${fn}_values "$cmdpath" "$expect"
    return
  fi
  if [[ $cur == -*=* && $dashdash == 0 ]]; then
    # "--flag=va" as one word (in bash: no "=" in COMP_WORDBREAKS): complete the value after the "=".
    local flag="\${cur%%=*}"
    __${fn}_takes_value "$cmdpath" "$flag" || return
    ${hooks.afterFlag}
    __${fn}_values "$cmdpath" "$flag"${hooks.prefix ?? ''}
    return
  fi
  if [[ $cur == -* && $dashdash == 0 ]]; then
    __${fn}_list option "$cmdpath"
    return
  fi
  if ((n == 0 && dashdash == 0)); then
    __${fn}_list command "$cmdpath" && return
  fi
  __${fn}_values "$cmdpath" "#$n"
}`;
}

function caseArm(pattern: string, body: string): string {
  return `    ${pattern}) ${body} ;;`;
}

function shellCaseArms(spec: CompletionSpec, fn: string, shell: Posix) {
  const arms = { child: [] as string[], valueFlag: [] as string[], list: [] as string[], value: [] as string[] };
  for (const c of allCommands(spec)) {
    const key = shQuote(c.path.join(' '));
    if (c.subcommands.length > 0) {
      const inner = c.subcommands.flatMap((s) => [s.name, ...s.aliases].map((alias) => `${shQuote(alias)}) REPLY=${shQuote(s.name)} ;;`)).join(' ');
      arms.child.push(caseArm(key, `case "$2" in ${inner} esac`));
      arms.list.push(caseArm(shQuote(`command|${c.path.join(' ')}`), items(shell, subcommandWords(c))));
    }
    const valueFlags = c.flags.filter((f) => f.takesValue).flatMap(flagNames);
    if (valueFlags.length > 0) arms.valueFlag.push(caseArm(key, `case "$2" in ${valueFlags.map(shQuote).join('|')}) return 0 ;; esac`));
    const flagItems = c.flags.flatMap((f) => flagNames(f).map((word) => ({ word, description: f.description })));
    arms.list.push(caseArm(shQuote(`option|${c.path.join(' ')}`), items(shell, flagItems)));
    for (const flag of c.flags) {
      const code = valuesCode(shell, flag.values, fn);
      if (code === undefined) continue;
      for (const name of flagNames(flag)) arms.value.push(caseArm(shQuote(`${c.path.join(' ')}|${name}`), code));
    }
    // Every argument index gets an arm, so a repeating last argument ("#"*) never catches an earlier one.
    const argCodes = c.args.map((source) => valuesCode(shell, source, fn));
    if (argCodes.some((code) => code !== undefined)) {
      const index = (i: number) => (i === c.args.length - 1 && c.variadic ? `${shQuote(`${c.path.join(' ')}|#`)}*` : shQuote(`${c.path.join(' ')}|#${i}`));
      arms.value.push(...argCodes.map((code, i) => caseArm(index(i), code ?? ':')));
    }
  }
  return arms;
}

export function bashScript(spec: CompletionSpec): string {
  const fn = fnName(spec.program);
  const arms = shellCaseArms(spec, fn, 'bash');
  const p = spec.program;
  return `# bash completion for ${p}
# Generated by "${p} completion bash" from the command tree; do not edit.
# Install:  ${p} completion bash > ~/.local/share/bash-completion/completions/${p}
#     or:   echo 'source <(${p} completion bash)' >> ~/.bashrc

${sharedShellFunctions(spec, fn, arms, `COMPREPLY=($(compgen -W "\${items[*]}" -- "$cur"))`)}
__${fn}_files() {
  local IFS=$'\\n'
  compopt -o filenames 2>/dev/null
  COMPREPLY=($(compgen -f -- "$cur"))
}

_${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" expect="" w i n=0 dashdash=0 REPLY
  COMPREPLY=()
${completeBody(
  fn,
  `  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"`,
  {
    skip: `
      # "--flag=value" arrives as three words when "=" is in COMP_WORDBREAKS.
      [[ $w == "=" ]] && continue`,
    onExpect: `
    # Right after "--flag=": bash would replace the "=" itself, so offer nothing.
    [[ $cur == "=" ]] && return`,
    afterFlag: `cur="\${cur#*=}"`,
    prefix: `
    COMPREPLY=("\${COMPREPLY[@]/#/$flag=}")`,
  },
)}

complete -F _${fn} ${shQuote(p)}
`;
}

export function zshScript(spec: CompletionSpec): string {
  const fn = fnName(spec.program);
  const arms = shellCaseArms(spec, fn, 'zsh');
  const p = spec.program;
  return `#compdef ${p}
# zsh completion for ${p}
# Generated by "${p} completion zsh" from the command tree; do not edit.
# Install:  ${p} completion zsh > ~/.zfunc/_${p}   with  fpath=(~/.zfunc $fpath)  before compinit in ~/.zshrc
#     or:   echo 'source <(${p} completion zsh)' >> ~/.zshrc   (after compinit)

${sharedShellFunctions(spec, fn, arms, `_describe -t "$1"s ${shQuote(`${p} `)}"$1" items`)}
_${fn}() {
  local cur="\${words[CURRENT]}" cmdpath="" expect="" w REPLY
  integer i n=0 dashdash=0
${completeBody(
  fn,
  `  for (( i = 2; i < CURRENT; i++ )); do
    w="\${words[i]}"`,
  { afterFlag: "compset -P '*='" },
)}

if [[ "\${funcstack[1]}" == "_${fn}" ]]; then
  # Autoloaded from $fpath: this file is the body of _${fn}; run it now.
  _${fn} "$@"
else
  compdef _${fn} ${shQuote(p)}
fi
`;
}
