// The one rule for secrets in what petstore prints: every secret it knows is masked in each form a server
// might echo it in (raw, JSON-escaped, URL-encoded, base64 at each alignment), before any cut.

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** A key as petstore shows it: its last four characters at most, and nothing for a short one. */
export function maskKey(key: string): string {
  return key.length < 12 ? '****' : `****${key.slice(-4)}`;
}

/** Encoded forms shorter than this are not looked for (they would match ordinary text). */
const MIN_FORM = 6;

function jsonForms(secret: string): string[] {
  const plain = JSON.stringify(secret).slice(1, -1);
  const slashes = plain.replaceAll('/', '\\/');
  // Every non-ASCII character as \uXXXX (lower- and upper-case hex), as some encoders write them.
  const ascii = plain.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // Upper-case hex in the escapes alone (no encoder upper-cases the whole text).
  const upperHex = ascii.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => `\\u${hex.toUpperCase()}`);
  return [plain, slashes, ascii, upperHex, ascii.replaceAll('/', '\\/')];
}

function urlForms(secret: string): string[] {
  const component = encodeURIComponent(secret);
  const form = new URLSearchParams({ k: secret }).toString().slice(2);
  const lower = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  return [component, lower(component), form, lower(form)];
}

/** The part of base64(pad + secret) that depends on the secret's bytes alone, for 0, 1 and 2 bytes of pad. */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    // Character i holds bits [6i, 6i + 6); the secret's bits are [8 pad, 8 (pad + n)).
    const first = Math.ceil((8 * pad) / 6);
    const last = Math.floor((8 * (pad + bytes.length)) / 6) - 1;
    const core = encoded.slice(first, last + 1);
    if (core.length < MIN_FORM) continue;
    out.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return out;
}

export class Redactor {
  readonly #forms: Map<string, string>; // each form of each secret, and its mask

  constructor(secrets: Iterable<string>) {
    const seen = new Map<string, string>();
    for (const secret of new Set(secrets)) {
      if (secret.length < 4) continue;
      seen.set(secret, maskKey(secret));
      const forms = [...jsonForms(secret), ...urlForms(secret), ...base64Forms(secret)];
      // Each form once more JSON-escaped: a server's text quoted in petstore's own JSON (a results line).
      for (const f of [...forms, ...forms.flatMap((x) => jsonForms(x))]) {
        if (f.length >= MIN_FORM && !seen.has(f)) seen.set(f, '****');
      }
    }
    this.#forms = seen;
  }

  text(text: string): string {
    const spans: Array<[number, number, string]> = [];
    for (const [form, mask] of this.#forms) {
      for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) spans.push([at, at + form.length, mask]);
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    let out = '';
    let done = 0;
    let i = 0;
    while (i < spans.length) {
      let [start, end, mask] = spans[i]!;
      let merged = false;
      for (i++; i < spans.length && spans[i]![0] < end; i++) {
        if (spans[i]![1] > end) {
          end = spans[i]![1];
          merged = true;
        }
      }
      out += `${text.slice(done, start)}${merged ? '****' : mask}`;
      done = end;
    }
    return out + text.slice(done);
  }

  header(name: string, value: string): string {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) return this.text(value);
    const m = /^(Bearer|Basic|Digest|Token)\s+(.*)$/is.exec(value);
    if (!m) return '****';
    const credential = m[2] ?? '';
    const masked = this.text(credential);
    return `${m[1]} ${masked !== credential && /^\*{4}\S{0,4}$/.test(masked) ? masked : '****'}`;
  }
}
