import { ref } from '../openapi/components.js';
import { json, op, PUBLIC, STRING, type PathItem, type Text } from '../openapi/operation.js';
import type { FeatureOpenAPI } from '../features/contract.js';
import { EVENTS_SUPPORTED } from './sets.js';

const TEXT = {
  metadata: [
    'The Shared Signals transmitter configuration',
    'SSF 1.0 §7.1 metadata: `issuer` (the SETs’ `iss`), `jwks_uri` (the key set SETs are signed with), the push ' +
      'and poll delivery methods, `configuration_endpoint` (GET /ssf/stream) and the bearer scheme (docs/ssf.md).',
  ],
  stream: [
    "The receiver's stream",
    'The stream of the receiver whose credential the request carries (`Authorization: Bearer`): its delivery ' +
      '(push to its URL, or poll at POST /ssf/poll) and the CAEP events it is sent. Without `stream_id`, a list ' +
      'of its one stream (SSF 1.0 §8.1.1.2); any other credential or none is 401 `ssf_unauthorized`.',
  ],
  poll: [
    "Polls the receiver's Security Event Tokens",
    'RFC 8936: acknowledges (`ack`) or reports (`setErrs`) SETs of earlier polls, then answers up to `maxEvents` ' +
      '(default 100, at most 1000) of those not yet acknowledged, oldest first, at once.',
  ],
} satisfies Record<string, Text>;

const URNS = { type: 'string', enum: ['urn:ietf:rfc:8935', 'urn:ietf:rfc:8936'] };
const EVENTS = { type: 'array', items: { type: 'string', enum: [...EVENTS_SUPPORTED] } };

const SCHEMAS = {
  SsfConfiguration: {
    type: 'object',
    required: ['spec_version', 'issuer', 'jwks_uri', 'delivery_methods_supported', 'configuration_endpoint'],
    properties: {
      spec_version: { const: '1_0' },
      issuer: STRING,
      jwks_uri: { ...STRING, format: 'uri' },
      delivery_methods_supported: { type: 'array', items: URNS },
      configuration_endpoint: { ...STRING, format: 'uri' },
      authorization_schemes: {
        type: 'array',
        items: { type: 'object', required: ['spec_urn'], properties: { spec_urn: STRING } },
      },
      default_subjects: { enum: ['ALL', 'NONE'] },
    },
  },
  SsfStream: {
    type: 'object',
    required: ['stream_id', 'iss', 'aud', 'delivery', 'events_delivered'],
    properties: {
      stream_id: STRING,
      iss: STRING,
      aud: { ...STRING, description: "the receiver's id (ssf.receivers[].id): its SETs' aud" },
      delivery: {
        type: 'object',
        required: ['method', 'endpoint_url'],
        properties: { method: URNS, endpoint_url: { ...STRING, format: 'uri' } },
      },
      events_supported: EVENTS,
      events_requested: EVENTS,
      events_delivered: EVENTS,
    },
  },
  SsfPollRequest: {
    type: 'object',
    properties: {
      ack: { type: 'array', items: STRING, maxItems: 1000 },
      setErrs: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          properties: { err: STRING, description: STRING },
        },
      },
      maxEvents: { type: 'integer', minimum: 0 },
      returnImmediately: { type: 'boolean' },
    },
  },
  SsfPollResponse: {
    type: 'object',
    required: ['sets', 'moreAvailable'],
    properties: {
      sets: { type: 'object', additionalProperties: { ...STRING, description: 'a compact SET (secevent+jwt)' } },
      moreAvailable: { type: 'boolean' },
    },
  },
};

/** The transmitter's routes, schemas and bearer scheme, under authRoutePath (routes.ts answers them). */
export function ssfOpenAPI(): FeatureOpenAPI {
  const tag = 'ssf';
  const receiver = [{ ssfReceiver: [] }];
  const streamId = { name: 'stream_id', in: 'query', required: false, schema: STRING };
  const requestBody = { required: true, content: { 'application/json': { schema: ref('SsfPollRequest') } } };
  const streams = { oneOf: [ref('SsfStream'), { type: 'array', items: ref('SsfStream') }] };
  const paths: Record<string, PathItem> = {
    '/.well-known/ssf-configuration': {
      get: op(TEXT.metadata, tag, PUBLIC, { 200: json(ref('SsfConfiguration'), 'the metadata') }),
    },
    '/ssf/stream': {
      get: op(TEXT.stream, tag, receiver, { 200: json(streams, 'the stream') }, { parameters: [streamId] }),
    },
    '/ssf/poll': {
      post: op(TEXT.poll, tag, receiver, { 200: json(ref('SsfPollResponse'), 'the SETs') }, { requestBody }),
    },
  };
  return {
    paths,
    schemas: SCHEMAS,
    securitySchemes: {
      ssfReceiver: { type: 'http', scheme: 'bearer', description: "a Shared Signals receiver's credential" },
    },
    tags: { ssf: 'Shared Signals: session and credential events for other services' },
  };
}
