// HTTP-date (RFC 9110 section 5.6.7), for Retry-After and the Date header: Date.parse reads asctime as
// local time and accepts much that is not a date. One preferred form and two obsolete ones:
//   IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
//   RFC 850      Sunday, 06-Nov-94 08:49:37 GMT
//   asctime      Sun Nov  6 08:49:37 1994

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const SHORT_DAYS = '(?:mon|tue|wed|thu|fri|sat|sun)';
const LONG_DAYS = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

const IMF_FIXDATE = new RegExp(`^${SHORT_DAYS},\\s+(\\d{1,2})\\s+([a-z]{3})\\s+(\\d{4})\\s+${TIME}\\s+(?:GMT|UTC)$`, 'i');
const RFC_850 = new RegExp(`^${LONG_DAYS},\\s+(\\d{1,2})-([a-z]{3})-(\\d{2})\\s+${TIME}\\s+(?:GMT|UTC)$`, 'i');
const ASCTIME = new RegExp(`^${SHORT_DAYS}\\s+([a-z]{3})\\s+(\\d{1,2})\\s+${TIME}\\s+(\\d{4})$`, 'i');

function utc(year: number, monthName: string, day: number, h: number, m: number, s: number): number | undefined {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  if (month < 0 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, month, day, h, m, Math.min(s, 59));
  // Reject dates that roll over (31 Feb).
  if (new Date(ms).getUTCDate() !== day) return undefined;
  return ms;
}

/** RFC 850's two-digit year: one more than 50 years ahead is the most recent past year with those digits (RFC 9110). */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  let year = Math.floor(current / 100) * 100 + twoDigits;
  if (year > current + 50) year -= 100;
  return year;
}

export function parseHttpDate(text: string, now: number): number | undefined {
  const t = text.trim();
  let m = IMF_FIXDATE.exec(t);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC_850.exec(t);
  if (m) return utc(fullYear(Number(m[3]), now), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = ASCTIME.exec(t);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  return undefined;
}
