// `npm test`'s second step: the TypeScript of the repository compiled once into .tmp/suite/ (esbuild, one file
// for each source, no bundling), so the test workers and the app processes they start run plain JavaScript.
// Under tsx every worker pays for its loader hooks on each module it imports, its own and the packages' alike:
// about a second of CPU per test file, a fifth of the suite's CPU. The copy behaves as the sources do under tsx:
// `import.meta.url` (and `dirname`, `filename`) are the source file's, so paths a test or the library builds from
// it name the repository's files; every other file is a symbolic link to the real one. `npx ava spec/x.test.ts`
// still runs a file from its source (ava.config.js); `npm test` runs the copy (ava.suite.config.js).
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SUITE = join(root, '.tmp', 'suite');
/** The folders with TypeScript: each .ts file is compiled; anything else in them is linked. */
const COMPILED = ['lib', 'spec', 'bin', 'browser', 'example', 'bench', 'scripts'];
/** Not in the copy: what it would only duplicate, and the copy itself. */
const LEFT_OUT = new Set(['.git', '.tmp', 'node_modules']);
/** The compiler settings that change emitted code, as tsconfig.json has them (tsx reads the same). */
const tsconfigRaw = { compilerOptions: { target: 'ES2022', useDefineForClassFields: true } };

async function filesUnder(dir) {
  const found = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    // A test's cache or an installed package is linked whole, not copied file by file.
    if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.'))
      found.push(...(await filesUnder(path)));
    else found.push(path);
  }
  return found;
}

async function compile(file, target) {
  const source = await readFile(file, 'utf8');
  const { code } = await transform(source, {
    loader: 'ts',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // As tsx does: a function keeps its name (a page script built from one relies on it).
    keepNames: true,
    sourcemap: 'inline',
    sourcefile: file,
    tsconfigRaw,
    define: {
      'import.meta.url': JSON.stringify(pathToFileURL(file).href),
      'import.meta.filename': JSON.stringify(file),
      'import.meta.dirname': JSON.stringify(dirname(file)),
    },
  });
  await writeFile(`${target.slice(0, -3)}.js`, code);
}

async function place(file) {
  const target = join(SUITE, relative(root, file));
  await mkdir(dirname(target), { recursive: true });
  if (file.endsWith('.ts') && !file.endsWith('.d.ts')) await compile(file, target);
  else await symlink(file, target);
}

export async function buildSuite() {
  const startedAt = Date.now();
  await rm(SUITE, { recursive: true, force: true });
  await mkdir(SUITE, { recursive: true });
  const files = (await Promise.all(COMPILED.map((d) => filesUnder(join(root, d))))).flat();
  await Promise.all(files.map(place));
  // The rest of the root as it is (package.json, dist/, docs/, …), for what a test reaches by a relative path.
  for (const entry of await readdir(root)) {
    if (!COMPILED.includes(entry) && !LEFT_OUT.has(entry)) await symlink(join(root, entry), join(SUITE, entry));
  }
  const compiled = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).length;
  console.log(
    `build-suite: ${compiled} TypeScript files compiled into ${relative(root, SUITE)}/ in ${Date.now() - startedAt} ms`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildSuite();
