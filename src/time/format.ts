const pad = (n: number) => String(n).padStart(2, '0');

export function formatInstant(at: number, now: number): string {
  const d = new Date(at);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const today = new Date(now);
  const sameDay = d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  return sameDay ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

export function wholeSeconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

export function resetPhrase(at: number, now: number): string {
  return `the limit resets at ${formatInstant(at, now)} (in ${wholeSeconds(at - now)}s)`;
}
