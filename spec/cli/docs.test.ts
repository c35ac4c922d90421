/**
 * docs/cli.md documents every command authctl has: each command and subcommand of the program definition
 * (read from bin/authctl.ts itself, see program-tree.mjs) has a heading there, and each command that runs
 * something has, under its heading, every one of its options and an example that runs it. A new command or
 * option without its documentation fails here, and so does a heading for a command that no longer exists.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { ROOT } from '../helpers/cli.js';

interface CommandTree {
  name: string;
  args: string[];
  options: { flags: string; long: string | null }[];
  commands: CommandTree[];
}

/** authctl's program definition, from bin/authctl.ts as a user's `authctl` builds it. */
async function programTree(): Promise<CommandTree> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import=tsx', '--import=./spec/cli/program-tree.mjs', 'bin/authctl.ts'],
    { cwd: ROOT },
  );
  return JSON.parse(stdout) as CommandTree;
}

/** Every command under the root, with its path (`accounts links`). */
function commandsOf(root: CommandTree): { path: string; command: CommandTree }[] {
  const found: { path: string; command: CommandTree }[] = [];
  const walk = (c: CommandTree, prefix: string) => {
    for (const sub of c.commands) {
      const path = `${prefix}${sub.name}`;
      found.push({ path, command: sub });
      walk(sub, `${path} `);
    }
  };
  walk(root, '');
  return found;
}

const doc = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text under the heading of `authctl <path>`, up to the next heading; undefined when there is none. */
function section(path: string): string | undefined {
  const heading = new RegExp(`^#{2,4} \`authctl ${escape(path)}(?=[ \`])[^\\n]*\\n`, 'm').exec(doc);
  if (!heading) return undefined;
  const rest = doc.slice(heading.index + heading[0].length);
  return rest.slice(0, rest.search(/^#{1,4} /m) >>> 0);
}

test('docs/cli.md has a heading for every command and subcommand of authctl, and none for a command it lacks', async (t) => {
  const commands = commandsOf(await programTree());
  t.true(commands.length > 30, `${commands.length} commands`);
  const paths = commands.map((c) => c.path);
  t.deepEqual(
    paths.filter((p) => section(p) === undefined),
    [],
    'commands without a heading in docs/cli.md',
  );
  const documented = [...doc.matchAll(/^#{2,4} `authctl ([a-z-]+(?: [a-z-]+)?)/gm)].map((m) => m[1]!);
  t.deepEqual(
    documented.filter((p) => !paths.includes(p)),
    [],
    'headings naming no command',
  );
});

test("under each runnable command's heading, docs/cli.md names every one of its options and has an example running it", async (t) => {
  const root = await programTree();
  const problems: string[] = [];
  for (const { path, command } of commandsOf(root).filter((c) => c.command.commands.length === 0)) {
    const text = section(path) ?? '';
    for (const option of command.options)
      if (option.long && !text.includes(option.long)) problems.push(`authctl ${path}: ${option.long}`);
    const examples = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    if (!examples.some((e) => new RegExp(`(^|\\s)authctl ${escape(path)}(\\s|$)`, 'm').test(e)))
      problems.push(`authctl ${path}: no example`);
  }
  // The program's own options: documented once, in the introduction.
  for (const option of root.options)
    if (option.long && !doc.includes(option.long)) problems.push(`authctl: ${option.long}`);
  t.deepEqual(problems, []);
});
