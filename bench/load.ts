/**
 * The load generator, in its own process (pinned to its own core when taskset exists) so it does not
 * share the event loop with the server it measures. Reads one JSON job from argv, prints one JSON result.
 */
import autocannon from 'autocannon';

export interface LoadJob {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
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

const job = JSON.parse(process.argv[2]!) as LoadJob;
const r = await autocannon({
  url: job.url,
  method: job.method ?? 'GET',
  headers: job.headers,
  body: job.body,
  connections: job.connections,
  duration: job.durationSec,
});
const out: LoadResult = { rps: r.requests.average, total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
process.stdout.write(JSON.stringify(out) + '\n');
