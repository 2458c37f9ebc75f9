// The public REST API, called with the key the user entered. The key lives in sessionStorage
// (this tab only, gone when it closes), never in localStorage, a cookie or a URL, and is sent
// only as the Authorization header to this page's own origin (the CSP's connect-src 'self').

const KEY = "lore.apiKey";

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || [];
  }
}

export function storedKey() {
  return sessionStorage.getItem(KEY) || "";
}

export function storeKey(key) {
  sessionStorage.setItem(KEY, key);
}

export function dropKey() {
  sessionStorage.removeItem(KEY);
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined && one !== null && one !== "") search.append(name, String(one));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export async function call(method, path, body, key = storedKey()) {
  const headers = { Accept: "application/json", Authorization: `Bearer ${key}` };
  const init = { method, headers, credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = {};
  }
  if (!response.ok) {
    const error = data.error || {};
    const details = Array.isArray(error.details) ? error.details : [];
    const reason = details.map((detail) => detail.reason).find(Boolean);
    throw new ApiError(response.status, reason || error.status || String(response.status), error.message || response.statusText, details);
  }
  return data;
}

export const get = (path, params) => call("GET", path + query(params));
export const post = (path, body) => call("POST", path, body);
export const patch = (path, body) => call("PATCH", path, body);
export const del = (path) => call("DELETE", path);

export function id(value) {
  return encodeURIComponent(value);
}
