import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, for running bin/authctl.ts under tsx exactly as a developer does. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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
  return spawn(process.execPath, ['--import=tsx', 'bin/authctl.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Starts a TypeScript file (a test's child process) with `node --import=tsx` from the repository root; the caller stops it. */
export function spawnTs(file: string, args: string[] = [], env?: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import=tsx', file, ...args], {
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
