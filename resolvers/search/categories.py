"""The kinds of place people ask for by a common word (issue 47): one table, read by the
index (which words find which places) and by nobody else.

A place's category is the value of the first of its tags that names a kind
(`CATEGORY_KEYS`: IMDF's category, then OpenStreetMap's keys): `restroom.female`,
`fitness_centre`. A row of `CATEGORIES` says which words find a kind: "restroom",
"toilets", "wc" and "washroom" all find IMDF's `restroom.*` units, OpenStreetMap's
`amenity=toilets` and a tag `svc:category=restroom`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# Tags whose value is a place's kind, first found first (IMDF, ours, OpenStreetMap).
CATEGORY_KEYS = (
    "imdf:category",
    "svc:category",
    "amenity",
    "shop",
    "leisure",
    "tourism",
    "office",
    "healthcare",
    "highway",
    "railway",
    "entrance",
)
NOT_A_KIND = frozenset({"yes", "no", "unspecified", ""})
# (tag key, category head) pairs whose rows are kept: each a pair of texts of at most 255
# characters (a tag's), so under 1 MiB when full.
CATEGORY_ROWS_KEPT = 1024


@dataclass(frozen=True)
class Category:
    """A kind of place: the words people type for it and the category values (the part
    before the first `.`) or tag keys (any value) that are it."""

    name: str
    words: tuple[str, ...]
    values: frozenset[str] = frozenset()
    keys: frozenset[str] = frozenset()


def _row(name: str, words: str, values: str = "", keys: str = "") -> Category:
    return Category(
        name,
        tuple(words.split(",")),
        frozenset(filter(None, values.split(","))),
        frozenset(filter(None, keys.split(","))),
    )


CATEGORIES: tuple[Category, ...] = (
    _row(
        "restroom",
        "restroom,restrooms,toilet,toilets,wc,washroom,washrooms,bathroom,bathrooms,"
        "lavatory,lavatories,loo,restroom female,restroom male",
        "restroom,toilets,toilet,wc,washroom,bathroom",
    ),
    _row("elevator", "elevator,elevators,lift,lifts", "elevator,lift"),
    _row("stairs", "stairs,stair,staircase,stairway,steps", "stairs,stair,staircase,steps"),
    _row("escalator", "escalator,escalators,moving stairs", "escalator"),
    _row("ramp", "ramp,ramps", "ramp"),
    _row("moving walkway", "moving walkway,travelator", "movingwalkway"),
    _row("entrance", "entrance,entrances,entry,way in,door", "entrance,entry,main", "entrance"),
    _row("exit", "exit,exits,way out,emergency exit", "exit,emergency_exit,emergency"),
    _row(
        "information",
        "information,info,help,help desk,reception,concierge",
        "information,info,reception,concierge,information_desk",
    ),
    _row("parking", "parking,car park,garage", "parking,parking_entrance,parking_space,garage"),
    _row(
        "food",
        "food,restaurant,restaurants,cafe,coffee,dining,eat,eatery,food court,snacks",
        "foodservice,restaurant,cafe,fast_food,food_court,food,bar,pub,ice_cream,coffee",
    ),
    _row("atm", "atm,cash,cash machine", "atm,bank"),
    _row("first aid", "first aid,medical,clinic,doctor", "firstaid,first_aid,clinic,doctors"),
    _row("shop", "shop,shops,store,stores,retail", "retail,shop", "shop"),
    _row("gym", "gym,fitness,fitness centre,fitness center", "fitness_centre,fitness,gym"),
    _row("pool", "pool,swimming pool,swimming", "swimming_pool,pool"),
    _row("mail", "mail,mailroom,post,parcels", "mailroom,post_office,post_box,mail"),
    _row(
        "waste",
        "trash,garbage,rubbish,recycling,waste",
        "waste_disposal,recycling,waste_basket",
    ),
)


def category_of(tags: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(tag key, value) of the first tag that names the place's kind, else None."""
    by_key = {key.lower(): value for key, value in tags}
    for key in CATEGORY_KEYS:
        value = (by_key.get(key) or "").strip()
        if value.lower() not in NOT_A_KIND:
            return key, value
    return None


def category_rows(key: str, value: str) -> tuple[Category, ...]:
    """The rows a place of this category belongs to."""
    return _rows(key.lower(), value.lower().partition(".")[0])


@functools.lru_cache(maxsize=CATEGORY_ROWS_KEPT)
def _rows(key: str, head: str) -> tuple[Category, ...]:
    """Each of an index's 10,000 places asked the table anew (a tenth of its build): the
    same few pairs of a tag key and a category head come again and again."""
    return tuple(row for row in CATEGORIES if head in row.values or key in row.keys)


CATEGORY_ROWS = {row.name: row for row in CATEGORIES}
VALUE_KIND = "value:"  # a place's kind named by its category value itself: `value:restroom.female`
