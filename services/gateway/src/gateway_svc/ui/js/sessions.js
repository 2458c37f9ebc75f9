// Sessions: the transcript, and for each user turn the context ProcessTurn assembled with its
// manifest — every candidate kept or dropped and why, its score components and section, tokens
// per section against the budget — or why there is none (expired past the turn-result retention).
import { get, id } from "./api.js";
import { bar, clear, enumText, h, meta, num, select, when, field } from "./dom.js";
import { pager, scopeFields, STALE, title } from "./common.js";

const PAGE_SIZE = 20;
const TURNS_PAGE_SIZE = 50;

function sessionRow(session) {
  const scope = session.scope || {};
  return h(
    "li",
    { class: "card session" },
    h("p", { class: "text" }, h("a", { href: `#sessions/${encodeURIComponent(session.id)}` }, `Session ${session.id}`)),
    meta([
      ["status", enumText(session.status, "SESSION_STATUS_")],
      ["turns", String(session.turnCount || 0)],
      ["reflected", String(session.reflectedTurns || 0)],
      ["user", scope.userId],
      ["agent", scope.agentId],
      ["started", when(session.startedAt)],
      ["last active", when(session.lastActiveAt)],
    ]),
  );
}

function sectionsTable(context) {
  return h(
    "table",
    { "aria-label": "Tokens per section" },
    h("thead", null, h("tr", null, ["Section", "Items", "Tokens", "Budget", "Share of budget"].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      null,
      (context.sections || []).map((section) => {
        const [label, meter, value] = bar(`${section.title || enumText(section.kind, "SECTION_KIND_")} tokens`, section.tokens || 0, section.budgetTokens || 1);
        label.className = "muted";
        value.textContent = `${section.tokens || 0} / ${section.budgetTokens || 0}`;
        return h(
          "tr",
          null,
          h("th", { scope: "row" }, section.title || enumText(section.kind, "SECTION_KIND_")),
          h("td", null, String((section.items || []).length)),
          h("td", null, String(section.tokens || 0)),
          h("td", null, String(section.budgetTokens || 0)),
          h("td", null, label, meter, value),
        );
      }),
    ),
  );
}

function manifestTable(context) {
  const texts = new Map();
  for (const section of context.sections || []) for (const item of section.items || []) texts.set(item.id, item.text);
  return h(
    "table",
    { "aria-label": "Manifest", class: "manifest" },
    h(
      "thead",
      null,
      h("tr", null, ["Outcome", "Source", "Candidate", "Section", "Tokens", "Similarity", "Recency", "Importance", "Total", "Why"].map((t) => h("th", { scope: "col" }, t))),
    ),
    h(
      "tbody",
      null,
      (context.manifest || []).map((entry) => {
        const kept = entry.outcome === "MANIFEST_OUTCOME_KEPT";
        const score = entry.score || {};
        const candidate = entry.source === "CANDIDATE_SOURCE_MEMORY" && entry.id
          ? h("a", { href: `#memories/${encodeURIComponent(entry.id)}` }, texts.get(entry.id) || entry.id)
          : entry.source === "CANDIDATE_SOURCE_OBSERVATION" && entry.id
            ? h("a", { href: `#beliefs/${encodeURIComponent(entry.id)}` }, texts.get(entry.id) || entry.id)
            : texts.get(entry.id) || entry.id || "";
        const why = [entry.reason, entry.duplicateOf ? `duplicate of ${entry.duplicateOf}` : "", entry.truncated ? "truncated" : ""].filter(Boolean).join("; ");
        return h(
          "tr",
          { class: "manifest-entry" },
          h("td", { class: kept ? "kept" : "dropped" }, kept ? "kept" : `dropped: ${enumText(entry.outcome, "MANIFEST_OUTCOME_")}`),
          h("td", null, enumText(entry.source, "CANDIDATE_SOURCE_")),
          h("td", { class: "text" }, candidate),
          h("td", null, enumText(entry.section, "SECTION_KIND_")),
          h("td", null, String(entry.tokens || 0)),
          h("td", null, num(score.similarity)),
          h("td", null, num(score.recency)),
          h("td", null, num(score.importance)),
          h("td", null, num(score.total)),
          h("td", { class: "text" }, why),
        );
      }),
    ),
  );
}

async function showContext(holder, sessionId, turn, ctx) {
  clear(holder).append(h("p", { class: "muted" }, "Loading the assembled context…"));
  let answer;
  try {
    answer = await get(`/v1/sessions/${id(sessionId)}/turns/${id(turn.id)}/context`);
  } catch (error) {
    clear(holder);
    ctx.fail(error);
    return;
  }
  clear(holder);
  const state = answer.status || "";
  if (state !== "TURN_CONTEXT_STATUS_AVAILABLE") {
    const expired = state === "TURN_CONTEXT_STATUS_EXPIRED";
    holder.append(
      h(
        "p",
        { class: `notice ${expired ? "expired" : ""}`, role: "status" },
        expired ? "Expired: " : "No context: ",
        answer.message || enumText(answer.reason),
        answer.expiresAt ? ` (retention ended ${when(answer.expiresAt)})` : "",
      ),
    );
    return;
  }
  const context = answer.context || {};
  holder.append(
    meta([
      ["assembled", when(answer.assembledAt)],
      ["kept until", when(answer.expiresAt)],
      ["tokens", `${context.totalTokens || 0} of ${context.budgetTokens || 0}`],
      ["candidates", String((context.manifest || []).length)],
    ]),
    h("h4", null, "Tokens per section against the budget"),
    sectionsTable(context),
    h("h4", null, "Manifest: every candidate, kept or dropped, and why"),
    manifestTable(context),
    (context.consistencyFlags || []).length
      ? h("ul", { "aria-label": "Consistency flags" }, context.consistencyFlags.map((flag) => h("li", null, flag.message)))
      : "",
    h("details", null, h("summary", null, "The context text as the model saw it"), h("pre", { class: "text" }, context.text || "")),
  );
}

function turnRow(sessionId, turn, ctx) {
  const holder = h("div", { class: "detail", hidden: true });
  const row = h(
    "li",
    { class: "card turn", "data-id": turn.id },
    meta([
      ["#", String(turn.sequence)],
      ["role", enumText(turn.role, "TURN_ROLE_")],
      ["speaker", turn.speaker],
      ["at", when(turn.createdAt)],
    ]),
    h("p", { class: "text" }, turn.content),
  );
  if (turn.role === "TURN_ROLE_USER") {
    const button = h("button", { type: "button", class: "secondary", "aria-expanded": "false" }, "Show assembled context");
    button.addEventListener("click", () => {
      const open = holder.hidden;
      holder.hidden = !open;
      button.setAttribute("aria-expanded", String(open));
      if (open) showContext(holder, sessionId, turn, ctx);
    });
    row.append(h("div", { class: "actions" }, button), holder);
  }
  return row;
}

async function renderSession(root, ctx, sessionId) {
  const { session } = await get(`/v1/sessions/${id(sessionId)}`);
  const transcript = h("ol", { class: "cards", "aria-label": "Transcript" });
  const pages = pager(async (token, fresh) => {
    const answer = await get(`/v1/sessions/${id(sessionId)}/turns`, { pageSize: TURNS_PAGE_SIZE, pageToken: token });
    if (!fresh()) return STALE;
    clear(transcript).append(...(answer.turns || []).map((turn) => turnRow(sessionId, turn, ctx)));
    return answer.nextPageToken || "";
  });
  root.append(
    title("sessions-title", "Session transcript"),
    h("p", null, h("a", { href: "#sessions" }, "All sessions")),
    h("ul", { class: "cards", "aria-label": "Session" }, sessionRow(session)),
    transcript,
    pages.element,
  );
  await pages.start();
}

export async function render(root, ctx, [sessionId]) {
  if (sessionId) return renderSession(root, ctx, sessionId);
  const scope = scopeFields(ctx);
  const statusSelect = select("status", [["", "any status"], ["SESSION_STATUS_ACTIVE", "active"], ["SESSION_STATUS_ENDED", "ended"]], "");
  const list = h("ul", { class: "cards", "aria-label": "Sessions" });
  const pages = pager(async (token, fresh) => {
    const answer = await get("/v1/sessions", {
      ...Object.fromEntries(Object.entries(scope.read()).map(([k, v]) => [`scope.${k}`, v])),
      status: statusSelect.value,
      pageSize: PAGE_SIZE,
      pageToken: token,
    });
    if (!fresh()) return STALE;
    clear(list).append(...(answer.sessions || []).map(sessionRow));
    if (!(answer.sessions || []).length) list.append(h("li", { class: "muted" }, "No sessions."));
    return answer.nextPageToken || "";
  });
  const form = h("form", { class: "bar", "aria-label": "Browse sessions" }, scope.fields, field("Status", statusSelect), h("button", { type: "submit" }, "Browse"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    pages.start().catch((error) => ctx.fail(error));
  });
  root.append(title("sessions-title", "Sessions"), form, list, pages.element);
  await pages.start();
}
