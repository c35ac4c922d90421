/**
 * `npm run bench -- --against <git ref>`: the code of an earlier commit, built beside this one, so that
 * the HTTP bench can load its servers in the same run as today's. A regression then shows as a ratio
 * read on one machine in one sitting, where two written runs compared across days (another kernel,
 * another load, bare Koa itself 2.5 times faster) showed nothing: the direct login fell from 0.24 to 0.07
 * of bare Koa between two written runs and no one saw it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

export interface EarlierCode {
  /** The commit, abbreviated, as the rows name it. */
  name: string;
  /** The folder holding its sources, its dist/ and its own bench/server.ts. */
  root: string;
  remove(): void;
}

/**
 * Extracts `ref` of the repository at `root` into a temporary folder and compiles its lib/ with this
 * checkout's packages (node_modules linked, not installed again). Its own bench/server.ts is what the rows
 * start: the case as that version configured it. Type errors against today's packages are reported and
 * tolerated when the JavaScript was emitted; a ref that does not exist or emits nothing is an error.
 */
export function buildEarlier(root: string, ref: string): EarlierCode {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`--against: ${ref} is not a commit of this repository`);
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'authkoa-bench-earlier-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const tar = spawnSync('git', ['archive', '--format=tar', commit], { cwd: root, maxBuffer: 1 << 30 });
    if (tar.status !== 0) throw new Error(`--against: git archive ${ref} failed: ${tar.stderr.toString().trim()}`);
    execFileSync('tar', ['-x', '-C', dir], { input: tar.stdout });
    if (!existsSync(join(dir, 'bench', 'server.ts'))) throw new Error(`--against: ${ref} has no bench/server.ts`);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: dir, encoding: 'utf8' },
    );
    if (!existsSync(join(dir, 'dist', 'lib', 'index.js')))
      throw new Error(`--against: ${ref} did not compile:\n${tsc.stdout}${tsc.stderr}`);
    if (tsc.status !== 0)
      process.stderr.write(
        `--against: ${ref} compiled with type errors against today's packages (its JavaScript is used)\n`,
      );
  } catch (err) {
    remove();
    throw err;
  }
  return { name: commit.slice(0, 7), root: dir, remove };
}
