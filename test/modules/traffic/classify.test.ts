import { describe, expect, test } from "bun:test";
import { classifySource, compileSources, rollupSource } from "../../../src/modules/traffic/classify";
import table from "../../../src/modules/traffic/sources.json";

const ref = (referrer: string, extra: Record<string, string> = {}) => classifySource({ referrer, siteDomain: "example.com", ...extra });

describe("AI sources by referrer host", () => {
  test.each([
    ["https://chatgpt.com/", "ChatGPT"],
    ["https://chatgpt.com/c/abc-123", "ChatGPT"],
    ["https://chat.openai.com/", "ChatGPT"],
    ["https://www.perplexity.ai/search?q=x", "Perplexity"],
    ["https://gemini.google.com/app", "Gemini"],
    ["https://claude.ai/chat/1", "Claude"],
    ["https://copilot.microsoft.com/", "Copilot"],
    ["https://www.bing.com/chat?q=x", "Copilot"],
    ["https://grok.com/", "Grok"],
    ["https://x.com/i/grok?conversation=1", "Grok"],
    ["https://chat.deepseek.com/", "DeepSeek"],
    ["https://www.meta.ai/", "Meta AI"],
    ["https://chat.mistral.ai/chat", "Mistral Le Chat"],
    ["https://you.com/search?q=x", "You.com"],
    ["https://huggingface.co/chat/", "HuggingChat"],
    ["https://kagi.com/assistant", "Kagi Assistant"],
  ])("%s → ai / %s", (referrer, source) => {
    expect(ref(referrer)).toEqual({ channel: "ai", source, referrerHost: expect.any(String) });
  });

  test("subdomains of a listed host match; look-alike hosts do not", () => {
    expect(ref("https://eu.chatgpt.com/").source).toBe("ChatGPT");
    expect(ref("https://notchatgpt.com/")).toEqual({ channel: "referral", source: "notchatgpt.com", referrerHost: "notchatgpt.com" });
    expect(ref("https://chatgpt.com.evil.net/").channel).toBe("referral");
  });
});

describe("hosts that must NOT count as AI", () => {
  test("bare openai.com is a plain referral", () => {
    expect(ref("https://openai.com/blog")).toEqual({ channel: "referral", source: "openai.com", referrerHost: "openai.com" });
    expect(ref("https://platform.openai.com/docs").channel).toBe("referral");
  });
  test("bing.com is search unless under /chat", () => {
    expect(ref("https://www.bing.com/search?q=x")).toMatchObject({ channel: "search", source: "Bing" });
    expect(ref("https://www.bing.com/")).toMatchObject({ channel: "search", source: "Bing" });
    expect(ref("https://www.bing.com/chatter")).toMatchObject({ channel: "search", source: "Bing" });
    // subdomains too: only /chat is Copilot (the Edge sidebar's edgeservices.bing.com/edgesvc is not)
    expect(ref("https://cn.bing.com/chat?q=x")).toMatchObject({ channel: "ai", source: "Copilot" });
    expect(ref("https://edgeservices.bing.com/edgesvc/chat").channel).not.toBe("ai");
    expect(ref("https://edgeservices.bing.com/").channel).not.toBe("ai");
  });
  test("x.com is social unless under /i/grok", () => {
    expect(ref("https://x.com/someone/status/1")).toMatchObject({ channel: "social", source: "X" });
    expect(ref("https://x.com/i/grokking")).toMatchObject({ channel: "social", source: "X" });
    expect(ref("https://t.co/abc")).toMatchObject({ channel: "social", source: "X" });
  });
  test("google.com search is not Gemini, and Gmail is email", () => {
    expect(ref("https://www.google.com/")).toMatchObject({ channel: "search", source: "Google" });
    expect(ref("https://www.google.co.uk/")).toMatchObject({ channel: "search", source: "Google" });
    expect(ref("https://mail.google.com/mail/u/0")).toMatchObject({ channel: "email", source: "Gmail" });
    expect(ref("https://google.evil.com/").channel).toBe("referral");
  });
});

describe("utm_source", () => {
  test("utm_source=chatgpt.com without a referrer is ChatGPT (what ChatGPT appends to links)", () => {
    expect(classifySource({ utmSource: "chatgpt.com" })).toEqual({ channel: "ai", source: "ChatGPT", referrerHost: null });
    expect(classifySource({ utmSource: "ChatGPT.com " })).toMatchObject({ channel: "ai", source: "ChatGPT" });
    expect(classifySource({ utmSource: "perplexity" })).toMatchObject({ channel: "ai", source: "Perplexity" });
  });
  test("an AI utm_source beats a search referrer", () => {
    expect(ref("https://www.google.com/", { utmSource: "chatgpt.com" })).toMatchObject({ channel: "ai", source: "ChatGPT" });
  });
  test("a utm_source host never reaches a path-only rule", () => {
    expect(classifySource({ utmSource: "bing.com" })).toMatchObject({ channel: "search", source: "Bing" });
    expect(classifySource({ utmSource: "x.com" })).toMatchObject({ channel: "social", source: "X" });
  });
  test("utm_medium=email makes it email; unknown utm_source alone is other", () => {
    expect(classifySource({ utmSource: "newsletter-42", utmMedium: "Email" })).toMatchObject({ channel: "email", source: "newsletter-42" });
    expect(classifySource({ utmSource: "newsletter-42" })).toMatchObject({ channel: "other", source: "newsletter-42" });
    expect(classifySource({ utmSource: "facebook", utmMedium: "cpc" })).toMatchObject({ channel: "social", source: "Facebook" });
  });
});

