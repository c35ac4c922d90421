// When a part of the build may be skipped. A part that ran writes a stamp, dist/.build/<part>.json: the time
// it started and the files it read. It is up to date while its stamp exists, every output exists, every input
// it read then and every input it would read now exists and was last changed before that start, and no input
// is new. The start time, not the end, is the mark: a file saved while the build ran makes the next build run.
// The stamp lives in dist/, so removing dist/ (or any output) rebuilds; `files` in package.json leaves
// dist/.build out of the package.
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

/** The last change of `file` in ms, or undefined when it does not exist. */
async function mtime(file) {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The files under `dir` (relative to `root`, '/'-separated) whose names end in one of `endings`, recursively. */
export async function filesUnder(root, dir, endings) {
  const found = [];
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await filesUnder(root, path, endings)));
    else if (endings.some((e) => entry.name.endsWith(e))) found.push(path);
  }
  return found;
}

/**
 * Why the part whose stamp is `stampFile` must run, or '' when it is up to date. `inputs` and `outputs` are
 * paths relative to `root`.
 */
export async function staleReason(root, stampFile, inputs, outputs) {
  let stamp;
  try {
    stamp = JSON.parse(await readFile(join(root, stampFile), 'utf8'));
  } catch {
    return 'never built';
  }
  const known = new Set(stamp.inputs);
  const added = inputs.find((f) => !known.has(f));
  if (added) return `${added} is new`;
  for (const f of new Set([...stamp.inputs, ...inputs])) {
    const t = await mtime(join(root, f));
    if (t === undefined) return `${f} is gone`;
    if (t >= stamp.startedAt) return `${f} changed`;
  }
  const gone = await missingOutput(root, outputs);
  return gone ? `${gone} is missing` : '';
}

/** The first of `outputs` (relative to `root`) that does not exist, or undefined. */
export async function missingOutput(root, outputs) {
  for (const f of outputs) if ((await mtime(join(root, f))) === undefined) return f;
  return undefined;
}

/** Records that the part started at `startedAt` (ms) and read `inputs` (relative to `root`). */
export async function writeStamp(root, stampFile, startedAt, inputs) {
  const file = join(root, stampFile);
  await mkdir(dirname(file), { recursive: true });
  const paths = [...new Set(inputs.map((f) => relative(root, join(root, f)).split('\\').join('/')))].sort();
  await writeFile(file, JSON.stringify({ startedAt, inputs: paths }, null, 1) + '\n');
}

/**
 * What tsc emitted under `dist/<dir>` for each of `dirs` whose source `<dir>/….ts` is gone (`.js`, `.d.ts`,
 * `.js.map`), relative to `root`; a directory not built yet holds none.
 */
export async function orphanOutputs(root, dirs) {
  const emitted = await Promise.all(
    dirs.map((d) => filesUnder(root, `dist/${d}`, ['.js', '.d.ts', '.js.map']).catch(() => [])),
  );
  const orphans = [];
  for (const out of emitted.flat()) {
    const source = out.slice('dist/'.length).replace(/(\.d\.ts|\.js\.map|\.js)$/, '.ts');
    if (!(await exists(join(root, source)))) orphans.push(out);
  }
  return orphans;
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}
