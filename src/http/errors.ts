/**
 * Errors of the HTTP layer. Each carries the HTTP status it is answered with and a
 * stable `code`; {@link httpStatusOf} maps the engine's own errors to statuses.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { PipelineError } from "../pipeline/errors.js";
import { InvalidInputError, SluiceError } from "../sdk/errors.js";

/** An error answered with a specific HTTP status. */
export class HttpError extends SluiceError {
  constructor(
    readonly status: ContentfulStatusCode,
    code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** No bearer token was sent to an endpoint that needs one (401). */
export class AuthRequiredError extends HttpError {
  constructor(scope: string) {
    super(
      401,
      "AUTH_REQUIRED",
      `this endpoint needs a bearer token with scope "${scope}": create one with \`sluice token create --name <you> --scope ${scope}\` and send "Authorization: Bearer <token>"`,
    );
  }
}

/** The bearer token is malformed, unknown or revoked (401). */
export class InvalidTokenError extends HttpError {
  constructor() {
    super(
      401,
      "AUTH_INVALID_TOKEN",
      "the bearer token is not valid (malformed, unknown or revoked): create a new one with `sluice token create`",
    );
  }
}

/** The token's scope is below what the endpoint needs (403). */
export class ScopeError extends HttpError {
  constructor(identity: string, has: string, needs: string) {
    super(
      403,
      "AUTH_SCOPE",
      `token "${identity}" has scope "${has}" but this endpoint needs "${needs}": create a token with --scope ${needs}`,
    );
  }
}

/** A state-changing request came from another site's page (403). */
export class CrossOriginError extends HttpError {
  constructor(origin: string) {
    super(
      403,
      "CROSS_ORIGIN",
      `refused a cross-origin request from ${origin}: call the API from the Sluice UI, curl or a server, not from another site`,
    );
  }
}

/** The Host header is not a loopback name while the API runs without authentication (403). */
export class HostNotAllowedError extends HttpError {
  constructor(host: string) {
    super(
      403,
      "HOST_NOT_ALLOWED",
      `host ${JSON.stringify(host)} is not allowed: without authentication the server only answers 127.0.0.1, localhost and [::1]`,
    );
  }
}

/** The request body is over the size limit (413). */
export class BodyTooLargeError extends HttpError {
  constructor(limit: number) {
    super(
      413,
      "BODY_TOO_LARGE",
      `the request body is over the ${limit}-byte limit: send a smaller payload (store large data elsewhere and pass a reference)`,
    );
  }
}

/** The request body is not JSON, or not safe JSON (400 / 415). */
export class BadBodyError extends HttpError {
  constructor(message: string, code = "INVALID_BODY", status: ContentfulStatusCode = 400) {
    super(status, code, message);
  }
}

/** No route or resource (404). */
export class NotFoundError extends HttpError {
  constructor(message: string, code = "NOT_FOUND") {
    super(404, code, message);
  }
}

/** The resource is in a state that does not allow the action (409). */
export class ConflictError extends HttpError {
  constructor(code: string, message: string) {
    super(409, code, message);
  }
}

const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  RUN_NOT_FOUND: 404,
  TRIGGER_NOT_FOUND: 404,
  TRIGGER_PAUSED: 409,
  TRIGGER_MESSAGE_INVALID: 400,
  TRIGGER_ROW_INVALID: 400,
  UNKNOWN_WORKFLOW: 404,
  DUPLICATE_WORKFLOW: 409,
  RUN_ID_CONFLICT: 409,
  INVALID_RETRY: 409,
  PAYLOAD_TOO_LARGE: 413,
  RESUME_TOKEN_INVALID: 403,
  RESUME_TOKEN_EXPIRED: 410,
  DIAGRAM_SYNTAX_ERROR: 422,
  // The database refused the write (locked, full, read-only): nothing was stored, try again later.
  STORAGE_ERROR: 503,
  // The group's worker lane crashed at startup (see lanes/crash-record.ts): retry once it is fixed.
  LANE_CRASHED: 503,
  // Pipelines: unknown things 404, a folder with errors 409, a refused plan 400.
  PIPELINE_SCRIPT_UNKNOWN: 404,
  PIPELINE_FOLDER_NOT_FOUND: 404,
  PIPELINE_UNKNOWN_NODE: 404,
  PIPELINE_TRIGGER_NOT_CONFIGURED: 404,
  PIPELINE_INVALID: 409,
  PIPELINE_SCRIPT_NOT_LOADED: 409,
  PIPELINE_PLAN_FAILED: 400,
  PIPELINE_BACKFILL_UNKNOWN: 404,
  PIPELINE_BACKFILL_ACTIVE: 409,
  PIPELINE_BACKFILL_FINISHED: 409,
  PIPELINE_PLAN_UNKNOWN: 404,
  PIPELINE_PLAN_ACTIVE: 409,
  PIPELINE_BACKFILL_FAILED: 400,
  PIPELINE_CONTENTION: 400,
  // Lake tables (the asset routes): a bad URI 400, a lake, table or snapshot that does not exist 404.
  LAKE_ASSET_INVALID: 400,
  LAKE_NOT_FOUND: 404,
  LAKE_TABLE_NOT_FOUND: 404,
  LAKE_SNAPSHOT_NOT_FOUND: 404,
  LINEAGE_NOT_FOUND: 404,
};

/**
 * The HTTP status an error is answered with, the one table for every route: its own for
 * {@link HttpError}, then by code, then 400 for bad input (`InvalidInputError`, and the pipeline
 * layer's asset URI, partition and selection errors), 500 otherwise.
 */
export function httpStatusOf(err: unknown): ContentfulStatusCode {
  if (err instanceof HttpError) return err.status;
  if (err instanceof SluiceError) {
    const known = STATUS_BY_CODE[err.code];
    if (known) return known;
    if (err instanceof InvalidInputError || err instanceof PipelineError) return 400;
  }
  return 500;
}
