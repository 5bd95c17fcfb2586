"""What BibTeX and biblatex words mean in CSL: entry types, localisation keys,
language names (the tables of :mod:`.csl`'s mapping, after pandoc's BibTeX reader)."""

from __future__ import annotations

# BibTeX / biblatex entry type -> CSL type (pandoc's table; pubcli keeps
# `conference`, the BibTeX alias of `inproceedings`, and CSL 1.0.2's `software`).
CSL_TYPES: dict[str, str] = {
    "article": "article-journal", "inproceedings": "paper-conference",
    "conference": "paper-conference", "book": "book", "mvbook": "book",
    "inbook": "chapter", "incollection": "chapter", "bookinbook": "chapter",
    "suppbook": "chapter", "suppcollection": "chapter", "inreference": "entry-encyclopedia",
    "collection": "book", "mvcollection": "book", "proceedings": "book",
    "mvproceedings": "book", "reference": "book", "mvreference": "book",
    "booklet": "pamphlet", "manual": "book",
    "techreport": "report", "report": "report", "phdthesis": "thesis",
    "mastersthesis": "thesis", "thesis": "thesis", "unpublished": "manuscript",
    "online": "webpage", "electronic": "webpage", "www": "webpage", "software": "book",
    "dataset": "dataset", "data": "dataset", "patent": "patent",
    "periodical": "article-journal", "suppperiodical": "article-journal",
    "misc": "document", "artwork": "graphic", "image": "graphic", "audio": "song",
    "music": "song", "movie": "motion_picture", "video": "motion_picture",
    "letter": "personal_communication", "review": "review", "standard": "legislation",
    "legislation": "legislation", "jurisdiction": "legal_case", "legal": "treaty",
    "performance": "speech", "commentary": "book",
}
ARTICLE_LIKE = {"article", "periodical", "suppperiodical", "review"}
CHAPTER_LIKE = {"inbook", "incollection", "inproceedings", "conference", "inreference",
                 "bookinbook"}
SERIES_NUMBER = {"book", "collection", "proceedings", "reference", "mvbook", "mvcollection",
                  "mvproceedings", "mvreference", "bookinbook", "inbook", "incollection",
                  "inproceedings", "conference", "inreference", "suppbook", "suppcollection"}
# biblatex localisation keys found in `type` fields, in English
BIBSTRINGS = {"mathesis": "Master\u2019s thesis", "phdthesis": "PhD thesis",
              "candthesis": "Candidate thesis", "techreport": "technical report",
              "resreport": "research report", "software": "computer software",
              "datacd": "CD-ROM", "audiocd": "audio CD", "patent": "patent",
              "patentus": "U.S. patent", "manual": "manual", "patentde": "German patent",
              "patenteu": "European patent", "patentfr": "French patent",
              "patentuk": "British patent", "patreq": "patent request",
              "patreqde": "German patent request", "patreqeu": "European patent request",
              "patreqfr": "French patent request", "patrequk": "British patent request",
              "patrequs": "U.S. patent request"}
SERIES_STRINGS = {"newseries": "new series", "oldseries": "old series"}
# biblatex's country keys (a patent's location = {countryfr and countryde}), in English
COUNTRY_STRINGS = {"countryde": "Germany", "countryeu": "European Union",
                   "countryfr": "France", "countryuk": "United Kingdom",
                   "countryus": "United States"}
# babel / polyglossia language names (langid) -> IETF tags
LANGUAGES = {
    "english": "en-US", "american": "en-US", "usenglish": "en-US", "british": "en-GB",
    "ukenglish": "en-GB", "australian": "en-AU", "newzealand": "en-NZ",
    "canadian": "en-CA", "german": "de-DE", "ngerman": "de-DE", "austrian": "de-AT",
    "naustrian": "de-AT", "swissgerman": "de-CH", "nswissgerman": "de-CH",
    "french": "fr-FR", "francais": "fr-FR", "spanish": "es-ES", "italian": "it-IT",
    "dutch": "nl-NL", "portuguese": "pt-PT", "portuges": "pt-PT", "brazil": "pt-BR",
    "brazilian": "pt-BR", "russian": "ru-RU", "ukrainian": "uk-UA", "polish": "pl-PL",
    "czech": "cs-CZ", "slovak": "sk-SK", "swedish": "sv-SE", "danish": "da-DK",
    "norsk": "nb-NO", "norwegian": "nb-NO", "nynorsk": "nn-NO", "finnish": "fi-FI",
    "greek": "el-GR", "latin": "la", "catalan": "ca-AD", "croatian": "hr-HR",
    "hungarian": "hu-HU", "magyar": "hu-HU", "turkish": "tr-TR", "japanese": "ja-JP",
    "chinese": "zh-CN", "korean": "ko-KR", "hebrew": "he-IL", "arabic": "ar",
    "icelandic": "is-IS", "estonian": "et-EE", "latvian": "lv-LV", "lithuanian": "lt-LT",
    "romanian": "ro-RO", "slovene": "sl-SI", "slovenian": "sl-SI", "serbian": "sr-RS",
    "bulgarian": "bg-BG", "vietnamese": "vi-VN", "thai": "th-TH", "persian": "fa-IR",
}
BRITISH_VARIANTS = {"british": "en-GB", "uk": "en-GB", "american": "en-US", "us": "en-US",
                     "usmax": "en-US", "australian": "en-AU", "newzealand": "en-NZ"}
