"""mkdocs hooks (mkdocs.yml): a page's link to a repository file outside docs/ (an example
script, the benchmarks' README) points at that file in the repository on the site, as it does
when the Markdown is read in the repository itself. A link to nothing is left alone, for
`mkdocs build --strict` to report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    docs = Path(config["docs_dir"]).resolve()
    repo = docs.parent
    base = (docs / page.file.src_path).parent
    blob = str(config["repo_url"]).rstrip("/") + "/blob/main/"

    def to_repository(link: re.Match[str]) -> str:
        opening, target, anchor, closing = link.groups()
        if "://" in target or target.startswith(("/", "mailto:")):
            return link.group(0)
        path = (base / target).resolve()
        if path.is_relative_to(docs) or not path.is_relative_to(repo) or not path.exists():
            return link.group(0)
        return f"{opening}{blob}{path.relative_to(repo).as_posix()}{anchor or ''}{closing}"

    return LINK.sub(to_repository, markdown)
