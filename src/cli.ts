import { Command, CommanderError, Help, Option } from 'commander';
import { type CommandContext, examples } from './commands/context.js';
import { registerApi } from './commands/api/index.js';
import { registerAuth } from './commands/auth/index.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerEnv } from './commands/env/index.js';
import { registerPets } from './commands/pets/index.js';
import { registerQuota } from './commands/quota/index.js';
import { registerSandbox } from './commands/sandbox/index.js';
import { CliError, InterruptedError, UsageError } from './errors/errors.js';
import { exitCodeFor, ExitCode } from './errors/exit-codes.js';
import { createFactory, type Factory, type FactoryDeps, type GlobalOptions } from './factory.js';
import { HELP_TOPICS, type HelpTopic } from './help/topics.js';
import { createIO, type EnvVars, type IO, type IOInputs } from './io/io.js';
import { storageProblem } from './io/storage-problem.js';
import { renderError } from './output/error.js';

declare const __VERSION__: string;
declare const __BUILD__: { commit: string; date: string };
const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';

/** `petstore version` and `--version --verbose`, as gh: the version, then the commit and build date (scripts/build-info.mjs). */
function versionText(): string {
  const { commit, date } = typeof __BUILD__ === 'object' ? __BUILD__ : { commit: 'unknown', date: 'unknown' };
  return `${VERSION}\ncommit ${commit}, built ${date}`;
}

function registerVersion(program: Command, ctx: CommandContext): void {
  const version = program
    .command('version')
    .description('print the version, the commit and the build date')
    .action(ctx.lazy(async () => ({ command: async (f) => void f.io.stdout.write(`${versionText()}\n`) })));
  examples(version, ['petstore version', 'petstore --version   # the version alone']);
}

export type RunDeps = Pick<IOInputs, 'stdout' | 'stderr' | 'stdin' | 'stdinIsTTY' | 'sharedPipe' | 'env'> &
  Pick<FactoryDeps, 'clock' | 'signal' | 'dispatcher'>;

/** The longest --timeout and --max-wait: a day, the longest window of any plan. */
const DAY_SECONDS = 86_400;

/** An argParser for a number from `min` (to a day of seconds with `seconds`, whole with `whole`); the usage error names `flag`. */
function numberFlag(flag: string, min: number, bound: 'seconds' | 'whole'): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || n < min) {
      throw new UsageError(`invalid ${flag} "${text}": must be a number ${min > 0 ? `of at least ${min}` : '0 or more'}`);
    }
    if (bound === 'seconds' && n > DAY_SECONDS) throw new UsageError(`invalid ${flag} "${text}": must be at most ${DAY_SECONDS} seconds (a day)`);
    if (bound === 'whole' && !Number.isInteger(n)) throw new UsageError(`invalid ${flag} "${text}": must be a whole number`);
    return n;
  };
}

/** --limiter and PETSTORE_LIMITER: a redis:// or rediss:// URL; a password only from the environment (a command line shows in `ps`). */
function limiterUrl(text: string, from = '--limiter'): string {
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {}
  if (!url || !['redis:', 'rediss:'].includes(url.protocol) || !url.hostname || !/^(\/\d*)?$/.test(url.pathname) || url.search || url.hash) {
    const shown = text.trim().replace(/^([^/]*\/\/)[^/]*@/, '$1***@');
    throw new UsageError(`invalid ${from} "${shown}": must be redis://HOST[:PORT][/DB] or rediss://HOST[:PORT][/DB]`);
  }
  if (from === '--limiter' && (url.password || url.username)) {
    throw new UsageError('--limiter carries a password, and a command line is visible to other users of this machine: set PETSTORE_LIMITER instead');
  }
  return text.trim();
}

/** PETSTORE_DEBUG=1/true/yes turns it on; unset, empty, 0, false, no and off leave it off. */
function envFlag(value: string | undefined): boolean {
  return value !== undefined && !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase());
}

function globalsFrom(raw: Record<string, unknown>, env: EnvVars): GlobalOptions {
  return {
    env: typeof raw.env === 'string' ? raw.env : undefined,
    debug: raw.debug === true || envFlag(env.PETSTORE_DEBUG),
    quiet: raw.quiet === true,
    verbose: raw.verbose === true,
    color: raw.color !== false,
    input: raw.input !== false,
    // Numbers with defaults, checked as commander parsed them (rootProgram()).
    timeout: raw.timeout as number,
    maxRetries: raw.maxRetries as number,
    maxWait: raw.maxWait as number,
    // The flag, else the variable (empty means unset), checked as the flag is.
    limiter: typeof raw.limiter === 'string' ? raw.limiter : env.PETSTORE_LIMITER?.trim() ? limiterUrl(env.PETSTORE_LIMITER, 'PETSTORE_LIMITER') : undefined,
  };
}

