// The one escaping rule for data from a server (names, messages, headers, bodies) on its way to a
// terminal: a code point that could drive the terminal or reorder what it shows is written as a
// visible escape instead. Unsafe: C0 controls (ESC included), DEL, C1 controls (U+0080-U+009F: a
// terminal may read U+009B as CSI) and the bidirectional embeddings, overrides and isolates
// (U+202A-U+202E, U+2066-U+2069: they make "gpj.exe" look like "exe.jpg").
//
// Visible form: that of a JavaScript string literal: \t \n \r, \xHH up to U+00FF, \uHHHH above
// (lower-case hex). In JSON (style 'json') JSON's own form: \u00HH, so the text stays valid JSON
// with the same value.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_BACKSLASH = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\\]/g;
const UNSAFE_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// JSON text holds C0 only as its layout: JSON.stringify writes those within strings as escapes.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * - `cell`: a table or CSV cell, a TSV field: one line, every unsafe code point visible, and `\`
 *   doubled, so the escaped text is reversible (two names never look the same).
 * - `line`: one line of prose (an error, a warning, a debug trace): as `cell`, `\` left alone.
 * - `text`: text of many lines (a response body that is not JSON): as `line`, tab and newline kept.
 * - `json`: JSON text from JSON.stringify (which escaped C0, `"` and `\` in strings; its newlines and
 *   indentation stay): DEL, C1 and bidi controls as \u00HH/\uHHHH.
 */
export type EscapeStyle = 'cell' | 'line' | 'text' | 'json';

const PATTERN: Record<EscapeStyle, RegExp> = { cell: UNSAFE_OR_BACKSLASH, line: UNSAFE, text: UNSAFE_BUT_LAYOUT, json: UNSAFE_IN_JSON };

const hex = (code: number, digits: number) => code.toString(16).padStart(digits, '0');

function literal(ch: string): string {
  switch (ch) {
    case '\\':
      return '\\\\';
    case '\t':
      return '\\t';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    default: {
      const code = ch.charCodeAt(0);
      return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
    }
  }
}

const jsonEscape = (ch: string) => `\\u${hex(ch.charCodeAt(0), 4)}`;

/** Makes every unsafe code point of `text` visible (see EscapeStyle); the only such function. */
export function escapeControl(text: string, style: EscapeStyle = 'line'): string {
  const pattern = PATTERN[style];
  pattern.lastIndex = 0;
  if (!pattern.test(text)) return text;
  return text.replace(pattern, style === 'json' ? jsonEscape : literal);
}

/** A tab-separated field: one line, escaped as a table cell (as MySQL/PostgreSQL text output does). */
export function tsvField(text: string): string {
  return escapeControl(text, 'cell');
}
