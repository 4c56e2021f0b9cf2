// Bundles src/ and its dependencies into dist/: the application in one file (dist/main.js: src/,
// commander and the little else src/ imports statically) plus one chunk per package that src/ imports
// dynamically (undici, conf, ora, chalk, string-width, csv-parse, @inquirer/confirm, ioredis,
// rate-limiter-flexible) and chunks those share. --help and `pets list` each load one file of
// ours: every extra ES module costs its resolution and linking, about 0.3-0.4 ms, and esbuild's
// code splitting had cut src/ into some 50 chunks by which commands share them (--help loaded 10,
// `pets list` 33). src/'s own dynamic imports (command modules, the config store, the API client)
// are inlined by esbuild, each run on first use, so a command still runs only its own modules'
// top-level code; the code cache keeps the file's compile cost small. dist/help.json holds the help
// pages bin/petstore prints without loading any of it (helpPages() below).
// Measurements behind each choice: bench/README.md.
//
//   node scripts/build.mjs            build into dist/ (safe while other processes run dist/)
//   node scripts/build.mjs --clean    delete dist/ first (for packing a release)
//   node scripts/build.mjs --outdir D build into D instead (e.g. to benchmark a variant)
//
// Other processes (end-to-end tests, a running sandbox) may be running dist/ while it is rebuilt.
// So the build goes to a temporary folder next to dist/, then moves in: new chunks first (their
// names carry a content hash, so they never replace a different file), the entry last with one
// atomic rename. A process that started with the old entry still finds the old chunks it may
// import later; chunks that no build has used for PRUNE_AFTER_MS are deleted.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { builtinModules } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const PRUNE_AFTER_MS = 15 * 60 * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({ options: { outdir: { type: 'string' }, clean: { type: 'boolean', default: false } } });
const outdir = resolve(root, flags.outdir ?? 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// Node builtins through process.getBuiltinModule() instead of `import fs from 'node:fs'`.
// An ESM import of a builtin builds a namespace of all its exports, which runs every lazy getter:
// `node:fs` then loads fs/promises, readline, the stream classes and file watchers; `node:util`
// loads parseArgs, the diff code and worker_threads (measured: about 4 ms of every start).
// Imports get a small ES module that reads only the names its importer uses (the rest is
// tree-shaken); require() calls in CommonJS dependencies get the builtin itself. Each importer
// gets its own copy, so no chunk of a few bytes is loaded on its own (about 0.3 ms per file).
// LAZY builtins load on first use: commander imports child_process only to run executable
// subcommands, which petstore has none of (child_process pulls in net and dgram: 1-3 ms).
const LAZY = new Set(['child_process']);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const RESERVED = new Set(
  'arguments await break case catch class const continue debugger default delete do else enum eval export extends false finally for function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try typeof var void while with yield'.split(
    ' ',
  ),
);
function builtinShim(name) {
  const id = JSON.stringify(`node:${name}`);
  const names = Object.getOwnPropertyNames(process.getBuiltinModule(`node:${name}`)).filter((n) => IDENTIFIER.test(n) && !RESERVED.has(n));
  const lines = [`const load = () => process.getBuiltinModule(${id});`];
  if (LAZY.has(name)) {
    lines.push(`export default Object.defineProperties({}, {${names.map((n) => `${n}: { get: () => load().${n}, enumerable: true }`).join(', ')}});`);
    lines.push(...names.map((n) => `export const ${n} = /* @__PURE__ */ (() => load().${n})();`));
  } else {
    lines.push('const m = load();', 'export default m;', ...names.map((n) => `export const ${n} = /* @__PURE__ */ (() => m.${n})();`));
  }
  return `${lines.join('\n')}\n`;
}
const builtins = {
  name: 'builtins-via-getBuiltinModule',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_0-9/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!args.path.startsWith('node:') && !builtinModules.includes(name)) return undefined;
      const namespace = args.kind === 'require-call' ? 'builtin-cjs' : 'builtin-esm';
      return { path: `${name}|${args.importer}`, namespace, sideEffects: false };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(`node:${args.path.split('|')[0]}`)});\n`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-esm' }, (args) => ({ contents: builtinShim(args.path.split('|')[0]), loader: 'js' }));
  },
};

const tmp = `${outdir}.build-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Dependencies are bundled too: one file per chunk instead of dozens of node_modules files to
  // resolve and compile (`pets list`: about 70 ms less). They stay in package.json
  // "dependencies" for their licences and types. The builtins plugin is also what makes the
  // CommonJS ones (undici) work in an ES module bundle: without it their
  // require('node:net') fails with "Dynamic require ... is not supported".
  sourcemap: false,
  // Whitespace and syntax only: identifiers stay, so --debug stack traces stay readable.
  // Renaming identifiers too measured within noise (1-2 ms on --help), not worth the stacks.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // __filename: CommonJS dependencies get no module wrapper in an ES module bundle, so it is not
  // defined; write-file-atomic uses it in its temp file names (as a salt: the chunk's path serves).
  define: { __VERSION__: JSON.stringify(pkg.version), __filename: 'import.meta.filename' },
  logLevel: 'warning',
};