/** A value its argParser refused is kept as the option's UsageError and thrown once the whole line is read: --help anywhere still shows
 * help, and a later -o json gets the error as JSON. */
function deferRefusals(option: Option): void {
  const parse = option.parseArg;
  if (!parse) return;
  option.parseArg = <T>(value: string, previous: T): T => {
    if (previous instanceof UsageError) return previous;
    try {
      return parse(value, previous);
    } catch (error) {
      if (error instanceof UsageError) return error as T;
      throw error;
    }
  };
}

/** The command groups by their name, in the help's order; the hidden __complete is registered with completion. */
const GROUPS: Record<string, (program: Command, ctx: CommandContext) => void> = {
  env: registerEnv,
  auth: registerAuth,
  pets: registerPets,
  quota: registerQuota,
  api: registerApi,
  sandbox: registerSandbox,
  completion: registerCompletion,
  version: registerVersion,
  __complete: registerCompletion,
};

// Where the command starts (the first word not a global flag or its value): `help pets list` needs it before commander parses.
function commandIndex(argv: readonly string[], program: Command): number {
  const takesValue = new Set<string | undefined>(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]));
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-') && argv[i] !== '--') i += takesValue.has(argv[i]) ? 2 : 1;
  return i;
}

/** `help pets list` → `pets list --help`; no arguments or a group alone → `--help` (help on stdout, exit 0, as gh does). */
function expandHelp(argv: readonly string[], program: Command): { argv: string[]; helpPath?: string[] } {
  if (argv.length === 0) return { argv: ['--help'] };
  const i = commandIndex(argv, program);
  if (i === argv.length - 1 && program.commands.some((c) => c.name() === argv[i] && c.commands.length > 0)) return { argv: [...argv, '--help'] };
  if (argv[i] !== 'help' || i + 1 >= argv.length) return { argv: [...argv] };
  const helpPath = argv.slice(i + 1);
  return { argv: [...argv.slice(0, i), ...helpPath, '--help'], helpPath };
}

const plainHelp = new Help();

/** commander's help, the global flags listed once: in the program's help, which ends with the help topics. */
function formatHelp(cmd: Command, helper: Help): string {
  const text = plainHelp.formatHelp(cmd, helper);
  if (cmd.parent) return `${text}\nGlobal flags: petstore help flags\n`;
  const width = Math.max(helper.padWidth(cmd, helper), ...HELP_TOPICS.map((t) => t.name.length));
  const topics = HELP_TOPICS.map((t) => helper.formatItem(t.name, width, t.summary, helper));
  return `${text}\nHelp topics (petstore help <topic>):\n${topics.join('\n')}\n`;
}

/** The global flags as the program's --help lists them (`petstore help flags`). */
function globalFlagsText(program: Command): string {
  const helper = program.createHelp();
  const options = helper.visibleOptions(program).filter((o) => o.long !== '--help' && o.long !== '--version');
  const width = Math.max(...options.map((o) => helper.optionTerm(o).length));
  return options.map((o) => helper.formatItem(helper.optionTerm(o), width, helper.optionDescription(o), helper)).join('\n');
}

/** commander's help text of an option, without "(choices: …)": choiceOption() names them in the description. */
function optionDescription(option: Option): string {
  return plainHelp.optionDescription(Object.create(option, { argChoices: { value: undefined } }) as Option);
}

