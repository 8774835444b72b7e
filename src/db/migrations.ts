// The numbered SQL migrations, imported as text so `bun build --compile` embeds them in the binary.
// Add a new file to migrations/ and one line here; never edit a migration that has shipped.
import m0001 from "../../migrations/0001_init.sql" with { type: "text" };
import m0002 from "../../migrations/0002_jobs.sql" with { type: "text" };
import m0003 from "../../migrations/0003_traffic.sql" with { type: "text" };
import m0004 from "../../migrations/0004_chat.sql" with { type: "text" };
import m0005 from "../../migrations/0005_brand_voices.sql" with { type: "text" };
import m0006 from "../../migrations/0006_visibility.sql" with { type: "text" };
import m0007 from "../../migrations/0007_images.sql" with { type: "text" };
import m0008 from "../../migrations/0008_jobs_checks.sql" with { type: "text" };

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  { version: 1, name: "0001_init", sql: m0001 },
  { version: 2, name: "0002_jobs", sql: m0002 },
  { version: 3, name: "0003_traffic", sql: m0003 },
  { version: 4, name: "0004_chat", sql: m0004 },
  { version: 5, name: "0005_brand_voices", sql: m0005 },
  { version: 6, name: "0006_visibility", sql: m0006 },
  { version: 7, name: "0007_images", sql: m0007 },
  { version: 8, name: "0008_jobs_checks", sql: m0008 },
];
