"""doi.org content negotiation: CSL JSON for any registered DOI (DataCite, mEDRA...,
and Crossref), asked with ``Accept: application/vnd.citationstyles.csl+json``."""

from __future__ import annotations

from pubcli.usecases.newentry import normalize_doi
from . import BadResponse, NotFoundOnline, crossref, mapping
from .http import Client
from .services import segment

CSL_JSON = "application/vnd.citationstyles.csl+json"


def lookup(client: Client, doi: str) -> mapping.Found:
    doi = normalize_doi(doi)  # what is not a DOI is never sent
    resp = client.get("doi", f"/{segment(doi)}", accept=CSL_JSON)
    if resp.status == 404:
        raise NotFoundOnline(f"the DOI {doi} is not registered (doi.org answered 404)")
    data = resp.json()
    if not isinstance(data, dict) or not (data.get("title") or data.get("DOI")):
        raise BadResponse(f"{resp.url}: not a CSL JSON item")
    return crossref.to_found(data, source="doi")
