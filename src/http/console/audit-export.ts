/**
 * GET /console/api/audit?since=…&until=…: the audit trail as JSON lines, oldest first, streamed
 * from the store a page at a time, so an export of any period holds one page in memory.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { GatewayError } from '../../errors.js';
import type { AuditTrail } from '../../platform/audit-trail.js';
import type { AuditRecord } from '../../platform/store/index.js';
import { describeIssues } from '../ai-routes.js';

/** One line of the export. */
export interface AuditLine {
  /** When the request arrived, ISO 8601 UTC. */
  time: string;
  caller: string | null;
  operation: string;
  method: string;
  request_id: string | null;
  upload_file_ids: readonly number[] | null;
  status: number;
  error_kind: string | null;
  duration_ms: number;
}

const instant = z.iso.datetime({ offset: true }).transform((text) => Date.parse(text));
const exportQuery = z.object({
  since: instant.optional().meta({ description: 'ISO 8601; the first request time included (default: the oldest kept)' }),
  until: instant.optional().meta({ description: 'ISO 8601; the first request time left out (default: every record so far)' }),
});

export const auditExportRoutes: FastifyPluginAsync<{ trail: AuditTrail }> = async (api, { trail }) => {
  api.get('/audit', async (request, reply) => {
    const query = exportQuery.safeParse(request.query);
    if (!query.success) throw new GatewayError('invalid_request', describeIssues(query.error.issues));
    // Without `until`: every record so far, this millisecond's included.
    const { since = 0, until = Date.now() + 1 } = query.data;
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', 'attachment; filename="audit.jsonl"')
      .send(Readable.from(jsonLines(trail.between(since, until))));
  });
};

async function* jsonLines(records: AsyncIterable<AuditRecord>): AsyncGenerator<string> {
  for await (const record of records) yield `${JSON.stringify(auditLine(record))}\n`;
}

/** A record as the export writes it: every field on every line, null where it has no value. */
function auditLine(record: AuditRecord): AuditLine {
  return {
    time: new Date(record.at).toISOString(),
    caller: record.caller,
    operation: record.operation,
    method: record.method,
    request_id: record.requestId,
    upload_file_ids: record.uploadFileIds,
    status: record.status,
    error_kind: record.errorKind,
    duration_ms: record.durationMs,
  };
}
