// A workspace's current fine-tuning job, read from the OpenAI account aivis is configured with
// (GET /v1/ai/chat/getFineTuningJob). aivis starts no fine-tunes: the operator starts them at
// OpenAI tagged with metadata {aivis_workspace: <workspace id>}, and the newest tagged job is the
// workspace's current one. Its fine-tuned model (ft:gpt-…) is then usable like any openai model.
import OpenAI from "openai";
import type { Config } from "../config";
import { openAiSdk } from "./openai-compatible";
import { describeSdkError, providerError } from "./provider-errors";

/** The metadata key that ties a fine-tuning job at OpenAI to an aivis workspace. */
export const FINE_TUNING_WORKSPACE_KEY = "aivis_workspace";
// enough to find the workspace's job even behind a server that ignores the metadata filter
const LIST_LIMIT = 20;

export interface FineTuningJobView {
  id: string;
  /** OpenAI's status: validating_files, queued, running, succeeded, failed or cancelled */
  status: string;
  baseModel: string;
  /** the model id to use once it succeeded (ft:…), else null */
  fineTunedModel: string | null;
  createdAt: string;
  finishedAt: string | null;
  estimatedFinishAt: string | null;
  trainedTokens: number | null;
  /** why it failed, when it did */
  error: string | null;
}

/** The job, or null with why there is none: no tagged job, no openai provider, or a server without a fine-tuning API. */
export type FineTuningLookup = { job: FineTuningJobView } | { job: null; reason: "none" | "not_configured" | "unsupported" };

const isoOrNull = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toISOString() : null);

function jobView(job: OpenAI.FineTuning.FineTuningJob): FineTuningJobView {
  return {
    id: job.id,
    status: job.status,
    baseModel: job.model,
    fineTunedModel: job.fine_tuned_model ?? null,
    createdAt: new Date(job.created_at * 1000).toISOString(),
    finishedAt: isoOrNull(job.finished_at),
    estimatedFinishAt: isoOrNull(job.estimated_finish),
    trainedTokens: job.trained_tokens ?? null,
    error: job.error?.message ?? null,
  };
}

export type FineTuningJobs = ReturnType<typeof createFineTuningJobs>;

export function createFineTuningJobs(config: Config) {
  const cfg = config.ai.openai;
  const limits = { timeoutMs: config.ai.timeoutMs, maxRetries: config.ai.maxRetries };
  let client: OpenAI | null = null;

  return {
    /** The newest job tagged with this workspace; throws our provider errors (PROVIDER_TIMEOUT, …). */
    async latest(workspaceId: string): Promise<FineTuningLookup> {
      if (!cfg.apiKey && !cfg.baseURL) return { job: null, reason: "not_configured" };
      client ??= openAiSdk("openai", cfg, limits);
      let jobs: OpenAI.FineTuning.FineTuningJob[];
      try {
        jobs = (await client.fineTuning.jobs.list({ limit: LIST_LIMIT, metadata: { [FINE_TUNING_WORKSPACE_KEY]: workspaceId } })).data;
      } catch (err) {
        const failure = describeSdkError(OpenAI, err);
        // a local OpenAI-compatible server (Ollama, vLLM, llama.cpp) has no fine-tuning API
        if (failure.kind === "status" && (failure.status === 404 || failure.status === 405)) return { job: null, reason: "unsupported" };
        throw providerError("openai", failure, limits.timeoutMs);
      }
      // checked here too: a compatible server that ignores the filter must not show another
      // workspace's job; the list is newest first
      const mine = jobs.find((job) => job.metadata?.[FINE_TUNING_WORKSPACE_KEY] === workspaceId);
      return mine ? { job: jobView(mine) } : { job: null, reason: "none" };
    },
  };
}
