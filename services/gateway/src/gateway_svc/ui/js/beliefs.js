// Beliefs (observations): active and past, confidence with its six components as bars, freshness,
// evidence with stance and weight linked to its sources, the supersession chain as a timeline;
// confirm and contradict when the key holds observations:write.
import { get, id, post } from "./api.js";
import { bar, clear, enumText, field, h, meta, num, select, when } from "./dom.js";
import { pager, STALE, title } from "./common.js";

const PAGE_SIZE = 20;
const STATUSES = ["ACTIVE", "STALE", "SUPERSEDED", "INVALIDATED"];
const COMPONENTS = [
  ["sourceCount", "sources", 5],
  ["sourceDiversity", "source diversity", 1],
  ["supportWeight", "support weight", 1],
  ["contradictionWeight", "contradiction weight", 1],
  ["recencyWeight", "recency weight", 1],
  ["operatorConfirmedBoost", "operator confirmation", 1],
];

function sourceLink(evidence) {
  const sourceId = evidence.sourceId || "";
  if (evidence.sourceType === "SOURCE_TYPE_MEMORY_ITEM" && sourceId) {
    return h("a", { href: `#memories/${encodeURIComponent(sourceId)}` }, `memory ${sourceId}`);
  }
  return `${enumText(evidence.sourceType, "SOURCE_TYPE_")} ${sourceId}`.trim();
}

function beliefRow(observation) {
  const link = h("a", { href: `#beliefs/${encodeURIComponent(observation.id)}` }, observation.summary || observation.id);
  return h(
    "li",
    { class: "card belief" },
    h("p", { class: "text" }, link),
    meta([
      ["status", enumText(observation.status, "OBSERVATION_STATUS_")],
      ["kind", enumText(observation.kind, "OBSERVATION_KIND_")],
      ["subject", `${enumText(observation.subjectType, "SUBJECT_TYPE_")} ${observation.subjectId || ""}`.trim()],
      ["confidence", num(observation.confidence)],
      ["freshness", num(observation.freshness)],
      ["updated", when(observation.updatedAt)],
    ]),
  );
}

async function renderBelief(root, ctx, beliefId) {
  const [{ observation }, history] = await Promise.all([
    get(`/v1/observations/${id(beliefId)}`),
    get(`/v1/observations/${id(beliefId)}/history`),
  ]);
  const components = observation.confidenceComponents || {};
  const evidenceRows = (observation.evidence || []).map((evidence) =>
    h(
      "tr",
      null,
      h("td", null, enumText(evidence.stance, "EVIDENCE_STANCE_")),
      h("td", null, num(evidence.weight)),
      h("td", null, sourceLink(evidence)),
      h("td", { class: "text" }, evidence.excerpt || ""),
      h("td", null, evidence.operatorConfirmed ? "yes" : "no"),
      h("td", null, when(evidence.observedAt)),
    ),
  );
  const chain = (history.observations || []).map((step) =>
    h(
      "li",
      { class: step.status === "OBSERVATION_STATUS_ACTIVE" ? "" : "past" },
      step.id === observation.id ? h("strong", null, step.summary) : h("a", { href: `#beliefs/${encodeURIComponent(step.id)}` }, step.summary),
      meta([
        ["status", enumText(step.status, "OBSERVATION_STATUS_")],
        ["confidence", num(step.confidence)],
        ["since", when(step.createdAt)],
        ["supersedes", step.supersedesObservationId],
      ]),
    ),
  );
  root.append(
    title("beliefs-title", "Belief"),
    h("p", null, h("a", { href: "#beliefs" }, "All beliefs")),
    h("p", { class: "text" }, h("strong", null, observation.summary)),
    observation.detail ? h("p", { class: "text" }, observation.detail) : "",
    meta([
      ["status", enumText(observation.status, "OBSERVATION_STATUS_")],
      ["kind", enumText(observation.kind, "OBSERVATION_KIND_")],
      ["subject", `${enumText(observation.subjectType, "SUBJECT_TYPE_")} ${observation.subjectId || ""}`.trim()],
      ["slot", observation.slot],
      ["agent", observation.agentId],
      ["tags", (observation.tags || []).join(", ")],
      ["last supported", when(observation.lastSupportedAt)],
      ["revalidation due", when(observation.revalidationDueAt)],
    ]),
    h("h3", null, "Confidence"),
    h(
      "div",
      { class: "bars", "aria-label": "Confidence and its components" },
      bar("confidence", observation.confidence),
      bar("freshness", observation.freshness),
      COMPONENTS.map(([key, label, max]) => bar(label, components[key] || 0, max)),
    ),
    h("h3", null, "Evidence"),
    evidenceRows.length
      ? h(
          "table",
          { "aria-label": "Evidence" },
          h("thead", null, h("tr", null, ["Stance", "Weight", "Source", "Excerpt", "Operator", "Observed"].map((text) => h("th", { scope: "col" }, text)))),
          h("tbody", null, evidenceRows),
        )
      : h("p", { class: "muted" }, "No evidence recorded."),
    h("h3", null, "History (newest first)"),
    h("ol", { class: "timeline", "aria-label": "Supersession history" }, chain),
  );
  if (ctx.can("observations:write")) root.append(actions(observation, ctx));
}

