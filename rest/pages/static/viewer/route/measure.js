// Distances as the viewer writes them: in feet or in metres, one place for both. The API's
// numbers are feet always; the browser's locale picks the unit shown (metres but where
// the United States' customary units are used: US, LR, MM), and a toggle overrides it
// (`units` in the URL: docs/viewer.md, "Steps"). Numbers and the unit's word are the
// page's language's (i18n.js).

import { t } from "../i18n.js";

export const METRES_PER_FOOT = 0.3048; // exact, as the route's sentences use it

const FEET_REGIONS = new Set(["US", "LR", "MM"]);

// The region of a BCP 47 tag, filled in by likely subtags when it has none ("en" is
// "en-Latn-US", "de" is "de-Latn-DE"); null when the browser cannot tell.
function regionOf(tag) {
  try {
    const locale = new Intl.Locale(tag);
    return locale.region || locale.maximize().region || null;
  } catch {
    return null;
  }
}

// "m" or "ft" for a language tag such as navigator.language.
export function unitsOfLocale(tag) {
  const region = regionOf(tag || "");
  return region && !FEET_REGIONS.has(region) ? "m" : "ft";
}

// The units shown: the view's choice, else the browser's.
export function shownUnits(app) {
  return app.view.units || unitsOfLocale(navigator.language);
}

// Halves to the even neighbour, as Python's round() does: the server's sentences round
// so, and a step's own distance then reads as its sentence does.
function wholeHalfEven(value) {
  const floor = Math.floor(value);
  if (value - floor === 0.5) {
    return floor % 2 === 0 ? floor : floor + 1;
  }
  return Math.round(value);
}

// The whole number shown for `feet` in `units`.
export function distanceNumber(feet, units) {
  return wholeHalfEven(units === "m" ? feet * METRES_PER_FOOT : feet);
}

// "1,234 ft" or "376 m" ("1.234 ft" in German, "376 米" in Chinese).
export function formatDistance(feet, units) {
  return t(units === "m" ? "distance.m" : "distance.ft", { number: distanceNumber(feet, units) });
}
