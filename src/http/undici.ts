// The parts of undici the CLI uses, loaded directly. undici's index also loads fetch,
// WebSocket, caches, cookies and the mock agents: about 50 ms more start-up on every
// command that loads undici (see README "Performance").
import type { Dispatcher } from 'undici';
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgentImpl from 'undici/lib/dispatcher/env-http-proxy-agent.js';

export const Agent = AgentImpl;
export type { Dispatcher };

/**
 * undici's EnvHttpProxyAgent. Its ProxyAgent opens https tunnels with Dispatcher.prototype.connect(),
 * which undici's index installs together with request() and the rest of its API: loaded here only
 * when a proxy is configured (our own requests go through dispatch(), src/http/undici-exchange.ts).
 */
export async function envHttpProxyAgent(opts: ConstructorParameters<typeof EnvHttpProxyAgentImpl>[0]): Promise<Dispatcher> {
  const { default: api } = await import('undici/lib/api/index.js');
  Object.assign(DispatcherImpl.prototype, api);
  return new EnvHttpProxyAgentImpl(opts);
}
