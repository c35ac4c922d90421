/**
 * Property-based fuzzing (fast-check) of the parsers an attacker reaches: the token parser, the
 * redirect check, the avatar id check and the store URI parser. Thousands of inputs each: nothing may
 * throw anything but the documented error, and no forgery may be accepted.
 */
import test from 'ava';
import fc from 'fast-check';
import { AuthError } from '../../lib/errors.js';
import { resolveAuthKoaOptions as resolveOptions } from '../../lib/core/options.js';
import { safeRedirect } from '../../lib/http/redirect.js';
import { parseStoreUri } from '../../lib/avatar/stores/index.js';
import { isAvatarId } from '../../lib/avatar/stores/types.js';
import { TokenService } from '../../lib/session/token-service.js';
import { forgeToken } from '../helpers/attack.js';

const SECRET = 'fuzz-secret-0123456789abcdef-0123';
const tokens = new TokenService(
  resolveOptions({
    secret: SECRET,
    url: 'http://127.0.0.1:8080',
    providers: [{ kind: 'direct', name: 'd', checker: () => true }],
  }),
);
const RUNS = 2000;

async function genuine(): Promise<string> {
  return tokens.create({
    aud: 'a',
    jti: 'j'.repeat(40),
    user: { name: 'n', id: 'd_1', picture: '' },
    auth_provider: { name: 'd' },
  });
}

test('token parser: random strings are refused with AuthError 401, never another error', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^[A-Za-z0-9_.-]{0,300}$/)),
      async (s) => {
        try {
          await tokens.parse(s);
          return false;
        } catch (err) {
          return err instanceof AuthError && err.status === 401;
        }
      },
    ),
    { numRuns: RUNS },
  );
  t.pass();
});

test('token parser: any single-character change to a genuine token is refused, a spare-bit spelling of the same bytes included', async (t) => {
  const token = await genuine();
  await tokens.parse(token); // the genuine one is accepted
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=';
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: token.length - 1 }), fc.constantFrom(...alphabet), async (i, ch) => {
      const mutated = token.slice(0, i) + ch + token.slice(i + 1);
      if (mutated === token) return true;
      // Every other text is refused, even one that decodes to the same bytes (a spare-bit spelling of
      // the last character): one token has one text, so a denylist keyed by token text holds.
      try {
        await tokens.parse(mutated);
        return false;
      } catch (err) {
        return err instanceof AuthError;
      }
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

test('token parser: arbitrary JSON payloads signed with another key are refused; with our key never crash', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue(), fc.boolean(), async (payload, ours) => {
      const token = forgeToken(payload as object, ours ? SECRET : 'attacker', { alg: 'HS256', typ: 'JWT' });
      try {
        await tokens.parse(token);
        return ours; // only our own key can produce an accepted token
      } catch (err) {
        return err instanceof AuthError;
      }
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

test('redirect check: whatever `from` is, the result is undefined or an http(s) URL on an allowed origin', (t) => {
  const base = 'https://app.example:8443';
  const allowed = ['partner.example'];
  const pieces = fc.constantFrom(
    '/',
    '\\',
    '//',
    'https:',
    'http:',
    'javascript:',
    '@',
    'evil.example',
    'app.example',
    'partner.example',
    ':8443',
    '%2f',
    '%5c',
    '%00',
    '\t',
    '\n',
    ' ',
    '?',
    '#',
    '.',
    '..',
    'a',
  );
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.webUrl(),
        fc.array(pieces, { maxLength: 8 }).map((xs) => xs.join('')),
      ),
      (from) => {
        const out = safeRedirect(from, base, allowed);
        if (out === undefined) return true;
        const u = new URL(out);
        const sameOrigin = u.origin === 'https://app.example:8443';
        return (
          (u.protocol === 'https:' || u.protocol === 'http:') &&
          !u.username &&
          !u.password &&
          (sameOrigin || u.hostname === 'partner.example') &&
          !/[\r\n]/.test(out)
        );
      },
    ),
    { numRuns: RUNS * 3 },
  );
  t.pass();
});

test('avatar id check: only <40 hex>.image passes, so no path separator or NUL ever reaches a store', (t) => {
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^[0-9a-f./\\%]{38,50}(\.image)?$/)),
      (s) => {
        const ok = isAvatarId(s);
        return ok === /^[0-9a-fA-F]{40}\.image$/.test(s) && (!ok || !/[/\\\0.]{2}|[/\\\0]/.test(s));
      },
    ),
    { numRuns: RUNS },
  );
  t.pass();
});

test('store URI parser: any string either parses or throws a TypeError naming the option', (t) => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.webUrl(),
        fc
          .constantFrom('lmdb://', 'bolt://', 'mongodb://', 'file://', 'redis://', 's3://')
          .chain((s) => fc.string().map((r) => s + r)),
      ),
      (uri) => {
        try {
          const target = parseStoreUri(uri);
          return ['file', 'lmdb', 'mongodb'].includes(target.kind);
        } catch (err) {
          return err instanceof TypeError && err.message.startsWith('authKoa: avatarStore');
        }
      },
    ),
    { numRuns: RUNS },
  );
  t.pass();
});

test('REST client argument handling: any argument list is sorted into ids, data and params or refused with a jquery.rest error', async (t) => {
  const { sortArgs } = await import('../../browser/request.js');
  const { buildPath } = await import('../../browser/url.js');
  const { RestClientError } = await import('../../browser/errors.js');
  // Empty-string ids are accepted as in the original (they make a `//`), so ids here are non-empty.
  const arg = fc.oneof(
    fc.string({ minLength: 1 }),
    fc.integer(),
    fc.double(),
    fc.object(),
    fc.array(fc.anything(), { maxLength: 3 }),
    fc.constantFrom(null, undefined, true, false, NaN, Infinity),
    fc.date(),
  );
  fc.assert(
    fc.property(fc.array(arg, { maxLength: 6 }), (args) => {
      let sorted;
      try {
        sorted = sortArgs(args);
      } catch (err) {
        return (
          err instanceof RestClientError && err.message.startsWith('jquery.rest: ') && err.code === 'invalid_argument'
        );
      }
      // Accepted: ids are exactly the strings and finite numbers, in order, and each stays one path segment.
      const ids = args.filter((a) => typeof a === 'string' || (typeof a === 'number' && Number.isFinite(a)));
      if (JSON.stringify(sorted.ids) !== JSON.stringify(ids)) return false;
      const levels = ids.map((_, i) => ({ segment: `r${i}`, single: false }));
      const path = buildPath('/api/', levels, sorted.ids);
      const segments = path.split('/').filter(Boolean);
      return (
        segments.length === 1 + 2 * ids.length &&
        ids.every((id, i) => decodeURIComponent(segments[2 + 2 * i]!) === String(id))
      );
    }),
    { numRuns: RUNS },
  );
  t.pass();
});
