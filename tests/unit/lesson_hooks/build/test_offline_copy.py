"""The downloadable copy's inert modules are valid HTML data blocks that still name their file."""

from __future__ import annotations

from lesson_hooks.build.offline_copy import INERT_MODULE_TYPE, inert_scripts


def test_an_inert_module_names_its_file_in_data_src_not_src() -> None:
    page = f'<script src="assets/lab/labs.js" type="{INERT_MODULE_TYPE}"></script>'
    assert inert_scripts(page) == (
        f'<script type="{INERT_MODULE_TYPE}" data-src="assets/lab/labs.js"></script>'
    )


def test_other_scripts_are_left_alone() -> None:
    page = '<script src="assets/javascripts/bundle.js"></script><script type="module" src="a.js">'
    assert inert_scripts(page) == page
