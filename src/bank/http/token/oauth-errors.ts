// The token endpoint's errors follow RFC 6749 §5.2 (profile v1.1 section 3), because every OAuth client
// library parses them that way: application/json with `error` and `error_description`, plus the profile's
// `code` and the `request_id`. Only this endpoint answers so; every other error is RFC 9457 problem+json.
import { ProblemCode, ProblemError } from '../../../wire/problems';

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'unauthorized_client' | 'invalid_dpop_proof' | 'server_error';

/** RFC 6749 §5.2 and RFC 9449 §5: the error, its HTTP status and the profile code it reports. */
export const OAUTH_ERRORS: Record<OAuthErrorCode, { status: number; code: ProblemCode }> = {
  invalid_request: { status: 400, code: 'body_invalid' },
  invalid_client: { status: 401, code: 'auth_invalid' },
  unsupported_grant_type: { status: 400, code: 'body_invalid' },
  unauthorized_client: { status: 400, code: 'auth_invalid' },
  invalid_dpop_proof: { status: 400, code: 'auth_invalid' },
  server_error: { status: 500, code: 'internal' },
};

/** RFC 6749 §5.1: a token answer is never cached (its §5.2 example sends the same with an error). */
export const TOKEN_NO_STORE: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/**
 * RFC 6749 §5.2: a client that authenticated in the Authorization header gets a 401 with a challenge. One that
 * used client_secret_post gets none: OAuth client libraries (oauth4webapi) treat any challenge as the error and
 * never read the JSON body, and RFC 6749 makes the header a MUST only for the header case.
 */
const BASIC_CHALLENGE = 'Basic realm="sandbox-bank"';

export function oauthError(error: OAuthErrorCode, description: string, code: ProblemCode = OAUTH_ERRORS[error].code, viaHeader = false): ProblemError {
  const { status } = OAUTH_ERRORS[error];
  const headers: Record<string, string> = status === 401 && viaHeader ? { 'WWW-Authenticate': BASIC_CHALLENGE } : {};
  return new ProblemError(code, description, { status, headers, extensions: { error } });
}

/** The RFC 6749 error a problem raised outside the token handler (size limit, 405, 500) maps to. */
function errorOf(problem: ProblemError): OAuthErrorCode {
  const given = problem.options.extensions?.error;
  if (typeof given === 'string' && given in OAUTH_ERRORS) return given as OAuthErrorCode;
  if (problem.code === 'internal') return 'server_error';
  return problem.status === 401 ? 'invalid_client' : 'invalid_request';
}

export function oauthErrorBody(problem: ProblemError, requestId: string): Record<string, string> {
  return { error: errorOf(problem), error_description: problem.detail, code: problem.code, request_id: requestId };
}
