import type { ApiRequest, ApiResponse, HttpTransport } from './client.js';
import type { Quota } from './quota.js';
import { errorForResponse } from './response-errors.js';

export interface ApiClientContext {
  envName: string;
}

/**
 * What commands talk to: sends requests through the transport and remembers
 * the latest quota for the report after the command.
 */
export class ApiClient {
  #lastQuota: Quota | undefined;
  #requests = 0;

  constructor(
    readonly transport: HttpTransport,
    readonly ctx: ApiClientContext,
  ) {}

  get lastQuota(): Quota | undefined {
    return this.#lastQuota;
  }

  /** How many HTTP requests this client sent. */
  get requestCount(): number {
    return this.#requests;
  }

  /** Sends one request; any HTTP status is returned, transport faults throw. */
  async send(req: ApiRequest): Promise<ApiResponse> {
    this.#requests++;
    const res = await this.transport.once(req);
    if (res.quota) this.#lastQuota = res.quota;
    return res;
  }

  /** Sends one request and throws the typed error for any non-2xx status. */
  async call(req: ApiRequest): Promise<ApiResponse> {
    const res = await this.send(req);
    if (res.status < 200 || res.status > 299) throw errorForResponse(res, this.ctx);
    return res;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
