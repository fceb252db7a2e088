"""The viewer in the visitor's language (issue 51, point 5), in headless Chromium against
`floorgate serve` on the demo, made bilingual: a few of its units and floors are imported
again with names in English, Traditional Chinese and German, one unit with an Arabic
name. With the browser in German or in Hong Kong Chinese, or `?lang=de` in the link, the
page's own words are that language's (exact strings), the names of those units and
floors on the map and in the panels too, and every request asks the API in it (`lang=`,
answered in `Content-Language`); no word of the English table is left on the German
page. The tables themselves: six, each with every message and its placeholders."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from rest.pages.viewer import VIEWER_STATIC_DIR, viewer_html
from storage.database import connect
from storage.demo.install import demo_dataset
from storage.imports.importer import import_data
from tests.chromium import CHROMIUM, MISSING
from tests.e2e.viewer.viewer_site import (
    MAP,
    Site,
    demo_site,
    js,
    open_viewer,
    page_events,
    problems,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=MISSING)]

TABLES = VIEWER_STATIC_DIR / "i18n"
LANGUAGES = {"en", "zh-Hant", "zh-Hans", "fr", "de", "es"}
FLOOR_NAMES = {
    "b1-f1": {"en": "Floor 1", "zh-Hant": "一樓", "de": "Etage 1"},
    "b1-f3": {"en": "Floor 3", "zh-Hant": "三樓", "de": "Etage 3"},
}
UNIT_NAMES = {
    "b1-104": {"en": "104", "zh-Hant": "一零四室", "de": "Wohnung 104"},
    "b1-301": {"en": "301", "zh-Hant": "三零一室", "de": "Wohnung 301"},
}
ARABIC_UNIT, ARABIC_NAME = "b1-302", "قاعة 302"  # a plain name: the same in every language
START, END = f"{MAP}:b1-104", f"{MAP}:b1-301"  # Floor 1 to Floor 3
TRIP = f"from=loc%3A{quote(START)}&to=loc%3A{quote(END)}"
READY = "document.getElementById('directions').dataset.state === 'ready'"
LISTED = "document.getElementById('location-list').dataset.state === 'ready'"


def bilingual_dataset() -> tuple[dict[str, Any], dict[str, str]]:
    """The demo's records of those floors and units again, their names as objects of
    languages (and one Arabic name), everything else as the demo has it; and the map
    that draws them, with its drawing (its units' locations are made again from them)."""
    demo = demo_dataset()
    records = demo.data
    floors = [
        {**floor, "name": FLOOR_NAMES[floor["id"]]}
        for floor in records["floors"]
        if floor["id"] in FLOOR_NAMES
    ]
    units = [
        {**unit, "name": UNIT_NAMES.get(unit["id"], ARABIC_NAME)}
        for unit in records["units"]
        if unit["id"] in UNIT_NAMES or unit["id"] == ARABIC_UNIT
    ]
    (drawn,) = [unit_map for unit_map in records["unit_maps"] if unit_map["id"] == MAP]
    unit_map = {key: value for key, value in drawn.items() if key != "svg"}  # given below
    assert len(floors) == 2 and len(units) == 3
    dataset = {"version": 1, "language": "en", "floors": floors, "units": units}
    return {**dataset, "unit_maps": [unit_map]}, {MAP: demo.svgs[drawn["svg"]]}


async def with_bilingual_names(db_server: Any, settings: Any, folder: Path) -> None:
    """The bilingual dataset imported over the demo (`demo_site`'s `then`)."""
    store = connect(db_server.uri, settings)
    try:
        dataset, drawings = bilingual_dataset()
        await import_data(store, dataset, folder, svg_sources=drawings)
    finally:
        await store.close()


demo_key, site = demo_site("viewer-language", with_bilingual_names)


# ---------------------------------------------------------------- helpers


def table(language: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((TABLES / f"{language}.json").read_text("utf-8"))
    return loaded


def forms(message: str | dict[str, str]) -> list[str]:
    """A message's texts: itself, or each of its plural forms."""
    return [message] if isinstance(message, str) else list(message.values())


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def api(site: Site, query: str, lang: str, **variables: Any) -> tuple[dict[str, Any], str]:
    """The API's answer asked in `lang`, and its Content-Language."""
    answer = site.api.post(f"/graphql?lang={lang}", json={"query": query, "variables": variables})
    body = answer.json()
    assert "errors" not in body, body
    return body["data"], answer.headers["content-language"]


def exchanges(site: Site, session: str) -> list[dict[str, Any]]:
    """Every POST of the page: its URL's `lang`, its operation and the answer's
    Content-Language (None while unanswered)."""
    events = page_events(site, session)
    languages = {
        event["params"]["requestId"]: {
            name.lower(): value for name, value in event["params"]["response"]["headers"].items()
        }.get("content-language")
        for event in events
        if event["method"] == "Network.responseReceived"
    }
    found = []
    for event in events:
        request = event["params"].get("request", {}) if "params" in event else {}
        if event["method"] != "Network.requestWillBeSent" or request.get("method") != "POST":
            continue
        operation = re.search(r"(?:query|mutation) (\w+)", request.get("postData", ""))
        found.append(
            {
                "path": urlsplit(request["url"]).path,
                "lang": parse_qs(urlsplit(request["url"]).query).get("lang"),
                "operation": operation.group(1) if operation else None,
                "answered_in": languages.get(event["params"]["requestId"]),
            }
        )
    return found


CONTROLS = """(() => {
  const text = (selector) => document.querySelector(selector).textContent.trim();
  const attribute = (selector, name) => document.querySelector(selector).getAttribute(name);
  return {
    html: [document.documentElement.lang, document.documentElement.dir],
    title: document.title,
    directions: text('#directions-title'),
    swap: text('#swap-route'),
    clear: text('#clear-route'),
    pick: text('#pick-from'),
    stepFree: text('#wheelchair + span'),
    avoidStairs: text('#avoid-stairs + span'),
    avoidEscalators: text('#avoid-escalators + span'),
    fit: [text('#fit'), attribute('#fit', 'aria-label')],
    zoomIn: attribute('#zoom-in', 'aria-label'),
    legend: [text('#legend-title'), text('#legend-group option[value=""]')],
    locations: text('#locations-title'),
    search: [text('#location-search').length, attribute('#location-search', 'placeholder')],
    panel: [text('#unit-panel dt:nth-of-type(1)'), text('#unit-panel dt:nth-of-type(2)'),
      text('#unit-from'), text('#unit-to'), text('#unit-stop')],
    status: text('#status'),
  };
})()"""

NAMES = """(() => {
  const label = (unit) => document.querySelector(`text[data-unit-label="${unit}"]`).textContent;
  return {
    levels: Array.from(document.querySelectorAll('#levels button'), b => b.textContent),
    labels: [label('b1-104'), label('b1-301')],
    unit: [document.getElementById('unit-name').textContent,
      document.getElementById('unit-floor').textContent],
    ends: [document.getElementById('from-name').textContent,
      document.getElementById('to-name').textContent],
    rows: @ENDS@.map(id => (document.querySelector(
      `#location-list li[data-location-id="${id}"] .location-name span`) || {}).textContent),
    summary: document.getElementById('route-summary').textContent,
    steps: Array.from(document.querySelectorAll('#route-steps .step-text'), s => s.textContent),
    legs: Array.from(document.querySelectorAll('#route-legs button'), b => b.textContent),
  };
})()""".replace("@ENDS@", json.dumps([START, END]))

UNITS = "document.querySelectorAll('#map polygon.unit, #map path.unit').length"

ROUTE = """query($from: WaypointInput!, $to: WaypointInput!, $units: String) {
  route(unitMapId: "map-b1", from: $from, to: $to, units: $units) {
    route { distance time maneuvers { instruction } } } }"""


def open_trip(site: Site, language: str | None = None, query: str = "") -> str:
    """The viewer on the trip from 104 to 301, unit 301's panel open, the route and the
    location list shown."""
    session = open_viewer(site, f"?{query}{TRIP}&unit=b1-301", language=language)
    wait_for(site, session, READY)
    wait_for(site, session, LISTED)
    wait_for(site, session, "document.getElementById('unit-panel').dataset.state === 'ready'")
    return session


def expected_names(site: Site, language: str, units: str) -> dict[str, Any]:
    """What the page must name in `language`: the levels, the two units' labels, the
    open panel (301 on Floor 3), the trip's ends and their rows in the location list, the
    steps as the API says them (in `units`, "metric" or "imperial", as the browser's
    region has them)."""
    floors = FLOOR_NAMES
    trip = {"from": {"id": START}, "to": {"id": END}, "units": units}
    answer, said = api(site, ROUTE, language, **trip)
    assert said == language
    return {
        "levels": [
            floors["b1-f1"][language],
            "Floor 2",
            floors["b1-f3"][language],
            "Floor 4",
        ],
        "labels": [UNIT_NAMES["b1-104"][language], UNIT_NAMES["b1-301"][language]],
        "unit": [UNIT_NAMES["b1-301"][language], floors["b1-f3"][language]],
        "ends": [UNIT_NAMES["b1-104"][language], UNIT_NAMES["b1-301"][language]],
        "rows": [UNIT_NAMES["b1-104"][language], UNIT_NAMES["b1-301"][language]],
        "steps": [maneuver["instruction"] for maneuver in answer["route"]["route"]["maneuvers"]],
        "route": answer["route"]["route"],
    }


def metres(feet: float) -> int:
    """The whole metres the viewer shows for `feet` (halves to even, as route/measure.js)."""
    return round(feet * 0.3048)


def check_names(site: Site, session: str, language: str, units: str) -> dict[str, Any]:
    """The names on the map and in the panels are `language`'s; the steps the API's
    sentences in it. The page's names (for further checks)."""
    expected = expected_names(site, language, units)
    names: dict[str, Any] = js(site, session, NAMES)
    fields = ("levels", "labels", "unit", "ends", "rows", "steps")
    assert {field: names[field] for field in fields} == {field: expected[field] for field in fields}
    names["route"] = expected["route"]
    return names


def check_requests(site: Site, session: str, language: str) -> None:
    """Every request of the page went to /graphql with `lang=<language>`, and each
    answer is in it; the route among them."""
    sent = exchanges(site, session)
    assert sent and {item["path"] for item in sent} == {"/graphql"}
    assert all(item["lang"] == [language] for item in sent), sent
    answered = [item for item in sent if item["answered_in"] is not None]
    assert answered and {item["answered_in"] for item in answered} == {language}
    assert "ViewerRoute" in {item["operation"] for item in answered}


# ---------------------------------------------------------------- the tables


def test_six_tables_with_every_message_and_its_placeholders():
    """Each language has every message of the English table (no more), with the same
    placeholders in every form; a plural message has its `other` form."""
    assert {path.stem for path in TABLES.glob("*.json")} == LANGUAGES
    english = table("en")
    assert len(english) > 150
    for language in LANGUAGES:
        words = table(language)
        assert set(words) == set(english), language
        for message_id, message in words.items():
            source = english[message_id]
            assert isinstance(message, str) == isinstance(source, str), (language, message_id)
            if isinstance(message, dict):
                assert "other" in message, (language, message_id)
            wanted = placeholders(forms(source)[-1])
            for text in forms(message):
                assert text.strip(), (language, message_id)
                assert placeholders(text) == wanted, (language, message_id, text)


def test_the_page_names_each_message_it_translates():
    """Every `data-i18n...` id of the page's HTML is a message of the tables."""
    page = viewer_html("map-b1")
    ids = re.findall(r'data-i18n(?:-(?!part)[a-z-]+)?="([^"]+)"', page)
    english = table("en")
    assert len(ids) > 40 and not [one for one in ids if one not in english]
    # the key form's text holds its `<code>`s as the placeholders of its message
    parts = set(re.findall(r'data-i18n-part="([^"]+)"', page))
    assert parts == placeholders(english["key.explain"]) == {"header", "file"}


# ---------------------------------------------------------------- in the browser


def test_a_german_browser_gets_a_german_page(site):
    session = open_trip(site, "de-DE,de,en")
    assert js(site, session, "[navigator.language, navigator.languages]") == [
        "de-DE",
        ["de-DE", "de", "en"],
    ]
    units = js(site, session, UNITS)
    assert js(site, session, CONTROLS) == {
        "html": ["de", "ltr"],
        "title": "Building 1 · floorgate-Kartenansicht",
        "directions": "Route",
        "swap": "Tauschen",
        "clear": "Leeren",
        "pick": "Auf Karte wählen",
        "stepFree": "Stufenlos",
        "avoidStairs": "Treppen meiden",
        "avoidEscalators": "Rolltreppen meiden",
        "fit": ["Einpassen", "An Bildschirm anpassen"],
        "zoomIn": "Vergrößern",
        "legend": ["Einheiten färben nach", "(keine)"],
        "locations": "Orte",
        "search": [0, "Name, Nummer oder Art (restroom)"],
        "panel": ["Etage", "Einheiten-ID", "Route von hier", "Route hierher", "Als Zwischenhalt"],
        "status": f"Building 1: 4 Ebenen, {units} Einheiten.",
    }
    names = check_names(site, session, "de", "metric")
    route = names["route"]
    minutes, seconds = divmod(int(route["time"] + 0.5), 60)
    time = f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    assert names["summary"] == f"{metres(route['distance'])} m · {time} · zu Fuß"
    assert (
        names["legs"][0].startswith("Etage 1: ")
        and ", dann Treppe nach Etage 3" in (names["legs"][0])
    )
    check_requests(site, session, "de")
    assert problems(site, session) == []


def test_no_english_word_is_left_on_the_german_page(site):
    """The visible text of the page's controls (text, labels, placeholders, tooltips), the
    route card, the unit panel and the lists open: none is a message of the English
    table where the German one says it otherwise. (Names from the data, in elements of
    their own direction and the map's labels, may be anything: the demo has a "Pool".)"""
    session = open_trip(site, "de-DE")
    german = table("de")
    patterns = []
    for message_id, message in table("en").items():
        for text in forms(message):
            if text in forms(german[message_id]) or not re.search(
                "[A-Za-z]", re.sub(r"\{\w+\}", "", text)
            ):
                continue  # the same in German ("Information", "ft"), or no words at all
            parts = re.split(r"\{\w+\}", text)
            patterns.append(re.compile(".+?".join(re.escape(part) for part in parts)))
    assert len(patterns) > 150
    shown = js(
        site,
        session,
        """(() => {
      const shown = [document.title];
      for (const node of document.querySelectorAll('body *')) {
        if (!node.getClientRects().length || getComputedStyle(node).visibility === 'hidden') {
          continue;
        }
        for (const child of node.closest('[dir="auto"], #map text') ? [] : node.childNodes) {
          if (child.nodeType === Node.TEXT_NODE && child.textContent.trim()) {
            shown.push(child.textContent.trim());
          }
        }
        for (const name of ['aria-label', 'aria-roledescription', 'placeholder', 'title']) {
          if (node.getAttribute(name)) shown.push(node.getAttribute(name));
        }
      }
      return shown; })()""",
    )
    assert len(shown) > 100 and "Tauschen" in shown and any("Wohnung 301" in text for text in shown)
    left = sorted({text for text in shown for pattern in patterns if pattern.fullmatch(text)})
    assert left == []


def test_a_hong_kong_browser_gets_traditional_chinese(site):
    session = open_trip(site, "zh-HK,zh")
    controls = js(site, session, CONTROLS)
    units = js(site, session, UNITS)
    assert {
        field: controls[field]
        for field in ("html", "swap", "clear", "stepFree", "avoidStairs", "panel", "status")
    } == {
        "html": ["zh-Hant", "ltr"],
        "swap": "對調",
        "clear": "清除",
        "stepFree": "無階梯",
        "avoidStairs": "避開樓梯",
        "panel": ["樓層", "單位編號", "從這裡出發", "前往這裡", "加為停靠點"],
        "status": f"Building 1：4 個樓層，{units} 個單位。",  # noqa: RUF001
    }
    names = check_names(site, session, "zh-Hant", "metric")
    assert names["summary"].endswith(" · 步行") and " 公尺 · " in names["summary"]
    check_requests(site, session, "zh-Hant")
    assert problems(site, session) == []


def test_lang_in_the_link_wins_and_stays_in_it(site):
    """`?lang=de` in an English browser: a German page asking in German, and the link
    keeps it as the view changes; a language the viewer has no words for gives way to
    the browser's."""
    session = open_trip(site, query="lang=de&")
    assert js(site, session, "navigator.language") == "en-US"
    controls = js(site, session, CONTROLS)
    assert (controls["html"], controls["swap"], controls["stepFree"]) == (
        ["de", "ltr"],
        "Tauschen",
        "Stufenlos",
    )
    check_names(site, session, "de", "imperial")  # feet: the browser's region is the US
    check_requests(site, session, "de")
    js(site, session, "window.floorgateViewer.app.selectUnit('b1-104')")
    search = js(site, session, "location.search")
    assert search.startswith("?lang=de&level=level-b1-f1&unit=b1-104&")
    unknown = open_viewer(site, "?lang=ja", language="fr-CA,fr")
    page = "[document.documentElement.lang, document.getElementById('swap-route').textContent]"
    assert js(site, unknown, page) == ["fr", "Inverser"]
    assert {tuple(item["lang"] or ()) for item in exchanges(site, unknown)} == {("fr",)}


def test_the_key_form_in_spanish(site):
    """Without a key, a Spanish browser is asked for one in Spanish, the form's `<code>`s
    in their places in the sentence."""
    session = open_viewer(site, key=False, language="es-ES,es")
    wait_for(site, session, "document.body && document.body.dataset.state === 'key'")
    form = js(
        site,
        session,
        """(() => { const p = document.querySelector('#key-form p');
        return [document.getElementById('key-title').textContent,
          document.querySelector('label[for=key-input]').textContent,
          document.querySelector('#key-form button').textContent,
          document.getElementById('status').textContent, p.textContent,
          Array.from(p.children, c => [c.tagName, c.textContent])]; })()""",
    )
    explained = table("es")["key.explain"].format(header="API-Key", file=".floorgate/demo-key")
    assert form == [
        "Clave de API",
        "Clave",
        "Abrir plano",
        "Se necesita una clave de API.",
        explained,
        [["CODE", "API-Key"], ["CODE", ".floorgate/demo-key"]],
    ]
    assert explained.startswith("El visor llama a la API GraphQL de este servidor con su clave.")
    assert problems(site, session) == []


def test_names_written_right_to_left_keep_their_direction(site):
    """An Arabic unit name in a left-to-right page: its panel heading, list row and map
    label each take the name's own direction, and the label reads on from its marker
    (anchored at its left end when placed right of it). The languages written right to
    left make the page so."""
    session = open_viewer(site, f"?unit={ARABIC_UNIT}", language="de-DE")
    wait_for(site, session, "document.getElementById('unit-panel').dataset.state === 'ready'")
    wait_for(site, session, LISTED)
    heading = js(
        site,
        session,
        """(() => { const h = document.getElementById('unit-name');
        return [h.textContent, h.dir, getComputedStyle(h).direction,
          getComputedStyle(document.body).direction]; })()""",
    )
    assert heading == [ARABIC_NAME, "auto", "rtl", "ltr"]
    row = js(
        site,
        session,
        f"""(() => {{ const s = document.querySelector(
          '#location-list li[data-location-id="{MAP}:{ARABIC_UNIT}"] .location-name span');
          return [s.textContent, s.dir, getComputedStyle(s).direction]; }})()""",
    )
    assert row == [ARABIC_NAME, "auto", "rtl"]
    placed = js(
        site,
        session,
        f"""(() => {{
      const app = window.floorgateViewer.app;
      const item = app.labels.items.get(app.view.level).find(i => i.unitId === '{ARABIC_UNIT}');
      item.shown = null;
      app.labels.show(item, {{mode: 'dot', dx: 9, dy: 0, anchor: 'start', dot: null}}, true);
      const text = item.text.getBoundingClientRect();
      const dot = item.dot.getBoundingClientRect();
      const other = app.labels.items.get(app.view.level).find(i => i.unitId && i.name
        && i.unitId !== '{ARABIC_UNIT}' && i.text.getAttribute('direction'));
      return [item.text.getAttribute('direction'), item.text.getAttribute('text-anchor'),
        text.left >= dot.left + dot.width / 2, text.width > 10, other || null]; }})()""",
    )
    assert placed == ["rtl", "end", True, True, None]
    directions = js(
        site,
        session,
        """import(new URL('i18n.js', document.querySelector('script[type=module]').src))
        .then(m => ['ar', 'he-IL', 'fa', 'ur', 'de', 'zh-Hant', 'en']
          .map(tag => m.directionOfLanguage(tag)))""",
    )
    assert directions == ["rtl", "rtl", "rtl", "rtl", "ltr", "ltr", "ltr"]
    assert problems(site, session) == []
