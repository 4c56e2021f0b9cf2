import type { Readable } from 'node:stream';
import { UsageError } from '../errors/errors.js';
import { INPUT_FORMATS } from '../flag-values.js';
import { parseJson } from '../json/int64.js';
import { lines } from './lines.js';
import { checkNewPet, NEW_PET_FIELDS, REQUIRED_FIELDS, type RecordCheck } from './new-pet-record.js';

export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface InputRecord {
  /** 1-based line where the record starts. */
  line: number;
  check: RecordCheck;
}

/** The format from --format, else the file's extension; undefined when it must be sniffed. */
export function formatFromName(path: string, flag: string | undefined): InputFormat | undefined {
  if (flag !== undefined) {
    if (!(INPUT_FORMATS as readonly string[]).includes(flag)) {
      throw new UsageError(`invalid --format "${flag}": must be one of ${INPUT_FORMATS.join(', ')}`);
    }
    return flag as InputFormat;
  }
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'csv') return 'csv';
  return undefined;
}

/** Guesses the format from the first non-blank character of the input. */
export function sniffFormat(head: string): InputFormat {
  const first = head.trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'ndjson';
  return 'csv';
}

function parseFailure(message: string): RecordCheck {
  return { ok: false, problems: [message] };
}

/** One record's JSON text (an NDJSON line, an array element) checked as a NewPet. */
function checkJsonRecord(source: string): RecordCheck {
  let value: unknown;
  try {
    value = parseJson(source);
  } catch (error) {
    return parseFailure(`invalid JSON: ${(error as Error).message}`);
  }
  return checkNewPet(value);
}

async function* ndjsonRecords(input: Readable): AsyncGenerator<InputRecord> {
  let line = 0;
  for await (const text of lines(input)) {
    line++;
    if (text.trim() === '') continue;
    yield { line, check: checkJsonRecord(text) };
  }
}

/** Splits one CSV record; `open` is true when a quoted field runs past the end of the text. */
export function splitCsv(text: string): { fields: string[]; open: boolean } {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return { fields, open: quoted };
}

const CSV_COLUMNS = new Set(NEW_PET_FIELDS);

async function* csvRecords(input: Readable): AsyncGenerator<InputRecord> {
  let header: string[] | undefined;
  let line = 0;
  let pending: { start: number; text: string } | undefined;
  for await (const raw of lines(input)) {
    line++;
    const text = pending ? `${pending.text}\n${raw}` : raw;
    const start = pending?.start ?? line;
    const { fields, open } = splitCsv(text);
    if (open) {
      pending = { start, text };
      continue;
    }
    pending = undefined;
    if (!header) {
      if (text.trim() === '') continue;
      header = fields.map((f) => f.trim());
      const missing = REQUIRED_FIELDS.filter((c) => !header?.includes(c));
      const unknown = header.filter((c) => !CSV_COLUMNS.has(c));
      if (missing.length > 0 || unknown.length > 0) {
        throw new UsageError(
          `line ${start}: CSV header must name the columns name,categoryId[,status]` +
            `${missing.length ? `; missing ${missing.join(', ')}` : ''}${unknown.length ? `; unknown ${unknown.join(', ')}` : ''}`,
        );
      }
      continue;
    }
    if (text.trim() === '') continue;
    if (fields.length !== header.length) {
      yield { line: start, check: parseFailure(`expected ${header.length} columns (${header.join(',')}), got ${fields.length}`) };
      continue;
    }
    const record: Record<string, string> = {};
    header.forEach((name, i) => {
      record[name] = fields[i] ?? '';
    });
    yield { line: start, check: checkNewPet(record, true) };
  }
  if (pending) yield { line: pending.start, check: parseFailure('unterminated quoted field') };
}

/** Yields the source text of each top-level array element with the line it starts on. */
export function* arrayElements(text: string): Generator<{ line: number; source: string }> {
  let i = 0;
  let line = 1;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i] as string)) {
      if (text[i] === '\n') line++;
      i++;
    }
  };
  skipSpace();
  if (text[i] !== '[') throw new UsageError('line 1: a JSON input must be an array of objects (use --format ndjson for one object per line)');
  i++;
  skipSpace();
  if (text[i] === ']') return;
  for (;;) {
    skipSpace();
    const startLine = line;
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '\n') line++;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    if (i >= text.length) throw new UsageError(`line ${line}: the JSON array is not closed`);
    yield { line: startLine, source: text.slice(start, i) };
    if (text[i] === ']') {
      i++;
      skipSpace();
      if (i < text.length) throw new UsageError(`line ${line}: unexpected text after the JSON array`);
      return;
    }
    i++;
  }
}

async function* jsonRecords(input: Readable): AsyncGenerator<InputRecord> {
  let text = '';
  // Text: readRecords set the encoding, so a character split across chunks arrives whole.
  for await (const chunk of input) text += chunk as string;
  for (const { line, source } of arrayElements(text)) {
    yield { line, check: checkJsonRecord(source) };
  }
}

/** Reads NewPet records with their line numbers; NDJSON and CSV are streamed. */
export function readRecords(input: Readable, format: InputFormat): AsyncGenerator<InputRecord> {
  input.setEncoding('utf8');
  switch (format) {
    case 'ndjson':
      return ndjsonRecords(input);
    case 'csv':
      return csvRecords(input);
    case 'json':
      return jsonRecords(input);
  }
}
