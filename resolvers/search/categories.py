"""The kinds of place people ask for by a common word (issues 47 and 66): one table, read
by the index (which words find which places) and by nobody else.

A place's category is the value of the first of its tags that names a kind
(`CATEGORY_KEYS`: IMDF's category, then OpenStreetMap's keys): `restroom.female`,
`fitness_centre`. A row of `CATEGORIES` says which words find a kind: "restroom",
"toilets", "wc" and "washroom" all find IMDF's `restroom.*` units, OpenStreetMap's
`amenity=toilets` and a tag `svc:category=restroom`; and so do the words of every other
language of directions (`routing.vocabulary.SUPPORTED`): 洗手間 and 廁所, 洗手间,
toilettes, Toilette, aseos. A visitor types the word of their own language, whatever
the language of the venue's names (issue 66, point 6: on a Hong Kong clinic 洗手間 and
升降機 found nothing).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from resolvers.search.text import phrase

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
    before the first `.`) or tag keys (any value) that are it. `languages` holds the
    words as written, by language (BCP 47 tag); `words`, every language's, English
    first, folded as names and queries are ("Entrée" is found by "entree"), each once."""

    name: str
    words: tuple[str, ...]
    languages: tuple[tuple[str, tuple[str, ...]], ...]
    values: frozenset[str] = frozenset()
    keys: frozenset[str] = frozenset()


def _row(
    name: str, words: str, other: Mapping[str, str], values: str = "", keys: str = ""
) -> Category:
    """A row: its English words, then `other` languages' (tag -> words), comma-separated."""
    languages = tuple((tag, tuple(text.split(","))) for tag, text in {"en": words, **other}.items())
    every = (phrase(word) for _, written in languages for word in written)
    return Category(
        name,
        tuple(dict.fromkeys(every)),
        languages,
        frozenset(filter(None, values.split(","))),
        frozenset(filter(None, keys.split(","))),
    )


