import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The HTTP side both local servers share: listening, and a close that does not wait for idle keep-alives. */

/** Largest form either server reads (a login form, a token request). */
export const MAX_FORM = 16 * 1024;

export interface Listener {
  /** The port listened on (the one picked when 0 was asked for). */
  readonly port: number;
  /** Stops listening and drops open connections; every call returns the same promise. */
  close(): Promise<void>;
}

/** Listens on `host:port`; resolves once listening, rejects with the listen error (a port in use). */
export async function listen(handler: http.RequestListener, port: number, host: string): Promise<Listener> {
  const server = http.createServer(handler);
  server.listen(port, host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([err]: unknown[]) => {
      throw err;
    }),
  ]);
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
