import { metrics, SpanKind, SpanStatusCode, trace, type Attributes, type Meter, type Span } from '@opentelemetry/api';
import type { AuthEventBus } from '../events/bus.js';
import type { Tracing } from './types.js';

/**
 * Tracing on `@opentelemetry/api`: spans from the global tracer provider and metrics from the global
 * meter provider, scope `authkoa`. Imported only by InstanceTelemetry.start(), so the package loads only
 * when it is installed and on. HTTP client spans and their duration histogram follow the semantic
 * conventions (`http.request.method`, `url.full`, `server.address`, `http.response.status_code`,
 * `error.type`; `http.client.request.duration` in seconds); authkoa's own names start with `authkoa.`.
 */
export function otelTracing(events: AuthEventBus, version?: string): Tracing {
  const tracer = trace.getTracer('authkoa', version);
  const meter = metrics.getMeter('authkoa', version);
  const { counters, storeDuration, clientDuration } = createInstruments(meter);

  // Counts that events already carry are taken from them: one place decides what a login or a failure is.
  events.on('login', (e) => counters.logins.add(1, { provider: e.provider, kind: e.kind }));
  events.on('login_failed', (e) => counters.failures.add(1, { provider: e.provider, kind: e.kind, reason: e.reason }));
  events.on('lockout', (e) => counters.lockouts.add(1, { scope: e.scope }));
  events.on('refresh', (e) => counters.refreshes.add(1, { provider: e.provider }));

  return {
    on: true,
    span(name, attributes, fn) {
      return tracer.startActiveSpan(name, { attributes }, (span) => settle(span, fn()));
    },
    client(call, fn) {
      const url = typeof call.url === 'string' ? (URL.parse(call.url) ?? new URL('invalid:')) : call.url;
      const attributes: Attributes = {
        'http.request.method': call.method,
        'url.full': safeUrl(url),
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        'authkoa.call': call.what,
      };
      const started = performance.now();
      return tracer.startActiveSpan(call.method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
        let status: number | undefined;
        try {
          const result = await fn((code) => {
            status = code;
            span.setAttribute('http.response.status_code', code);
            if (code >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
          });
          clientDuration.record(seconds(started), {
            ...durationAttributes(attributes),
            ...(status ? { 'http.response.status_code': status } : {}),
          });
          return result;
        } catch (err) {
          const type = errorType(err);
          span.setAttribute('error.type', type);
          span.setStatus({ code: SpanStatusCode.ERROR, message: type });
          clientDuration.record(seconds(started), { ...durationAttributes(attributes), 'error.type': type });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    verified(cacheHit, accepted, source) {
      const attributes = {
        'authkoa.token.cache_hit': cacheHit,
        'authkoa.token.source': source,
        outcome: accepted ? 'accepted' : 'refused',
      };
      counters.verifications.add(1, attributes);
      // A span per check, ended at once for a cache hit: traces show which requests paid for a signature.
      const span = tracer.startSpan('authkoa.token.verify', { attributes });
      if (!accepted) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    storeOperation(operation, ms, failed) {
      storeDuration.record(ms / 1000, { operation, outcome: failed ? 'error' : 'ok' });
      if (failed) counters.storeErrors.add(1, { operation });
    },
  };
}

/** The meter's counters and histograms, made once per service: apart so otelTracing reads as the wiring. */
function createInstruments(meter: Meter) {
  const counters = {
    logins: meter.createCounter('authkoa.logins', { description: 'Sessions begun, by provider and kind' }),
    failures: meter.createCounter('authkoa.login.failures', {
      description: 'Logins refused, by provider, kind and reason',
    }),
    lockouts: meter.createCounter('authkoa.lockouts', { description: 'Lock-outs after failed attempts, by scope' }),
    refreshes: meter.createCounter('authkoa.refreshes', { description: 'Session tokens renewed, by provider' }),
    verifications: meter.createCounter('authkoa.token.verifications', {
      description: 'Tokens checked, by cache hit, outcome and source',
    }),
    storeErrors: meter.createCounter('authkoa.state_store.errors', {
      description: 'State-store operations that failed, by operation',
    }),
  };
  const storeDuration = meter.createHistogram('authkoa.state_store.duration', {
    unit: 's',
    description: 'State-store operation duration',
  });
  const clientDuration = meter.createHistogram('http.client.request.duration', {
    unit: 's',
    description: 'Duration of outbound HTTP requests',
  });
  return { counters, storeDuration, clientDuration };
}

/** Ends `span` when `pending` settles; a rejection is recorded (as an exception event) and passed on. */
async function settle<T>(span: Span, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    const e = err as { status?: number; code?: string; message?: string };
    // An answered refusal (a 4xx AuthError) is the code's own outcome; its code is what tells why.
    if (typeof e?.code === 'string') span.setAttribute('authkoa.error.code', e.code);
    if (typeof e?.status === 'number') span.setAttribute('authkoa.error.status', e.status);
    // A refusal answered with a 4xx is the flow working (a wrong password), not a fault of the service.
    if (!(typeof e?.status === 'number' && e.status < 500)) {
      span.recordException(err instanceof Error ? { name: err.name, message: e?.code ?? err.name } : { name: 'Error' });
      span.setStatus({ code: SpanStatusCode.ERROR, message: e?.code ?? 'error' });
    }
    throw err;
  } finally {
    span.end();
  }
}

/**
 * `url.full` without what may be secret: no user info, query or fragment (a token in a query string),
 * and a Telegram bot token in the path (`/bot<token>/…`) replaced.
 */
export function safeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/bot[^/]+/g, '/bot{token}')}`;
}

function durationAttributes(a: Attributes): Attributes {
  return {
    'http.request.method': a['http.request.method'],
    'server.address': a['server.address'],
    'server.port': a['server.port'],
    'authkoa.call': a['authkoa.call'],
  };
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

/** The semantic conventions' `error.type`: the failure's reason or class, never its message (it may carry a URL). */
function errorType(err: unknown): string {
  const e = err as { reason?: string; code?: string; name?: string };
  return (
    (typeof e?.reason === 'string' && e.reason) ||
    (typeof e?.code === 'string' && e.code) ||
    (typeof e?.name === 'string' && e.name) ||
    '_OTHER'
  );
}