function actions(observation, ctx) {
  const note = h("input", { name: "note", type: "text", autocomplete: "off" });
  const confirm = h("form", { class: "bar", "aria-label": "Confirm belief" }, field("Note (optional)", note), h("button", { type: "submit" }, "Confirm"));
  confirm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await post(`/v1/observations/${id(observation.id)}:confirm`, { note: note.value.trim() });
      ctx.say("Confirmed.", "info");
      ctx.go(`#beliefs/${encodeURIComponent(observation.id)}`);
    } catch (error) {
      ctx.fail(error);
    }
  });
  const correction = h("input", { name: "correction", type: "text", autocomplete: "off" });
  const contradict = h("form", { class: "bar", "aria-label": "Contradict belief" }, field("Correction", correction), h("button", { type: "submit", class: "danger" }, "Contradict"));
  contradict.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const answer = await post(`/v1/observations/${id(observation.id)}:contradict`, {
        evidence: { stance: "EVIDENCE_STANCE_CONTRADICT", sourceType: "SOURCE_TYPE_ENTITY", sourceId: `operator:${ctx.caller.principal}`, excerpt: correction.value.trim() },
        correction: correction.value.trim(),
      });
      ctx.say(`Recorded: ${enumText(answer.outcome, "OBSERVE_OUTCOME_")}.`, "info");
      ctx.go(`#beliefs/${encodeURIComponent(answer.observation.id)}`);
    } catch (error) {
      ctx.fail(error);
    }
  });
  return h("div", null, h("h3", null, "Act on it"), confirm, contradict);
}

export async function render(root, ctx, [beliefId]) {
  if (beliefId) return renderBelief(root, ctx, beliefId);
  const list = h("ul", { class: "cards", "aria-label": "Beliefs" });
  const show = (observations) => {
    clear(list).append(...observations.map(beliefRow));
    if (!observations.length) list.append(h("li", { class: "muted" }, "No beliefs."));
  };
  const userInput = h("input", { name: "userId", type: "text", value: ctx.scope.userId, autocomplete: "off" });
  if (ctx.caller?.userId) userInput.readOnly = true;
  const agentInput = h("input", { name: "agentId", type: "text", value: ctx.scope.agentId, autocomplete: "off" });
  const statusSelect = select("status", [["", "any status"], ...STATUSES.map((s) => [`OBSERVATION_STATUS_${s}`, enumText(s)])], "");
  const filters = h("form", { class: "bar", "aria-label": "Browse beliefs" }, field("User id", userInput), field("Agent id", agentInput), field("Status", statusSelect), h("button", { type: "submit" }, "Browse"));
  const queryInput = h("input", { name: "query", type: "search", autocomplete: "off" });
  const search = h("form", { class: "bar", role: "search", "aria-label": "Search beliefs" }, field("Search beliefs by meaning", queryInput), h("button", { type: "submit" }, "Search"));
  const pages = pager(async (token, fresh) => {
    const answer = await get("/v1/observations", {
      userId: userInput.value.trim(),
      agentId: agentInput.value.trim(),
      status: statusSelect.value,
      pageSize: PAGE_SIZE,
      pageToken: token,
    });
    if (!fresh()) return STALE;
    show(answer.observations || []);
    return answer.nextPageToken || "";
  });
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    pages.element.hidden = false;
    pages.start().catch((error) => ctx.fail(error));
  });
  search.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const answer = await post("/v1/observations:search", {
        query: queryInput.value.trim(),
        userId: userInput.value.trim(),
        agentId: agentInput.value.trim(),
        statuses: STATUSES.map((s) => `OBSERVATION_STATUS_${s}`),
        k: PAGE_SIZE,
      });
      pages.element.hidden = true;
      show((answer.results || []).map((result) => result.observation));
    } catch (error) {
      ctx.fail(error);
    }
  });
  root.append(title("beliefs-title", "Beliefs"), search, filters, list, pages.element);
  await pages.start();
}
