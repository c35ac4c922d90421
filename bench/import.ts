/**
 * The cost of `import('authkoa')` for an application: whole fresh processes in a consumer folder, each
 * importing either koa or authkoa and nothing else, alternating, in one run. A process's time is from
 * spawn to exit as the parent sees it (node's own start-up included, the same for both); its RSS is read
 * after the import. The consumer folder links the packages of this checkout, so the import resolves
 * `authkoa` through its `exports` map exactly as an installed copy would (build first: dist/).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
/** Packages an app that does not configure them must not load by importing authkoa. */
export const HEAVY = [
  'lmdb',
  'mongodb',
  'ioredis',
  'pg',
  '@opentelemetry/api',
  'node-telegram-bot-api',
  'nodemailer',
  'jimp',
  'simple-oauth2',
  'koa-session',
  'jose',
];

export interface ImportRow {
  module: string;
  ms: number;
  rssMiB: number;
}

export interface ImportResult {
  rows: ImportRow[];
  /** The packages (node_modules folders) a bare import of authkoa loaded. */
  loaded: string[];
}

function consumer(): string {
  const dir = mkdtempSync(join(os.tmpdir(), 'authkoa-import-'));
  mkdirSync(join(dir, 'node_modules', '@koa'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  symlinkSync(ROOT, join(dir, 'node_modules', 'authkoa'));
  symlinkSync(join(ROOT, 'node_modules', 'koa'), join(dir, 'node_modules', 'koa'));
  symlinkSync(join(ROOT, 'node_modules', '@koa', 'router'), join(dir, 'node_modules', '@koa', 'router'));
  return dir;
}

async function once(dir: string, module: string): Promise<ImportRow> {
  const code = `await import(${JSON.stringify(module)}); process.stdout.write(String(process.memoryUsage().rss));`;
  const start = process.hrtime.bigint();
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: dir });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { module, ms, rssMiB: Number(stdout) / 2 ** 20 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `rounds` fresh processes per module, alternating which goes first; medians. */
export async function importBench(rounds: number): Promise<ImportResult> {
  const dir = consumer();
  try {
    const seen: Record<string, ImportRow[]> = { koa: [], authkoa: [] };
    await once(dir, 'authkoa'); // the first run warms the OS file cache for both
    for (let i = 0; i < rounds; i++) {
      for (const m of i % 2 ? ['authkoa', 'koa'] : ['koa', 'authkoa']) seen[m]!.push(await once(dir, m));
    }
    const record = join(dir, 'loads.txt');
    writeFileSync(record, '');
    const hook = join(ROOT, 'spec', 'package', 'record-loads.mjs');
    await run(process.execPath, ['--import', hook, '--input-type=module', '-e', "await import('authkoa')"], {
      cwd: dir,
      env: { ...process.env, RECORD_LOADS: record },
    });
    const loaded = new Set<string>();
    for (const url of readFileSync(record, 'utf8').split('\n')) {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      if (m) loaded.add(m[1]!);
    }
    return {
      rows: Object.entries(seen).map(([module, runs]) => ({
        module,
        ms: median(runs.map((r) => r.ms)),
        rssMiB: median(runs.map((r) => r.rssMiB)),
      })),
      loaded: [...loaded].sort(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
