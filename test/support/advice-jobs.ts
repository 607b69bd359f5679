/** AI-3 through real gateway processes: a request body, and a job's state as GET reports it. */

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
