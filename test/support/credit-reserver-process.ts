// A separate process for the cross-process credit test (test/ai/credits.test.ts). Opens the SQLite
// file argv[2], waits until the go-file argv[5] exists (so the processes start together), then
// argv[6] times: takes one credit of workspace argv[3] (business plan, at time argv[4], the test's
// clock), and when it got one, reads the counter (it must never be above the plan's 500) and
// gives the credit back. Prints {won, overdrawn}.
import { refundUsage, reserveUsage } from "../../src/ai/credits";
import { openDatabase } from "../../src/db";
import { AppError } from "../../src/http/errors";
import { PLANS, usagePeriod } from "../../src/modules/users/plans";

const [file, workspaceId, now, goFile, tries] = process.argv.slice(2);
if (import.meta.main && file) {
  const db = openDatabase(file);
  const plan = PLANS.business;
  const used = db.query<{ used: number }, { w: string; p: string }>(
    "SELECT used FROM usage_counters WHERE workspace_id = $w AND period = $p AND kind = 'ai_credits'",
  );
  while (!(await Bun.file(goFile).exists())) await Bun.sleep(1);
  let won = 0;
  let overdrawn = 0;
  for (let i = 0; i < Number(tries); i++) {
    try {
      const reservation = reserveUsage(db, workspaceId, plan, "ai_credits", 1, Number(now));
      won++;
      if (used.get({ w: workspaceId, p: usagePeriod(plan, Number(now)) })!.used > plan.monthlyCredits!) overdrawn++;
      refundUsage(db, reservation);
    } catch (err) {
      if (!(err instanceof AppError && err.errCode === "CREDITS_EXHAUSTED")) throw err;
    }
  }
  db.close();
  console.log(JSON.stringify({ won, overdrawn }));
}
