// Episodes (a conversation's summary, topics, outcomes) and the open threads of recent ones;
// closing a thread needs memories:write.
import { get, id, post } from "./api.js";
import { clear, enumText, field, h, meta, num, when } from "./dom.js";
import { pager, scopeFields, STALE, title } from "./common.js";

const PAGE_SIZE = 10;

function episodeCard(episode) {
  const threads = episode.openThreads || [];
  return h(
    "li",
    { class: "card episode" },
    h("p", { class: "text" }, episode.summary || "(no summary)"),
    meta([
      ["topics", (episode.keyTopics || []).join(", ")],
      ["people and things", (episode.entitiesDiscussed || []).join(", ")],
      ["messages", String(episode.messageCount || 0)],
      ["salience", num(episode.currentSalience)],
      ["importance", num(episode.importance)],
      ["ended", when(episode.endedAt)],
    ]),
    (episode.decisions || []).length ? h("p", null, "Decisions: ", episode.decisions.join("; ")) : "",
    threads.length
      ? h("p", null, "Threads: ", threads.map((thread) => `${thread.topic} (${enumText(thread.status, "THREAD_STATUS_")})`).join("; "))
      : "",
  );
}

function threadKey(item) {
  return `${item.episodeId}/${item.index}`;
}

// What was typed into the threads' resolution fields, so a list that is drawn again (a later load
// landing while someone types) keeps it.
function typedResolutions(list) {
  const inputs = [...list.querySelectorAll("input[name=resolution]")].filter((input) => input.value);
  return new Map(inputs.map((input) => [input.dataset.thread, input.value]));
}

function threadCard(item, ctx, reload, typed) {
  const thread = item.thread || {};
  const card = h(
    "li",
    { class: "card thread" },
    h("p", { class: "text" }, thread.topic),
    meta([
      ["context", thread.context],
      ["status", enumText(thread.status, "THREAD_STATUS_")],
      ["episode ended", when(item.endedAt)],
      ["conversation", item.conversationId],
    ]),
  );
  if (ctx.can("memories:write")) {
    const resolution = h("input", { name: "resolution", type: "text", autocomplete: "off" });
    resolution.dataset.thread = threadKey(item);
    resolution.value = typed.get(threadKey(item)) || "";
    const form = h("form", { class: "bar", "aria-label": `Close thread ${thread.topic}` }, field("How it was resolved (optional)", resolution), h("button", { type: "submit" }, "Close thread"));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await post(`/v1/open-threads/${id(item.episodeId)}/${id(String(item.index))}:resolve`, { resolution: resolution.value.trim() });
        ctx.say("The thread was closed.", "info");
        await reload();
      } catch (error) {
        ctx.fail(error);
      }
    });
    card.append(form);
  }
  return card;
}

export async function render(root, ctx) {
  const scope = scopeFields(ctx);
  const params = () => Object.fromEntries(Object.entries(scope.read()).map(([k, v]) => [`scope.${k}`, v]));
  const episodes = h("ul", { class: "cards", "aria-label": "Episodes" });
  const threads = h("ul", { class: "cards", "aria-label": "Open threads" });
  const episodePages = pager(async (token, fresh) => {
    const answer = await get("/v1/episodes", { ...params(), pageSize: PAGE_SIZE, pageToken: token });
    if (!fresh()) return STALE;
    clear(episodes).append(...(answer.episodes || []).map(episodeCard));
    if (!(answer.episodes || []).length) episodes.append(h("li", { class: "muted" }, "No episodes."));
    return answer.nextPageToken || "";
  });
  const threadPages = pager(async (token, fresh) => {
    const answer = await get("/v1/open-threads", { ...params(), pageSize: PAGE_SIZE, pageToken: token });
    if (!fresh()) return STALE;
    const typed = typedResolutions(threads);
    clear(threads).append(...(answer.threads || []).map((item) => threadCard(item, ctx, () => threadPages.start(), typed)));
    if (!(answer.threads || []).length) threads.append(h("li", { class: "muted" }, "No open threads."));
    return answer.nextPageToken || "";
  });
  const form = h("form", { class: "bar", "aria-label": "Scope" }, scope.fields, h("button", { type: "submit" }, "Show"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    Promise.all([episodePages.start(), threadPages.start()]).catch((error) => ctx.fail(error));
  });
  root.append(
    title("episodes-title", "Episodes and open threads"),
    form,
    h("h3", null, "Open threads"),
    threads,
    threadPages.element,
    h("h3", null, "Episodes"),
    episodes,
    episodePages.element,
  );
  await Promise.all([episodePages.start(), threadPages.start()]);
}
