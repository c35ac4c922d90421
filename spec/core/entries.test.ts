/**
 * The types of `providers` (lib/providers/core/entries.ts) agree with what start-up resolves: a name
 * the `SocialName` type accepts without a kind is exactly a built-in name of the social kind. How
 * TypeScript treats entries is checked by compiling spec/package/typed-entries.mts (doc-snippets.test.ts).
 */
import test from 'ava';
import type { SocialName } from '../../lib/index.js';
import { builtinNames } from '../../lib/providers/core/kinds.js';

/** Every SocialName once: the compiler refuses a missing or an unknown key. */
const SOCIAL_NAMES: Record<SocialName, true> = {
  google: true,
  github: true,
  facebook: true,
  yandex: true,
  battlenet: true,
  microsoft: true,
  patreon: true,
  discord: true,
  twitter: true,
  x: true,
};

test('SocialName is exactly the built-in names that resolve to the social kind', (t) => {
  const social = [...builtinNames].filter(([, b]) => b.kind === 'social').map(([name]) => name);
  t.deepEqual(Object.keys(SOCIAL_NAMES).sort(), social.sort());
});
