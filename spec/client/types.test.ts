/**
 * The client's types follow the OpenAPI document: browser/client/schema.ts is what typeScriptOf() makes of
 * the component schemas a running app's `auth.openapi()` serves, and a TypeScript program using the
 * client type-checks against them (each `@ts-expect-error` there must be an error). The client's cookie jar
 * is tested in cookies.test.ts.
 */
import test from 'ava';
import { pemKey } from '../server/openid-fixtures.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ACCOUNT_ERRORS } from '../../lib/accounts/errors.js';
import { ERROR_CODES } from '../../lib/errors.js';
import { MFA_ERRORS } from '../../lib/mfa/errors.js';
import { TOKEN_ERRORS } from '../../lib/personal-tokens/errors.js';
import { typeScriptOf } from '../../lib/openapi/typescript.js';
import { clientSchemaSource, SCHEMA_FILE } from '../../scripts/client-types.js';
import { startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('browser/client/schema.ts is the generated text of the current components (npm run client-types refreshes it)', async (t) => {
  t.is(await readFile(SCHEMA_FILE, 'utf8'), clientSchemaSource(), 'stale: run `npm run client-types`');
});

test("the generated types are those of a running app's auth.openapi() components, ErrorCode holding every error code", async (t) => {
  const app = await startApp({
    secret: 'types-secret-0123456789abcdefghij',
    allowVolatileStores: true, // accounts in memory: a test app's own choice
    providers: [
      { kind: 'direct', name: 'direct', checker: () => false },
      { kind: 'password', name: 'local', sender: () => undefined },
    ],
    accounts: { store: 'memory://' },
    tokens: true,
    mfa: { store: 'memory://' },
    signing: { alg: 'ES256', key: pemKey('ES256') },
    authorizationServer: {},
  });
  t.teardown(() => app.close());
  const doc = (await app.auth.openapi()) as unknown as {
    components: { schemas: Record<string, Record<string, unknown>> };
  };
  const generated = clientSchemaSource();
  t.true(
    generated.endsWith(typeScriptOf(doc.components.schemas, '', { Error: 'ErrorBody' })),
    'the script reads the same components the app serves',
  );
  const codes = /export type ErrorCode = ([^;]+);/
    .exec(generated)![1]!
    .split(' | ')
    .map((c) => JSON.parse(c) as string);
  // authkoa's codes, then the accounts', the personal tokens' and the second factor's (each feature's `errors`).
  const features = [ACCOUNT_ERRORS, TOKEN_ERRORS, MFA_ERRORS].flatMap((errors) => Object.keys(errors));
  t.deepEqual(codes, [...ERROR_CODES, ...features]);
});

test('typeScriptOf: objects open or closed, optional members, unions, arrays, const and enum, named titles, references renamed', (t) => {
  const text = typeScriptOf(
    {
      A: {
        type: 'object',
        required: ['x'],
        additionalProperties: false,
        properties: {
          x: { type: 'integer' },
          y: { title: 'Kind', enum: ['a', 'b'] },
          z: { type: 'array', items: { $ref: '#/components/schemas/Error' } },
        },
      },
      Error: { type: 'object', properties: { ok: { const: true } } },
      U: { oneOf: [{ type: 'string' }, { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'null' }] } }] },
    },
    '',
    { Error: 'Failure' },
  );
  t.is(
    text,
    `export type Kind = "a" | "b";

export interface A {
  x: number;
  y?: Kind;
  z?: Failure[];
}

export interface Failure {
  ok?: true;
  [key: string]: unknown;
}

export type U = string | Array<string | null>;
`,
  );
  t.throws(() => typeScriptOf({ B: { $ref: 'https://elsewhere/x.json' } }), {
    instanceOf: TypeError,
    message: /component references/,
  });
});

test('a TypeScript program using authkoa/client type-checks without the DOM library; misuse is refused (spec/client/consumer.mts)', async (t) => {
  // The client's declarations as the build emits them (browser/tsconfig.json), into a folder of this test's own.
  const out = tempDir(t, 'authkoa-client-dts-');
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'browser/tsconfig.json'),
    { outDir: out },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const emitted = ts.createProgram([join(ROOT, 'browser/client.ts')], config.options).emit();
  t.deepEqual(
    emitted.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    [],
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    paths: { 'authkoa/client': [join(out, 'client.d.ts')] },
  };
  const program = ts.createProgram([join(ROOT, 'spec/client/consumer.mts')], options);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start!).line + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  t.deepEqual(diagnostics, []);
  // The check can fail: a misuse without its @ts-expect-error is reported.
  await writeFile(
    join(out, 'broken.mts'),
    "import { createAuthClient } from 'authkoa/client';\ncreateAuthClient({ baseUrl: 'x' });\n",
  );
  const broken = ts.createProgram([join(out, 'broken.mts')], options);
  t.regex(
    ts
      .getPreEmitDiagnostics(broken)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      .join('\n'),
    /baseUrl/,
  );
});
