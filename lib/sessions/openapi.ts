import { ref } from '../openapi/components.js';
import { empty, json, op, SESSION, STRING } from '../openapi/operation.js';
import type { PathItem, Text } from '../openapi/operation.js';

const TEXT = {
  sessions: [
    "The user's sessions, one per login",
    "The session user's sessions (one per login, per browser), newest first; the request's own is `current`.",
  ],
  others: ['Ends every other session of the user', "Ends each of the user's sessions but the request's own."],
  end: ['Ends one session', "Ends one of the user's sessions by its `sid` (another user's is an unknown one)."],
} satisfies Record<string, Text>;

/** The session list's routes, under authRoutePath (routes.ts answers them). */
export function sessionPaths(): Record<string, PathItem> {
  const tag = 'sessions';
  const list = { 200: json({ type: 'array', items: ref('Session') }, 'newest first') };
  const others = { const: 'others' };
  const ended = { type: 'object', required: ['ended', 'current'], properties: { ended: others, current: STRING } };
  const sid = { name: 'sid', in: 'path', required: true, schema: { ...STRING, maxLength: 128 } };
  return {
    '/sessions': { get: op(TEXT.sessions, tag, SESSION, list) },
    '/sessions/revoke-others': { post: op(TEXT.others, tag, SESSION, { 200: json(ended, 'ended') }) },
    '/sessions/{sid}': { delete: op(TEXT.end, tag, SESSION, { 204: empty('ended') }, { parameters: [sid] }) },
  };
}
