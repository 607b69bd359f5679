import { Counter, Histogram, type Registry } from 'prom-client';

/** What AI-4 reports: time per stage, each page's audit outcome, boxes painted per kind of datum, how much each audit reading read. */
export interface DeidentificationObserver {
  stage(stage: string, seconds: number): void;
  audit(outcome: string): void;
  redactions(kind: string, count: number): void;
  readShare(reader: string, share: number): void;
}

export function deidentificationMetrics(registry: Registry): DeidentificationObserver {
  const stages = new Histogram({
    name: 'gateway_deid_stage_seconds',
    help: 'AI-4 time per page and stage: ocr, detect, redact (paint and encode a page), audit (re-OCR), encode (the whole file)',
    labelNames: ['stage'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const audits = new Counter({
    name: 'gateway_deid_audit_total',
    help: 'AI-4 pages by audit outcome: clean, clean_after_retry (boxed again), failed (data survived, file withheld), unreadable (OCR confidence too low, or the audit could not read the page; file withheld)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const redactions = new Counter({
    name: 'gateway_deid_redactions_total',
    help: 'AI-4 boxes painted, by kind of personal datum',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const readShares = new Histogram({
    name: 'gateway_deid_audit_read_share',
    help: "AI-4 audit readings by the share of the first reading's text (outside the paint) they read again, by reader (first, independent); under DEID_AUDIT_MIN_READ the page is withheld",
    labelNames: ['reader'] as const,
    buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
    registers: [registry],
  });
  return {
    stage: (stage, seconds) => stages.observe({ stage }, seconds),
    audit: (outcome) => audits.inc({ outcome }),
    redactions: (kind, count) => redactions.inc({ kind }, count),
    readShare: (reader, share) => readShares.observe({ reader }, share),
  };
}
