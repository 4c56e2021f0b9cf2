// The help topics (`petstore help <topic>`), one source for the CLI and the generated docs. Lists that live in code
// (exit codes, output formats) are read from there, so a topic cannot drift from what the CLI does.

import { Help } from 'commander';
import { exitCodeTable } from '../errors/exit-codes.js';
import { FORMATS } from '../flag-values.js';

export interface HelpTopic {
  name: string;
  /** One line, for the "Help topics" list of `petstore help`. */
  summary: string;
  /** `globalFlags`: the program's global flags, formatted as in its --help. */
  body(ctx: { globalFlags: string }): string;
}

/** Terms and their text in two columns, the text wrapped to fit 100 columns (as commander lists options). */
function table(rows: readonly (readonly [string, string])[]): string {
  const helper = Object.assign(new Help(), { helpWidth: 100 });
  const width = Math.max(...rows.map(([term]) => term.length));
  return rows.map(([term, text]) => helper.formatItem(term, width, text, helper)).join('\n');
}

const FORMAT_TEXT: Record<(typeof FORMATS)[number], string> = {
  table: 'the default: aligned columns on a terminal; tab-separated with one header line when piped',
  json: 'pretty on a terminal, one compact line when piped; 64-bit ids exact',
  ndjson: 'one compact JSON object per line',
  csv: 'a header line and one row per record, RFC 4180 quoting',
};

/** The --query examples of `petstore help formatting` (test/e2e/examples.test.ts runs them). */
export const QUERY_EXAMPLES = [
  `petstore pets list --query "[?status=='available'].name"`,
  'petstore pets list --query "[].{id: id, name: name}" -o csv',
  'petstore quota --query remaining',
];

/** The seeding job of `petstore help ci`, as a CI runner runs it (test/e2e/ci-recipe.test.ts runs it as written). */
export const CI_SEED_RECIPE = `set -euo pipefail
export PETSTORE_ENV=staging
export PETSTORE_API_KEY="$STAGING_PETSTORE_KEY"      # from the CI secret store, never on the command line
petstore pets add --file fixtures/pets.csv --dry-run --quiet > /dev/null     # fail fast on bad data
# seed-journal.ndjson is the journal: keep it between attempts (a cache or an artifact). The first
# attempt starts it; a rerun after a kill, a runner timeout or a failure continues it.
petstore pets add --file fixtures/pets.csv --results seed-journal.ndjson --resume --concurrency 8
`;

export const HELP_TOPICS: readonly HelpTopic[] = [
  {
    name: 'flags',
    summary: 'the global flags, accepted by every command',
    body: ({ globalFlags }) => `Global flags go before or after the command: "petstore --env staging pets list" is
"petstore pets list --env staging".

${globalFlags}

Commands that print data also take -o, --output <format> (${FORMATS.join('|')}) and --json (petstore help formatting).
`,
  },
  {
    name: 'environment',
    summary: 'the environment variables petstore reads, and what wins',
    body: () => `What wins, for every setting: a flag, then an environment variable, then the config file
(petstore env use, petstore env set, petstore auth login).

${table([
  ['PETSTORE_ENV', 'environment for this shell (below --env, above "env use"); empty means unset'],
  ['PETSTORE_BASE_URL', 'base URL for every environment (sandboxes, CI); checked like "env set"'],
  ['PETSTORE_API_KEY', 'API key; overrides the stored key of every environment'],
  ['PETSTORE_CONFIG_DIR', 'folder of config.json (default $XDG_CONFIG_HOME/petstore or ~/.config/petstore)'],
  ['PETSTORE_STATE_DIR', 'folder of seeding journals (default $XDG_STATE_HOME/petstore or ~/.local/state/petstore)'],
  ['PETSTORE_DEBUG', '1, true or yes: as --debug; empty, 0, false, no or off leave it off'],
  ['PETSTORE_LIMITER', 'redis://HOST:PORT/N or rediss://…, as --limiter (which wins); the only place for a password'],
  ['PETSTORE_NO_COMPILE_CACHE', 'set: run without the code cache (kept in $XDG_CACHE_HOME/petstore or ~/.cache/petstore)'],
  ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY', 'proxy for API requests (lower case too)'],
  ['NODE_EXTRA_CA_CERTS', 'extra trusted CA certificates (a TLS-inspecting proxy, a private CA)'],
  ['NO_COLOR, FORCE_COLOR, TERM', 'colour (petstore help formatting)'],
  ['XDG_CONFIG_HOME, XDG_STATE_HOME', 'base folders of the defaults above'],
])}

In CI no config file is needed at all:
  PETSTORE_BASE_URL=https://staging.example.com/v1 PETSTORE_API_KEY="$SECRET" petstore pets list -o json
`,
  },
  {
    name: 'exit-codes',
    summary: 'what each exit code means',
    body: () => {
      // Code spans are for the Markdown made from the same text: on a terminal, the words alone.
      const rows = exitCodeTable().map(({ code, meaning }) => [String(code), meaning.replace(/`/g, '')] as const);
      return `Every command exits with one of these codes; scripts should test the code rather than parse messages.

${table(rows)}

An error is one line on stderr ("error: …"); with -o json or -o ndjson it is also printed as one JSON
object on stderr: {"error":{"code":"…","message":"…","status":401,"exitCode":4,"hint":"…"}}.
`;
    },
  },
  {
    name: 'formatting',
    summary: 'output formats, colour, and what goes to stdout and stderr',
    body: () => `-o, --output <format> (or --json for -o json) on every command that prints data:

${table(FORMATS.map((f) => [f, FORMAT_TEXT[f]] as const))}

--query <jmespath> (JMESPath, jmespath.org) picks from the JSON a command prints (pets list|add|get,
quota, auth status, env list|show, api) before any format shows it: -o json prints the result, -o ndjson
a line per item of an array, a table or csv a row per item (an object's keys are its columns; other
values are printed one per line without a header). A broken expression is exit 2, naming the column,
before anything is sent.
${QUERY_EXAMPLES.map((line) => `  $ ${line}`).join('\n')}

stdout carries only data, so it can be piped or redirected. Everything else goes to stderr: errors,
warnings, progress, rate-limit waits and the quota line; -q leaves only errors there.

Colour, decided for each stream:
  --no-color, NO_COLOR (any non-empty value) or TERM=dumb   no colour
  FORCE_COLOR=1 (0 or false: off)                          colour even when piped; wins over NO_COLOR and TERM
  otherwise                                                colour only on a terminal
`,
  },
  {
    name: 'ci',
    summary: 'running petstore in CI: no prompts, and a seeding job that can be rerun',
    body: () => `In CI nothing can answer a prompt: a stdin that is not a terminal (or --no-input) means petstore fails
with exit 2 and names the alternative instead of asking. Set the key and base URL in the environment,
keep data on stdout, and test the exit code (petstore help exit-codes).

A CI job that seeds staging; the same script serves the first attempt and every rerun:

${CI_SEED_RECIPE}
--resume continues the journal when it exists and starts it when it does not. Records it shows created
are skipped; records in flight when an earlier attempt died are reported unknown (exit 3) and never
sent again without --retry-unknown. Jobs that share one key coordinate through the rate-limit state
file (or --limiter on separate machines), so the key is not banned.
`,
  },
];
