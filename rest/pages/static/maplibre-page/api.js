// This server's API as any frontend calls it: the key in the API-Key header, never in a
// URL. REST for the style and TileJSON (MapLibre's own documents), GraphQL for the rest.

export const FLAGS = "locations-resource, distances, directions";
const KEY_ITEM = "floorgate-viewer-key"; // the viewer's: one key for both pages of a tab
let memoryKey = null; // when sessionStorage is refused (a framed page, a strict browser)

export class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status || 0;
    this.code = code || "";
  }

  // The key itself is the problem (none, or not a key): ask for another one.
  get keyProblem() {
    return this.status === 401 || ["UNAUTHENTICATED", "INVALID_KEY"].includes(this.code);
  }
}

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function storeKey(key) {
  memoryKey = key;
  try {
    storage()?.setItem(KEY_ITEM, key);
  } catch {
    // kept in memory only
  }
}

export function storedKey() {
  try {
    return storage()?.getItem(KEY_ITEM) || memoryKey;
  } catch {
    return memoryKey;
  }
}

export function forgetKey() {
  memoryKey = null;
  try {
    storage()?.removeItem(KEY_ITEM);
  } catch {
    // nothing kept
  }
}

// Move `#key=...` out of the address bar (and history) into sessionStorage.
export function takeKeyFromFragment() {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  if (!fragment.has("key")) {
    return;
  }
  const key = (fragment.get("key") || "").trim();
  fragment.delete("key");
  const rest = fragment.toString();
  const address = window.location.pathname + window.location.search + (rest ? `#${rest}` : "");
  window.history.replaceState(window.history.state, "", address);
  if (key) {
    storeKey(key);
  }
}

const REQUEST = { credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer" };

async function bodyOf(response) {
  try {
    return await response.json();
  } catch {
    throw new ApiError(`The server answered ${response.status} without JSON`, response.status);
  }
}

function problemsOf(fields) {
  if (!fields || typeof fields !== "object") {
    return "";
  }
  const parts = Object.entries(fields).map(([name, problems]) =>
    `${name} ${Array.isArray(problems) ? problems.join(", ") : problems}`);
  return parts.length ? `: ${parts.join("; ")}` : "";
}

// A JSON document of the REST API (`/v1/...`), or an ApiError with the API's message.
export async function getJson(key, path) {
  let response;
  try {
    response = await fetch(path, { ...REQUEST, headers: { "API-Key": key } });
  } catch (error) {
    throw new ApiError(`The server could not be reached (${error.message})`);
  }
  const body = await bodyOf(response);
  if (!response.ok) {
    throw new ApiError((body.message || "Failed") + problemsOf(body.fields), response.status);
  }
  return body;
}

export async function graphql(key, query, variables) {
  let response;
  try {
    response = await fetch("/graphql", {
      ...REQUEST,
      method: "POST",
      headers: { "Content-Type": "application/json", "API-Key": key, "Experimental-Flags": FLAGS },
      body: JSON.stringify({ query, variables }),
    });
  } catch (error) {
    throw new ApiError(`The server could not be reached (${error.message})`);
  }
  const body = await bodyOf(response);
  if (Array.isArray(body.errors) && body.errors.length) {
    const first = body.errors[0];
    const extensions = first.extensions || {};
    throw new ApiError(first.message + problemsOf(extensions.fields), response.status,
      extensions.code);
  }
  if (!response.ok || !body.data) {
    throw new ApiError(body.message || `The server answered ${response.status}`, response.status);
  }
  return body.data;
}