/** The program with its global options and no commands yet. */
function rootProgram(verbose: boolean): Command {
  const program = new Command('petstore')
    .description('Command-line tool for the pet store service')
    .version(verbose ? versionText() : VERSION, '-V, --version', 'print the version (with --verbose: also the commit and build date)')
    .addOption(new Option('--env <name>', 'environment for this call (overrides PETSTORE_ENV and "env use")'))
    .option('-q, --quiet', 'print nothing on stderr but errors')
    .option('-v, --verbose', 'always print the quota line, even when stderr is not a terminal')
    .option('--debug', 'print request traces and stack traces on stderr (or PETSTORE_DEBUG=1)')
    .option('--no-color', 'disable colour (also NO_COLOR=1 or TERM=dumb)')
    .option('--no-input', 'never prompt; fail instead when input is needed')
    .option('--timeout <seconds>', 'per-request timeout covering connect and the whole response', numberFlag('--timeout', 0.001, 'seconds'), 30)
    .option('--max-retries <n>', 'retries after 429, 502-504 and connection errors (0 disables)', numberFlag('--max-retries', 0, 'whole'), 3)
    .option('--max-wait <seconds>', 'longest rate-limit wait before giving up with exit 6', numberFlag('--max-wait', 0, 'seconds'), 120)
    .option('--limiter <url>', 'share one rate-limit budget per key through Redis/Valkey: redis://HOST:PORT/N (or PETSTORE_LIMITER)', (text) =>
      limiterUrl(text),
    )
    .configureHelp({ optionDescription, formatHelp })
    .helpCommand('help [command|topic]', 'show the help of a command or a help topic')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride();
  return examples(program, [
    'petstore pets list --status available',
    'petstore pets add --name Rex --category-id 1 -o json',
    'petstore --env staging pets add --file pets.csv --results seed-journal.ndjson',
    'petstore help environment',
  ]);
}

/** The program with every command group, or only the one a command line names (commander builds every command it is given). */
export function buildProgram(actions: Pick<CommandContext, 'lazy'>, argv?: readonly string[]): Command {
  const program = rootProgram(argv?.some((a) => a === '--verbose' || a === '-v') ?? false);
  const ctx: CommandContext = { ...actions, fullProgram: () => buildProgram({ lazy: () => async () => {} }) };
  const word = argv?.[commandIndex(argv, program)];
  const named = word !== undefined && Object.hasOwn(GROUPS, word) ? GROUPS[word] : undefined;
  for (const register of named ? [named] : new Set(Object.values(GROUPS))) register(program, ctx);
  return program;
}

/** What a run learns once a command starts, for reporting its failure: the factory, -o json, --debug. */
interface RunState {
  factory: Factory | undefined;
  json: boolean;
  debug: boolean;
}

/** The commander action of a command: reads the global flags, builds the factory, loads the command's module and runs it. */
function lazyAction(deps: RunDeps, state: RunState): CommandContext['lazy'] {
  return (load) =>
    async (...actionArgs) => {
      const cmd = actionArgs[actionArgs.length - 1] as Command;
      const opts = { ...cmd.opts() };
      // Errors are printed as JSON too when the command prints JSON.
      state.json = opts.json === true || opts.output === 'json' || opts.output === 'ndjson';
      const all = cmd.optsWithGlobals();
      const globals = globalsFrom(all, deps.env);
      state.debug = globals.debug;
      const refused = Object.values(all).find((v) => v instanceof UsageError);
      if (refused) throw refused;
      const io = createIO({ ...deps, colorFlag: globals.color, input: globals.input, quiet: globals.quiet });
      const { env, clock, signal, dispatcher } = deps;
      state.factory = createFactory({ io, env, clock, globals, signal, version: VERSION, ...(dispatcher ? { dispatcher } : {}) });
      // Compiled first: a broken --query is exit 2 before anything is asked or sent.
      if (typeof opts.query === 'string') opts.query = await (await import('./output/query.js')).compileQuery(opts.query);
      const args = cmd.processedArgs.flat().filter((a): a is string => typeof a === 'string');
      const mod = await load();
      await mod.command(state.factory, args, opts, cmd);
    };
}

/** commander's output, help width and colour through the run's IO (its defaults read process.stdout), on every command already made. */
function useIO(program: Command, io: IO): void {
  // Off a terminal, commander's own width.
  const width = (out: IO['stdout']) => (out.isTTY && out.stream.columns ? out.stream.columns : 80);
  const output = {
    writeOut: (s: string) => io.stdout.write(s),
    writeErr: (s: string) => io.stderr.write(s),
    getOutHelpWidth: () => width(io.stdout),
    getErrHelpWidth: () => width(io.stderr),
    getOutHasColors: () => io.colorStdout,
    getErrHasColors: () => io.colorStderr,
  };
  const configure = (c: Command): void => {
    c.configureOutput(output);
    c.options.forEach(deferRefusals);
    c.commands.forEach(configure);
  };
  configure(program);
}

