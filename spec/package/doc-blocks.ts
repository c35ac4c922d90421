/**
 * The code blocks of README.md and docs/*.md, and the rules they are type-checked by. Two checks share
 * them: spec/core/doc-snippets.test.ts compiles the blocks against lib/ (quick, in the repository), and
 * consume.test.ts against the packed tarball in a consumer that installed what getting-started.md says.
 *
 * A block that imports is a complete module and is compiled as written. A fragment (no import) is
 * completed first, see compiledSource(). Every diagnostic is a problem except a name the block's own
 * comments say is the reader's (`// users: your user store`) and a relative import (the reader's module).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface DocBlock {
  file: string;
  line: number;
  lang: string;
  code: string;
}

/** Every fenced block of README.md and docs/*.md, indentation of the fence removed. */
export function docBlocks(): DocBlock[] {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const found: DocBlock[] = [];
  for (const file of files) {
    let open: { line: number; lang: string; indent: number; lines: string[] } | undefined;
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const fence = /^(\s*)```(\w*)\s*$/.exec(text);
        if (fence && !open) open = { line: i + 1, lang: fence[2]!, indent: fence[1]!.length, lines: [] };
        else if (fence && open) {
          found.push({ file, line: open.line, lang: open.lang, code: open.lines.join('\n') });
          open = undefined;
        } else open?.lines.push(text.slice(open.indent));
      });
  }
  return found;
}

/** The `npm install …` commands of a document's sh blocks, each as its arguments after `npm`, comments dropped. */
export function installCommands(file: string): string[][] {
  return docBlocks()
    .filter((b) => b.file === file && b.lang === 'sh')
    .flatMap((b) => b.code.split('\n'))
    .map((line) => line.replace(/\s#.*$/, '').trim())
    .filter((line) => line.startsWith('npm install '))
    .map((line) => line.split(/\s+/).slice(1));
}

/**
 * The text of every comment of a block, found by TypeScript's scanner (a regular expression would take
 * the `//` of `redis://…` for one). Template literals are rescanned at each `}` that closes a `${`.
 */
function commentsOf(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const found: string[] = [];
  const braces: boolean[] = []; // per open brace: whether it is a template's `${`
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia)
      found.push(scanner.getTokenText());
    else if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.OpenBraceToken)
      braces.push(kind === ts.SyntaxKind.TemplateHead);
    else if (
      kind === ts.SyntaxKind.CloseBraceToken &&
      braces.pop() &&
      scanner.reScanTemplateToken(false) === ts.SyntaxKind.TemplateMiddle
    )
      braces.push(true);
  }
  return found.join('\n');
}

/**
 * Whether a comment of the block says `name` is the reader's: a comment line naming it (not as part
 * of a path such as /auth/*) and saying "your", "yours" or "above" (defined in an earlier block).
 */
function isMarkedAsYours(name: string, comments: string): boolean {
  const named = new RegExp(`(?<![/.\\w])${name.replace(/[$]/g, '\\$&')}(?![/\\w])`);
  return comments.split('\n').some((c) => named.test(c) && /\byours?\b|\babove\b/i.test(c));
}

