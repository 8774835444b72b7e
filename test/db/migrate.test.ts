import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrate, openDatabase, tx } from "../../src/db";
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

test("pragmas: WAL, foreign keys, busy timeout, checkpoint every 10 000 WAL pages", () => {
  const db = openDatabase(join(tempDir(), "aivis.sqlite"));
  expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()!.journal_mode).toBe("wal");
  expect(db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(10_000);
  expect(db.query<{ journal_size_limit: number }, []>("PRAGMA journal_size_limit").get()!.journal_size_limit).toBe(64 * 1024 * 1024);
  expect(db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()!.foreign_keys).toBe(1);
  expect(db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()!.timeout).toBe(5000);
  db.close();
});

test("migration versions are unique and ascending", () => {
  const versions = MIGRATIONS.map((m) => m.version);
  expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  expect(new Set(versions).size).toBe(versions.length);
});

test("0008 rebuilds the jobs table: existing jobs are kept, the allowed queues and states are still enforced", () => {
  const db = openDatabase(join(tempDir(), "aivis.sqlite"));
  // the database as 0007 left it, with a job in it
  const before = MIGRATIONS.filter((m) => m.version < 8);
  for (const m of before) db.exec(m.sql);
  db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)");
  for (const m of before) db.query("INSERT INTO schema_migrations VALUES (?, ?, 0)").run(m.version, m.name);
  db.exec("INSERT INTO workspaces (id, name, plan, created_at) VALUES ('w1', 'w', 'free', 0)");
  db.exec(`INSERT INTO jobs (id, queue, name, workspace_id, data, state, priority, run_at, max_attempts, backoff_ms, created_at,
             attempts_made, result, processed_at, finished_at)
           VALUES ('01J0000000000000000000000A', 'seoQueue', 'seo_site_report', 'w1', '{"a":1}', 'completed', 5, 10, 3, 1000, 9,
             1, '{"ok":true}', 11, 12)`);
  const row = db.query("SELECT * FROM jobs").get();

  expect(migrate(db).applied).toEqual(["0008_jobs_checks"]);
  expect(db.query("SELECT * FROM jobs").get()).toEqual(row);
  const indexes = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND sql IS NOT NULL ORDER BY name").all();
  expect(indexes.map((i) => i.name)).toEqual(["jobs_claim", "jobs_lease"]);
  const insert = (queue: string, state: string) =>
    db.query(`INSERT INTO jobs (id, queue, name, workspace_id, data, state, run_at, max_attempts, backoff_ms, created_at)
              VALUES (?, ?, 'n', 'w1', 'null', ?, 0, 1, 0, 0)`).run(`id-${queue}-${state}`, queue, state);
  expect(() => insert("otherQueue", "waiting")).toThrow(/CHECK constraint failed/);
  expect(() => insert("aiQueue", "paused")).toThrow(/CHECK constraint failed/);
  for (const state of ["waiting", "delayed", "active", "completed", "failed"]) insert("contentQueue", state);
  for (const queue of ["aiQueue", "seoQueue"]) insert(queue, "waiting");
  expect(() => db.exec("INSERT INTO jobs (id, queue, name, workspace_id, data, state, run_at, max_attempts, backoff_ms, created_at) VALUES ('x', 'aiQueue', 'n', 'nope', 'null', 'waiting', 0, 1, 0, 0)")).toThrow(/FOREIGN KEY/);
  db.exec("DELETE FROM workspaces WHERE id = 'w1'");
  expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs").get()!.n).toBe(0);
  db.close();
});

test("tx: commits, rolls back on a throw, and nests as a savepoint", () => {
  const db = openDatabase(join(tempDir(), "aivis.sqlite"));
  db.exec("CREATE TABLE t (v INTEGER)");
  const values = () => db.query<{ v: number }, []>("SELECT v FROM t ORDER BY v").all().map((r) => r.v);
  expect(tx(db, () => (db.exec("INSERT INTO t VALUES (1)"), "returned"))).toBe("returned");
  expect(() =>
    tx(db, () => {
      db.exec("INSERT INTO t VALUES (2)");
      throw new Error("boom");
    }),
  ).toThrow("boom");
  tx(db, () => {
    db.exec("INSERT INTO t VALUES (3)");
    try {
      tx(db, () => {
        db.exec("INSERT INTO t VALUES (4)");
        throw new Error("inner");
      });
    } catch {}
  });
  expect(values()).toEqual([1, 3]);
  expect(db.inTransaction).toBe(false);
  db.close();
});
