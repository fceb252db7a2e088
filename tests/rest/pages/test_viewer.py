"""The map viewer's page and files through the real app: headers (CSP with the framing
setting, nosniff, no referrer), the map id escaped, media types, nothing from another
host; and the check of FLOORGATE_VIEWER_FRAME_ANCESTORS."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import quote

import httpx
import pytest

from rest.app import create_app
from rest.pages.viewer import VIEWER_STATIC_DIR, VIEWER_STATIC_PREFIX, folder_digest
from storage.settings import Settings, SettingsError, frame_ancestors

# The files' origin is the public URL's (tests/conftest.py): named beside 'self', for a
# page opened at another address of the server.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' https://api.floorgate.test; base-uri 'none'; "
    "form-action 'none'"
)
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}


class _Refs(HTMLParser):
    """`src` of scripts, `href` of links, and every inline script and style."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.inline: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        wanted = {"script": "src", "link": "href"}.get(tag)
        if wanted and found.get(wanted):
            self.refs.append(found[wanted] or "")
        elif tag in ("script", "style"):
            self.inline.append(tag)
        self.inline += [name for name in found if name.startswith("on") or name == "style"]


def refs_of(page: str) -> _Refs:
    parser = _Refs()
    parser.feed(page)
    return parser


async def test_the_page_needs_no_key_and_has_a_strict_policy(client):
    response = await client.get("/viewer/maps/map-1")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-security-policy"] == f"{POLICY}; frame-ancestors 'none'"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-frame-options"] == "DENY"
    assert '<body data-map-id="map-1" data-state="loading">' in response.text
    assert '<h1 id="map-title" dir="auto">map-1</h1>' in response.text
    head = await client.head("/viewer/maps/map-1")
    assert (head.status_code, head.content) == (200, b"")
    assert (await client.post("/viewer/maps/map-1")).status_code == 405


async def test_the_map_id_is_escaped_wherever_it_appears(client):
    hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
    response = await client.get(f"/viewer/maps/{quote(hostile, safe='')}")
    assert response.status_code == 200
    escaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"
    assert response.text.count(escaped) == 3  # title, data-map-id, heading
    assert "<script>alert" not in response.text and "<img" not in response.text
    parsed = refs_of(response.text)
    assert parsed.inline == []  # no inline script, style or handler anywhere


async def test_every_file_of_the_page_is_ours_with_its_media_type(client):
    page = (await client.get("/viewer/maps/map-b1")).text
    refs = refs_of(page).refs
    release = f"{VIEWER_STATIC_PREFIX}/{folder_digest(VIEWER_STATIC_DIR)}"
    assert refs == ["/static/graphiql/favicon.svg", f"{release}/viewer.css", f"{release}/main.js"]
    files = sorted(
        path.relative_to(VIEWER_STATIC_DIR).as_posix()
        for path in VIEWER_STATIC_DIR.rglob("*")
        if path.is_file()
    )
    # The page's own modules, in wings by concern (docs/viewer.md, "Its files").
    assert files == [
        "api.js",
        "dom.js",
        "i18n.js",
        "i18n/de.json",
        "i18n/en.json",
        "i18n/es.json",
        "i18n/fr.json",
        "i18n/zh-Hans.json",
        "i18n/zh-Hant.json",
        "main.js",
        "map/closures.js",
        "map/drawing.js",
        "map/icons.js",
        "map/labels.js",
        "map/levels.js",
        "map/locations.js",
        "map/panzoom.js",
        "map/placement.js",
        "map/pole.js",
        "route/directions.js",
        "route/icons.js",
        "route/measure.js",
        "route/shaping.js",
        "route/steps.js",
        "route/stops.js",
        "route/vocabulary.json",
        "roving.js",
        "search/nearest.js",
        "search/places.js",
        "session.js",
        "units/attributes.js",
        "units/colours.js",
        "units/legend.js",
        "units/live.js",
        "units/unit-panel.js",
        "viewer.css",
    ]
    for ref in refs[1:] + [f"{release}/{name}" for name in files]:
        response = await client.get(ref)
        assert response.status_code == 200, ref
        assert (
            response.content == (VIEWER_STATIC_DIR / ref.removeprefix(f"{release}/")).read_bytes()
        )
        assert response.headers["content-type"].split(";")[0] == TYPES["." + ref.rsplit(".")[-1]]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    icon = await client.get(refs[0])
    assert (icon.status_code, icon.headers["cache-control"]) == (200, "public, max-age=86400")
    assert (await client.get("/viewer/maps/map-b1")).headers["cache-control"] == "no-cache"
    for missing in (
        f"{release}/nothing.js",
        f"{VIEWER_STATIC_PREFIX}/main.js",
        f"{VIEWER_STATIC_PREFIX}/0123456789abcdef/main.js",
        f"{release}/../viewer.py",
    ):
        answer = await client.get(missing, follow_redirects=True)
        assert (answer.status_code, answer.json()) == (404, {"message": "Not found"}), missing


