/**
 * What the event tests share: a recorder that listens to every event type of an instance, the
 * distinctive User-Agent the tests' browsers send, and a wait for listeners, which run after the answer.
 */
import {
  AUTH_EVENT_TYPES,
  type AuthEvent,
  type AuthEventMap,
  type AuthEventType,
  type AuthKoa,
} from '../../lib/index.js';
import { decodeJwt, type Client } from '../helpers/http.js';

/** The User-Agent the tests send: an event that carries it got it from the request. */
export const UA = 'authkoa-events-test/1.0 (distinctive; +https://example.test/ua)';

/** The address the app sees for a client on the same machine (its servers listen on 127.0.0.1). */
export const LOOPBACK = '127.0.0.1';

/** One turn of the event loop: listeners queued by an answer already received have run after it. */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Every event an instance reports, in order. */
export interface Recorder {
  readonly all: AuthEvent[];
  of<T extends AuthEventType>(type: T): Array<AuthEventMap[T]>;
  /** Resolves once `count` events of `type` arrived (fails after `timeoutMs`), then one more turn, so any extra one is in. */
  until(type: AuthEventType, count?: number, timeoutMs?: number): Promise<void>;
  clear(): void;
  stop(): void;
}

/** Every event type an instance takes: authkoa's core ones, then the built-in second factor's (lib/mfa/events.ts). */
export const EVERY_EVENT_TYPE: readonly AuthEventType[] = [...AUTH_EVENT_TYPES, 'mfa_changed', 'mfa_failed'];

/** Listens to every event type of `auth`. */
export function record(auth: Pick<AuthKoa, 'on' | 'off'>): Recorder {
  const all: AuthEvent[] = [];
  const listener = (event: AuthEvent) => {
    all.push(event);
  };
  for (const type of EVERY_EVENT_TYPE) auth.on(type, listener);
  const of = <T extends AuthEventType>(type: T) => all.filter((e): e is AuthEventMap[T] => e.type === type);
  return {
    all,
    of,
    async until(type, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (of(type).length < count) {
        if (Date.now() > deadline) throw new Error(`waited for ${count} "${type}" events; got ${JSON.stringify(all)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await turn();
    },
    clear() {
      all.length = 0;
    },
    stop() {
      for (const type of EVERY_EVENT_TYPE) auth.off(type, listener);
    },
  };
}

/** The `sid` of the session cookie `c` holds. */
export function sidOf(c: Client, cookie = 'JWT'): string {
  const jwt = c.jar.get(cookie);
  if (!jwt) throw new Error(`no ${cookie} cookie`);
  return decodeJwt(jwt).sid as string;
}

/** The id `/auth/user` answers for `c`'s session. */
export async function userIdOf(c: Client): Promise<string> {
  const res = await c.fetch('/auth/user', { headers: c.xsrf() });
  if (res.status !== 200) throw new Error(`/auth/user: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** The answered JSON error: its status and code. */
export async function refusalOf(res: Response): Promise<{ status: number; code: string }> {
  if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`not JSON: ${res.status} ${res.headers.get('content-type')} ${await res.text()}`);
  return { status: res.status, code: ((await res.json()) as { code: string }).code };
}
