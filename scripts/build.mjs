// `npm run build` (and so `npm start`'s prestart): the library, the CLI and the demo compiled into dist/ by tsc,
// then the browser bundles into dist/browser/ (browser/build.mjs). Each part runs only when one of its sources
// changed since it last ran, or an output is missing (scripts/stamp.mjs), so a second `npm start` with nothing
// changed starts in a second or two instead of half a minute. tsc is incremental as well
// (dist/.build/lib.tsbuildinfo): after a change it re-checks what the change can affect, not the whole program.
// `--force` runs both parts whatever the stamps say.
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { filesUnder, missingOutput, orphanOutputs, staleReason, writeStamp } from './stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
// What every part reads besides its sources: the compiler settings and the installed packages' versions.
const SHARED = ['tsconfig.json', 'package-lock.json'];

/** Runs `part` unless its stamp says it is up to date; `sources` and `outputs` are relative to the root. */
async function step(name, sources, outputs, part) {
  const stampFile = `dist/.build/${name}.json`;
  const reason = force ? 'forced' : await staleReason(root, stampFile, sources, outputs);
  if (!reason) return console.log(`build: ${name} is up to date`);
  console.log(`build: ${name} (${reason})`);
  const startedAt = Date.now();
  const read = await part();
  await writeStamp(root, stampFile, startedAt, [...sources, ...read]);
}

/** The library, the CLI and the demo: tsc, with its incremental state beside the stamp. */
async function lib() {
  const dirs = ['lib', 'bin', 'example'];
  const ts = (await Promise.all(dirs.map((d) => filesUnder(root, d, ['.ts']))))
    .flat()
    .filter((f) => !f.endsWith('.d.ts'));
  const outputs = ts.map((f) => `dist/${f.slice(0, -3)}.js`);
  await step('lib', [...ts, ...SHARED, 'tsconfig.build.json'], outputs, async () => {
    // tsc's incremental state says what it emitted, not what is still there: with an output gone it would not
    // write it again, so it starts over.
    if (await missingOutput(root, outputs)) await rm(join(root, 'dist/.build/lib.tsbuildinfo'), { force: true });
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
      cwd: root,
      maxBuffer: 16 << 20,
    }).catch((err) => {
      // Type errors: shown as tsc prints them, and no stamp, so the next build tries again.
      process.stdout.write(err.stdout ?? '');
      process.stderr.write(err.stderr ?? '');
      process.exit(err.code ?? 1);
    });
    return [];
  });
  await pruneOrphans(dirs);
  await removeStaleSourceMaps(dirs);
}

/**
 * Deletes the source maps no output refers to: tsconfig.build.json emits none (they would name lib/*.ts, which the
 * package does not ship), but tsc leaves an older build's in place, and `npm pack` would pack them.
 */
async function removeStaleSourceMaps(dirs) {
  const maps = (await Promise.all(dirs.map((d) => filesUnder(root, `dist/${d}`, ['.js.map']).catch(() => [])))).flat();
  const stale = [];
  for (const map of maps) {
    const js = await readFile(join(root, map.slice(0, -'.map'.length)), 'utf8').catch(() => '');
    if (!js.trimEnd().endsWith(`//# sourceMappingURL=${basename(map)}`)) stale.push(map);
  }
  await Promise.all(stale.map((f) => rm(join(root, f), { force: true })));
  if (stale.length > 0) console.log(`build: removed ${stale.length} source maps of an older build`);
}

/**
 * Deletes what tsc emitted for a source that is gone (a module moved or deleted): tsc never removes an output,
 * so the old module would stay in dist/, and in a package packed from it, importable under its old path.
 */
async function pruneOrphans(dirs) {
  const orphans = await orphanOutputs(root, dirs);
  await Promise.all(orphans.map((f) => rm(join(root, f), { force: true })));
  if (orphans.length > 0) console.log(`build: removed ${orphans.length} outputs of deleted sources`);
}

/** The browser bundles and their declarations; the bundles' inputs are what esbuild says it read. */
async function browser() {
  const { buildBrowser, bundles } = await import('../browser/build.mjs');
  const ts = (await filesUnder(root, 'browser', ['.ts'])).filter((f) => !f.endsWith('.d.ts'));
  const outputs = [...bundles.map((b) => `dist/browser/${b}`), ...ts.map((f) => `dist/${f.slice(0, -3)}.d.ts`)];
  await step('browser', [...ts, ...SHARED, 'browser/build.mjs', 'browser/tsconfig.json'], outputs, async () => {
    const inputs = new Set();
    await buildBrowser({ inputs });
    return [...inputs].map((f) => relative(root, f));
  });
}

await lib();
await browser();
