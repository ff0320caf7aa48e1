"""``python -m lesson_hooks.pipeline [--zensical] [-f mkdocs.yml] [-d site] [--no-strict]``.

Builds the site (:mod:`lesson_hooks.pipeline`): with MkDocs, whose hooks run the
steps inside its build; with ``--zensical``, the steps run around Zensical.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mkdocs.exceptions import MkDocsException


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lesson_hooks.pipeline", description=__doc__)
    parser.add_argument("--zensical", action="store_true", help="build with Zensical")
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
    parser.add_argument("-d", "--site-dir", type=Path, help="where the site goes (default: site)")
    parser.add_argument("--no-strict", dest="strict", action="store_false")
    args = parser.parse_args(argv)
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # Material 9.8's end-of-life banner
    config_file = args.config_file.resolve()
    site_dir = (args.site_dir or config_file.parent / "site").resolve()
    if not args.zensical:
        from mkdocs.__main__ import cli

        command = ["build", "-f", str(config_file), "-d", str(site_dir)]
        return cli.main(command + (["--strict"] if args.strict else []), prog_name="mkdocs")
    from lesson_hooks.pipeline import outside

    try:
        outside.build(config_file, site_dir, strict=args.strict)
    except MkDocsException as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    print(f"Built the site with Zensical into {site_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
