import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeArgs } from './source.js';
// @ts-expect-error: a plain .mjs script of the build, without type declarations
import { filesUnder, staleReason } from '../../scripts/stamp.mjs';

/** The repository root, the working folder of every authctl these helpers start. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * How authctl is started: `node dist/bin/authctl.js` when dist/ was compiled from the sources now on disk
 * (scripts/build.mjs's stamp for lib, bin and example holds, as after `npm test`'s build), else
 * `node --import=tsx bin/authctl.ts`. The same code either way; the compiled one starts in about half the
 * time (tsx hooks every module it loads), which counts in the files that run the CLI a dozen times. A source
 * changed since the build, or no build at all, runs the sources, so a test never sees an older CLI.
 */
async function authctlArgs(): Promise<string[]> {
  const dirs = ['lib', 'bin', 'example'];
  const ts = ((await Promise.all(dirs.map((d) => filesUnder(ROOT, d, ['.ts'])))) as string[][])
    .flat()
    .filter((f) => !f.endsWith('.d.ts'));
  const outputs = ts.map((f) => `dist/${f.slice(0, -3)}.js`);
  const inputs = [...ts, 'tsconfig.json', 'package-lock.json', 'tsconfig.build.json'];
  const stale = (await staleReason(ROOT, 'dist/.build/lib.json', inputs, outputs)) as string;
  return stale ? ['--import=tsx', 'bin/authctl.ts'] : ['dist/bin/authctl.js'];
}
const AUTHCTL = await authctlArgs();

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `authctl <args>` to completion as a child process. */
export function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, opts.env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin!.end(opts.input ?? '');
  });
}

/** Starts `authctl <args>` and leaves it running; the caller stops it. */
export function spawnCli(args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...AUTHCTL, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * Starts a TypeScript file (a test's child process) from the repository root: its compiled twin when the test runs
 * compiled, else under tsx (source.ts). The caller stops it.
 */
export function spawnTs(file: string, args: string[] = [], env?: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...nodeArgs(file), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Resolves with the first stdout line matching `re` (e.g. a "listening on" line); rejects if the process
 * ends first. Ends means 'close' (its pipes read to the end), not 'exit', which can come before the last
 * output has been read.
 */
export function waitForLine(child: ChildProcess, re: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buf = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${re} within ${timeoutMs} ms; stderr: ${err}`)),
      timeoutMs,
    );
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      buf += d;
      const m = buf.match(re);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing ${re}; stderr: ${err}`));
    });
  });
}
