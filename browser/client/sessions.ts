/**
 * The client's calls of the user's sessions per device (`<authPath>/sessions`): list them, end one, end the
 * others. Each speaks the JSON of the route it names.
 */
import { isObject, type CallOptions } from './call.js';
import { expect } from './login.js';
import type { Session } from './schema.js';
import type { Transport } from './transport.js';

export function sessionCalls(t: Transport, authPath: string) {
  const path = `${authPath}/sessions`;
  return {
    /** The user's sessions, newest first; this client's has `current: true`. */
    async list(o: CallOptions = {}): Promise<Session[]> {
      return expect(await t.request('GET', path, { signal: o.signal }), t.url(path), Array.isArray, 'a list');
    },
    /** Ends one session (`not_found` for a sid that is not the user's); ending this client's own logs it out. */
    async end(sid: string, o: CallOptions = {}): Promise<void> {
      if (typeof sid !== 'string' || sid === '')
        throw new TypeError('sessions.end(sid): sid must be a session id string (as sessions.list() gives)');
      await t.request('DELETE', `${path}/${encodeURIComponent(sid)}`, { signal: o.signal });
    },
    /** Ends every session of the user but this one. Resolves to the sid kept. */
    async endOthers(o: CallOptions = {}): Promise<{ ended: 'others'; current: string }> {
      return expect(
        await t.request('POST', `${path}/revoke-others`, { signal: o.signal }),
        t.url(`${path}/revoke-others`),
        isObject,
        'the sessions ended',
      );
    },
  };
}
