/**
 * `authctl openapi --config <module>`: the document of the configuration a module exports, printed by
 * a separate authctl process, the same as `auth.openapi()` answers in the app; a bad module or a bad
 * option is one line naming it.
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const SECRET = 'openapi-cli-test-secret-0123456789abcdef';

function config(t: import('ava').ExecutionContext, body: string): string {
  const file = join(tempDir(t), 'app.config.mjs');
  writeFileSync(file, body);
  return file;
}

test('prints the OpenAPI document of the configuration the module exports, and exits', async (t) => {
  const file = config(
    t,
    `export default { secret: '${SECRET}', url: 'https://app.example', telemetry: false, adminPasswd: 'x', providers: [{ kind: 'direct', name: 'local', checker: () => false }] };`,
  );
  const res = await runCli(['openapi', '--config', file]);
  t.is(res.code, 0, res.stderr);
  const doc = JSON.parse(res.stdout) as {
    servers: unknown;
    paths: Record<string, unknown>;
    components: { securitySchemes: Record<string, unknown> };
  };
  t.true((await new Validator().validate(doc as never)).valid);
  t.deepEqual(doc.servers, [{ url: 'https://app.example' }]);
  t.truthy(doc.paths['/auth/local/login']);
  t.truthy(doc.components.securitySchemes.basicAuth, 'adminPasswd turns basic auth on');
});

test('a function as the default export works too; --compact prints one line', async (t) => {
  const file = config(
    t,
    `export default async () => ({ secret: '${SECRET}', url: 'https://app.example', telemetry: false, providers: [{ kind: 'direct', name: 'local', checker: () => false }] });`,
  );
  const res = await runCli(['openapi', '--config', file, '--compact']);
  t.is(res.code, 0, res.stderr);
  t.is(res.stdout.trim().split('\n').length, 1);
  t.is((JSON.parse(res.stdout) as { openapi: string }).openapi, '3.1.0');
});

test('a module without options, one that does not load, a misspelled option: one line naming it, exit 1', async (t) => {
  const none = await runCli(['openapi', '--config', config(t, 'export const x = 1;')]);
  t.is(none.code, 1);
  t.regex(none.stderr, /^authctl: --config .*app\.config\.mjs: its default export must be the authKoa\(\) options/);
  const missing = await runCli(['openapi', '--config', '/nonexistent/app.config.mjs']);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /^authctl: --config \/nonexistent\/app\.config\.mjs: cannot load it/);
  const typo = await runCli([
    'openapi',
    '--config',
    config(t, `export default { secret: '${SECRET}', url: 'https://app.example', provders: [] };`),
  ]);
  t.is(typo.code, 1);
  t.regex(typo.stderr, /^authctl: authKoa: unknown option "provders" \(did you mean "providers"\?\)\n$/);
  for (const r of [none, missing, typo]) t.false(r.stderr.includes('    at '), 'no stack trace');
});
