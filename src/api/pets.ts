// The pet store's endpoints (listPets, createPet, getPet) over the retrying client: their paths and
// methods, and the mapping of a failed answer to a typed error, written once.
import type { ApiClient } from '../http/api-client.js';
import type { ApiRequest, ApiResponse } from '../transport/exchange.js';
import { type NewPet, type Pet, type PetStatus, toPets } from '../pets/pet.js';
import { errorForResponse, malformed } from './errors.js';

/** Sends one request and throws the typed error for any non-2xx status. */
export async function call(client: ApiClient, req: ApiRequest, hooks?: Parameters<ApiClient['send']>[1]): Promise<ApiResponse> {
  const res = await client.send(req, hooks);
  if (res.status < 200 || res.status > 299) throw errorForResponse(res, client.ctx);
  return res;
}

export async function listPets(client: ApiClient, query: { limit?: number | undefined; status?: PetStatus | undefined }): Promise<Pet[]> {
  const res = await call(client, { method: 'GET', path: '/pets', query: { limit: query.limit, status: query.status } });
  const pets = toPets(res.json);
  if (!pets) throw malformed(res, 'a list of pets');
  return pets;
}

/** POST /pets, any answer returned: `pets add` and bulk seeding read each outcome themselves (a 3xx or a 5xx may have created the pet). */
export function sendNewPet(client: ApiClient, pet: NewPet, beforeSend?: () => void): Promise<ApiResponse> {
  return client.send({ method: 'POST', path: '/pets', body: pet }, beforeSend ? { beforeSend } : undefined);
}

/** GET /pets/{petId} (deprecated by the interface). The id travels as exact digits: a bigint never goes through a Number. */
export function getPet(client: ApiClient, id: bigint): Promise<ApiResponse> {
  return call(client, { method: 'GET', path: `/pets/${id.toString()}` });
}

/** The cheapest request that proves a key works and returns the quota headers. */
const PROBE: ApiRequest = { method: 'GET', path: '/pets', query: { limit: 1 } };
/** The probe asks the server itself: an earlier command's used-up quota does not hold it back, a server's gate does. */
const ASKS = { asksQuota: true } as const;

/** GET /pets?limit=1, any answer returned (auth status reports it). */
export function probe(client: ApiClient): Promise<ApiResponse> {
  return client.send(PROBE, ASKS);
}

/** GET /pets?limit=1, throwing the typed error unless the key is accepted (login, quota). */
export function checkKey(client: ApiClient): Promise<ApiResponse> {
  return call(client, PROBE, ASKS);
}
