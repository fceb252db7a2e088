"""How much a map wants to name a place (parsing/imdf/label_rank.py, issue 66 point 1):
given names of public places first, then units' numbers, then (only zoomed in) generated
names and places a visitor does not enter."""

from __future__ import annotations

import pytest

from parsing.imdf.label_rank import LabelRank, label_rank

GENERATED = ("svc:name", "generated")


@pytest.mark.parametrize(
    ("name", "tags", "rank"),
    [
        ("Atrium", {"imdf:category": "lobby"}, LabelRank.NAMED),
        ("Meeting Room", {"imdf:category": "room"}, LabelRank.NAMED),
        ("Café Nero", {}, LabelRank.NAMED),
        ("Unit 12A", {}, LabelRank.NAMED),  # a shop's own name, not a number alone
        ("212D", {"imdf:category": "room"}, LabelRank.CODE),
        ("G.03", {"imdf:category": "office"}, LabelRank.CODE),
        (" LL21 ", {}, LabelRank.CODE),
        ("Plant Room", {"imdf:category": "nonpublic"}, LabelRank.QUIET),
        ("Back office", {"imdf:category": "nonpublic.staff"}, LabelRank.QUIET),
        ("Restroom 2", {"imdf:category": "restroom", "svc:name": "generated"}, LabelRank.QUIET),
        ("洗手間 (女) 1", dict([GENERATED]), LabelRank.QUIET),
        ("Inaccessible space 124", {"imdf:category": "nonpublic"}, LabelRank.QUIET),
        ("Space 1", {}, LabelRank.QUIET),
        ("Unit 3", {"svc:type": "unit"}, LabelRank.QUIET),
        ("Restroom 2", {"imdf:category": "restroom"}, LabelRank.NAMED),  # a venue's own
    ],
)
def test_rank(name, tags, rank):
    assert label_rank(name, tags) is rank
