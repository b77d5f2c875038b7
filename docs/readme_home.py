"""mkdocs hook (mkdocs.yml): the README, the repository's front page, is also the site's home
page, index.md, its links to the guide's pages (docs/NAME.md) made relative to the site."""

from pathlib import Path

from mkdocs.structure.files import File

README = Path(__file__).resolve().parent.parent / "README.md"


def on_files(files, config):
    home = README.read_text().replace("](docs/", "](")
    files.append(File.generated(config, "index.md", content=home))
    return files
