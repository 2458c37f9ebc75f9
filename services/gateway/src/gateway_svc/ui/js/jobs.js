// Jobs: the agent's background queue by kind (queued, running, retrying, dead), the jobs of a kind
// and state one page at a time, and retrying the dead ones (admin).
import { get, post } from "./api.js";
import { clear, enumText, field, h, num, select, when } from "./dom.js";
import { pager, STALE, title } from "./common.js";

const PAGE_SIZE = 25;
const STATES = ["queued", "running", "retrying", "dead"];

export async function render(root, ctx) {
  root.append(title("jobs-title", "Jobs"));
  if (!ctx.can("admin") || !ctx.orgWide()) {
    root.append(h("p", { class: "notice" }, "The job queue needs an org-wide key with the admin scope."));
    return;
  }
  const stats = await get("/v1/admin/jobs");
  const kinds = stats.kinds || [];
  const table = h(
    "table",
    { "aria-label": "Jobs by kind" },
    h("thead", null, h("tr", null, ["Kind", ...STATES, "Oldest queued (s)", ""].map((t) => h("th", { scope: "col" }, t)))),
    h(
      "tbody",
      null,
      kinds.map((kind) => {
        const retry = h("button", { type: "button", disabled: !kind.dead }, `Retry dead ${kind.kind} jobs`);
        retry.addEventListener("click", async () => {
          try {
            const answer = await post("/v1/admin/jobs:retry", { kinds: [kind.kind] });
            ctx.say(`Queued again: ${answer.requeued || 0}; left dead (already waiting): ${answer.skipped || 0}.`, "info");
          } catch (error) {
            ctx.fail(error);
          }
        });
        return h(
          "tr",
          null,
          h("th", { scope: "row" }, kind.kind),
          STATES.map((state) => h("td", null, String(kind[state] || 0))),
          h("td", null, num(kind.oldestQueuedSeconds, 1)),
          h("td", null, retry),
        );
      }),
    ),
  );
  const kindSelect = select("kind", [["", "every kind"], ...["reflect", "episode", "erase"].map((k) => [k, k])], "");
  const stateSelect = select("state", [["", "every state"], ...STATES.map((s) => [s, s])], "");
  const list = h("tbody");
  const pages = pager(async (token, fresh) => {
    const answer = await get("/v1/admin/jobs:list", { kind: kindSelect.value, state: stateSelect.value, pageSize: PAGE_SIZE, pageToken: token });
    if (!fresh()) return STALE;
    clear(list).append(
      ...(answer.jobs || []).map((job) =>
        h(
          "tr",
          null,
          h("td", null, job.kind),
          h("td", null, enumText(job.state)),
          h("td", null, String(job.attempts || 0)),
          h("td", { class: "text" }, job.lastError || ""),
          h("td", null, job.sessionId ? h("a", { href: `#sessions/${encodeURIComponent(job.sessionId)}` }, job.sessionId) : job.erasureId || ""),
          h("td", null, when(job.createdAt)),
          h("td", null, when(job.updatedAt)),
        ),
      ),
    );
    if (!(answer.jobs || []).length) list.append(h("tr", null, h("td", { colspan: 7, class: "muted" }, "No jobs.")));
    return answer.nextPageToken || "";
  });
  const form = h("form", { class: "bar", "aria-label": "Jobs of a kind" }, field("Kind", kindSelect), field("State", stateSelect), h("button", { type: "submit" }, "List jobs"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    pages.start().catch((error) => ctx.fail(error));
  });
  root.append(
    table,
    h("h3", null, "Jobs of a kind"),
    form,
    h("table", { "aria-label": "Jobs" }, h("thead", null, h("tr", null, ["Kind", "State", "Attempts", "Last error", "Serves", "Created", "Updated"].map((t) => h("th", { scope: "col" }, t)))), list),
    pages.element,
  );
  await pages.start().catch((error) => ctx.fail(error));
}
