import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../../../src/errors/errors.js';
import { csvField, renderCsv } from '../../../src/output/print.js';
import { resolveFormat } from '../../../src/output/format.js';
import { renderJson, renderNdjson } from '../../../src/output/json.js';
import { renderTable, renderTsv } from '../../../src/output/table.js';
import { escapeControl } from '../../../src/output/text.js';

describe('resolveFormat', () => {
  it('defaults to table; --json means json; -o picks any of the four', () => {
    expect(resolveFormat({})).toBe('table');
    expect(resolveFormat({ json: true })).toBe('json');
    for (const f of ['table', 'json', 'ndjson', 'csv']) expect(resolveFormat({ output: f })).toBe(f);
    expect(() => resolveFormat({ output: 'JSON' })).toThrow(UsageError);
    expect(resolveFormat({ output: 'json', json: true })).toBe('json');
  });

  it('rejects an unknown format, listing the allowed ones', () => {
    expect(() => resolveFormat({ output: 'yaml' })).toThrow(UsageError);
    expect(() => resolveFormat({ output: 'yaml' })).toThrow('invalid --output "yaml": must be one of table, json, ndjson, csv');
    expect(() => resolveFormat({ output: 'csv' }, ['table', 'json'])).toThrow('must be one of table, json');
  });

  it('rejects --json with a different -o', () => {
    expect(() => resolveFormat({ output: 'csv', json: true })).toThrow('--json conflicts with --output csv');
  });
});

describe('csv', () => {
  it('quotes per RFC 4180 only when needed', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField('')).toBe('');
  });

  it('writes a header line and one line per row; an empty list is the header alone', () => {
    expect(renderCsv(['a', 'b'], [])).toBe('a,b\n');
    expect(renderCsv(['a', 'b'], [['1', 'x,y']])).toBe('a,b\n1,"x,y"\n');
  });

  it('round-trips any field through a minimal RFC 4180 reader', () => {
    const parse = (line: string): string[] => {
      const out: string[] = [];
      let i = 0;
      while (i <= line.length) {
        if (line[i] === '"') {
          let v = '';
          i++;
          for (;;) {
            if (line[i] === '"' && line[i + 1] === '"') {
              v += '"';
              i += 2;
            } else if (line[i] === '"') break;
            else v += line[i++];
          }
          out.push(v);
          i += 2;
        } else {
          const end = line.indexOf(',', i);
          out.push(line.slice(i, end === -1 ? line.length : end));
          i = end === -1 ? line.length + 1 : end + 1;
        }
      }
      return out;
    };
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (fields) => {
        const text = fields.map(csvField).join(',');
        expect(parse(text)).toEqual(fields);
      }),
    );
  });
});

describe('tsv and control characters', () => {
  it('escapes backslash, tab, newline, CR and other control characters', () => {
    expect(escapeControl('a\tb\nc\rd\\e\u001bf', 'cell')).toBe('a\\tb\\nc\\rd\\\\e\\x1bf');
    expect(escapeControl('ok \u009b x')).toBe('ok \\x9b x');
  });

  it('never lets a field add a column or a line', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 4 }), (cells) => {
        const out = renderTsv(
          cells.map((_, i) => `h${i}`),
          [cells.map((text) => ({ text }))],
        );
        const lines = out.split('\n');
        expect(lines).toHaveLength(3);
        expect(lines[1]!.split('\t')).toHaveLength(cells.length);
      }),
    );
  });
});

describe('renderTable', () => {
  const headers = ['id', 'status'];
  const rows = [[{ text: '9007199254740993' }, { text: 'available', tone: 'green' as const }]];

  it('is tab-separated with a header and no colour when not a TTY', async () => {
    expect(await renderTable({ tty: false, color: true }, headers, rows)).toBe('id\tstatus\n9007199254740993\tavailable\n');
    expect(await renderTable({ tty: false, color: false }, headers, [])).toBe('id\tstatus\n');
  });

  it('aligns columns without borders on a TTY, with colour only when allowed', async () => {
    const plain = await renderTable({ tty: true, color: false }, headers, rows);
    expect(plain).toBe('ID                STATUS\n9007199254740993  available\n');
    const colour = await renderTable({ tty: true, color: true }, headers, rows);
    expect(colour).toContain('\u001b[32mavailable');
    expect(colour).toContain('\u001b[1mID\u001b[22m');
  });

  it('shows an empty table as its header line', async () => {
    expect(await renderTable({ tty: true, color: false }, headers, [])).toBe('ID  STATUS\n');
  });

  it('escapes control characters in cells on a TTY', async () => {
    const out = await renderTable({ tty: true, color: false }, ['name'], [[{ text: 'evil\u001b[2Jname' }]]);
    expect(out).toContain('evil\\x1b[2Jname');
    expect(out).not.toContain('\u001b');
  });
});

describe('json and ndjson', () => {
  const big = 2n ** 63n - 1n;
  it('prints exact int64, pretty on a TTY and compact otherwise', () => {
    expect(renderJson({ id: big, n: 1 }, false)).toBe('{"id":9223372036854775807,"n":1}\n');
    expect(renderJson({ id: big }, true)).toBe('{\n  "id": 9223372036854775807\n}\n');
    expect(renderJson([], false)).toBe('[]\n');
  });

  it('prints one compact object per line, and nothing for an empty list', () => {
    expect(renderNdjson([{ id: big }, { id: 2 }])).toBe('{"id":9223372036854775807}\n{"id":2}\n');
    expect(renderNdjson([])).toBe('');
  });
});
