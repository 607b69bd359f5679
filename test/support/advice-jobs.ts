/** AI-3 through real gateway processes: a request body, a job's state as GET reports it, the gateway's settings. */
import { TEST_MODELS_DIR } from '../../scripts/lib/paths.js';
import { NEUTRAL_GATEWAY_ENV } from '../../scripts/lib/processes.js';

export const adviceRequest = (requestId: string) => ({
  request_id: requestId,
  cancer_type: '肺癌',
  case_summary: { diagnosis: '右肺腺癌 cT2aN2M0', key_question: '是否手术' },
  dept_opinions: [
    { dept: '胸外科', content: '建议新辅助治疗后评估手术。', supplements: [{ doctor: '张医生', content: '完善PET-CT。' }] },
    { dept: '肿瘤内科', content: '建议靶向治疗。', supplements: [] },
  ],
});

/** The job's state, or undefined when the gateway does not answer (killed) or knows no such job. */
export async function jobState(port: number, requestId: string): Promise<string | undefined> {
  const response = await fetch(`http://127.0.0.1:${port}/ai/v1/report-advice-draft/${requestId}`).catch(() => undefined);
  return response?.ok ? ((await response.json()) as { state: string }).state : undefined;
}

export async function anyInState(port: number, ids: string[], states: string[]): Promise<boolean> {
  for (const id of ids) if (states.includes((await jobState(port, id)) ?? '')) return true;
  return false;
}

/**
 * A gateway process for the AI-3 crash tests: the tiny model, one draft attempt, fast callback
 * retries to the receiver on `receiverPort`, signed with `secret`.
 */
export function adviceGatewayEnv(opts: { port: number; dataDir: string; model: string; receiverPort: number; secret: string }) {
  return {
    ...NEUTRAL_GATEWAY_ENV,
    HOST: '127.0.0.1',
    PORT: String(opts.port),
    DATA_DIR: opts.dataDir,
    MODELS_DIR: TEST_MODELS_DIR,
    LLM_MODEL: opts.model,
    LLM_THREADS: '1',
    LLM_PARALLEL: '2',
    ADVICE_MAX_RUNNING: '2',
    ADVICE_DRAFT_ATTEMPTS: '1',
    CALLBACK_BASE_URL: `http://127.0.0.1:${opts.receiverPort}`,
    CALLBACK_SECRET: opts.secret,
    CALLBACK_RETRY_BASE_MS: '50',
    CALLBACK_RETRY_MAX_DELAY_MS: '400',
    LOG_LEVEL: 'info',
  };
}
