/**
 * What a user sees when an app does not start: a plain ESM script run by `node` (the compiled package,
 * no logger given) whose `await auth.ready` rejects, or whose `authKoa({...})` throws on a bad option,
 * prints the message as the first line of its output, before Node's own report, and exits non-zero;
 * an authctl command prints one line and exits non-zero. Real `node` processes, their stderr read.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureLibBuild } from '../helpers/build.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { freePort } from '../helpers/ports.js';

const ENTRY = pathToFileURL(join(ROOT, 'dist/lib/index.js')).href;

test.before(() => ensureLibBuild());

/** Runs `source` as an .mjs script with plain `node`; its exit code and stderr lines. */
async function runScript(dir: string, source: string): Promise<{ code: number | null; lines: string[]; file: string }> {
  const file = join(dir, 'app.mjs');
  writeFileSync(file, source);
  const child = spawn(process.execPath, [file], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, lines: stderr.split('\n'), file };
}

const options = (more: string) =>
  `{ secret: 'x'.repeat(40), url: 'http://127.0.0.1:8080', providers: [{ kind: 'direct', name: 'local', checker: () => true }], ${more} }`;

test('a script whose await auth.ready rejects (a Redis nothing listens on): the first line is the message, the exit code 1', async (t) => {
  const port = await freePort();
  const run = await runScript(
    tempDir(t),
    `import { authKoa } from '${ENTRY}';\nconst auth = authKoa(${options(`stateStore: 'redis://:hunter2@127.0.0.1:${port}/0'`)});\nawait auth.ready;\n`,
  );
  t.is(run.code, 1);
  t.is(
    run.lines[0],
    `authkoa error: did not start: authKoa: stateStore redis://:***@127.0.0.1:${port}/0: cannot connect: connection refused (ECONNREFUSED)`,
  );
  t.false(run.lines.join('\n').includes('hunter2'));
});

test("a script whose authKoa({...}) throws on a misspelled option: the first line is the message, then Node points at the script's own line", async (t) => {
  const run = await runScript(
    tempDir(t),
    `import { authKoa } from '${ENTRY}';\n\nconst auth = authKoa(${options(`stateStor: 'memory://'`)});\n`,
  );
  t.is(run.code, 1);
  t.is(run.lines[0], 'authkoa error: did not start: authKoa: unknown option "stateStor" (did you mean "stateStore"?)');
  // Node's excerpt shows the line that called authKoa(), not a line inside the library.
  t.is(run.lines[1], `${pathToFileURL(run.file).href}:3`);
  t.true(run.lines[2]!.startsWith('const auth = authKoa('), run.lines.join('\n'));
});

test('an authctl command whose store cannot be reached prints one line and exits non-zero', async (t) => {
  const port = await freePort();
  const r = await runCli(['mfa', 'status', 'local_alice', '--store', `redis://:hunter2@127.0.0.1:${port}/0`]);
  t.not(r.code, 0);
  const lines = r.stderr.trimEnd().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0]!, new RegExp(`^authctl: .*redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0.*ECONNREFUSED`));
});
