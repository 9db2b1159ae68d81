// A small typed client for the coach API. The types come from openapi.yaml (npm run generate
// writes src/api.d.ts with openapi-typescript), so a change to the contract that breaks the app
// breaks this compile. It runs wherever fetch and ReadableStream do: React Native, browsers,
// Node 18+.
import type { components, paths } from "./api";

type Schemas = components["schemas"];
type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: { [K in S]: { content: { "application/json": infer T } } } } ? T : never;

/** One event of POST /v1/stream (its `type` tells which). */
export type StreamEvent = Schemas["StreamEvent"];
export type CommandAnswer = Json<"/v1/copilot", "post", 200>;
export type ActiveWorkout = Json<"/v1/workouts/active", "get", 200>;
export type ApiError = Schemas["Error"];

export interface ClientOptions {
  /** The local stack (http://127.0.0.1:9000) or the deployed stack's ApiUrl. */
  baseUrl: string;
  /** Deployed: the Cognito ID token. */
  idToken?: string;
  /** Local stack only (AUTH_MODE=dev): the user id. */
  devUser?: string;
}

/** An answer outside 2xx, with the API's error envelope. */
export class CoachApiError extends Error {
  constructor(readonly status: number, readonly body: ApiError | undefined) {
    super(`HTTP ${status}: ${body?.error.code ?? "no error body"} ${body?.error.message ?? ""}`);
  }
}

export class CoachClient {
  constructor(private readonly opts: ClientOptions) {}

  private headers(contentType?: string): Record<string, string> {
    const h: Record<string, string> = {};
    if (this.opts.idToken) h["authorization"] = this.opts.idToken;
    else if (this.opts.devUser) h["x-user-id"] = this.opts.devUser;
    if (contentType) h["content-type"] = contentType;
    return h;
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.opts.baseUrl + path, {
      method,
      headers: this.headers(body === undefined ? undefined : "application/json"),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed: unknown = await res.json().catch(() => undefined);
    if (!res.ok) throw new CoachApiError(res.status, parsed as ApiError | undefined);
    return parsed as T;
  }

  /** A workout command ("done", "8 @ 100", "next", "undo"), answered without a model. */
  command(message: string): Promise<CommandAnswer> {
    return this.json("POST", "/v1/copilot", { message });
  }

  activeWorkout(): Promise<ActiveWorkout> {
    return this.json("GET", "/v1/workouts/active");
  }

  /**
   * Any message, answered as server-sent events over a POST (EventSource cannot POST, so the
   * body is read as a stream). Yields each event as it arrives; `done` is always the last.
   */
  async *stream(message: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const res = await fetch(this.opts.baseUrl + "/v1/stream", {
      method: "POST",
      headers: { ...this.headers("application/json"), accept: "text/event-stream" },
      body: JSON.stringify({ message }),
      signal,
    });
    if (!res.ok || !res.body) {
      const parsed: unknown = await res.json().catch(() => undefined);
      throw new CoachApiError(res.status, parsed as ApiError | undefined);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      // Frames end with a blank line; a frame may arrive split across reads.
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data) yield JSON.parse(data) as StreamEvent;
      }
    }
  }
}
