// Engagement: the organisation's week, hypotheses with their confidence, unknowns and findings.
// An org-wide route: a key pinned to one user is told so instead of calling it.
import { get } from "./api.js";
import { bar, enumText, h, meta, when } from "./dom.js";
import { title } from "./common.js";

export async function render(root, ctx) {
  root.append(title("engagement-title", "Engagement"));
  if (!ctx.orgWide()) {
    root.append(h("p", { class: "notice" }, "Engagement belongs to the whole organisation: a key pinned to one user cannot read it."));
    return;
  }
  const state = await get("/v1/engagement");
  const hypotheses = state.hypotheses || [];
  root.append(
    meta([["week", String(state.weekNumber || 0)], ["first session", state.firstSession ? "yes" : "no"]]),
    h("h3", null, "Hypotheses"),
    hypotheses.length
      ? h(
          "ul",
          { class: "cards", "aria-label": "Hypotheses" },
          hypotheses.map((hypothesis) =>
            h(
              "li",
              { class: "card" },
              h("p", { class: "text" }, hypothesis.statement),
              h("div", { class: "bars" }, bar("confidence", hypothesis.confidence)),
              meta([
                ["status", enumText(hypothesis.status, "HYPOTHESIS_STATUS_")],
                ["evidence", String((hypothesis.evidence || []).length)],
                ["open contradictions", String(hypothesis.outstandingContradictions || 0)],
                ["updated", when(hypothesis.updatedAt)],
              ]),
              (hypothesis.evidence || []).length
                ? h("ul", null, hypothesis.evidence.map((e) => h("li", null, `${enumText(e.stance, "EVIDENCE_STANCE_")} (${e.weight}): ${e.statement}${e.source ? ` — ${e.source}` : ""}`)))
                : "",
            ),
          ),
        )
      : h("p", { class: "muted" }, "No hypotheses."),
    h("h3", null, "Unknowns"),
    h(
      "ul",
      { "aria-label": "Unknowns" },
      (state.unknowns || []).map((unknown) =>
        h("li", null, unknown.question, unknown.whyItMatters ? ` — ${unknown.whyItMatters}` : "", ` (${enumText(unknown.status, "UNKNOWN_STATUS_")})`, unknown.resolution ? `: ${unknown.resolution}` : ""),
      ),
    ),
    (state.unknowns || []).length ? "" : h("p", { class: "muted" }, "No unknowns."),
    h("h3", null, "Findings"),
    h("ul", { "aria-label": "Findings" }, (state.findings || []).map((finding) => h("li", null, finding.statement, finding.source ? ` — ${finding.source}` : ""))),
    (state.findings || []).length ? "" : h("p", { class: "muted" }, "No findings."),
  );
}
