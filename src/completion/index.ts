// The completion scripts: each passes the words typed so far to `petstore __complete` on every Tab and shows
// its answer (candidates.ts), as gh, kubectl and cobra do, so a script never goes stale.

import type { SHELLS } from '../flag-values.js';

export { SHELLS } from '../flag-values.js';
export type Shell = (typeof SHELLS)[number];

const bash = (p: string) => `# bash completion for ${p}
# Install:  ${p} completion bash > ~/.local/share/bash-completion/completions/${p}
#     or:   echo 'source <(${p} completion bash)' >> ~/.bashrc

_${p}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out
  mapfile -t out < <(${p} __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  if [[ \${out[0]} == :files ]]; then
    local IFS=$'\\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  else
    COMPREPLY=("\${out[@]%%$'\\t'*}")
  fi
}
complete -F _${p} ${p}
`;

const zsh = (p: string) => `#compdef ${p}
# zsh completion for ${p}
# Install:  ${p} completion zsh > ~/.zfunc/_${p}   with  fpath=(~/.zfunc $fpath)  before compinit in ~/.zshrc
#     or:   echo 'source <(${p} completion zsh)' >> ~/.zshrc   (after compinit)

_${p}() {
  local line
  local -a out items
  out=(\${(f)"$(${p} __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)"})
  [[ $out[1] == :files ]] && { _files; return }
  # "--flag=va": the shell keeps "--flag=" and completes the value.
  [[ $words[CURRENT] == -*=* ]] && compset -P '*=' && out=("\${(@)out#*=}")
  # _describe reads "word:description", a colon in the word escaped.
  for line in $out; do
    if [[ $line == *$'\\t'* ]]; then items+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
    else items+=("\${line//:/\\\\:}"); fi
  done
  _describe -t values ${p} items
}

if [[ "\${funcstack[1]}" == "_${p}" ]]; then
  # Autoloaded from $fpath: this file is the body of _${p}; run it now.
  _${p} "$@"
else
  compdef _${p} ${p}
fi
`;

const fish = (p: string) => `# fish completion for ${p}
# Install:  ${p} completion fish > ~/.config/fish/completions/${p}.fish

function __${p}_complete
    set -l out (${p} __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
    if test "$out[1]" = :files
        __fish_complete_path (commandline -ct)
    else
        printf '%s\\n' $out
    end
end

complete -c ${p} -f -a '(__${p}_complete)'
`;

// Windows PowerShell and PowerShell before 7.3 drop an empty argument to a program: they need '""'.
const powershell = (p: string) => `# PowerShell completion for ${p}
# Install:  ${p} completion powershell | Out-String | Invoke-Expression
#     or:   ${p} completion powershell > ~/.config/powershell/${p}.ps1   # and dot-source it in $PROFILE

Register-ArgumentCompleter -Native -CommandName '${p}' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 | Where-Object { $_.Extent.EndOffset -lt $cursorPosition } | ForEach-Object { $_.Extent.Text })
    $cur = "$wordToComplete"
    if ($cur -eq '' -and ($PSVersionTable.PSVersion -lt [version]'7.3' -or $PSNativeCommandArgumentPassing -eq 'Legacy')) { $cur = '""' }
    $out = @(& '${p}' '__complete' '--' @words $cur 2>$null)
    # Nothing returned: PowerShell completes file names itself.
    if ($out.Count -gt 0 -and $out[0] -eq ':files') { return }
    $out | ForEach-Object {
        $word, $description = $_ -split "\`t", 2
        [System.Management.Automation.CompletionResult]::new($word, $word, 'ParameterValue', $(if ($description) { $description } else { $word }))
    }
}
`;

const SCRIPTS: Record<Shell, (program: string) => string> = { bash, zsh, fish, powershell };

export function completionScript(shell: Shell, program: string): string {
  return SCRIPTS[shell](program);
}
