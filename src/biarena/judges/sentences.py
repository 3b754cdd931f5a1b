"""Split an answer into sentences (English, Chinese and the other languages pysbd knows), line by line."""

import re
from functools import cache

import pysbd
from pysbd.languages import LANGUAGE_CODES

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_WORD = re.compile(r"\w")


@cache
def _segmenter(language: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=language, clean=False)


def sentence_language(text: str, language: str = "en") -> str:
    """The pysbd language to split `text` with: Chinese when it has CJK characters, else `language` when pysbd
    knows it, else English."""
    if _CJK.search(text):
        return "zh"
    return language if language in LANGUAGE_CODES else "en"


def split_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of an answer: each line (list markers dropped, Markdown headings and rules skipped) split by
    pysbd; fragments without a letter or digit are dropped."""
    out: list[str] = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw).strip()
        if not line or _HEADING.match(raw) or not _WORD.search(line):
            continue
        for sentence in _segmenter(sentence_language(line, language)).segment(line):
            sentence = sentence.strip()
            if _WORD.search(sentence):
                out.append(sentence)
    return out
