// One small picture per maneuver of a route (issue 33's vocabulary): depart, arrive, a turn
// by its modifier, a connector by its kind. Which icon a type or a modifier has is
// vocabulary.json's, written from the table of words (routing/vocabulary.py, `make
// generate`); this module draws each icon by its name. Drawn with SVG elements (no image
// files, no inline style: the page's CSP), 24 units square, in the text's colour
// (viewer.css).

import { s } from "../dom.js";
import VOCABULARY from "./vocabulary.json" with { type: "json" };

// Arrows drawn turning right, walking up from the bottom; left ones are their mirror.
const ARROWS = {
  straight: [[12, 21], [12, 4]],
  slight: [[9, 21], [9, 13], [17, 5]],
  plain: [[7, 21], [7, 11], [19, 11]],
  sharp: [[8, 21], [8, 5], [18, 15]],
}; // prettier-ignore

const HEAD = 5; // arrowhead length

function mirrored(points) {
  return points.map(([x, y]) => [24 - x, y]);
}

function pointsText(points) {
  return points.map(([x, y]) => `${x},${y}`).join(" ");
}

// A polyline ending in a filled head along its last segment.
function arrow(points) {
  const [ax, ay] = points[points.length - 2];
  const [bx, by] = points[points.length - 1];
  const length = Math.hypot(bx - ax, by - ay);
  const [ux, uy] = [(bx - ax) / length, (by - ay) / length];
  const base = [bx - ux * HEAD, by - uy * HEAD];
  const head = [
    [bx, by],
    [base[0] - uy * HEAD * 0.7, base[1] + ux * HEAD * 0.7],
    [base[0] + uy * HEAD * 0.7, base[1] - ux * HEAD * 0.7],
  ];
  const shaft = [...points.slice(0, -1), base];
  return [
    s("polyline", { points: pointsText(shaft) }),
    s("polygon", { class: "head", points: pointsText(head) }),
  ];
}

function uturn() {
  // Up, round to the left and back down (the walker turns about).
  const path = s("path", { d: "M16 21 V10 a4 4 0 0 0 -8 0 V14" });
  const head = s("polygon", { class: "head", points: "4.5,13 11.5,13 8,19" });
  return [path, head];
}

function elevator() {
  return [
    s("rect", { x: "5", y: "3", width: "14", height: "18", rx: "2" }),
    s("polygon", { class: "head", points: "12,6 15,10 9,10" }),
    s("polygon", { class: "head", points: "12,18 15,14 9,14" }),
  ];
}

function departIcon() {
  return [
    s("circle", { cx: "12", cy: "12", r: "8" }),
    s("circle", { class: "head", cx: "12", cy: "12", r: "3.5" }),
  ];
}

function arriveIcon() {
  // A flag on a pole.
  return [
    s("line", { x1: "6", y1: "21", x2: "6", y2: "3" }),
    s("polygon", { class: "head", points: "6,3 19,7.5 6,12" }),
  ];
}

// Every icon by its name: the vocabulary's (tests/routing/test_vocabulary.py checks that
// each is drawn here) and `connector-<kind>` for each kind of connector.
const ICONS = {
  depart: departIcon,
  arrive: arriveIcon,
  "turn-straight": () => arrow(ARROWS.straight),
  "turn-slight-right": () => arrow(ARROWS.slight),
  "turn-right": () => arrow(ARROWS.plain),
  "turn-sharp-right": () => arrow(ARROWS.sharp),
  "turn-slight-left": () => arrow(mirrored(ARROWS.slight)),
  "turn-left": () => arrow(mirrored(ARROWS.plain)),
  "turn-sharp-left": () => arrow(mirrored(ARROWS.sharp)),
  "turn-uturn": uturn,
  "connector-stairs": () => [
    s("polyline", { points: "3,20 8,20 8,15 13,15 13,10 18,10 18,5 22,5" }),
  ],
  "connector-elevator": elevator,
  "connector-escalator": () => [
    s("polyline", { points: "2,20 7,20 17,8 22,8" }),
    s("line", { x1: "9", y1: "17", x2: "9", y2: "20" }),
    s("line", { x1: "13", y1: "12.5", x2: "13", y2: "20" }),
  ],
  "connector-ramp": () => [s("polygon", { points: "3,20 21,20 21,8" })],
  "connector-door": () => [
    s("rect", { x: "6", y: "3", width: "12", height: "18" }),
    s("circle", { class: "head", cx: "15", cy: "12", r: "1.3" }),
  ],
  "connector-other": elevator, // a kind without an icon of its own
};

// `table[key]` when the table has it as its own (never an Object.prototype member).
function own(table, key) {
  return typeof key === "string" && Object.hasOwn(table, key) ? table[key] : undefined;
}

// The icon's name: the vocabulary's for the maneuver's modifier (only a turn has one),
// else its connector's kind's (only a connector has one), else the vocabulary's for its
// type; for an unknown type a turn's without a modifier.
export function iconName(maneuver) {
  const { types, modifiers } = VOCABULARY;
  const kind = maneuver.connector && maneuver.connector.kind;
  const connector = own(ICONS, `connector-${kind}`) ? `connector-${kind}` : undefined;
  return own(modifiers, maneuver.modifier) || connector || own(types, maneuver.type) || types.turn;
}

// The <svg> for a maneuver (decorative: the step's text says the same).
export function maneuverIcon(maneuver) {
  const name = iconName(maneuver);
  const icon = s("svg", { class: "step-icon", viewBox: "0 0 24 24", "aria-hidden": "true",
    focusable: "false", "data-icon": name }); // prettier-ignore
  icon.append(...(own(ICONS, name) || ICONS[VOCABULARY.types.turn])());
  return icon;
}
