"""Room codes typed with one slip (issue 66, point 7): on Apple's sample venue "LL1D" for
"LL21D" and "t12D" for "212D" found nothing, a typo that changes a code's digits being
refused as "unit 102" is refused for "Unit 101". A code (a word of letters and digits)
now forgives one missing, extra or swapped character, or a digit typed as a letter, never
one digit typed for another.

The venue is our own (Code Court, two levels, rooms named by codes as Apple's sample
and many offices name them, some a slip apart: "212D" and "213D", "LL21D" and "LL21A"),
imported through `import_venue` and searched through the app. Every such slip of every
code of four characters or more is asked, exhaustively."""

from __future__ import annotations

import string
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import quote

import httpx
import pytest
import pytest_asyncio

from tests.venues.imdf_venues import Venue, rect
from tests.venues.served import served_venue

pytestmark = pytest.mark.asyncio(loop_scope="session")

# level key -> ordinal, name, its rooms' codes west to east
LEVELS = {
    "LL": (-1, "Lower Level", ("LL21D", "LL21A", "LL20", "LL3", "LL22B")),
    "2": (2, "Level 2", ("212D", "213D", "210", "2B12", "220A", "2A")),
}
WIDTH = 5.0  # of a room, metres
RANK = 3  # a slip of a code finds it among the first three


def code_court() -> tuple[Venue, dict[str, str]]:
    """The venue and each room's unit id by code: a corridor per level, the rooms north
    of it, a door each."""
    venue = Venue("Code Court", id_prefix="code-court:")
    east = WIDTH * max(len(codes) for _, _, codes in LEVELS.values())
    outline = rect(0, 0, east, 10)
    venue.venue("Code Court", outline)
    units: dict[str, str] = {}
    for key, (ordinal, name, codes) in LEVELS.items():
        level = venue.level(key, ordinal, name, key, outline)
        venue.unit(f"{key}:corridor", level, "walkway", rect(0, 0, east, 3))
        for n, code in enumerate(codes):
            x = n * WIDTH
            units[code] = venue.unit(
                f"{key}:{code}", level, "room", rect(x, 3, x + WIDTH, 10), code
            )
            venue.opening(f"{key}:{code}", level, (x + 2, 3), (x + 3, 3))
    return venue, units


VENUE, UNITS = code_court()
CODES = [code for code in UNITS if len(code) >= 4]


def slips(code: str) -> dict[str, str]:
    """Every one-character slip of `code` that should still find it, by what it is: a
    character left out, a letter added, two neighbours swapped, a digit typed as a letter."""
    found: dict[str, str] = {}
    for at in range(len(code)):
        found.setdefault(code[:at] + code[at + 1 :], f"{code[at]!r} left out")
    for at in range(len(code) + 1):
        found.setdefault(code[:at] + "x" + code[at:], f"'x' added at {at}")
    for at in range(len(code) - 1):
        if code[at] != code[at + 1]:
            swapped = code[:at] + code[at + 1] + code[at] + code[at + 2 :]
            found.setdefault(swapped, f"{code[at : at + 2]!r} swapped")
    for at, char in enumerate(code):
        if char.isdigit():
            found.setdefault(code[:at] + "t" + code[at + 1 :], f"{char!r} typed as 't'")
    return {typed: how for typed, how in found.items() if typed != code}


def other_digits(code: str) -> list[str]:
    """`code` with one digit typed for another: another room, never a slip of this one."""
    return [
        code[:at] + other + code[at + 1 :]
        for at, char in enumerate(code)
        if char.isdigit()
        for other in string.digits
        if other != char
    ]


@dataclass
class Site:
    client: httpx.AsyncClient
    headers: dict[str, str]

    async def names(self, q: str) -> list[str]:
        """The names of the results of `q`, in order."""
        asset = VENUE.features["venue"][0]["id"]
        path = f"/v1/search?q={quote(q)}&asset={asset}&per-page=50"
        response = await self.client.get(path, headers=self.headers)
        assert response.status_code == 200, response.text
        return [hit["name"] for hit in response.json()["data"]]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def site(db_server, settings) -> AsyncIterator[Site]:
    async with served_venue(db_server, settings, VENUE.files()) as served:
        yield Site(served.client, served.headers("search"))


async def test_the_reported_slips_find_their_codes(site: Site):
    assert (await site.names("LL1D"))[:1] == ["LL21D"]
    assert (await site.names("t12D"))[:1] == ["212D"]
    # typed right: that room first, the one a letter away after it
    assert await site.names("LL21D") == ["LL21D", "LL21A"]
    assert await site.names("212") == ["212D", "2B12"]  # its beginning; a letter left out


@pytest.mark.parametrize("code", CODES)
async def test_every_slip_of_a_code_finds_it(site: Site, code: str):
    asked = slips(code)
    assert len(asked) > len(code)  # an 'x' added at each place, at least
    missed = {}
    for typed, how in asked.items():
        names = await site.names(typed)
        if code not in names[:RANK]:
            missed[typed] = (how, names[:5])
    assert missed == {}


@pytest.mark.parametrize("code", CODES)
async def test_one_digit_for_another_is_another_room(site: Site, code: str):
    for typed in other_digits(code):
        names = await site.names(typed)
        assert code not in names, (typed, names)