/** The package a module specifier names: `@scope/name` or `name`, without the path inside it. */
function packageOf(specifier: string): string {
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/** What a block is compiled as, and how many lines come before its own first line. */
export interface CompiledBlock {
  text: string;
  before: number;
}

/**
 * An elision among authKoa()'s options (`/* … *\/`, a lone `...` line, a `…` member) stands for the options
 * not shown: the check puts a complete set there (`...elided`), so what the block does show is still checked.
 */
const ELISION = /\/\*\s*…[^*]*\*\/|(?<=^[ \t]*)\.\.\.(?=[ \t]*$)/gm;
const ELIDED_MEMBER = /(?<=[{,][ \t]*)…(?=[ \t]*[,}])/g;
const ELIDED = `declare const elided: import('authkoa').AuthKoaOptions;`;

/**
 * The source a block is compiled as. A fragment (no import) gets the package's exports imported (its
 * missing import line), and a bare object literal is taken as an entry of `providers`.
 */
export function compiledSource(block: DocBlock, exported: readonly string[]): CompiledBlock {
  let code = block.code.replace(ELISION, '...elided,').replace(ELIDED_MEMBER, '...elided');
  const elided = code !== block.code;
  const tail = `\n${elided ? ELIDED : ''}\nexport {};\n`;
  if (/^import /m.test(code)) return { text: code + tail, before: 0 };
  // `{ kind: … }` would parse as a block, `gitlab: { … },` (an object's member) as a label.
  const body = code.replace(/^(\s*\/\/[^\n]*\n)*/, '');
  let before = 1; // the import line
  if (/^\s*\{/.test(body)) code = `export const entry: ProviderEntry = (${code}\n);`;
  else if (/^\s*\w+:\s*\{/.test(body)) [code, before] = [`({\n${code}\n});`, 2];
  return { text: `import { ${exported.join(', ')}, type ProviderEntry } from 'authkoa';\n${code}${tail}`, before };
}

/** The type test compiled with the blocks: what TypeScript makes of `providers` and `ctx.state.user`. */
export const TYPE_TEST = 'spec/package/typed-entries.mts';

/**
 * What a check compiles: the blocks of the given languages (file `block<i>.ts`), then the type test
 * (`typed-entries.mts`), each with the name to write it under.
 */
export function checkedFiles(
  langs: readonly string[],
  exported: readonly string[],
): { blocks: DocBlock[]; sources: CompiledBlock[]; names: string[] } {
  const blocks = docBlocks().filter((b) => langs.includes(b.lang));
  const sources = blocks.map((b) => compiledSource(b, exported));
  const names = blocks.map((_, i) => `block${i}.ts`);
  const typeTest = readFileSync(join(ROOT, TYPE_TEST), 'utf8');
  return {
    blocks: [...blocks, { file: TYPE_TEST, line: 0, lang: 'ts', code: typeTest }],
    sources: [...sources, { text: typeTest, before: 0 }],
    names: [...names, 'typed-entries.mts'],
  };
}

/** One compiler diagnostic of a compiled block: its 0-based line in the compiled text. */
export interface BlockDiagnostic {
  block: number;
  line: number;
  code: number;
  message: string;
}

const UNDEFINED = new Set([2304, 2552, 18004, 2663]);
const MISSING_MODULE = 2307;

/**
 * The diagnostics that are problems, as `docs/x.md:<line>: TS<code> <message>`. For `js` blocks only
 * undefined names count: they are read as TypeScript, which they are not.
 */
export function blockProblems(
  blocks: readonly DocBlock[],
  sources: readonly CompiledBlock[],
  diagnostics: readonly BlockDiagnostic[],
): string[] {
  const problems: string[] = [];
  for (const d of diagnostics) {
    const block = blocks[d.block]!;
    const quoted = /'([^']+)'/.exec(d.message)?.[1] ?? '';
    if (UNDEFINED.has(d.code) && isMarkedAsYours(quoted, commentsOf(block.code))) continue;
    if (d.code === MISSING_MODULE && quoted.startsWith('./')) continue;
    // A package the block says is the reader's own install (`// @modelcontextprotocol/sdk: yours, npm install …`):
    // the consumer's install has only what getting-started.md installs.
    if (d.code === MISSING_MODULE && isMarkedAsYours(packageOf(quoted), commentsOf(block.code))) continue;
    if (block.lang !== 'ts' && !UNDEFINED.has(d.code)) continue;
    const line = block.line + 1 + d.line - sources[d.block]!.before;
    problems.push(`${block.file}:${line}: TS${d.code} ${d.message}`);
  }
  return problems;
}

/**
 * Reads `tsc --pretty false` output (`<file>(<line>,<col>): error TS<code>: <message>`, continuation lines
 * indented) into the diagnostics of the files `names` (by file name), and every other line.
 */
export function parseTscOutput(
  output: string,
  names: readonly string[],
): { diagnostics: BlockDiagnostic[]; other: string[] } {
  const diagnostics: BlockDiagnostic[] = [];
  const other: string[] = [];
  for (const entry of output
    .split(/\n(?=\S)/)
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^(.+?)\((\d+),\d+\): error TS(\d+): ([\s\S]*)$/.exec(entry);
    const block = m ? names.indexOf(basename(m[1]!)) : -1;
    if (block < 0) other.push(entry);
    else
      diagnostics.push({
        block,
        line: Number(m![2]) - 1,
        code: Number(m![3]),
        message: m![4]!.replace(/\s*\n\s*/g, ' '),
      });
  }
  return { diagnostics, other };
}
