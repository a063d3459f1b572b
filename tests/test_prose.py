"""The shared "is this prose?" test on real article text and on real page furniture."""

from __future__ import annotations

import json
import re

import pytest

from nonseq.text.prose import PROSE_MIN, is_prose, prose_score
from tests.shared_data import AEB

#: Furniture as it appears in real pages (the bundled demo's space.com pages and common patterns).
FURNITURE = {
    "related headlines and a bio": (
        "- NASA Europa Mission Could Potentially Spot Signs of Alien Life\n"
        "- Photos: Europa, Mysterious Icy Moon of Jupiter\n"
        "- Keck Observatory: Twin Telescopes on Mauna Kea\n"
        "Mike Wall's book about the search for alien life, \"Out There\" (Grand Central Publishing, "
        "2018; illustrated by Karl Tate), is out now. Follow him on Twitter @michaeldwall. Follow us "
        "on Twitter @Spacedotcom or Facebook."),
    "navigation": "Home\nWorld\nUS Politics\nBusiness\nTech\nScience\nHealth\nSport\nWeather",
    "share bar": "Share on Facebook\nShare on Twitter\nShare via Email\nSubscribe to our newsletter",
    "link list": ("Ticket details: http://www.daviscupfinals.com/\nHow to listen to The Tennis Podcast\n"
                  "Listen: http://po.st/TP_615\nDownload: http://po.st/TP_615Download"),
    "author bio": ("Email Tariq Malik at tmalik@space.com or follow him @tariqjmalik. Follow us on "
                   "Twitter @Spacedotcom and on Facebook."),
    "related block": ("Related Articles\nMilano Design Week 2018 | Seiko's The Flow of Time\n"
                      "Milano Design Week 2018 | Living Nature Explores Nature\nRead More"),
}
PROSE = {
    "news": ("NASA has added five companies to the pool of vendors that can bid on deliveries to the "
             "moon. The companies join nine others selected in November 2018.\nThey include lander "
             "concepts of all sizes, from SpaceX's Starship to smaller one-off probes."),
    "one fact": "The plant cost $4bn.",
    "a list inside prose": ("The newly selected five are:\n- Blue Origin, Kent, Washington, which "
                            "builds the lander\n- Ceres Robotics, based in Palo Alto, California"),
    "hard-wrapped": ("Photos which were released online and are making the rounds on social media,\n"
                     "show the actress looking stunning in new make-up photos taken\nlast week."),
    "a table": "| Driver | Points |\n| --- | --- |\n| Kevin Harvick | 5033 |\n| Denny Hamlin | 5027 |",
    "japanese": ("権利者の意思に基づくことなく、もとの商品を小分けにして販売するような行為は、"
                 "商標権侵害と判断される場合があります。"),
}


@pytest.mark.parametrize("name", sorted(FURNITURE))
def test_page_furniture_is_not_prose(name: str) -> None:
    assert not is_prose(FURNITURE[name])
    assert 0.0 <= prose_score(FURNITURE[name]) < PROSE_MIN


@pytest.mark.parametrize("name", sorted(PROSE))
def test_article_text_is_prose(name: str) -> None:
    assert is_prose(PROSE[name])
    assert PROSE_MIN <= prose_score(PROSE[name]) <= 1.0


def test_empty_text_is_not_prose() -> None:
    assert prose_score("") == 0.0 and not is_prose("  \n ")


def test_real_article_bodies_are_prose() -> None:
    """The ground-truth article text of the 181 real pages: paragraph blocks read as prose."""
    truth = json.loads((AEB / "ground-truth.json").read_text(encoding="utf-8"))
    blocks = []
    for item in truth.values():
        paragraphs = [p for p in item["articleBody"].split("\n") if p.strip()]
        text = "\n".join(paragraphs[:4])
        if len(re.findall(r"\w+", text)) >= 60:
            blocks.append(text)
    assert len(blocks) > 150
    kept = sum(is_prose(b) for b in blocks)
    assert kept / len(blocks) >= 0.95
