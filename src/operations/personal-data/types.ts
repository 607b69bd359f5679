export type PersonalKind =
  | 'name' | 'resident_id' | 'phone' | 'hospital_id' | 'birth_date' | 'address'
  | 'email' | 'passport' | 'insurance_number' | 'identifier';

/** A span of the line, UTF-16 offsets, end exclusive. */
export interface Detection {
  start: number;
  end: number;
  kind: PersonalKind;
  /** detector name, for metrics and tests, e.g. 'labelled-value', 'resident-id' */
  rule: string;
}

/** A personal label with nothing readable after it on its line: its value is probably below it (tables). */
export interface OpenLabel {
  start: number;
  end: number;
  kind: PersonalKind;
}

export interface LineFindings {
  detections: Detection[];
  openLabels: OpenLabel[];
}
