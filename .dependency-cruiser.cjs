// Import rules for src/ (npm run lint:deps; part of npm test). docs/architecture.md draws the same
// layers. A module may import its own layer and any layer below it, never one above, and no import
// loop is allowed anywhere (dynamic imports included).
//
// Layers, bottom first:
const LAYERS = [
  // Small shared modules: errors, time, JSON, I/O, files, header values, output, config, the pet
  // model, prompts, the flags' value lists, the help topics.
  ['errors', 'contract', 'time', 'json', 'io', 'fs', 'wire', 'output', 'config', 'pets', 'prompt', 'flag-values.ts', 'help'],
  ['ratelimit'],
  ['transport'],
  ['http'],
  ['api'],
  // What commands are built from: the factory (io, config, clients), bulk seeding, completion scripts.
  ['factory.ts', 'bulk', 'completion'],
  ['commands'],
  ['cli.ts', 'main.ts'],
];

const path = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})($|/)`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer[0].replace('.ts', '')}`,
  comment: `${layer.join(', ')} may not import a higher layer (${LAYERS.slice(i + 1).flat().join(', ')})`,
  severity: 'error',
  from: { path: path(layer) },
  to: { path: path(LAYERS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import loop (dynamic imports count): split the shared part into a lower module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'sandbox-stands-alone',
      comment: 'The sandbox server uses only the shared bottom layer; only its command starts it.',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: path(LAYERS.slice(1).flat()) },
    },
    {
      name: 'sandbox-only-from-its-command',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(sandbox|commands/sandbox)/' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'no-private-library-files',
      comment: "Import a package by its public entry points (its package.json exports), never its internal files.",
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer'], path: 'node_modules/undici/lib/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-orphans',
      comment: 'A module that neither imports nor is imported is dead code (knip finds the rest).',
      severity: 'error',
      from: { orphan: true, pathNot: ['\\.d\\.ts$', '^src/main\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    // swc parses TypeScript (dependency-cruiser cannot drive TypeScript 7) and keeps type-only imports,
    // so they obey the layers too.
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    includeOnly: ['^src/', 'node_modules'],
  },
};
