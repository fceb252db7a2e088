// The GraphQL API of this server, as any frontend calls it: POST JSON to /graphql with
// the key in the API-Key header. The key never goes into a URL; the page's language does
// (`lang=`), so names, labels and steps come back in it (i18n.js).

import { language, t } from "./i18n.js";

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

// Where every request of the viewer goes: /graphql in the page's language. (The live
// colours' WebSocket, units/live.js, carries ids only: no names to translate.)
export function apiAddress() {
  return `/graphql?lang=${encodeURIComponent(language())}`;
}

// `signal` (optional, an AbortController's) drops a request a newer one made stale: the
// search box asks once per pause in typing, and only the last answer counts.
export async function graphql(key, query, variables, signal = null) {
  let response;
  try {
    response = await fetch(apiAddress(), {
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
      throw new ApiError(t("api.replaced"), "ABORTED");
    }
    throw new ApiError(t("api.unreachable", { message: error.message }), "NETWORK");
  }
  let body;
  try {
    body = await response.json();
  } catch {
    if (signal && signal.aborted) {
      throw new ApiError(t("api.replaced"), "ABORTED");
    }
    throw new ApiError(t("api.notJson", { status: String(response.status) }), "HTTP");
  }
  if (Array.isArray(body.errors) && body.errors.length) {
    const first = body.errors[0];
    const extensions = first.extensions || {};
    throw new ApiError(first.message + problemsOf(extensions.fields), extensions.code);
  }
  if (!response.ok || !body.data) {
    throw new ApiError(body.message || t("api.status", { status: String(response.status) }), "HTTP");
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
    throw new ApiError(t("api.document", { status: String(response.status) }), "HTTP");
  }
  return response.json();
}
