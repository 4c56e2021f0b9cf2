// The contract check of the e2e suite: every exchange with the sandbox is held against
// openapi/petstore.yaml (status, headers, body; and the request, when the sandbox accepted it). A
// mismatch names the rule it breaks.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import type { RecordedRequest } from '../../src/sandbox/server.js';

type Obj = Record<string, unknown>;
const doc = parse(readFileSync(new URL('../../openapi/petstore.yaml', import.meta.url), 'utf8')) as Obj;
const ID = 'https://petstore.invalid/openapi.yaml';
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addSchema({ $id: ID, components: doc.components }, ID);
const paths = doc.paths as Record<string, Record<string, Obj>>;
const components = doc.components as Record<string, Record<string, Obj>>;

/** What the sandbox answers beyond the document's lists (its own, in docs/sandbox.md: a 400 for a bad query too), all with the Error body. */
const SANDBOX_STATUSES = new Set([400, 403, 404, 405, 413, 415, 500, 501, 503, 507]);

function deref(o: Obj): Obj {
  const ref = o.$ref;
  if (typeof ref !== 'string') return o;
  const [, , kind, name] = ref.split('/');
  return components[kind!]![name!] as Obj;
}

function validate(schemaRef: string, value: unknown): string[] {
  const check = ajv.getSchema(`${ID}${schemaRef}`) ?? ajv.compile({ $ref: `${ID}${schemaRef}` });
  return check(value) ? [] : (check.errors ?? []).map((e) => `${schemaRef} ${e.instancePath || '(root)'} ${e.message}`);
}

const TEMPLATES = Object.entries(paths).map(([template, item]) => ({
  template,
  item,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

function operationFor(method: string, path: string): { template: string; op: Obj } | undefined {
  const rel = path.replace(/^\/v1/, '');
  const m = method.toLowerCase();
  for (const { template, item, pattern } of TEMPLATES) if (item[m] && pattern.test(rel)) return { template, op: item[m]! };
  return undefined;
}

/** The rules one exchange breaks (empty when it keeps them all). */
export function contractViolations(r: RecordedRequest): string[] {
  // Only the API (under /v1) is described; the sandbox serves the description itself beside it.
  if (!r.path.startsWith('/v1/') && r.path !== '/v1') return [];
  const where = `${r.method} ${r.path} -> ${r.status}`;
  const out: string[] = [];
  let body: unknown;
  try {
    body = r.responseBody === '' ? undefined : JSON.parse(r.responseBody);
  } catch {
    return [`${where}: the body is not JSON`];
  }
  const found = operationFor(r.method, r.path);
  const responses = (found?.op.responses ?? {}) as Record<string, Obj>;
  const documented = responses[String(r.status)];
  if (!documented) {
    if (!SANDBOX_STATUSES.has(r.status)) return [`${where}: status ${r.status} is not in the description${found ? ` of ${found.template}` : ''}`];
    return validate('#/components/schemas/Error', body).map((m) => `${where}: ${m}`);
  }
  const response = deref(documented);
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Obj>)) {
    const h = deref(header);
    const value = r.responseHeaders[name.toLowerCase()];
    if (h.required && value === undefined) out.push(`${where}: header ${name} is required`);
    else if (value !== undefined && (h.schema as Obj | undefined)?.type === 'integer' && !/^\d+$/.test(value))
      out.push(`${where}: header ${name} must be an integer, got ${value}`);
  }
  const content = (response.content as Obj | undefined)?.['application/json'] as Obj | undefined;
  const schema = content?.schema as Obj | undefined;
  if (schema?.$ref) out.push(...validate(String(schema.$ref), body).map((m) => `${where}: ${m}`));
  if (r.status >= 200 && r.status < 300) {
    // Accepted: the request kept the description's rules too.
    const requestSchema = (((found?.op.requestBody as Obj | undefined)?.content as Obj | undefined)?.['application/json'] as Obj | undefined)?.schema as
      | Obj
      | undefined;
    if (requestSchema?.$ref) out.push(...validate(String(requestSchema.$ref), JSON.parse(r.body)).map((m) => `${where}: request ${m}`));
    for (const p of (found?.op.parameters ?? []) as Obj[]) {
      const value = p.in === 'query' ? r.query[String(p.name)] : undefined;
      if (value === undefined) continue;
      const s = deref(p.schema as Obj);
      if (s.type === 'integer') {
        const n = Number(value);
        if (!Number.isInteger(n) || (typeof s.minimum === 'number' && n < s.minimum) || (typeof s.maximum === 'number' && n > s.maximum)) {
          out.push(`${where}: request query ${String(p.name)}=${value} breaks ${JSON.stringify({ minimum: s.minimum, maximum: s.maximum })}`);
        }
      } else if (Array.isArray(s.enum) && !s.enum.includes(value))
        out.push(`${where}: request query ${String(p.name)}=${value} is not one of ${s.enum.join(', ')}`);
    }
  }
  return out;
}
