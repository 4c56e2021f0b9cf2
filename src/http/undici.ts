// The parts of undici the CLI uses, loaded directly. undici's index also loads
// fetch, WebSocket, caches, cookies and the mock agents: about 50 ms more
// start-up on every command that sends a request (see README "Performance").
import type { Dispatcher } from 'undici';
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgentImpl from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import api from 'undici/lib/api/index.js';

// What undici's index does: the request API lives on the Dispatcher prototype.
Object.assign(DispatcherImpl.prototype, api);

export const Agent = AgentImpl;
export const EnvHttpProxyAgent = EnvHttpProxyAgentImpl;
export type { Dispatcher };

/** undici's request() with an explicit dispatcher. */
export function request(url: string, opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher }): Promise<Dispatcher.ResponseData> {
  const u = new URL(url);
  const { dispatcher, ...rest } = opts;
  return dispatcher.request({ ...rest, origin: u.origin, path: `${u.pathname}${u.search}` });
}
