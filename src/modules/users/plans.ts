// The plan table: SPEC 5.2 (API access, monthly AI credits) plus the limits the SPEC leaves open.
// This is the only place plan numbers live; the README's "Plans and limits" table mirrors it.
export const PLAN_IDS = ["free", "startup", "business", "enterprise"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  label: string;
  apiAccess: boolean;
  paid: boolean;
  /** AI credits per month (per lifetime on the free trial); null = unlimited */
  monthlyCredits: number | null;
  /** whether usage resets each calendar month (UTC); the free trial's allowance does not */
  resetsMonthly: boolean;
  /** prompts per visibility report or prefill */
  promptsPerReport: number;
  /** visibility report refreshes per rolling 24 hours */
  refreshesPer24h: number;
  /** visibility reports a free account may run in its lifetime (null = no such cap) */
  freeAudits: number | null;
  /** generated images per month; null = unlimited */
  monthlyImages: number | null;
}

export const PLANS: Record<PlanId, Plan> = {
  free: {
    id: "free", label: "Free trial", apiAccess: false, paid: false, monthlyCredits: 10, resetsMonthly: false,
    promptsPerReport: 5, refreshesPer24h: 0, freeAudits: 1, monthlyImages: 3,
  },
  startup: {
    id: "startup", label: "Startup", apiAccess: false, paid: true, monthlyCredits: 300, resetsMonthly: true,
    promptsPerReport: 10, refreshesPer24h: 3, freeAudits: null, monthlyImages: 50,
  },
  business: {
    id: "business", label: "Business", apiAccess: true, paid: true, monthlyCredits: 500, resetsMonthly: true,
    promptsPerReport: 25, refreshesPer24h: 10, freeAudits: null, monthlyImages: 200,
  },
  enterprise: {
    id: "enterprise", label: "Enterprise", apiAccess: true, paid: true, monthlyCredits: null, resetsMonthly: true,
    promptsPerReport: 50, refreshesPer24h: 50, freeAudits: null, monthlyImages: null,
  },
};

export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value);
}

export function planOf(id: string): Plan {
  if (!isPlanId(id)) throw new Error(`unknown plan ${id}`);
  return PLANS[id];
}

/** The usage period a counter falls in: the UTC month for monthly plans, 'lifetime' otherwise. */
export function usagePeriod(plan: Plan, now: number): string {
  if (!plan.resetsMonthly) return "lifetime";
  const d = new Date(now);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
}
