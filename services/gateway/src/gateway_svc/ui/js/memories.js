// Memories: search by meaning within a scope, browse by type and status (keyset pages), and each
// memory's salience with the curve of how it will decay, importance, access count, provenance;
// edit and forget when the key holds memories:write.
import { del, get, id, patch, post } from "./api.js";
import { bar, clear, enumText, field, h, meta, num, select, svg, when } from "./dom.js";
import { confirmButton, pager, scopeFields, STALE, title } from "./common.js";

const TYPES = ["FACT", "PREFERENCE", "SKILL", "INSIGHT", "COMMITMENT", "OPINION", "DECISION", "MESSAGE",
  "TOOL_INTERACTION", "SESSION_SUMMARY", "DAILY_DIGEST"];
const STATUSES = ["ACTIVE", "WARM", "CONSOLIDATED", "ARCHIVED", "SUPERSEDED"];
const PAGE_SIZE = 20;
// memory_svc/domain/salience.py: salience = max(0.01, (1 + 0.1·accesses)·0.5^(days since last access / half-life)).
// The memory says its type's half-life as this deployment decays it (halfLifeDays); 30 days otherwise.
const DEFAULT_HALF_LIFE_DAYS = 30;
const FLOOR = 0.01;

export function decayCurve(memory, days = 90) {
  const accesses = Number(memory.accessCount) || 0;
  const halfLife = Number(memory.halfLifeDays) || DEFAULT_HALF_LIFE_DAYS;
  const last = Date.parse(memory.lastAccessedAt || memory.createdAt || "") || Date.now();
  const since = Math.max(0, (Date.now() - last) / 86_400_000);
  const at = (t) => Math.max(FLOOR, (1 + 0.1 * accesses) * 0.5 ** ((since + t) / halfLife));
  const top = Math.max(1, at(0)); // use lifts salience above 1
  const width = 240;
  const height = 80;
  const points = [];
  for (let t = 0; t <= days; t += 3) points.push(`${(20 + (t / days) * (width - 30)).toFixed(1)},${(10 + (1 - at(t) / top) * (height - 30)).toFixed(1)}`);
  const label = `Salience from today over the next ${days} days: ${num(at(0))} now, ${num(at(30))} in 30 days, ${num(at(days))} in ${days} days (half-life ${num(halfLife, 0)} days)`;
  return svg(
    "svg",
    { class: "curve", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label },
    svg("title", null, label),
    svg("line", { class: "axis", x1: 20, y1: 10, x2: 20, y2: height - 20 }),
    svg("line", { class: "axis", x1: 20, y1: height - 20, x2: width - 10, y2: height - 20 }),
    svg("polyline", { class: "line", points: points.join(" ") }),
    svg("text", { x: 0, y: 14 }, num(top, 1)),
    svg("text", { x: 0, y: height - 20 }, "0"),
    svg("text", { x: 20, y: height - 6 }, "today"),
    svg("text", { x: width - 50, y: height - 6 }, `+${days} d`),
  );
}

function provenance(memory) {
  const source = memory.provenance || {};
  const sessionLink = source.sessionId
    ? h("a", { href: `#sessions/${encodeURIComponent(source.sessionId)}` }, source.sessionId)
    : "";
  return meta([
    ["source", enumText(source.source, "PROVENANCE_SOURCE_")],
    ["session", sessionLink],
    ["speaker", source.speaker],
    ["turns", (source.turnIds || []).join(", ")],
    ["consolidated into", source.consolidatedInto],
    ["consolidated from", (source.consolidatedFrom || []).join(", ")],
  ]);
}

// A memory the user asked to forget (in a turn, or through POST /v1/memories:forget) carries what
// forgot it in its metadata: the forgetting turn's id (and its session), or request:<request id>.
function forgottenNote(memory) {
  const said = memory.metadata || {};
  if (!said.forgotten_by) return "";
  const by = said.forgotten_by.startsWith("request:")
    ? `the request ${said.forgotten_by.slice("request:".length) || "(no request id)"}`
    : `turn ${said.forgotten_by}${said.forgotten_session ? ` of session ${said.forgotten_session}` : ""}`;
  return h("p", { class: "forgotten" }, `Forgotten at the user's request ${when(said.forgotten_at)}, by ${by}.`);
}

