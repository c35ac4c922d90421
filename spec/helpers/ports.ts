import { once } from 'node:events';
import { createServer } from 'node:net';

/**
 * A port on 127.0.0.1 that nothing listens on now: the system picks it, then it is let go. For a peer a
 * test starts on it next, or for an address that must refuse connections.
 */
export async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}
