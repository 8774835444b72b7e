import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate, openDatabase } from "../../src/db";
import { MIGRATIONS } from "../../src/db/migrations";
import { tempDir } from "../support/server";

test("migrations apply once, are recorded, and a restart applies nothing", () => {
  const file = join(tempDir(), "aivis.sqlite");
  const db = openDatabase(file);
  const first = migrate(db);
  expect(first.applied.length).toBe(MIGRATIONS.length);
  db.close();
  const again = openDatabase(file);
  expect(migrate(again).applied).toEqual([]);
  const rows = again.query<{ version: number }, []>("SELECT version FROM schema_migrations ORDER BY version").all();
  expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  again.close();
});

test("pragmas: WAL, foreign keys, busy timeout", () => {
  const db = openDatabase(join(tempDir(), "aivis.sqlite"));
  expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()!.journal_mode).toBe("wal");
  expect(db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()!.foreign_keys).toBe(1);
  expect(db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()!.timeout).toBe(5000);
  db.close();
});

test("migration versions are unique and ascending", () => {
  const versions = MIGRATIONS.map((m) => m.version);
  expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  expect(new Set(versions).size).toBe(versions.length);
});
