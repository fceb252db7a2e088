// "Nearest restroom / elevator / exit" (issue 47): one button per kind of place this map
// has, each one `route` request with `to: {nearest: {q: <word>}}` from the current From.
// The API picks the place reached first (in the route's mode) and answers the route to it,
// drawn and listed as any route is (route/directions.js). The waypoint is kept as
// `{kind: "nearest", q}` (`to=near:<word>` in the URL), so Wheelchair asks again and may
// choose another place. Which kinds the map has is asked once, when it loads: one request
// of a `search` per word (aliases), since a button that finds nothing would only fail.

import { graphql } from "../api.js";
import { byId, clear, h, show } from "../dom.js";
import { t } from "../i18n.js";
import { restop, rove } from "../roving.js";
import { waypointText } from "../session.js";

// The words asked, in the buttons' order: category words of the API (docs/api.md,
// "Search": "restroom" also finds toilets and WCs, "elevator" lifts, "trash" waste rooms),
// asked in English whatever the page's language. Each has its button's word and its
// name ("Nearest mail room") in the tables: `nearest.<q>.button`, `nearest.<q>.name`.
export const KINDS = [
  { q: "restroom" },
  { q: "elevator" },
  { q: "exit" },
  { q: "entrance" },
  { q: "information" },
  { q: "food" },
  { q: "parking" },
  { q: "gym" },
  { q: "mail" },
  { q: "trash" },
];

const BUTTON = "button[data-nearest]";
const PROBED = 10; // results looked at per word: typos of other names may come first
// A score over 0.6 is a match of the whole name or of a word's beginning (each tier has
// its score, less up to a quarter: 1, 0.8, 0.7 for a kind's word, 0.6 and 0.55 for typos
// of a whole name and of words, 0.4 for a kind met otherwise); the nearest goes to those
// and to the kind's places (matched "category"), never to a typo when they exist.
const NAMED_OVER = 0.6;

function kindsQuery() {
  const texts = KINDS.map((_, i) => `$q${i}: String!`).join(", ");
  const fields = KINDS.map(
    (_, i) => `k${i}: search(q: $q${i}, unitMapId: $map, perPage: ${PROBED}) { data { score matched } }`,
  );
  return `query ViewerNearestKinds($map: ID!, ${texts}) {\n  ${fields.join("\n  ")}\n}`;
}

// Whether a search's results hold a place the word names or is the category of (a typo
// of another name alone does not make a kind of place).
function hasKind(page) {
  return page.data.some((found) => found.score > NAMED_OVER || found.matched === "category");
}

// "Nearest mail room" for the word `q` (a link may name one of no button: "Nearest cafe").
export function nearestLabel(q) {
  return KINDS.some((kind) => kind.q === q) ? t(`nearest.${q}.name`) : t("nearest.other.name", { q });
}

// What the To line says: "Nearest mail room" until the answer names the place it chose,
// then "Mail Room (nearest)" (the line is narrow; the pressed button says which kind).
export function nearestName(app, waypoint) {
  const chosen = chosenFor(app);
  return chosen ? t("nearest.chosen", { name: chosen.name || chosen.id }) : nearestLabel(waypoint.q);
}

function tripOf(app) {
  return [waypointText(app.view.from), waypointText(app.view.to), app.view.mode].join(" ");
}

// The place the last answer chose (its `to`: id, name, x, y, floorId), for this very
// trip only: another From or mode may choose another place.
export function keepChosen(app, to) {
  app.nearestChosen = to && to.id ? { trip: tripOf(app), place: to } : null;
}

function chosenFor(app) {
  const kept = app.nearestChosen;
  return kept && kept.trip === tripOf(app) ? kept.place : null;
}

// A waypoint that can be a route's start: the place chosen for "the nearest" (Swap), else
// the waypoint itself; null when the nearest is not chosen yet.
export function placeOf(app, waypoint) {
  if (!waypoint || waypoint.kind !== "nearest") {
    return waypoint;
  }
  const chosen = chosenFor(app);
  return chosen ? { kind: "location", id: chosen.id } : null;
}

// The buttons follow the waypoints: usable once From is set, pressed for the To asked.
export function markNearest(app) {
  const row = byId("nearest");
  const from = app.view.from;
  const ready = Boolean(from) && from.kind !== "nearest";
  const to = app.view.to;
  for (const button of row.querySelectorAll(BUTTON)) {
    button.disabled = !ready;
    const pressed = Boolean(to) && to.kind === "nearest" && to.q === button.dataset.nearest;
    button.setAttribute("aria-pressed", String(pressed));
  }
  show(byId("nearest-hint"), !ready);
  row.dataset.ready = String(ready);
}

// Ask which kinds this map has and show their buttons (the row stays hidden with none,
// or when the key may not search).
export async function loadNearest(app) {
  const row = byId("nearest");
  const buttons = clear(byId("nearest-buttons"));
  row.dataset.state = "loading";
  let found;
  try {
    const variables = { map: app.mapId };
    KINDS.forEach((kind, i) => {
      variables[`q${i}`] = kind.q;
    });
    const data = await graphql(app.key, kindsQuery(), variables);
    found = KINDS.filter((_, i) => hasKind(data[`k${i}`]));
  } catch {
    row.dataset.state = "error";
    show(row, false);
    return;
  }
  for (const kind of found) {
    const button = h("button", { type: "button", class: "small", "data-nearest": kind.q,
      "aria-label": nearestLabel(kind.q), "aria-describedby": "nearest-hint",
      "aria-pressed": "false" }, t(`nearest.${kind.q}.button`)); // prettier-ignore
    button.addEventListener("click", () => app.setWaypoint("to", { kind: "nearest", q: kind.q }));
    buttons.append(button);
  }
  if (!buttons.dataset.roving) {
    buttons.dataset.roving = "yes"; // one tab stop, arrows between the kinds
    rove(buttons, BUTTON);
  }
  restop(buttons, BUTTON);
  row.dataset.kinds = found.map((kind) => kind.q).join(" ");
  row.dataset.state = found.length ? "ready" : "none";
  show(row, found.length > 0);
  markNearest(app);
}
