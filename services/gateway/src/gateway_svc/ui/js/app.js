// The memory browser's shell: sign-in, the views' navigation (location.hash), status messages.
import { ApiError, call, dropKey, storeKey, storedKey } from "./api.js";
import { clear, h } from "./dom.js";
import * as beliefs from "./beliefs.js";
import * as engagement from "./engagement.js";
import * as episodes from "./episodes.js";
import * as jobs from "./jobs.js";
import * as memories from "./memories.js";
import * as sessions from "./sessions.js";

const VIEWS = { memories, beliefs, sessions, episodes, engagement, jobs };
const main = document.getElementById("main");
const status = document.getElementById("status");
const nav = document.getElementById("views");
const login = document.getElementById("login");
const who = document.getElementById("who");

// The scope the views share (user, agent, team): a pinned key's user is fixed by the key.
const scope = { userId: "", agentId: "", teamId: "" };
let caller = null;
let keepStatus = false; // a view re-shown after an action keeps the action's message

function say(message, kind = "error") {
  status.textContent = message;
  status.className = kind === "error" ? "status" : "status info";
  status.hidden = !message;
}

function describe(error) {
  if (error instanceof ApiError) {
    if (error.status === 401) return `The key was refused (${error.code}): ${error.message}`;
    if (error.status === 403) return `This key may not do that (${error.code}): ${error.message}`;
    const fields = error.details
      .flatMap((detail) => detail.fieldViolations || [])
      .map((violation) => `${violation.field}: ${violation.description}`);
    return `${error.code}: ${error.message}${fields.length ? ` (${fields.join("; ")})` : ""}`;
  }
  return `The request failed: ${error.message}`;
}

// admin stands for every scope of its org except operator; a pinned key never acts org-wide.
function can(needed) {
  if (!caller) return false;
  const held = caller.scopes || [];
  return held.includes(needed) || (held.includes("admin") && needed !== "operator");
}

const context = {
  scope,
  say,
  fail(error) {
    say(describe(error));
    if (error instanceof ApiError && error.status === 401) signOut("The key is no longer accepted: sign in again.");
  },
  can,
  get caller() {
    return caller;
  },
  orgWide() {
    return Boolean(caller) && !caller.userId;
  },
  // Show `hash` (again, when it is the current one), keeping the status message.
  go(hash) {
    keepStatus = true;
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

function showSignedIn() {
  login.hidden = true;
  who.hidden = false;
  nav.hidden = false;
  const pinned = caller.userId ? `, pinned to user ${caller.userId}` : "";
  document.getElementById("who-text").textContent =
    `${caller.principal} in ${caller.orgId}${pinned} — scopes: ${(caller.scopes || []).join(", ") || "none"}`;
}

function signOut(message) {
  dropKey();
  caller = null;
  login.hidden = false;
  who.hidden = true;
  nav.hidden = true;
  clear(main).append(h("p", null, "Enter an API key to browse what Lore remembers."));
  say(message || "", message ? "error" : "info");
  document.getElementById("api-key").focus();
}

async function signIn(key) {
  try {
    caller = await call("GET", "/v1/whoami", undefined, key);
  } catch (error) {
    caller = null;
    dropKey();
    clear(main).append(h("p", null, "No data is shown until a valid key is entered."));
    say(describe(error));
    return false;
  }
  storeKey(key);
  scope.userId = caller.userId || scope.userId;
  say("", "info");
  showSignedIn();
  return true;
}

function route() {
  if (!caller) return;
  const [name, ...rest] = (location.hash.replace(/^#/, "") || "memories").split("/");
  const view = VIEWS[name] || memories;
  const current = VIEWS[name] ? name : "memories";
  for (const link of nav.querySelectorAll("a")) {
    if (link.dataset.view === current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (!keepStatus) say("", "info");
  keepStatus = false;
  const section = h("section", { class: "view", "aria-labelledby": `${current}-title` });
  clear(main).append(section);
  view.render(section, context, rest.map(decodeURIComponent)).catch((error) => context.fail(error));
}

login.addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("api-key");
  const key = input.value.trim();
  input.value = "";
  if (!key) {
    say("Enter an API key.");
    return;
  }
  if (await signIn(key)) {
    route();
    main.focus();
  }
});
document.getElementById("sign-out").addEventListener("click", () => signOut());
window.addEventListener("hashchange", route);
window.addEventListener("lore-error", (event) => context.fail(event.detail));

(async () => {
  const key = storedKey();
  if (key && (await signIn(key))) route();
})();
