// Pieces several views share: the scope form, keyset paging, a two-step confirmation.
import { field, h } from "./dom.js";

// The user / agent / team a view reads. A key pinned to one user has that user filled in, read-only.
export function scopeFields(ctx) {
  const inputs = {};
  const fields = [
    ["userId", "User id"],
    ["agentId", "Agent id"],
    ["teamId", "Team id"],
  ].map(([name, label]) => {
    const input = h("input", { name, type: "text", value: ctx.scope[name], autocomplete: "off" });
    if (name === "userId" && ctx.caller?.userId) input.readOnly = true;
    input.addEventListener("change", () => {
      ctx.scope[name] = input.value.trim();
    });
    inputs[name] = input;
    return field(label, input);
  });
  return { fields, read: () => Object.fromEntries(Object.entries(inputs).map(([name, el]) => [name, el.value.trim()])) };
}

// Keyset paging: one page per request, the server's nextPageToken for the next one, the tokens
// already seen for the previous ones. Nothing is ever loaded whole.
// A failure of a page asked for by a click is reported as the views' other failures (app.js).
export function reportError(error) {
  window.dispatchEvent(new CustomEvent("lore-error", { detail: error }));
}

// Pages of a list: load(token, fresh) asks for one page, renders it and returns the next page's
// token. A load that a newer one (another page, or start() again with other filters) has
// overtaken must render nothing: load checks fresh() after each await, else a slow answer to an
// old question would replace the new one's, and whatever was typed into it.
export const STALE = Symbol("stale");

export function pager(load, fail = reportError) {
  const tokens = [""];
  let index = 0;
  let latest = 0;
  const label = h("span", { "aria-live": "polite" });
  const previous = h("button", { type: "button", class: "secondary" }, "Previous page");
  const next = h("button", { type: "button", class: "secondary" }, "Next page");
  const element = h("div", { class: "pager" }, previous, label, next);
  async function show(at) {
    // No other page is asked for while one loads (a click lands on a disabled button).
    const mine = ++latest;
    const fresh = () => mine === latest;
    previous.disabled = true;
    next.disabled = true;
    let nextToken;
    try {
      nextToken = await load(tokens[at], fresh);
    } catch (error) {
      if (!fresh()) return;
      previous.disabled = index === 0;
      next.disabled = tokens.length <= index + 1;
      throw error;
    }
    if (nextToken === STALE || !fresh()) return;
    index = at;
    if (nextToken && tokens.length === at + 1) tokens.push(nextToken);
    previous.disabled = index === 0;
    next.disabled = !nextToken;
    label.textContent = `Page ${index + 1}`;
  }
  previous.addEventListener("click", () => show(index - 1).catch(fail));
  next.addEventListener("click", () => show(index + 1).catch(fail));
  return {
    element,
    start() {
      tokens.length = 1;
      return show(0);
    },
  };
}

// A destructive action asks once more, in the page (no window.confirm dialog).
export function confirmButton(text, question, action, ctx) {
  const holder = h("span", { class: "confirm" });
  const first = h("button", { type: "button", class: "danger" }, text);
  first.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger" }, `Yes, ${text.toLowerCase()}`);
    const no = h("button", { type: "button", class: "secondary" }, "Cancel");
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      try {
        await action();
      } catch (error) {
        ctx.fail(error);
      }
    });
    no.addEventListener("click", () => {
      holder.replaceChildren(first);
      first.focus();
    });
    holder.replaceChildren(h("span", null, question, " "), yes, " ", no);
    no.focus();
  });
  holder.append(first);
  return holder;
}

export function title(id, text) {
  return h("h2", { id, tabindex: "-1" }, text);
}
