// A migrated SQLite file with workspaces for job-queue tests, and a poll-until helper (waits on a
// condition with a generous deadline; never asserts on how long something took).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type DB, migrate, openDatabase } from "../../src/db";
import { tempDir } from "./server";

export interface JobsDb {
  db: DB;
  file: string;
  close(): void;
}

export function openJobsDb(workspaces: string[] = ["ws-a", "ws-b"]): JobsDb {
  const dir = tempDir("aivis-jobs-");
  const file = join(dir, "aivis.sqlite");
  const db = openDatabase(file);
  migrate(db);
  addWorkspaces(db, workspaces);
  return {
    db,
    file,
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function addWorkspaces(db: DB, ids: string[]) {
  const insert = db.query("INSERT OR IGNORE INTO workspaces (id, name, plan, created_at) VALUES ($id, $id, 'business', 0)");
  for (const id of ids) insert.run({ id });
}

export async function waitFor(what: string, condition: () => boolean, deadlineMs = 30_000): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting for: ${what}`);
    await Bun.sleep(5);
  }
}

export function jobState(db: DB, id: string): string {
  return db.query<{ state: string }, any>("SELECT state FROM jobs WHERE id = $id").get({ id })!.state;
}
