import { describe, expect, it } from 'vitest';
import { noAnswer, SilenceWatch } from '../../../src/bulk/silence.js';
import { InterruptedError } from '../../../src/errors/errors.js';
import { OutcomeUnknownError } from '../../../src/http/outcome.js';
import { cutShort, TransportError } from '../../../src/transport/errors.js';
import { instantClock } from '../http/fake-clock.js';

const BASE = 'http://127.0.0.1:4010/v1';

/** A watch on a clock the test moves by hand, and how many times it called the run off. */
function watch(limit?: number) {
  const clock = instantClock(0);
  let silent = 0;
  const w = new SilenceWatch(clock, () => silent++, limit);
  const at = async (ms: number) => clock.sleep(ms - clock.now());
  return { w, at, silent: () => silent };
}

const errno = (code: string) => Object.assign(new Error(code), { code });
const post = { method: 'POST' as const, path: '/pets' };

describe('SilenceWatch: a server that stopped answering', () => {
  it('calls the run off once, at the third request in a row that got no answer, and names the server and the count', async () => {
    const { w, at, silent } = watch();
    w.answered();
    await at(100);
    w.unanswered(100);
    w.unanswered(100);
    expect(silent()).toBe(0);
    expect(w.error(BASE)).toBeUndefined();
    w.unanswered(150);
    expect(silent()).toBe(1);
    w.unanswered(160);
    expect(silent()).toBe(1);
    const e = w.error(BASE);
    expect(e?.kind).toBe('network');
    expect(e?.code).toBe('no_answer');
    expect(e?.message).toBe(
      'no answer from 127.0.0.1:4010: 4 requests in a row timed out or closed before any response; the records in flight are unknown, the others were not sent',
    );
  });

  it('an answer between them starts the count again (a server that drops some requests and answers others)', async () => {
    const { w, at, silent } = watch();
    for (let t = 0; t < 50; t++) {
      await at(t * 10);
      w.unanswered(t * 10);
      w.unanswered(t * 10);
      w.answered();
    }
    expect(silent()).toBe(0);
    expect(w.error(BASE)).toBeUndefined();
  });

  it('a request sent before the last answer proves nothing (timeouts of requests that were in flight while others were answered)', async () => {
    const { w, at, silent } = watch();
    // Four requests leave at 0; one is answered at 1000; the three others time out at 2000.
    await at(1000);
    w.answered();
    await at(2000);
    for (let i = 0; i < 3; i++) w.unanswered(0);
    expect(silent()).toBe(0);
    // Three sent after that answer, none answered since: silent.
    for (let i = 0; i < 3; i++) w.unanswered(1500);
    expect(silent()).toBe(1);
  });

  it('takes another limit', () => {
    const { w, silent } = watch(1);
    w.unanswered(0);
    expect(silent()).toBe(1);
  });
});

describe('noAnswer: which failures mean no byte of an answer came', () => {
  it('a timeout, and a connection reset or closed before the response, as the POST layer reports them', () => {
    const timeout = new TransportError('request timed out after 2s', true, true);
    expect(noAnswer(new OutcomeUnknownError(post, timeout))).toBe(true);
    for (const code of ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']) {
      expect(noAnswer(new OutcomeUnknownError(post, new TransportError('reset', true, false, errno(code))))).toBe(true);
    }
  });

  it('not a response cut short, a refused connection, an answer the parser refused, nor Ctrl-C', () => {
    expect(noAnswer(new OutcomeUnknownError(post, new TransportError('cut', true, false, cutShort(errno('ECONNRESET')))))).toBe(false);
    expect(noAnswer(new TransportError('refused', false, false, errno('ECONNREFUSED')))).toBe(false);
    expect(noAnswer(new OutcomeUnknownError(post, new TransportError('not HTTP', true, false, errno('HPE_INVALID_CONSTANT'))))).toBe(false);
    expect(noAnswer(new InterruptedError())).toBe(false);
  });
});
