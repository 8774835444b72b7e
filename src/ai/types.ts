// The provider layer's contract, shared by generation, chat, content tools, brand voices and
// visibility reports. Implemented in src/ai/ (routing by model id, openai / anthropic SDKs,
// Gemini through its OpenAI-compatible endpoint, Stability over fetch); reached through ctx.ai.
export type ProviderFamily = "openai" | "anthropic" | "gemini";
export type ImageModel = "dall-e-3" | "stability-ultra";

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export interface CompletionRequest {
  model: string;
  system?: string;
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  /** OpenAI family only (Responses API web-search tool); 400 for other families */
  webSearch?: boolean;
  signal?: AbortSignal;
}

export interface CompletionResult {
  text: string;
  /** the model id the provider reports having used */
  model: string;
  family: ProviderFamily;
  /** URLs the provider cited (web search), when any */
  citations: string[];
}

export interface ImageRequest {
  model: ImageModel;
  prompt: string;
  /** dall-e-3: WIDTHxHEIGHT; stability-ultra: aspect ratio like 16:9 */
  size: string;
  signal?: AbortSignal;
}

export interface ImageResult {
  b64: string;
  mimeType: string;
  model: ImageModel;
}

export interface AiProviders {
  /** the family a model id belongs to; throws AppError 400 UNKNOWN_MODEL */
  familyOf(model: string): ProviderFamily;
  /** whether a key or base URL is set for the family */
  isConfigured(family: ProviderFamily): boolean;
  /** throws AppError: PROVIDER_NOT_CONFIGURED, PROVIDER_ERROR, PROVIDER_TIMEOUT, … (never a raw SDK error) */
  complete(req: CompletionRequest): Promise<CompletionResult>;
  image(req: ImageRequest): Promise<ImageResult>;
}
