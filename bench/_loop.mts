import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { authkoaShare } from './profile.js';
const c = spawn('taskset', ['-c', '0', process.execPath, '--import=tsx', 'bench/server.ts', process.env.CASE ?? 'authkoa', '/tmp/loopd'], { stdio: ['ignore', 'pipe', 'inherit'] });
const [url, stats] = await new Promise<string[]>((res) => c.stdout.once('data', (d) => { const [, p, s] = String(d).trim().split(' '); res([`http://127.0.0.1:${p}`, `http://127.0.0.1:${s}`]); }));
const r = await fetch(`${process.env.LOGIN ?? url}/auth/bench/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"u","passwd":"pw"}' });
const ck = Object.fromEntries(r.headers.getSetCookie().map((x) => x.split(';')[0]!.split('=') as [string, string]));
const h = process.env.H === 'xjwt' ? { 'x-jwt': ck.JWT! } : { cookie: `JWT=${ck.JWT}`, 'x-xsrf-token': ck['XSRF-TOKEN']! };
for (let i = 0; i < Number(process.env.N ?? 6); i++) {
  await autocannon({ url: url + '/private', headers: h, connections: 50, duration: 2 });
  await fetch(`${stats}/profile/start`);
  const out = await autocannon({ url: url + '/private', headers: h, connections: 50, duration: 3 });
  const text = await (await fetch(`${stats}/profile/stop`)).text();
  writeFileSync(`/tmp/loop-${process.env.CASE ?? 'authkoa'}-${i}.cpuprofile`, text);
  console.log(i, out.requests.average.toFixed(0), 'req/s', out.non2xx, 'non2xx', (authkoaShare(JSON.parse(text), 'file:///work/main/lib/').share * 100).toFixed(1), '%');
}
c.kill(); process.exit(0);
