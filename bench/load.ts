/**
 * The load generator, in its own process (pinned to its own core when taskset exists) so it does not
 * share the event loop with the server it measures. It lives for the whole benchmark and takes one JSON
 * list of jobs per line on stdin, answering one JSON list of results per line: a process started per run
 * would measure the first second of autocannon with cold JIT every time.
 */
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export interface LoadJob {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Each request's `[<id>]` in the body becomes a new id (autocannon's idReplacement): a new user per login. */
  idReplacement?: boolean;
  connections: number;
  durationSec: number;
}

export interface LoadResult {
  rps: number;
  /** Requests completed during the run. */
  total: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function run(job: LoadJob): Promise<LoadResult> {
  const r = await autocannon({
    url: job.url,
    method: job.method ?? 'GET',
    headers: job.headers,
    body: job.body,
    idReplacement: job.idReplacement ?? false,
    connections: job.connections,
    duration: job.durationSec,
  });
  return {
    rps: r.requests.average,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  // Each line is a list of jobs, run at the same time (a case and its reference side by side).
  const jobs = JSON.parse(line) as LoadJob[];
  process.stdout.write(JSON.stringify(await Promise.all(jobs.map(run))) + '\n');
}
