// The GraphQL API of this server, as any frontend calls it: POST JSON to /graphql with
// the key in the API-Key header. The key never goes into a URL.

export const FLAGS = [
  "references",
  "unit-attributes-resource",
  "locations-resource",
  "distances",
  "directions",
  "search",
].join(", ");

// Codes after which the key itself is the problem: ask for another one.
export const KEY_PROBLEMS = new Set(["UNAUTHENTICATED", "INVALID_KEY"]);

export class ApiError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code || "ERROR";
  }
}

// BAD_USER_INPUT names what is wrong with which argument: say it.
function problemsOf(fields) {
  if (!fields || typeof fields !== "object") {
    return "";
  }
  const parts = Object.entries(fields).map(([name, problems]) =>
    `${name} ${Array.isArray(problems) ? problems.join(", ") : problems}`);
  return parts.length ? `: ${parts.join("; ")}` : "";
}

// `signal` (optional, an AbortController's) drops a request a newer one made stale: the
// search box asks once per pause in typing, and only the last answer counts.
export async function graphql(key, query, variables, signal = null) {
  let response;
  try {
    response = await fetch("/graphql", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "API-Key": key,
        "Experimental-Flags": FLAGS,
      },
      body: JSON.stringify({ query, variables }),
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
      signal,
    });
  } catch (error) {
    if (signal && signal.aborted) {
      throw new ApiError("Replaced by a newer request", "ABORTED");
    }
    throw new ApiError(`The server could not be reached (${error.message})`, "NETWORK");
  }
  let body;
  try {
    body = await response.json();
  } catch {
    if (signal && signal.aborted) {
      throw new ApiError("Replaced by a newer request", "ABORTED");
    }
    throw new ApiError(`The server answered ${response.status} without JSON`, "HTTP");
  }
  if (Array.isArray(body.errors) && body.errors.length) {
    const first = body.errors[0];
    const extensions = first.extensions || {};
    throw new ApiError(first.message + problemsOf(extensions.fields), extensions.code);
  }
  if (!response.ok || !body.data) {
    throw new ApiError(body.message || `The server answered ${response.status}`, "HTTP");
  }
  return body.data;
}

// The parsed map document: a public, content-addressed file (no key needed).
export async function fetchDocument(url) {
  const response = await fetch(url, {
    credentials: "omit",
    referrerPolicy: "no-referrer",
  });
  if (!response.ok) {
    throw new ApiError(`The map document answered ${response.status}`, "HTTP");
  }
  return response.json();
}
