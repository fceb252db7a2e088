"""An IMDF label's texts by language (issue 51): IMDF writes a name as a map of BCP 47
tags to texts (`{"en": "Lobby", "zh-Hant": "大堂"}`); real venues also write a plain
string, or keys of no language (`english`, `und`). Every text is kept under its
canonical tag, the default one first, and every departure is reported.
"""

from __future__ import annotations

from typing import Any

from parsing.imdf.read import MAX_LABEL_CHARS, Report
from parsing.language_tags import UNSAID_LANGUAGE, canonical_tag, parse_tag, suits

UNDETERMINED = "und"  # BCP 47's "language not said": a label key of no language


def label(value: Any, languages: tuple[str, ...], report: Report | None = None) -> str | None:
    """An IMDF label's text in its default language (`label_texts`), None without one."""
    return next(iter(label_texts(value, languages, report).values()), None)


def label_texts(
    value: Any, languages: tuple[str, ...], report: Report | None = None
) -> dict[str, str]:
    """Every language of a label (`{"en": "Lobby", "zh-hant": "大堂"}`) by canonical tag,
    the default first: the first of `languages` it has (else the best-suited tag: `en`
    finds `en-US`), else its first. A plain string, or the text of a key of no language
    (`english`, `und`) when none is in it, is in the venue's language (`languages[0]`);
    departures are reported. Texts are stripped (spaces alone are none) and cut."""
    venue_language = next(filter(None, map(name_language, languages)), UNSAID_LANGUAGE)
    remarks = report if report is not None else Report()  # a quiet read's go nowhere
    if isinstance(value, str):
        remarks.add("label is a plain string, not a language map", value[:40])
        value = {venue_language: value}
    known: dict[str, str] = {}
    unknown: list[tuple[str, str]] = []
    for key, text in value.items() if isinstance(value, dict) else ():
        if not isinstance(text, str) or not text.strip():
            continue
        tag = name_language(str(key))
        if tag is None:
            unknown.append((str(key), text.strip()))
        elif tag not in known:
            known[tag] = text.strip()
        else:
            remarks.add("label language given twice, the first kept", f"{key}: {text[:40]}")
    for number, (key, text) in enumerate(unknown):  # a name is never lost for its key
        read = number == 0 and venue_language not in known
        known |= {venue_language: text} if read else {}
        what = "read as the venue's language" if read else "skipped"
        remarks.add(f"label key that is no language tag, {what}", f"{key}: {text[:40]}")
    first = _chosen(known, languages)
    texts = {first: known[first], **known} if first is not None else {}
    for text in (text for text in texts.values() if len(text) > MAX_LABEL_CHARS):
        remarks.add(f"label longer than {MAX_LABEL_CHARS} characters, cut", text)
    return {tag: text[:MAX_LABEL_CHARS] for tag, text in texts.items()}


def name_language(text: str) -> str | None:
    """A label key's (or `--language`'s) language, a canonical tag; None for none, `und`."""
    return None if (tag := canonical_tag(text)) == UNDETERMINED else tag


def _chosen(texts: dict[str, str], languages: tuple[str, ...]) -> str | None:
    """The default of `texts` for `languages` (`label_texts`; equals: the first)."""
    for wanted in filter(None, map(parse_tag, languages)):
        if wanted.text in texts:
            return wanted.text
        scores = {tag: suits(wanted, given) for tag in texts if (given := parse_tag(tag))}
        fitting = [tag for tag, score in scores.items() if score is not None]
        if fitting:
            return max(fitting, key=lambda tag: scores[tag] or 0)
    return next(iter(texts), None)
