import net from 'node:net';
import { once } from 'node:events';

/**
 * A TCP proxy in front of a real server (Redis, PostgreSQL) that counts the bytes clients send through
 * it: what "no store read on a protected request" is measured with, from outside the processes, so it
 * holds whatever the client library does. Listens on 127.0.0.1 and a free port.
 */
export interface CountingProxy {
  port: number;
  /** Bytes sent by clients (to the server) since the last reset. */
  readonly sent: number;
  /** What clients sent since the last reset, as it came (at most the first 10 000 chunks). */
  readonly chunks: readonly Buffer[];
  /** Connections opened through the proxy so far. */
  readonly connections: number;
  reset(): void;
  /** Drops every connection through it (the server is untouched): what a network blip looks like. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function countingProxy(targetPort: number): Promise<CountingProxy> {
  let sent = 0;
  let connections = 0;
  let chunks: Buffer[] = [];
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    open.add(client).add(upstream);
    client.on('data', (d: Buffer) => {
      sent += d.length;
      if (chunks.length < 10_000) chunks.push(d);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    get sent() {
      return sent;
    },
    get connections() {
      return connections;
    },
    get chunks() {
      return chunks;
    },
    reset: () => {
      sent = 0;
      chunks = [];
    },
    dropAll: () => open.forEach((s) => s.destroy()),
    close: () =>
      new Promise<void>((resolve) => {
        open.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}
