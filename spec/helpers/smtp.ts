import { once } from 'node:events';
import net from 'node:net';
import PostalMime, { type Email } from 'postal-mime';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { selfSignedCert } from './tls.js';

/** One message the test SMTP server accepted, parsed. */
export interface ReceivedMail {
  raw: Buffer;
  mail: Email;
  /** Envelope sender and recipients, as the client gave them. */
  envelopeFrom: string;
  envelopeTo: string[];
  /** True when the message travelled over TLS (implicit or STARTTLS). */
  secure: boolean;
  /** The AUTH user, when the client authenticated. */
  user?: string;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives. */
export interface SmtpPeer {
  port: number;
  /** The CA the client must trust (the self-signed certificate) when TLS is on. */
  ca?: string;
  received: ReceivedMail[];
  /** The next message not yet taken by next(), waiting up to `timeoutMs` (a safety net well inside ava's timeout). */
  next(timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export interface SmtpPeerOptions {
  /** 'plain' (no TLS at all), 'starttls' (upgrade offered, AUTH only after it) or 'implicit' (TLS from the start). */
  tls?: 'plain' | 'starttls' | 'implicit';
  /** Accepted AUTH credentials; AUTH is disabled without them. */
  auth?: { user: string; pass: string };
}

/** Starts an smtp-server on 127.0.0.1:0 that parses every message with postal-mime. */
export async function startSmtp(opts: SmtpPeerOptions = {}): Promise<SmtpPeer> {
  const mode = opts.tls ?? 'plain';
  const received: ReceivedMail[] = [];
  const waiters: Array<(m: ReceivedMail) => void> = [];
  let taken = 0;
  const cert = mode === 'plain' ? undefined : await selfSignedCert();
  const disabled = [...(mode === 'plain' ? ['STARTTLS'] : []), ...(opts.auth ? [] : ['AUTH'])];

  const options: SMTPServerOptions = {
    secure: mode === 'implicit',
    ...(cert ? { key: cert.key, cert: cert.cert } : {}),
    disabledCommands: disabled,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        PostalMime.parse(raw).then(
          (mail) => {
            const m: ReceivedMail = {
              raw,
              mail,
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              secure: session.secure,
              user: typeof session.user === 'string' ? session.user : undefined,
            };
            received.push(m);
            const w = waiters.shift();
            if (w) {
              taken++;
              w(m);
            }
            cb();
          },
          (err: Error) => cb(err),
        );
      });
    },
  };
  const server = new SMTPServer(options);
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as net.AddressInfo).port;
  return {
    port,
    ca: cert?.cert,
    received,
    next(timeoutMs = 30_000) {
      if (taken < received.length) return Promise.resolve(received[taken++]!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(done), 1);
          reject(new Error(`no mail within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = (m: ReceivedMail) => {
          clearTimeout(timer);
          resolve(m);
        };
        waiters.push(done);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP port on 127.0.0.1 where nothing listens (connections are refused). */
export async function closedPort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** One connection to a silentServer(). */
export interface SilentConnection {
  /** True once the client closed the connection (ended or dropped it); the server never writes a byte nor closes one itself. */
  closedByClient: boolean;
  /** Resolves when the client has closed the connection. */
  clientClosed: Promise<void>;
}

export interface SilentServer {
  port: number;
  /** Every connection accepted, in order. */
  connections: SilentConnection[];
  /** Resolves with the `n`-th connection (1-based) once it has been accepted. */
  connection(n: number): Promise<SilentConnection>;
  close(): Promise<void>;
}

/** A server that accepts TCP connections and never says a word: an SMTP greeting that never comes. */
export async function silentServer(): Promise<SilentServer> {
  const sockets = new Set<net.Socket>();
  const connections: SilentConnection[] = [];
  const waiters: Array<() => void> = [];
  let closing = false;
  const s = net.createServer((sock) => {
    sockets.add(sock);
    let clientClosed!: () => void;
    const conn: SilentConnection = {
      closedByClient: false,
      clientClosed: new Promise<void>((resolve) => (clientClosed = resolve)),
    };
    connections.push(conn);
    sock.on('close', () => {
      sockets.delete(sock);
      if (closing) return; // close() below destroyed it, not the client
      conn.closedByClient = true;
      clientClosed();
    });
    sock.on('error', () => {});
    for (const w of waiters.splice(0)) w();
  });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return {
    port: (s.address() as net.AddressInfo).port,
    connections,
    async connection(n) {
      while (connections.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return connections[n - 1]!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const sock of sockets) sock.destroy();
        s.close(() => resolve());
      }),
  };
}
