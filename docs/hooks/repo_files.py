"""MkDocs hook: the site holds the repository files that the pages link to outside docs/.

The pages link to the rest of the repository by relative paths (``../notebooks/01_....ipynb``,
``../benchmarks/journals/x.jsonl``, ``../agents/networks/index.json``), so that the links work
where the Markdown is read as it is, on GitHub or in an editor. MkDocs only knows the files under
``docs/``, and in strict mode a link that leaves it fails the build. This hook adds every such
target that exists to the site under its repository path (notebooks become pages through
mkdocs-jupyter, other files are copied as they are) and rewrites the links to point there, so the
built site works offline and strict mode still checks every link: a target that does not exist is
left alone, and MkDocs reports it.

It also tidies what mkdocstrings renders from the docstrings, which are written for ``help()``:
the Sphinx roles (``:class:``, ``:func:`` ...) are dropped, keeping the code they mark, and a
reStructuredText simple table (rows between ``=====  ===`` rules), which Markdown runs together
into one paragraph, is shown as the preformatted text it is.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
DOCS = "docs"
LINK = re.compile(r"(\]\()([^)\s]+)(\))")
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj|py:\w+):(<code>)~?")
RST_TABLE = re.compile(r"<p>(={3,}[ =]*\n[\s\S]*?\n={3,}[ =]*)</p>")
ALWAYS = ("notebooks/*.ipynb",)  # in the nav whether or not a page links them


class RepoFile(File):
    """A repository file outside docs/ copied into the site as it is (a Markdown file too)."""

    def is_documentation_page(self) -> bool:
        return self.src_uri.endswith(".ipynb")  # notebooks are pages (mkdocs-jupyter); the rest is static

    def is_static_page(self) -> bool:
        return False


def _outside_target(page_uri: str, target: str) -> str | None:
    """The repository path of a relative link from a page that leaves docs/, if that file exists."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target, re.I):
        return None
    path = target.split("#", 1)[0]
    if not path:
        return None
    inside = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), path))
    if not inside.startswith("../"):
        return None
    repo = posixpath.normpath(posixpath.join(DOCS, posixpath.dirname(page_uri), path))
    if repo.startswith("../") or repo.startswith(DOCS + "/") or not (ROOT / repo).is_file():
        return None
    return repo


def _linked_files(config) -> set[str]:
    docs = Path(config["docs_dir"])
    found = {str(p.relative_to(ROOT).as_posix()) for pattern in ALWAYS for p in ROOT.glob(pattern)}
    for md in docs.rglob("*.md"):
        page_uri = md.relative_to(docs).as_posix()
        for m in LINK.finditer(md.read_text(encoding="utf-8")):
            repo = _outside_target(page_uri, m.group(2))
            if repo:
                found.add(repo)
    return found


@event_priority(100)  # before mkdocs-jupyter turns the notebooks into its pages
def on_files(files: Files, config) -> Files:
    for repo in sorted(_linked_files(config)):
        if files.get_file_from_path(repo) is not None:
            raise ValueError(f"docs/{repo} and the repository's {repo} would be the same page of the site")
        files.append(RepoFile(repo, str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    page_uri = page.file.src_uri

    def rewrite(m: re.Match) -> str:
        repo = _outside_target(page_uri, m.group(2))
        if repo is None:
            return m.group(0)
        anchor = m.group(2)[len(m.group(2).split("#", 1)[0]):]
        return m.group(1) + posixpath.relpath(repo, posixpath.dirname(page_uri) or ".") + anchor + m.group(3)

    return LINK.sub(rewrite, markdown)


def on_page_content(html: str, page, config, files) -> str:
    return RST_TABLE.sub(r"<pre>\1</pre>", ROLE.sub(r"\1", html))
