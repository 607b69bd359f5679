import type { Kysely } from 'kysely';
import { columnTypes, type Migration } from './migrations.js';
import type { StoreDatabase } from './store-database.js';

type SecretTables = {
  secrets: { name: string; value: Buffer };
};

/** Keys every replica must agree on, kept in the database they share. */
export const SECRET_MIGRATIONS: readonly Migration[] = [
  {
    concept: 'secrets',
    version: 1,
    name: 'secrets',
    appliedBy: { postgres: 1 },
    up: (db, dialect) =>
      db.schema
        .createTable('secrets')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('value', columnTypes(dialect).bytes, (col) => col.notNull())
        .execute(),
  },
];

/** The secret `name` shared by every replica: the first to start creates it. */
export async function loadOrCreateSharedSecret(database: StoreDatabase, name: string, create: () => Buffer): Promise<Buffer> {
  const db: Kysely<SecretTables> = database.db.withTables<SecretTables>();
  await db
    .insertInto('secrets')
    .values({ name, value: create() })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return Buffer.from(row.value);
}