describe("referral, direct and self-referrals", () => {
  test("unknown referrer → referral by host, www. removed", () => {
    expect(ref("https://www.some-blog.org/post")).toEqual({ channel: "referral", source: "some-blog.org", referrerHost: "some-blog.org" });
  });
  test("no referrer, no tags → direct", () => {
    expect(classifySource({})).toEqual({ channel: "direct", source: "Direct", referrerHost: null });
  });
  test("the site's own domain and subdomains are internal, not a source", () => {
    expect(ref("https://example.com/a")).toMatchObject({ channel: "direct", source: "Direct" });
    expect(ref("https://blog.example.com/a")).toMatchObject({ channel: "direct" });
    expect(ref("https://example.com/a", { utmSource: "chatgpt.com" })).toMatchObject({ channel: "ai", source: "ChatGPT" });
  });
  test("garbage and non-http referrers are ignored", () => {
    expect(ref("not a url").channel).toBe("direct");
    expect(ref("android-app://com.google.android.gm/").channel).toBe("direct");
    expect(ref("javascript:alert(1)").channel).toBe("direct");
  });
});

describe("the source table file", () => {
  test("compiles, and every AI entry is in channel ai", () => {
    const compiled = compileSources(table.sources);
    expect(compiled.byHost.get("chatgpt.com")![0]).toMatchObject({ source: "ChatGPT", channel: "ai" });
    const names = table.sources.filter((s) => s.channel === "ai").map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["ChatGPT", "Perplexity", "Gemini", "Claude", "Copilot"]));
  });
  test("never lists bare openai.com, bing.com or x.com under an AI source", () => {
    for (const s of table.sources.filter((e) => e.channel === "ai")) {
      for (const h of s.hosts) expect(["openai.com", "bing.com", "x.com"]).not.toContain(h);
    }
  });
  test("AI entries on bing.com (or a subdomain) are under /chat only, on x.com under /i/grok only", () => {
    const under = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);
    for (const s of table.sources.filter((e) => e.channel === "ai")) {
      for (const pattern of s.hosts) {
        const [host, ...rest] = pattern.split("/");
        const path = rest.length ? `/${rest.join("/")}` : "";
        if (under(host, "bing.com")) expect(`${s.name} ${path}`).toMatch(/ \/chat(\/|$)/);
        if (under(host, "x.com")) expect(`${s.name} ${path}`).toMatch(/ \/i\/grok(\/|$)/);
        if (under(host, "openai.com")) expect(`${s.name} ${host}`).toBe("ChatGPT chat.openai.com");
      }
    }
  });
  test("extending: a new entry is all it takes", () => {
    const custom = compileSources([...table.sources, { name: "NewBot", channel: "ai", hosts: ["newbot.example"], utm: ["newbot"] }]);
    expect(classifySource({ referrer: "https://app.newbot.example/x" }, custom)).toMatchObject({ channel: "ai", source: "NewBot" });
    expect(classifySource({ utmSource: "newbot" }, custom)).toMatchObject({ channel: "ai", source: "NewBot" });
  });
  test("a bad channel or host is refused at start-up", () => {
    expect(() => compileSources([{ name: "X", channel: "nope", hosts: ["a.com"], utm: [] }])).toThrow(/unknown channel/);
    expect(() => compileSources([{ name: "X", channel: "ai", hosts: ["not a host"], utm: [] }])).toThrow(/invalid host/);
  });
});

describe("rollupSource", () => {
  test("table names stay apart; hosts and unknown utm values fold into their channel's catch-all", () => {
    expect(rollupSource("ai", "ChatGPT")).toBe("ChatGPT");
    expect(rollupSource("search", "Google")).toBe("Google");
    expect(rollupSource("direct", "Direct")).toBe("Direct");
    expect(rollupSource("referral", "some-blog.org")).toBe("Referral");
    expect(rollupSource("other", "newsletter-42")).toBe("Other");
    expect(rollupSource("email", "newsletter-42")).toBe("Email");
    expect(rollupSource("email", "Gmail")).toBe("Gmail");
  });
});