// A usage error commander would word badly: only global flags (one line naming them, never their values: a --limiter URL may
// hold a password), or `help` naming no command or topic.
function refusal(program: Command, argv: readonly string[], helpPath: readonly string[] | undefined, topic: HelpTopic | undefined): string | undefined {
  if (commandIndex(argv, program) === argv.length && !argv.some((a) => ['--help', '-h', '--version', '-V'].includes(a))) {
    const flags = [...new Set(argv.filter((a) => a.startsWith('-')).map((a) => a.split('=')[0]))].join(' ');
    const version = argv.includes('-v') ? '; -v is --verbose (the version: petstore --version)' : '';
    return `no command given, only global flags (${flags}); add a command (petstore help lists them)${version}`;
  }
  let cmd: Command | undefined = program;
  for (const word of topic ? [] : (helpPath ?? [])) {
    cmd = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!cmd) return `unknown ${word === helpPath?.[0] ? 'command or help topic' : 'command'} '${word}' (petstore help lists them)`;
  }
  return undefined;
}

/** Runs one invocation and returns its exit code; never exits the process. */
export async function run(rawArgv: string[], deps: RunDeps): Promise<number> {
  const state: RunState = { factory: undefined, json: false, debug: envFlag(deps.env.PETSTORE_DEBUG) };
  const program = buildProgram({ lazy: lazyAction(deps, state) }, rawArgv);
  const { argv, helpPath } = expandHelp(rawArgv, program);
  const baseIO = createIO(deps);
  useIO(program, baseIO);
  const topic = helpPath?.length === 1 ? HELP_TOPICS.find((t) => t.name === helpPath[0]) : undefined;
  const refused = refusal(program, argv, helpPath, topic);
  if (refused) {
    baseIO.stderr.write(`error: ${refused}\n`);
    return ExitCode.usage;
  }

  const report = (error: unknown, reason?: unknown): number => {
    renderError(state.factory?.io ?? baseIO, error, {
      debug: state.debug,
      json: state.json,
      secrets: state.factory?.secrets() ?? [deps.env.PETSTORE_API_KEY ?? ''],
    });
    return exitCodeFor(error, reason);
  };
  let code: number = ExitCode.ok;
  try {
    if (topic) baseIO.stdout.write(topic.body({ globalFlags: globalFlagsText(program) }));
    else await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // Whatever a command threw after Ctrl-C, the user interrupted it.
    const interrupted = deps.signal.aborted && !(error instanceof UsageError) && !(error instanceof InterruptedError);
    // Help and --version end with code 0; every parse error is a usage error.
    if (error instanceof CommanderError) code = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    else code = report(interrupted ? new InterruptedError() : error, deps.signal.reason);
  } finally {
    if (state.factory) await finish(state.factory);
  }
  // A command (or --help) that ended well, but whose output did not reach stdout.
  const lost = code === ExitCode.ok ? await stdoutFailure(baseIO) : undefined;
  return lost ? report(lost) : code;
}

// A failed write to stdout: a full disk or an I/O error (`> /dev/full`) is exit 1, the output not all there; EPIPE is none
// (`| head -1` took what it wanted).
async function stdoutFailure(io: IO): Promise<CliError | undefined> {
  // A failed write reports its error on a later tick.
  if (!io.stdout.failed.aborted) await new Promise((resolve) => setImmediate(resolve));
  if (!io.stdout.failed.aborted) return undefined;
  const error: unknown = io.stdout.failed.reason;
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') return undefined;
  return new CliError('failure', `cannot write to stdout: ${storageProblem(error)}`, { code: 'stdout_not_written', cause: error });
}

async function finish(f: Factory): Promise<void> {
  // The quota line after a command that made requests: on a terminal when the quota runs low, or always
  // with --verbose; never with --quiet. Its module (chalk, which loads tty) is imported only then.
  const quota = f.clients
    .filter((c) => c.requestCount > 0)
    .map((c) => c.lastQuota)
    .findLast((q) => q !== undefined);
  if (quota && !f.globals.quiet && (f.io.stderrIsTTY || f.globals.verbose)) {
    const { quotaLineWanted, renderQuotaLine } = await import('./ratelimit/quota-line.js');
    if (quotaLineWanted(quota, f.globals.verbose)) f.io.stderr.write(`${renderQuotaLine(quota, f.clock.now(), f.io.colorStderr)}\n`);
  }
  await Promise.all(f.clients.map((c) => c.close()));
}
