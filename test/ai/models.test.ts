import { describe, expect, test } from "bun:test";
import {
  assertModelAllowed,
  familyOfModel,
  isRestrictedModel,
  matchFamily,
  validateImageRequest,
} from "../../src/ai/models";
import { AppError } from "../../src/http/errors";
import { PLANS } from "../../src/modules/users/plans";

function errCode(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof AppError ? `${e.status} ${e.errCode}` : "non-AppError";
  }
}

describe("model routing by pattern (SPEC 5.4)", () => {
  test.each([
    ["gpt-4o", "openai"], ["gpt-4o-mini", "openai"], ["gpt-4.1", "openai"], ["gpt-7-turbo-2031", "openai"],
    ["o1", "openai"], ["o3-mini", "openai"], ["o4-mini-high", "openai"], ["chatgpt-4o-latest", "openai"],
    ["ft:gpt-4o-mini:acme::abc123", "openai"],
    ["claude-sonnet-4-5", "anthropic"], ["claude-3-5-haiku-latest", "anthropic"], ["anthropic.claude-v9", "anthropic"],
    ["gemini-2.5-flash", "gemini"], ["models/gemini-3-pro", "gemini"], ["GEMINI-2.0", "gemini"],
  ])("%s → %s", (model, family) => {
    expect(familyOfModel(model)).toBe(family as any);
  });

  test.each(["llama3.1", "mistral-large", "omni", "dall-e-3", "stability-ultra", "", "gpt4o"])("%s → 400 UNKNOWN_MODEL", (model) => {
    expect(errCode(() => familyOfModel(model))).toBe("400 UNKNOWN_MODEL");
    expect(matchFamily(model)).toBeNull();
  });
});

describe("restricted models (SPEC 5.3)", () => {
  test.each(["o1", "o1-mini", "o1-pro", "o3-mini", "o3-mini-high", "gpt-5", "gpt-5-mini", "gpt-5.1", "gpt-4.5-preview"])("%s is restricted", (m) => {
    expect(isRestrictedModel(m)).toBe(true);
  });
  test.each(["gpt-4o", "gpt-4.1", "o3", "o4-mini", "claude-opus-4", "gemini-2.5-pro", "o10"])("%s is not", (m) => {
    expect(isRestrictedModel(m)).toBe(false);
  });
  test("free plan → 403 MODEL_RESTRICTED; startup and up may use them", () => {
    expect(errCode(() => assertModelAllowed("o1", PLANS.free))).toBe("403 MODEL_RESTRICTED");
    expect(errCode(() => assertModelAllowed("gpt-4o", PLANS.free))).toBeNull();
    for (const plan of [PLANS.startup, PLANS.business, PLANS.enterprise]) expect(errCode(() => assertModelAllowed("gpt-5", plan))).toBeNull();
  });
});

describe("image sizes", () => {
  test("dall-e-3 takes its three sizes only", () => {
    for (const size of ["1024x1024", "1792x1024", "1024x1792"]) expect(validateImageRequest("dall-e-3", size)).toBe("dall-e-3");
    for (const size of ["512x512", "16:9", "1024X1024", "1024x1024 "]) expect(errCode(() => validateImageRequest("dall-e-3", size))).toBe("400 INVALID_IMAGE_SIZE");
  });
  test("stability-ultra takes aspect ratios", () => {
    for (const size of ["1:1", "16:9", "9:21"]) expect(validateImageRequest("stability-ultra", size)).toBe("stability-ultra");
    for (const size of ["1024x1024", "4:3", "2:1"]) expect(errCode(() => validateImageRequest("stability-ultra", size))).toBe("400 INVALID_IMAGE_SIZE");
  });
  test("other image models → 400 UNKNOWN_MODEL", () => {
    expect(errCode(() => validateImageRequest("dall-e-2", "1024x1024"))).toBe("400 UNKNOWN_MODEL");
  });
});
