/** The environment variables the docs tell a user to set are the ones the demo and authctl read. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { Outbox } from '../../example/outbox.js';
import { demoProviders } from '../../example/providers.js';
import { catalog } from '../../lib/providers/social.js';

const root = join(import.meta.dirname, '..', '..');
const texts = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)].map(
  (f) => [f, readFileSync(join(root, f), 'utf8')] as const,
);

test("a social provider's variables are <NAME>_CID and <NAME>_CSEC everywhere, as the demo reads them", (t) => {
  const prefixes = Object.keys(catalog).map((n) => n.toUpperCase());
  const seen: string[] = [];
  for (const [file, text] of texts) {
    for (const [name] of text.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z_]+\b/g)) {
      if (!prefixes.some((p) => name.startsWith(`${p}_`))) continue;
      seen.push(name);
      t.regex(name, /_(CID|CSEC)$/, `${file}: ${name}`);
    }
  }
  t.true(seen.includes('GITHUB_CSEC'), seen.join(' '));
  const entries = demoProviders({ devPort: 0, outbox: new Outbox(), env: { GITHUB_CID: 'id', GITHUB_CSEC: 'secret' } });
  t.like(
    entries.find((e) => e.name === 'github'),
    { cid: 'id', csecret: 'secret' },
  );
});

test('the Telegram token is TELEGRAM_BOT_TOKEN in the docs, in authctl bot and in the demo', (t) => {
  for (const [file, text] of texts) t.false(/\bTELEGRAM_TOKEN\b/.test(text), file);
  t.true(texts.some(([, text]) => text.includes('TELEGRAM_BOT_TOKEN')));
  t.regex(readFileSync(join(root, 'bin/commands/bot.ts'), 'utf8'), /process\.env\.TELEGRAM_BOT_TOKEN/);
  const entries = demoProviders({ devPort: 0, outbox: new Outbox(), env: { TELEGRAM_BOT_TOKEN: '1:abc' } });
  t.like(
    entries.find((e) => e.name === 'telegram'),
    { kind: 'telegram', token: '1:abc' },
  );
});
