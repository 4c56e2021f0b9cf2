// The one escaping rule for server data on its way to a terminal: C0/C1 controls, DEL and bidi overrides (which make
// "gpj.exe" look like "exe.jpg") become JavaScript-style escapes, or \u00HH in JSON (still valid, the same value).

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_BACKSLASH = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\\]/g;
const UNSAFE_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// JSON text holds C0 only as its layout: JSON.stringify writes those within strings as escapes.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

// `cell`: one line, `\` doubled; `line`: prose; `text`: many lines, tab and newline kept; `json`: JSON.stringify's output.
export type EscapeStyle = 'cell' | 'line' | 'text' | 'json';

const PATTERN: Record<EscapeStyle, RegExp> = { cell: UNSAFE_OR_BACKSLASH, line: UNSAFE, text: UNSAFE_BUT_LAYOUT, json: UNSAFE_IN_JSON };

const hex = (code: number, digits: number) => code.toString(16).padStart(digits, '0');

const NAMED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function literal(ch: string): string {
  const code = ch.charCodeAt(0);
  return NAMED[ch] ?? (code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
}

const jsonEscape = (ch: string) => `\\u${hex(ch.charCodeAt(0), 4)}`;

export function escapeControl(text: string, style: EscapeStyle = 'line'): string {
  return text.replace(PATTERN[style], style === 'json' ? jsonEscape : literal);
}
