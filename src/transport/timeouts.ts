/** How long a new connection (TCP, and TLS for https) may take, on both engines: undici's default connectTimeout. */
export const CONNECT_TIMEOUT_MS = 10_000;