def test_the_files_address_changes_with_any_file(tmp_path):
    """A release's files have an address of their own: a browser keeping them for a
    year never runs one release's module beside another's."""
    (tmp_path / "main.js").write_text('import { a } from "./a.js";\n')
    (tmp_path / "a.js").write_text("export const a = 1;\n")
    first = folder_digest(tmp_path)
    assert len(first) == 16 and first == folder_digest(tmp_path)
    (tmp_path / "a.js").write_text("export const a = 2;\n")
    second = folder_digest(tmp_path)
    (tmp_path / "a.js").rename(tmp_path / "b.js")
    third = folder_digest(tmp_path)
    assert len({first, second, third}) == 3


async def test_nothing_names_another_host(client):
    texts = [(await client.get("/viewer/maps/map-b1")).text]
    texts += [path.read_text(encoding="utf-8") for path in VIEWER_STATIC_DIR.rglob("*.*")]
    for text in texts:
        assert not re.search(r"https?://|//[a-z0-9-]+\.[a-z]", text, re.IGNORECASE)
        assert "@import" not in text and "url(" not in text
        assert not re.search(r"localStorage\s*[.\[]", text)  # the key: sessionStorage only
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text
        assert "eval(" not in text and "new Function" not in text


def test_imports_of_the_modules_are_relative_files_that_exist():
    modules = list(VIEWER_STATIC_DIR.rglob("*.js"))
    assert len(modules) == 28  # every .js of the file list above
    for path in modules:
        for target in re.findall(r'from "([^"]+)"', path.read_text(encoding="utf-8")):
            assert target.startswith(("./", "../")), (path, target)
            resolved = (path.parent / target).resolve()
            assert resolved.is_file() and resolved.is_relative_to(VIEWER_STATIC_DIR), (path, target)


def test_the_files_address_changes_with_a_file_in_a_wing(tmp_path):
    (tmp_path / "map").mkdir()
    (tmp_path / "map" / "a.js").write_text("export const a = 1;\n")
    first = folder_digest(tmp_path)
    (tmp_path / "map" / "a.js").write_text("export const a = 2;\n")
    assert folder_digest(tmp_path) != first


async def request_page(settings: Settings, store) -> httpx.Response:
    app = create_app(settings, store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        return await client.get("/viewer/maps/map-1")


async def test_framing_follows_the_setting(store, settings):
    allowed = Settings(
        **{
            **settings.__dict__,
            "viewer_frame_ancestors": ("https://example.com", "https://*.example.org"),
        }
    )
    response = await request_page(allowed, store)
    assert response.headers["content-security-policy"] == (
        f"{POLICY}; frame-ancestors https://example.com https://*.example.org"
    )
    assert "x-frame-options" not in response.headers  # it cannot name them: nothing to refuse
    same = Settings(**{**settings.__dict__, "viewer_frame_ancestors": ("'self'",)})
    response = await request_page(same, store)
    assert response.headers["content-security-policy"].endswith("; frame-ancestors 'self'")
    assert response.headers["x-frame-options"] == "SAMEORIGIN"


async def test_a_cdn_for_files_is_the_one_other_origin_the_page_may_fetch(store, settings):
    cdn = Settings(**{**settings.__dict__, "cdn_url": "https://cdn.example.net/files"})
    policy = (await request_page(cdn, store)).headers["content-security-policy"]
    assert "; connect-src 'self' https://cdn.example.net; " in policy
    assert policy.count("https://") == 1


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, ("'none'",)),
        ("", ("'none'",)),
        ("'none'", ("'none'",)),
        ("'SELF'", ("'self'",)),
        (
            "https://example.com https://*.example.org",
            ("https://example.com", "https://*.example.org"),
        ),
        ("'self'  https://a.example:8443/maps/", ("'self'", "https://a.example:8443/maps/")),
        ("https:", ("https:",)),
    ],
)
def test_the_setting_takes_sources(raw, expected):
    assert frame_ancestors(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "https://example.com; script-src *",
        "https://example.com\nX-Injected: 1",
        "https://example.com\r",
        "https://a.example, https://b.example",
        "'unsafe-inline'",
        "'none' https://example.com",
        '"https://example.com"',
        "https://example.com'",
        "javascript:alert(1)",
        "https://exa mple.com/<x>",
    ],
)
def test_the_setting_refuses_what_would_change_the_policy(raw):
    with pytest.raises(SettingsError):
        frame_ancestors(raw)


def test_the_setting_is_read_from_the_environment_and_checked(monkeypatch):
    monkeypatch.setenv("FLOORGATE_VIEWER_FRAME_ANCESTORS", "https://example.com")
    assert Settings.from_env().viewer_frame_ancestors == ("https://example.com",)
    monkeypatch.setenv("FLOORGATE_VIEWER_FRAME_ANCESTORS", "'self'; script-src *")
    with pytest.raises(SettingsError, match="FLOORGATE_VIEWER_FRAME_ANCESTORS"):
        Settings.from_env()
    with pytest.raises(SettingsError):
        Settings(viewer_frame_ancestors=("'self';",))
