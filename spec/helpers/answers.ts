/**
 * The HTTP contract, checked for the whole suite: a test app records every answer of its auth and avatar
 * routes as it leaves (recordAnswers), and when the app closes each one is checked against the
 * application's own `auth.openapi()` (checkAnswers). A test whose app answered something the document
 * does not describe fails at close, naming the answer: the document cannot drift from the routes.
 */
import type { Context, Middleware } from 'koa';
import type { AuthKoa } from '../../lib/index.js';
import { internalsOf } from '../../lib/instance.js';
import { contractChecker } from '../openapi/contract.js';

/** One answer of the app's auth or avatar routes, as the server sent it. */
export interface Answer {
  method: string;
  path: string;
  status: number;
  /** The media type without parameters; '' when there was no body. */
  type: string;
  /** The JSON body parsed, the text of any other text body, undefined without one (or for a stream or bytes). */
  body: unknown;
}

/** JSON text parsed; text that does not parse stays text, for the schema check to refuse. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The body as a client reads it: JSON text parsed, other text as is, a buffer or a stream left out. */
function bodyOf(ctx: Context, type: string): unknown {
  const body: unknown = ctx.body;
  if (typeof body === 'string') return type === 'application/json' ? parsed(body) : body;
  // Koa serialises an object or array body itself: what the client gets is its JSON.
  if (
    body !== null &&
    typeof body === 'object' &&
    !Buffer.isBuffer(body) &&
    typeof (body as { pipe?: unknown }).pipe !== 'function'
  ) {
    return JSON.parse(JSON.stringify(body));
  }
  return undefined;
}

/**
 * Records the answers of the routes under `prefixes` (the app's authRoutePath and avatarRoutePath) as
 * they leave, without changing them. An error that escapes authkoa is recorded too: Koa's default
 * handler answers it with a text body, which the document does not describe; the recorded body names
 * the error, so the failure says what escaped.
 */
export function recordAnswers(answers: Answer[], prefixes: readonly string[]): Middleware {
  const ours = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (ours(ctx.path)) {
        const status = Number((err as { status?: unknown })?.status);
        const escaped = status >= 400 && status < 600 ? status : 500;
        answers.push({
          method: ctx.method,
          path: ctx.path,
          status: escaped,
          type: 'text/plain',
          body: `(escaped: ${(err as Error)?.message ?? String(err)})`,
        });
      }
      throw err;
    }
    if (!ours(ctx.path)) return;
    const type = ctx.body == null ? '' : (ctx.response.type || '').split(';')[0]!;
    answers.push({ method: ctx.method, path: ctx.path, status: ctx.status, type, body: bodyOf(ctx, type) });
  };
}

/** What is wrong with each answer the document does not describe; empty when all conform. */
export function nonConforming(doc: Record<string, unknown>, answers: readonly Answer[]): string[] {
  const contract = contractChecker(doc);
  const wrong: string[] = [];
  for (const a of answers) {
    const r = contract.checkAnswer(a.method, a.path, a.status, a.body, a.type);
    if (!r.ok)
      wrong.push(
        `${a.method} ${a.path} ${a.status} ${a.type || '(no body)'}: ${r.errors} in ${JSON.stringify(a.body)?.slice(0, 300)}`,
      );
  }
  return wrong;
}

/** The error close() rejects with: every answer that does not conform, one a line. */
export class ContractError extends Error {
  constructor(readonly wrong: readonly string[]) {
    super(
      `${wrong.length} answer(s) of the auth routes do not conform to auth.openapi():\n${wrong.map((w) => `  ${w}`).join('\n')}`,
    );
    this.name = 'ContractError';
  }
}

/**
 * Checks `answers` against the document of `auth`; rejects with a ContractError listing the ones that
 * do not conform. `doc` is the document when already fetched (before the app closed).
 */
export async function checkAnswers(
  auth: Pick<AuthKoa, 'openapi'>,
  answers: readonly Answer[],
  doc?: Record<string, unknown>,
): Promise<void> {
  if (answers.length === 0) return;
  const wrong = nonConforming(doc ?? ((await auth.openapi()) as unknown as Record<string, unknown>), answers);
  if (wrong.length > 0) throw new ContractError(wrong);
}

/**
 * For a test that builds its own Koa app around `auth` instead of startApp(): `use` goes in front of
 * `app.use(auth)`; `closed(close)` runs the test's own close and then the check, so that close rejects
 * like startApp's when an answer does not conform.
 */
export function contractRecorder(auth: AuthKoa) {
  const { authRoutePath, avatarRoutePath } = internalsOf(auth).options;
  const answers: Answer[] = [];
  let closing: Promise<void> | undefined;
  const closeAndCheck = async (close: () => Promise<void>) => {
    // The document is the running app's: taken before it closes.
    const doc = answers.length > 0 ? await auth.openapi().catch(() => undefined) : undefined;
    await close();
    await checkAnswers(auth, answers, doc as Record<string, unknown> | undefined);
  };
  return {
    answers,
    use: recordAnswers(answers, [authRoutePath, avatarRoutePath]),
    /** Runs `close` (the app's own), then the check: close's failure wins, then the check's. Every call returns the first call's promise. */
    closed(close: () => Promise<void>): Promise<void> {
      closing ??= closeAndCheck(close);
      return closing;
    },
  };
}
