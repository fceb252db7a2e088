"""Directions in the visitor's language (issue 51): the same route of the demo asked in
German, Traditional Chinese (as `Accept-Language: zh-HK`), British English and nothing:
sentences in the language, lengths in metres outside the US unless `units` says, the
answer's `Content-Language`, and kept answers never crossing languages."""

from __future__ import annotations

from typing import Any

from resolvers.auth.permissions import ALL_FLAGS

TRIP = {"from": {"id": "map-b1:b1-301"}, "to": {"id": "loc-b1-f1-gym@map-b1"}}


async def route(demo: Any, query: str = "", data: dict | None = None, **headers: str) -> Any:
    response = await demo.client.post(
        f"/v1/maps/map-b1/route{query}",
        json={"data": data or TRIP},
        headers={**demo.headers(*ALL_FLAGS), **headers},
    )
    assert response.status_code == 200, response.text
    return response


async def test_the_steps_speak_the_language_asked(demo):
    plain = await route(demo)
    assert plain.headers["content-language"] == "en"
    assert plain.json()["route"]["steps"] == [
        "Start at 301",
        "Walk 22 ft, then turn left at 313",
        "Walk 106 ft, then turn right at Trash Room",
        "Walk 22 ft, then take the elevator down 2 floors to Floor 1",
        "Walk 22 ft, then turn left at 101",
        "Walk 86 ft, then arrive at Fitness Center on your right",
    ]
    german = await route(demo, "?lang=de")
    assert german.headers["content-language"] == "de"
    assert german.json()["route"]["steps"] == [
        "Bei 301 starten",
        "7 m gehen, dann bei 313 links abbiegen",
        "32 m gehen, dann bei Trash Room rechts abbiegen",
        "7 m gehen, dann den Aufzug 2 Etagen nach unten bis Floor 1 nehmen",
        "7 m gehen, dann bei 101 links abbiegen",
        "26 m gehen, dann Fitness Center auf der rechten Seite erreichen",
    ]
    chinese = await route(demo, **{"Accept-Language": "zh-HK, en;q=0.5"})
    assert chinese.headers["content-language"] == "zh-Hant"
    steps = chinese.json()["route"]["steps"]
    assert steps[0] == "從301出發"
    assert all("Walk" not in step and "ft" not in step for step in steps)
    british = await route(demo, **{"Accept-Language": "en-GB"})
    assert british.json()["route"]["steps"][1] == "Walk 7 m, then turn left at 313"
    # `units` still decides when it is given; the numbers stay in feet
    feet = await route(demo, "?lang=de", {**TRIP, "units": "imperial"})
    assert feet.json()["route"]["steps"][1] == "22 ft gehen, dann bei 313 links abbiegen"
    assert feet.json()["route"]["distance"] == plain.json()["route"]["distance"]


async def test_kept_answers_never_cross_languages(demo):
    first = await route(demo, "?lang=fr")
    again = await route(demo, "?lang=es")
    assert first.json()["route"]["steps"][0] != again.json()["route"]["steps"][0]
    assert (await route(demo, "?lang=fr")).content == first.content
