/**
 * The reference app (example/app.ts) as the tests start it: every answer of its auth and avatar routes is
 * recorded as authkoa gives them and checked against its own `auth.openapi()` when it closes, as
 * startApp()'s are (spec/helpers/answers.ts): the demo's logins, passkeys, second factor and devices list
 * are held to the document too. The demo's own host check answers before the recorder: its 421 is the
 * demo's, not authkoa's.
 */
import { startExample, type ExampleOptions, type RunningExample } from '../../example/app.js';
import { contractRecorder } from './answers.js';

export async function startCheckedExample(o: ExampleOptions): Promise<RunningExample> {
  let contract: ReturnType<typeof contractRecorder> | undefined;
  const app = await startExample({ ...o, beforeAuth: (auth) => (contract = contractRecorder(auth)).use });
  const close = app.close.bind(app);
  return { ...app, close: () => contract!.closed(close) };
}
