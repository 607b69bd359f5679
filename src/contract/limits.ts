/**
 * Maximums the spec leaves open. Chosen so a real consultation always fits with room to
 * spare, while one request cannot pin an engine for minutes or exhaust memory.
 */
export const LIMITS = {
  requestIdChars: 128,
  shortTextChars: 200,
  codeChars: 64,
  points: 100,
  pointNameChars: 200,
  speechTextChars: 50_000,
  voiceSegments: 5_000,
  urlChars: 4_096,
  filesPerRequest: 20,
  fileNameChars: 1_024,
  deptOpinions: 30,
  opinionChars: 10_000,
  supplementsPerDept: 50,
  caseSummaryChars: 5_000,
  adviceDraftChars: 10_000,
} as const;
