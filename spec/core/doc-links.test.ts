/**
 * The links between the documents resolve: every relative link of README.md, CHANGELOG.md and docs/*.md
 * names a file of the repository, and a `#fragment` names a heading of it (GitHub's anchor for the heading:
 * lower case, punctuation dropped, spaces as hyphens, `-1`, `-2` for repeats). Links in code are not links.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import test from 'ava';

const ROOT = join(import.meta.dirname, '..', '..');
const FILES = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced blocks and inline code. */
function prose(text: string): string {
  return text.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for the headings of a markdown text (inline code keeps its words). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const headings = text.replace(/^\s*```[\s\S]*?^\s*```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm);
  for (const [, heading] of headings) {
    const slug = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return found;
}

test('every relative link of the README, the changelog and docs/ names a file, and its #fragment a heading there', (t) => {
  const problems: string[] = [];
  let checked = 0;
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:
      const [path = '', fragment] = target!.split('#');
      const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), path);
      checked++;
      if (!existsSync(resolved)) {
        problems.push(`${file}: ${target} (no ${relative(ROOT, resolved)})`);
        continue;
      }
      if (
        fragment !== undefined &&
        resolved.endsWith('.md') &&
        !anchors(readFileSync(resolved, 'utf8')).has(fragment)
      ) {
        problems.push(`${file}: ${target} (no heading #${fragment} in ${relative(ROOT, resolved)})`);
      }
    }
  }
  t.deepEqual(problems, []);
  t.true(checked > 50, `${checked} links`);
});

test('the README links the guides a newcomer starts from, and the changelog', (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const target of ['docs/getting-started.md', 'docs/client.md', 'docs/cli.md', 'CHANGELOG.md'])
    t.true(readme.includes(`](${target}`), target);
  t.regex(readme, /^npm install && npm start /m);
  t.regex(readme, /^npm test /m);
});
