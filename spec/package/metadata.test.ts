/**
 * What npm shows of the package before anyone installs it: package.json's description says what the README's
 * first paragraph says (one text, kept in one place's words), and the links lead to the repository.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { ROOT } from './doc-blocks.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  description: string;
  keywords: string[];
  homepage: string;
  bugs: { url: string };
  repository: { type: string; url: string };
};

test("package.json's description is the README's first paragraph", (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const first = readme.split(/\n\s*\n/).find((p) => !p.startsWith('#'))!;
  t.is(pkg.description, first.replace(/\s+/g, ' ').trim());
});

test('package.json names the repository, its README as the homepage, its issues for bugs, and keywords', (t) => {
  const repo = 'https://github.com/authkoa/authkoa';
  t.deepEqual(pkg.repository, { type: 'git', url: `git+${repo}.git` });
  t.is(pkg.homepage, `${repo}#readme`);
  t.deepEqual(pkg.bugs, { url: `${repo}/issues` });
  for (const word of ['koa', 'authentication', 'oauth2', 'oidc', 'jwt', 'passkey'])
    t.true(pkg.keywords.includes(word), word);
});
