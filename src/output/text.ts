// Keeps data from the server (names, messages, headers) from driving the terminal:
// control characters are shown as escapes instead of being written raw.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function escapeOne(ch: string): string {
  switch (ch) {
    case '\t':
      return '\\t';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    default:
      return `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
  }
}

/** Control characters as visible escapes (\t, \n, \r, \xHH). */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, escapeOne);
}

/** A tab-separated field: backslash, tab, newline, CR and other control characters escaped (as MySQL/PostgreSQL text output does). */
export function tsvField(text: string): string {
  return escapeControl(text.replace(/\\/g, '\\\\'));
}
