import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A migration adding the merchant's `metadata` to `table` of a service's database: a
 * JSON object of strings, `{}` for the rows already there. `name` is the migration's name with
 * its timestamp, as TypeORM records it; `table` is the migration's own text, never input.
 */
export function metadataColumnMigration(name: string, table: string): new () => MigrationInterface {
  return class MetadataColumnMigration implements MigrationInterface {
    name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS metadata jsonb NOT NULL DEFAULT '{}'::jsonb`);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS metadata`);
    }
  };
}
