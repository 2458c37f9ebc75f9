/**
 * One error type for every failure of a call: `LoreApiError`, as `lore_client.errors` in Python.
 *
 * The gateway answers errors as `{"error": {"code", "status", "message", "details", "requestId"}}`
 * (`code` the HTTP status, `status` the gRPC status name, `details` the `google.rpc` details: an
 * `ErrorInfo` with the reason and, for bad input, a `BadRequest` naming the field). Transport
 * failures (connection refused, timeouts) become a `LoreApiError` too, with `status` 0, so a caller
 * catches one type.
 */

/** What a body-less answer (a proxy's 502, say) means, as the gateway's status table reads backwards. */
const CODE_BY_HTTP: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export interface LoreApiErrorFields {
  status: number;
  code: string;
  message: string;
  reason?: string;
  field?: string;
  requestId?: string;
  retryAfter?: number | null;
  metadata?: Record<string, string>;
  details?: Record<string, unknown>[];
}

/**
 * A call failed. `status`: the HTTP status (0: no answer); `code`: the gRPC status name
 * (`NOT_FOUND`, `INVALID_ARGUMENT` …); `reason`: the `ErrorInfo` reason (`RATE_LIMITED`,
 * `IDEMPOTENCY_KEY_REUSED` …) or `""`; `field`: the request field a 400 names, or `""`;
 * `retryAfter`: seconds to wait, from `Retry-After` (429, some 409s), else `null`.
 */
export class LoreApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly reason: string;
  readonly field: string;
  readonly requestId: string;
  readonly retryAfter: number | null;
  readonly metadata: Record<string, string>;
  readonly details: Record<string, unknown>[];

  constructor(fields: LoreApiErrorFields, options?: { cause?: unknown }) {
    super(fields.message, options); // the server's message, as `message` is in Python
    this.name = "LoreApiError";
    this.status = fields.status;
    this.code = fields.code;
    this.reason = fields.reason ?? "";
    this.field = fields.field ?? "";
    this.requestId = fields.requestId ?? "";
    this.retryAfter = fields.retryAfter ?? null;
    this.metadata = fields.metadata ?? {};
    this.details = fields.details ?? [];
  }

  /** `LoreApiError: 404 NOT_FOUND: memory … not found [REASON]`, as `str()` of the Python error reads. */
  override toString(): string {
    return `${this.name}: ${this.status} ${this.code}: ${this.message}${this.reason ? ` [${this.reason}]` : ""}`;
  }

  /** The error of an answer that is not a success; `body` is the answer already read (JSON or text). */
  static fromResponse(response: Response, body: unknown): LoreApiError {
    const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
    const headerRequestId = response.headers.get("X-Request-Id") ?? "";
    const error = isRecord(body) ? body["error"] : undefined;
    const fallbackCode = CODE_BY_HTTP[response.status] ?? "UNKNOWN";
    if (!isRecord(error)) {
      const text = typeof body === "string" ? body.slice(0, 500) : "";
      return new LoreApiError({
        status: response.status,
        code: fallbackCode,
        message: text || response.statusText,
        requestId: headerRequestId,
        retryAfter,
      });
    }
    const details = Array.isArray(error["details"]) ? error["details"].filter(isRecord) : [];
    let reason = "";
    let field = "";
    let metadata: Record<string, string> = {};
    for (const detail of details) {
      const kind = String(detail["@type"] ?? "");
      if (kind.endsWith("google.rpc.ErrorInfo")) {
        reason = String(detail["reason"] ?? "");
        const found = isRecord(detail["metadata"]) ? detail["metadata"] : {};
        metadata = Object.fromEntries(Object.entries(found).map(([k, v]) => [k, String(v)]));
      } else if (kind.endsWith("google.rpc.BadRequest")) {
        const violations = Array.isArray(detail["fieldViolations"]) ? detail["fieldViolations"] : [];
        const first: unknown = violations[0];
        if (isRecord(first) && !field) field = String(first["field"] ?? "");
      }
    }
    return new LoreApiError({
      status: response.status,
      code: String(error["status"] || fallbackCode),
      message: String(error["message"] ?? ""),
      reason,
      field: field || metadata["field"] || "",
      requestId: String(error["requestId"] || headerRequestId),
      retryAfter,
      metadata,
      details,
    });
  }

  /** No answer: the connection failed (`UNAVAILABLE`) or the attempt timed out (`DEADLINE_EXCEEDED`). */
  static fromTransport(cause: unknown, timedOut: boolean): LoreApiError {
    const described = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    return new LoreApiError(
      { status: 0, code: timedOut ? "DEADLINE_EXCEEDED" : "UNAVAILABLE", message: described },
      { cause },
    );
  }
}

/** `Retry-After` in seconds (the gateway sends whole seconds; an HTTP date is not used). */
export function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