function memoryCard(memory, ctx, onGone) {
  const card = h("li", { class: "card memory", "data-id": memory.id });
  const body = h("div");
  function paint(current, open = false) {
    const details = h("div", { class: "detail", hidden: true });
    const toggle = h("button", { type: "button", class: "secondary", "aria-expanded": "false" }, "Details");
    toggle.addEventListener("click", () => {
      const open = details.hidden;
      details.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      if (open && !details.childElementCount) fillDetails(details, current);
    });
    const scope = current.scope || {};
    clear(body).append(
      h("p", { class: "text" }, current.content),
      forgottenNote(current),
      meta([
        ["type", enumText(current.memoryType, "MEMORY_TYPE_")],
        ["status", enumText(current.status, "MEMORY_STATUS_")],
        ["salience", num(current.currentSalience)],
        ["importance", num(current.importance)],
        ["accessed", `${current.accessCount || 0} times`],
        ["user", scope.userId],
        ["agent", scope.agentId],
        ["created", when(current.createdAt)],
      ]),
      h("div", { class: "actions" }, toggle),
      details,
    );
    if (open) toggle.click(); // after an edit, the details stay open
  }
  function fillDetails(details, current) {
    details.append(
      h("h3", null, "Salience and decay"),
      h(
        "div",
        { class: "bars" },
        bar("salience", current.currentSalience, Math.max(1, current.currentSalience || 0)),
        bar("importance", current.importance),
      ),
      decayCurve(current),
      h("h3", null, "Provenance"),
      provenance(current),
      meta([
        ["id", current.id],
        ["entities", (current.entities || []).join(", ")],
        ["metadata", Object.entries(current.metadata || {}).map(([k, v]) => `${k}=${v}`).join(", ")],
        ["valid at", when(current.validAt)],
        ["last accessed", when(current.lastAccessedAt)],
        ["updated", when(current.updatedAt)],
      ]),
    );
    if (ctx.can("memories:write")) details.append(editForm(current));
  }
  function editForm(current) {
    const content = h("textarea", { name: "content" });
    content.value = current.content;
    const importance = h("input", { name: "importance", type: "number", min: 0, max: 1, step: 0.05, value: current.importance ?? 0 });
    const save = h("button", { type: "submit" }, "Save changes");
    const form = h(
      "form",
      { class: "bar", "aria-label": "Edit memory" },
      field("Content", content),
      field("Importance (0 to 1)", importance),
      save,
      confirmButton("Forget", "Forget this memory?", async () => {
        await del(`/v1/memories/${id(current.id)}`);
        ctx.say("The memory was forgotten (archived).", "info");
        onGone(card);
      }, ctx),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      save.disabled = true;
      try {
        const answer = await patch(`/v1/memories/${id(current.id)}`, {
          memory: { content: content.value, importance: Number(importance.value) },
          updateMask: "content,importance",
        });
        ctx.say("Saved.", "info");
        paint(answer.memory, true);
      } catch (error) {
        ctx.fail(error);
      } finally {
        save.disabled = false;
      }
    });
    return form;
  }
  paint(memory);
  card.append(body);
  return card;
}

export async function render(root, ctx, [memoryId]) {
  const scope = scopeFields(ctx);
  const list = h("ul", { class: "cards", "aria-label": "Memories" });
  const summary = h("p", { class: "muted", "aria-live": "polite" });
  const gone = (card) => card.remove();
  const show = (memories) => {
    clear(list);
    for (const memory of memories) list.append(memoryCard(memory, ctx, gone));
    if (!memories.length) list.append(h("li", { class: "muted" }, "No memories."));
  };

  const queryInput = h("input", { name: "query", type: "search", autocomplete: "off" });
  const searchForm = h(
    "form",
    { class: "bar", role: "search", "aria-label": "Search memories by meaning" },
    field("Search by meaning", queryInput),
    h("button", { type: "submit" }, "Search"),
  );
  const typeSelect = select("memoryType", [["", "any type"], ...TYPES.map((t) => [`MEMORY_TYPE_${t}`, enumText(t)])], "");
  const statusSelect = select("status", [["", "any status"], ...STATUSES.map((s) => [`MEMORY_STATUS_${s}`, enumText(s)])], "");
  const browseForm = h(
    "form",
    { class: "bar", "aria-label": "Browse memories" },
    field("Type", typeSelect),
    field("Status", statusSelect),
    h("button", { type: "submit" }, "Browse"),
    h("span", { class: "muted" }, "Type and status narrow a search too."),
  );
  const pages = pager(async (token, fresh) => {
    const answer = await get("/v1/memories", {
      ...Object.fromEntries(Object.entries(scope.read()).map(([k, v]) => [`scope.${k}`, v])),
      memoryTypes: typeSelect.value,
      statuses: statusSelect.value,
      pageSize: PAGE_SIZE,
      pageToken: token,
    });
    if (!fresh()) return STALE;
    show(answer.memories || []);
    summary.textContent = `${(answer.memories || []).length} memories on this page (${PAGE_SIZE} per page).`;
    return answer.nextPageToken || "";
  });
  pages.element.hidden = true;

  searchForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = queryInput.value.trim();
    if (!text) {
      ctx.say("Enter what to search for.");
      return;
    }
    try {
      // The type and status chosen for browsing narrow a search too.
      const answer = await post("/v1/memories:search", {
        query: text,
        scope: scope.read(),
        k: PAGE_SIZE,
        memoryTypes: typeSelect.value ? [typeSelect.value] : [],
        statuses: statusSelect.value ? [statusSelect.value] : [],
      });
      const results = answer.results || [];
      pages.element.hidden = true;
      show(results.map((result) => result.memory));
      summary.textContent = `${results.length} memories closest in meaning to “${text}”.`;
    } catch (error) {
      ctx.fail(error);
    }
  });
  browseForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    pages.element.hidden = false;
    await pages.start().catch((error) => ctx.fail(error));
  });

  root.append(
    title("memories-title", "Memories"),
    h("form", { class: "bar", "aria-label": "Scope" }, scope.fields),
    searchForm,
    browseForm,
    summary,
    list,
    pages.element,
  );
  if (memoryId) {
    const answer = await get(`/v1/memories/${id(memoryId)}`);
    show([answer.memory]);
    summary.textContent = "One memory, opened by its id.";
    list.querySelector("button")?.click();
  } else {
    pages.element.hidden = false;
    await pages.start();
  }
}
