/**
 * Two OpenAPI linters other tools build on, run in-process on a document: Redocly's `recommended`
 * ruleset (@redocly/openapi-core) and Spectral's `oas` ruleset (@stoplight/spectral-core). Each finding
 * is `<rule> <where>: <message>`, split into errors and warnings (Spectral's info and hints count as
 * warnings) so a test can require no errors and report the rest.
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';

export interface Findings {
  errors: string[];
  warnings: string[];
}

/** Redocly's `recommended` rules. */
export async function redocly(doc: unknown): Promise<Findings> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
  const line = (p: (typeof problems)[number]) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`;
  return {
    errors: problems.filter((p) => p.severity === 'error').map(line),
    warnings: problems.filter((p) => p.severity !== 'error').map(line),
  };
}

/** Spectral's `oas` rules (severity 0 is an error). */
export async function spectral(doc: unknown): Promise<Findings> {
  const linter = new Spectral();
  // The ruleset's declared type lacks `extends`, which a definition may leave out.
  linter.setRuleset(oas as RulesetDefinition);
  const results = await linter.run(new Document(JSON.stringify(doc), parsers.Json, 'openapi.json'));
  const line = (r: (typeof results)[number]) => `${String(r.code)} ${r.path.join('.')}: ${r.message}`;
  return {
    errors: results.filter((r) => r.severity === 0).map(line),
    warnings: results.filter((r) => r.severity !== 0).map(line),
  };
}