# Each row's words in English, then in Traditional and Simplified Chinese (Hong Kong's and
# Taiwan's usage both, the mainland's), French, German and Spanish: the words on the
# signs and the words people say.
CATEGORIES: tuple[Category, ...] = (
    _row(
        "restroom",
        "restroom,restrooms,toilet,toilets,wc,washroom,washrooms,bathroom,bathrooms,"
        "lavatory,lavatories,loo,restroom female,restroom male",
        {
            "zh-Hant": "洗手間,廁所,衛生間,化妝室,男廁,女廁",
            "zh-Hans": "洗手间,厕所,卫生间,男厕,女厕",
            "fr": "toilettes,sanitaires,wc",
            "de": "toilette,toiletten,wc,waschraum",
            "es": "baño,baños,aseo,aseos,servicios,sanitarios",
        },
        "restroom,toilets,toilet,wc,washroom,bathroom",
    ),
    _row(
        "elevator",
        "elevator,elevators,lift,lifts",
        {
            "zh-Hant": "升降機,電梯,升降梯",
            "zh-Hans": "电梯,升降机",
            "fr": "ascenseur,ascenseurs",
            "de": "aufzug,aufzüge,fahrstuhl,lift",
            "es": "ascensor,ascensores,elevador",
        },
        "elevator,lift",
    ),
    _row(
        "stairs",
        "stairs,stair,staircase,stairway,steps",
        {
            "zh-Hant": "樓梯,梯間",
            "zh-Hans": "楼梯",
            "fr": "escalier,escaliers",
            "de": "treppe,treppen,treppenhaus",
            "es": "escalera,escaleras",
        },
        "stairs,stair,staircase,steps",
    ),
    _row(
        "escalator",
        "escalator,escalators,moving stairs",
        {
            "zh-Hant": "扶手電梯,自動扶梯",
            "zh-Hans": "自动扶梯,扶梯",
            "fr": "escalator,escalier mécanique",
            "de": "rolltreppe,rolltreppen",
            "es": "escalera mecánica,escaleras mecánicas",
        },
        "escalator",
    ),
    _row(
        "ramp",
        "ramp,ramps",
        {"zh-Hant": "斜道,坡道", "zh-Hans": "坡道", "fr": "rampe", "de": "rampe", "es": "rampa"},
        "ramp",
    ),
    _row(
        "moving walkway",
        "moving walkway,travelator",
        {
            "zh-Hant": "自動行人道",
            "zh-Hans": "自动人行道",
            "fr": "tapis roulant,trottoir roulant",
            "de": "laufband,rollsteig",
            "es": "pasillo rodante",
        },
        "movingwalkway",
    ),
    _row(
        "entrance",
        "entrance,entrances,entry,way in,door",
        {
            "zh-Hant": "入口",
            "zh-Hans": "入口",
            "fr": "entrée,entrées",
            "de": "eingang,eingänge",
            "es": "entrada,entradas",
        },
        "entrance,entry,main",
        "entrance",
    ),
    _row(
        "exit",
        "exit,exits,way out,emergency exit",
        {
            "zh-Hant": "出口,緊急出口",
            "zh-Hans": "出口,紧急出口",
            "fr": "sortie,sorties,sortie de secours",
            "de": "ausgang,ausgänge,notausgang",
            "es": "salida,salidas,salida de emergencia",
        },
        "exit,emergency_exit,emergency,main",
    ),
    _row(
        "information",
        "information,info,help,help desk,reception,concierge",
        {
            "zh-Hant": "詢問處,服務台,問詢處,接待處",
            "zh-Hans": "问询处,服务台,咨询台,接待处",
            "fr": "accueil,renseignements,information",
            "de": "auskunft,empfang,information",
            "es": "información,recepción",
        },
        "information,info,reception,concierge,information_desk",
    ),
    _row(
        "parking",
        "parking,car park,garage",
        {
            "zh-Hant": "停車場",
            "zh-Hans": "停车场",
            "fr": "parking,stationnement",
            "de": "parkplatz,parkhaus,tiefgarage",
            "es": "aparcamiento,estacionamiento",
        },
        "parking,parking_entrance,parking_space,garage",
    ),
    _row(
        "food",
        "food,restaurant,restaurants,cafe,coffee,dining,eat,eatery,food court,snacks",
        {
            "zh-Hant": "餐廳,美食廣場,食肆,咖啡室",
            "zh-Hans": "餐厅,美食广场,咖啡厅",
            "fr": "restauration,restaurant,café",
            "de": "essen,imbiss,restaurant,café",
            "es": "comida,restaurante,restaurantes,cafetería",
        },
        "foodservice,restaurant,cafe,fast_food,food_court,food,bar,pub,ice_cream,coffee",
    ),
    _row(
        "atm",
        "atm,cash,cash machine",
        {
            "zh-Hant": "自動櫃員機,提款機",
            "zh-Hans": "自动取款机,取款机",
            "fr": "distributeur de billets,distributeur",
            "de": "geldautomat,bankautomat",
            "es": "cajero automático,cajero",
        },
        "atm,bank",
    ),
    _row(
        "first aid",
        "first aid,medical,clinic,doctor",
        {
            "zh-Hant": "急救,醫療室",
            "zh-Hans": "急救,医务室",
            "fr": "premiers secours,infirmerie",
            "de": "erste hilfe,sanitätsraum",
            "es": "primeros auxilios,enfermería",
        },
        "firstaid,first_aid,clinic,doctors",
    ),
    _row(
        "shop",
        "shop,shops,store,stores,retail",
        {
            "zh-Hant": "商店,店舖",
            "zh-Hans": "商店",
            "fr": "magasin,magasins,boutique,boutiques",
            "de": "geschäft,geschäfte,laden",
            "es": "tienda,tiendas",
        },
        "retail,shop",
        "shop",
    ),
    _row(
        "gym",
        "gym,fitness,fitness centre,fitness center",
        {
            "zh-Hant": "健身室,健身中心",
            "zh-Hans": "健身房,健身中心",
            "fr": "salle de sport",
            "de": "fitnessstudio,fitnessraum",
            "es": "gimnasio",
        },
        "fitness_centre,fitness,gym",
    ),
    _row(
        "pool",
        "pool,swimming pool,swimming",
        {
            "zh-Hant": "游泳池",
            "zh-Hans": "游泳池",
            "fr": "piscine",
            "de": "schwimmbad,schwimmbecken",
            "es": "piscina",
        },
        "swimming_pool,pool",
    ),
    _row(
        "mail",
        "mail,mailroom,post,parcels",
        {
            "zh-Hant": "郵件,收發室,郵局",
            "zh-Hans": "邮件,收发室,邮局",
            "fr": "courrier,colis",
            "de": "poststelle,pakete",
            "es": "correo,correos,paquetes",
        },
        "mailroom,post_office,post_box,mail",
    ),
    _row(
        "waste",
        "trash,garbage,rubbish,recycling,waste",
        {
            "zh-Hant": "垃圾,回收",
            "zh-Hans": "垃圾,回收",
            "fr": "poubelle,déchets,recyclage",
            "de": "müll,abfall",
            "es": "basura,reciclaje,residuos",
        },
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
