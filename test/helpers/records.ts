import type { RecordCheck } from '../../src/bulk/new-pet-record.js';

/**
 * A record as these tests compare it: its check without `json`, the text a dry run copies into its
 * line (test/unit/bulk/quick-pet.test.ts and the property in test/unit/property/records.test.ts pin it).
 */
export function withoutJson<T extends { check: RecordCheck } | undefined>(record: T): T {
  if (record === undefined || !record.check.ok || record.check.json === undefined) return record;
  return { ...record, check: { ok: true, pet: record.check.pet } };
}
