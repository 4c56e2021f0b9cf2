// The PowerShell script. pwsh installs neither from Debian's packages nor from npm, so no test runs it:
// what is checked is its text, cobra's shape: the registration, the call of `petstore __complete` with the
// words before the cursor and the current one (never dropped when empty), and how it reads the answer.

import { describe, expect, it } from 'vitest';
import { completionScript } from '../../../src/completion/index.js';

const script = completionScript('powershell', 'petstore');

describe('PowerShell completion script', () => {
  it('registers a native completer for petstore, installable as its header says', () => {
    expect(script).toMatch(/^# PowerShell completion for petstore\n/);
    expect(script).toContain("\nRegister-ArgumentCompleter -Native -CommandName 'petstore' -ScriptBlock {\n");
    expect(script).toContain('petstore completion powershell | Out-String | Invoke-Expression');
    expect(script.trimEnd().endsWith('}')).toBe(true);
  });

  it('asks petstore __complete quietly, with the words and the current one', () => {
    expect(script).toContain("$out = @(& 'petstore' '__complete' '--' @words $cur 2>$null)");
    expect(script).toContain('$_.Extent.EndOffset -lt $cursorPosition');
    // Before 7.3 (or in Legacy mode) PowerShell drops an empty argument; '""' reaches the program as one.
    expect(script).toContain(
      `if ($cur -eq '' -and ($PSVersionTable.PSVersion -lt [version]'7.3' -or $PSNativeCommandArgumentPassing -eq 'Legacy')) { $cur = '""' }`,
    );
  });

  it('shows each candidate with its description, and leaves file names to PowerShell', () => {
    expect(script).toContain('$word, $description = $_ -split "`t", 2');
    expect(script).toContain("[System.Management.Automation.CompletionResult]::new($word, $word, 'ParameterValue',");
    expect(script).toContain("if ($out.Count -gt 0 -and $out[0] -eq ':files') { return }");
  });
});