/** Dynamic imports of packages (`await import('undici')`) stay imports, of the chunk `chunkOf` names. */
function packagesApart(chunkOf) {
  return {
    name: 'packages-apart',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind !== 'dynamic-import' || args.path.startsWith('node:') || builtinModules.includes(args.path)) return undefined;
        return { path: chunkOf(args.path), external: true };
      });
    },
  };
}

try {
  // The application: src/ and what it imports statically, in one file. Its own dynamic imports
  // (command modules, the config store, the API client) are inlined and run on first use.
  const app = { ...common, entryPoints: [join(root, 'src/main.ts')], outfile: join(tmp, 'main.js'), splitting: false };
  const packages = new Set();
  await build({
    ...app,
    write: false,
    plugins: [
      builtins,
      packagesApart((name) => {
        packages.add(name);
        return name;
      }),
    ],
  });
  // The packages it imports dynamically, each a chunk of its own plus chunks they share.
  const outName = (name) => name.replace(/^@/, '').replaceAll('/', '-');
  const vendor = await build({
    ...common,
    entryPoints: [...packages].sort().map((name) => ({ in: name, out: outName(name) })),
    outdir: tmp,
    splitting: true,
    entryNames: 'chunks/[name]-[hash]',
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    plugins: [builtins],
  });
  const chunks = new Map();
  for (const [file, out] of Object.entries(vendor.metafile.outputs)) {
    if (!out.entryPoint) continue;
    // By the output's name (a package's subpath, such as csv-parse/sync, is an entry of its own).
    const base = file.split('/').pop();
    const name = [...packages].find((n) => new RegExp(`^${outName(n).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[A-Z0-9]+\\.js$`).test(base));
    if (!name) throw new Error(`no package for ${out.entryPoint}`);
    chunks.set(name, `./chunks/${base}`);
  }
  await build({ ...app, plugins: [builtins, packagesApart((name) => chunks.get(name))] });
  const help = JSON.parse(await helpPages());
  // Each terminal page set in a file of its own, named by its content (a terminal reads one, not all of
  // them: together they are megabytes), published like the chunks.
  mkdirSync(join(tmp, 'help'));
  const groupFile = help.groups.map((group) => {
    const name = `help/${createHash('sha256').update(group).digest('hex').slice(0, 16)}.json`;
    writeFileSync(join(tmp, name), group);
    return name;
  });
  for (const line of Object.keys(help.tty)) help.tty[line] = groupFile[help.tty[line]];
  delete help.groups;
  writeFileSync(join(tmp, 'help.json'), JSON.stringify(help));
  if (flags.clean) rmSync(outdir, { recursive: true, force: true });
  publish(tmp, outdir);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

/**
 * dist/help.json: every help page as `petstore ... --help` prints it into a pipe or a file, keyed by
 * the command line that asks for it, and the page a terminal wide enough for it gets (`tty`: page and
 * least columns), which bin/petstore prints without loading the application: a page then costs what
 * --version does instead of loading and running commander (pets --help: 1.5 times Node's own start). Made by running the CLI
 * (src/cli.ts run(), as main() does) on each of those command lines, in a child process whose
 * stdout is a pipe and whose environment has no colour variables; a line that does not end with
 * exit 0 and nothing on stderr gets no page.
 */
async function helpPages() {
  const generator = `${tmp}-help-pages.mjs`;
  const contents = `
    import { Writable } from 'node:stream';
    import { buildProgram, run } from './src/cli.ts';
    import { HELP_TOPICS } from './src/help/topics.ts';
    import { systemClock } from './src/time/clock.ts';
    const lines = [[], ['--help'], ['-h'], ['help'], ...HELP_TOPICS.map((t) => ['help', t.name])];
    const walk = (cmd, path) => {
      for (const sub of cmd.commands) {
        if (sub.name().startsWith('_')) continue;
        for (const word of [sub.name(), ...sub.aliases()]) {
          const p = [...path, word];
          lines.push([...p, '--help'], [...p, '-h'], ['help', ...p]);
          if (sub.commands.length > 0) lines.push(p);
          walk(sub, p);
        }
      }
    };
    walk(buildProgram({ lazy: () => async () => {} }), []);
    const pages = [];
    const byLine = {};
    const tty = {};
    /** The page for argv into a pipe (columns undefined) or a terminal that many columns wide; undefined if the line is no help. */
    const render = async (argv, columns) => {
      const out = [];
      const err = [];
      const sink = (into) => Object.assign(new Writable({ write(chunk, _encoding, done) { into.push(String(chunk)); done(); } }), columns ? { isTTY: true, columns } : {});
      const code = await run([...argv], { stdout: sink(out), stderr: sink(err), stdin: () => process.stdin, stdinIsTTY: false, env: {}, clock: systemClock, signal: new AbortController().signal });
      return code !== 0 || err.length > 0 || out.length === 0 ? undefined : out.join('');
    };
    const index = (page) => {
      if (!pages.includes(page)) pages.push(page);
      return pages.indexOf(page);
    };
    const groups = [];
    for (const argv of lines) {
      const page = await render(argv, undefined);
      if (page === undefined) continue;
      byLine[argv.join(' ')] = index(page);
      // A terminal's page is wrapped to its width: kept for every width, as [least columns, page] for
      // each different page. Past the widest line (plus a margin, all checked) nothing wraps, so the
      // page at 1000 columns holds for every wider terminal. A page with colour in it is left to the CLI.
      const wide = await render(argv, 1000);
      if (wide === undefined || wide.includes('\\x1b')) continue;
      const last = Math.max(...wide.split('\\n').map((l) => l.length)) + 20;
      const widths = [];
      for (let columns = 1; columns <= last; columns++) {
        const at = await render(argv, columns);
        if (at === undefined || at.includes('\\x1b')) break;
        if (widths.length === 0 || widths[widths.length - 1][1] !== at) widths.push([columns, at]);
      }
      if (widths.length === 0 || widths[widths.length - 1][1] !== wide) continue;
      const group = JSON.stringify(widths);
      if (!groups.includes(group)) groups.push(group);
      tty[argv.join(' ')] = groups.indexOf(group);
    }
    process.stdout.write(JSON.stringify({ pages, byLine, tty, groups }));
  `;
  try {
    await build({ ...common, stdin: { contents, resolveDir: root, sourcefile: 'help-pages.mjs' }, outfile: generator, plugins: [builtins] });
    const env = { PATH: process.env.PATH ?? '' };
    return execFileSync(process.execPath, [generator], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  } finally {
    rmSync(generator, { force: true });
  }
}

/** Moves a finished build into place without a moment where a file another process needs is missing. */
function publish(from, to) {
  if (!existsSync(to)) {
    mkdirSync(dirname(to), { recursive: true });
    try {
      renameSync(from, to);
      return;
    } catch {
      // Another build got there first: merge into it below.
    }
  }
  const built = new Set();
  // The content-named folders first: help.json names pages in help/.
  for (const sub of ['chunks', 'help', '']) {
    const src = join(from, sub);
    if (!existsSync(src)) continue;
    mkdirSync(join(to, sub), { recursive: true });
    for (const name of readdirSync(src)) {
      const file = join(src, name);
      if (statSync(file).isDirectory()) continue;
      built.add(join(sub, name));
      // Chunks are named by content: an existing one with this name is this one (touched so that
      // pruning counts from its last use).
      if (sub !== '' && existsSync(join(to, sub, name))) {
        utimesSync(join(to, sub, name), new Date(), new Date());
        continue;
      }
      renameSync(file, join(to, sub, name));
    }
  }
  const now = Date.now();
  for (const sub of ['chunks', 'help', '']) {
    const dir = join(to, sub);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      const st = statSync(file);
      if (st.isDirectory() || built.has(join(sub, name))) continue;
      if (now - st.mtimeMs > PRUNE_AFTER_MS) unlinkSync(file);
    }
  }
}
