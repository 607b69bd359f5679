/**
 * Evaluates speech-process on the labelled cases in test/fixtures/speech through the real
 * HTTP route: per-point accuracy, exact-set accuracy, latency, and invariant violations.
 *
 *   npm run eval:speech -- --model ./models/qwen2.5-7b-instruct-q4_k_m.gguf [--cases file] [--limit N]
 */
import { parseArgs } from 'node:util';
import { startLlmGateway } from './lib/gateway.js';
import { evaluateCase, loadSpeechCases, type CaseOutcome } from './lib/speech-eval.js';
import { percentile } from './lib/stats.js';


async function main(): Promise<void> {
  const { values } = parseArgs({ options: { model: { type: 'string' }, cases: { type: 'string' }, limit: { type: 'string' } } });
  const model = values.model ?? process.env.LLM_MODEL;
  if (!model) throw new Error('give the model: npm run eval:speech -- --model <file.gguf>');
  const cases = (await loadSpeechCases(values.cases)).slice(0, values.limit ? Number(values.limit) : undefined);
  const gateway = await startLlmGateway(model);
  try {
    console.log(`model ${gateway.app.engineStatus('llm').model} on ${gateway.app.engineStatus('llm').device ?? '?'}; ${cases.length} cases\n`);
    const outcomes: CaseOutcome[] = [];
    for (const testCase of cases) {
      const outcome = await evaluateCase(gateway.app, testCase);
      outcomes.push(outcome);
      const mark = outcome.violations.length ? `VIOLATIONS: ${outcome.violations.join('; ')}` : outcome.exact ? 'exact' : '';
      console.log(`${testCase.id.padEnd(28)} ${String(outcome.pointsRight).padStart(2)}/${outcome.points} points  ${(outcome.latencyMs / 1000).toFixed(1).padStart(6)} s  ${mark}`);
    }
    const points = outcomes.reduce((sum, o) => sum + o.points, 0);
    const right = outcomes.reduce((sum, o) => sum + o.pointsRight, 0);
    const latencies = outcomes.map((o) => o.latencyMs);
    const violations = outcomes.filter((o) => o.violations.length > 0).length;
    console.log(`\nper-point accuracy  ${((100 * right) / points).toFixed(1)}% (${right}/${points})`);
    console.log(`exact-set accuracy  ${((100 * outcomes.filter((o) => o.exact).length) / outcomes.length).toFixed(1)}% (${outcomes.filter((o) => o.exact).length}/${outcomes.length})`);
    console.log(`latency             p50 ${(percentile(latencies, 0.5) / 1000).toFixed(2)} s, p90 ${(percentile(latencies, 0.9) / 1000).toFixed(2)} s, max ${(Math.max(...latencies) / 1000).toFixed(2)} s`);
    console.log(`invariant violations ${violations}`);
    process.exitCode = violations > 0 ? 1 : 0;
  } finally {
    await gateway.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
