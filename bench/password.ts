/**
 * What a password login costs with the `password` kind's default scrypt parameters (OWASP's: ln=17, r=8,
 * p=1, 128 MiB and a fraction of a second per derivation): whole logins through the middleware, in-process,
 * one after another, with the process's CPU time (libuv's threads, where scrypt runs, included) divided by
 * the logins. Logins per second per core is the reciprocal: what one core of this machine can take.
 */
import Koa from 'koa';
import { authKoa, OWASP_SCRYPT } from './built.js';
import { post } from './middleware.js';

export interface PasswordBench {
  params: { ln: number; r: number; p: number };
  logins: number;
  /** CPU ms per login (every thread of the process). */
  cpuMs: number;
  /** Wall ms per login, one at a time. */
  wallMs: number;
}

export async function passwordBench(logins = 20): Promise<PasswordBench> {
  const url = 'http://127.0.0.1:8080';
  const auth = authKoa({
    secret: 'bench-secret-0123456789abcdef0123456789',
    url,
    telemetry: false,
    loginThrottle: false,
    allowVolatileStores: true,
    accounts: { store: 'memory://' },
    providers: [{ kind: 'password', name: 'local', sender: () => {} }],
  });
  await auth.ready;
  await auth.accounts!.create({ email: 'bench@example.com', password: 'correct horse battery', confirmed: true });
  const make = post(new Koa(), '/auth/local/login', '{"user":"bench@example.com","passwd":"correct horse battery"}');
  const login = async () => {
    const ctx = make();
    await auth(ctx, async () => {});
    if (ctx.status !== 200) throw new Error(`password login answered ${ctx.status} (${JSON.stringify(ctx.body)})`);
  };
  await login(); // the first one also makes the dummy hash's parameters warm
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < logins; i++) await login();
  const wallMs = (performance.now() - start) / logins;
  const used = process.cpuUsage(cpu);
  await auth.close();
  return { params: { ...OWASP_SCRYPT }, logins, cpuMs: (used.user + used.system) / 1000 / logins, wallMs };
}

/** The report's lines for it. */
export function passwordReport(b: PasswordBench): string[] {
  const { ln, r, p } = b.params;
  return [
    `Password logins (the \`password\` kind, default scrypt ln=${ln}, r=${r}, p=${p}): ${b.logins} whole logins through the middleware, in-process, one at a time.`,
    '',
    '| CPU ms per login | logins/s per core | wall ms per login |',
    '|---:|---:|---:|',
    `| ${b.cpuMs.toFixed(1)} | ${(1000 / b.cpuMs).toFixed(1)} | ${b.wallMs.toFixed(1)} |`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(passwordReport(await passwordBench()).join('\n'));
