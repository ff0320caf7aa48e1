"""The ```lab-simulation fence: its form comes from lab.param_spec, bad fences name file:line.

The form is drawn from the spec alone (a field added to the spec appears with no
other change) and carries no validation rule: the page asks Python.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from mkdocs.exceptions import PluginError

from lab import CLIMBING, param_spec, run_experiment, validate_params
from lab.sim import params as sim_params_module
from lab.sim.render import (
    STEP_LABELS,
    describe_params,
    format_number,
    format_percent,
    method_labels,
)
from lesson_hooks.fences.scan import find_lab_fences
from lesson_hooks.fences.simulation import parse_page
from lesson_hooks.fences.simulation.lab import render_lab
from lesson_hooks.support.paths import ROOT
from tests.support.located import raises_located
from tests.support.markdown import convert

PAGE = ROOT / "docs" / "simulation.md"
PATH = "docs/page.md"
MARK = "# <-"  # marks the line an error must point at
SPEC = param_spec()


# ---------------------------------------------------------------- helpers


_VOID = {"input", "br", "hr", "img", "meta", "link", "col"}


@dataclass(eq=False)
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def iter(self):
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def all(self, **attrs: str | None) -> list[Node]:
        """Elements having each attribute (with that value, unless the value is None)."""
        return [
            n
            for n in self.iter()
            if all(k in n.attrs and (v is None or n.attrs[k] == v) for k, v in attrs.items())
        ]

    def one(self, **attrs: str | None) -> Node:
        (found,) = self.all(**attrs)
        return found

    def tags(self, tag: str) -> list[Node]:
        return [n for n in self.iter() if n.tag == tag]

    @property
    def text(self) -> str:
        parts = [c if isinstance(c, str) else c.text for c in self.children]
        return " ".join("".join(parts).split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        while len(self.stack) > 1:
            if self.stack.pop().tag == tag:
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_html(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def page(body: str = "") -> str:
    return f"# Title\n\nSome text.\n\n```lab-simulation\n{body}```\n\nMore text.\n"


def rendered(body: str = "") -> Node:
    (lab,) = parse_page(page(body), PATH)
    return parse_html(render_lab(lab))


def marked_line(markdown: str) -> int:
    (line,) = [i for i, text in enumerate(markdown.split("\n"), 1) if MARK in text]
    return line


def number(text: str) -> float:
    return float(text)


# ------------------------------------------------------------- the page


def test_the_simulation_page_has_one_lab_with_the_spec_defaults() -> None:
    (lab,) = parse_page(PAGE.read_text(encoding="utf-8"), "docs/simulation.md")
    assert lab.id == "simulation"
    assert lab.params == validate_params()


def test_the_block_becomes_the_lab() -> None:
    html = convert(page())
    assert "lab-simulation" not in html.split('<div class="lab lab-sim"')[0]
    assert html.startswith('<h1>Title</h1>\n<p>Some text.</p>\n<div class="lab lab-sim"')
    assert html.endswith("</div>\n<p>More text.</p>")


# ------------------------------------------------------- the form, from the spec


def test_every_field_of_the_spec_is_a_labelled_control_with_an_error_slot() -> None:
    html = rendered()
    form = html.one(**{"data-lab-form": None})
    boxes = [n.attrs["data-lab-field-box"] for n in form.all(**{"data-lab-field-box": None})]
    assert boxes == list(SPEC)
    for name, spec in SPEC.items():
        box = form.one(**{"data-lab-field-box": name})
        control = box.one(**{"data-lab-field": name})
        error = box.one(**{"data-lab-error": name})
        assert error.text == ""
        if spec["kind"] == "table":
            assert box.tags("legend")[0].text == spec["label"]
            described = box.attrs["aria-describedby"].split()
        else:
            (label,) = box.tags("label")
            assert label.text == spec["label"]
            assert label.attrs["for"] == control.attrs["id"]
            described = control.attrs["aria-describedby"].split()
        assert error.attrs["id"] in described
        for ref in described:
            assert html.all(id=ref), f"{name}: aria-describedby names a missing id {ref}"


def test_controls_start_at_the_spec_defaults() -> None:
    form = rendered().one(**{"data-lab-form": None})
    for name, spec in SPEC.items():
        control = form.one(**{"data-lab-field": name})
        if spec["kind"] == "choice":
            options = control.tags("option")
            assert [o.attrs["value"] for o in options] == [str(c) for c in spec["choices"]]
            # Each choice reads as the spec names it.
            names = spec.get("choice_labels", {})
            assert [o.text for o in options] == [str(names.get(c, c)) for c in spec["choices"]]
            (selected,) = [o for o in options if "selected" in o.attrs]
            assert selected.attrs["value"] == str(spec["default"])
            # The page sends numbers for numeric choices (turns), text otherwise.
            numeric = all(isinstance(c, int) for c in spec["choices"])
            assert ("data-lab-numeric" in control.attrs) == numeric, name
        elif spec["kind"] in ("integer", "number"):
            assert number(control.attrs["value"]) == spec["default"]
    # The custom table starts as the default (climbing) table, ready to edit.
    cells = form.all(**{"data-lab-cell": None})
    assert len(cells) == 9
    for cell in cells:
        i, j = map(int, cell.attrs["data-lab-cell"].split(","))
        assert number(cell.attrs["value"]) == CLIMBING[i][j]
        assert cell.attrs["aria-label"].startswith("Reward for helper ")


def test_controls_say_the_spec_limits_and_leave_checking_to_python() -> None:
    form = rendered().one(**{"data-lab-form": None})
    for node in form.iter():
        # No rule or message for the browser to apply: Python refuses, the page shows why.
        assert not {"data-lab-min", "data-lab-max", "data-lab-message"} & node.attrs.keys()
    for name, spec in SPEC.items():
        if spec["kind"] == "choice":
            continue
        control = form.one(**{"data-lab-field": name})
        assert control.attrs["data-lab-kind"] == spec["kind"]
        hint = form.one(id=f"lab-simulation-{name.replace('_', '-')}-hint").text
        for key in ("min", "max", "min_exclusive"):
            if key in spec:
                limit = spec[key]
                shown = str(limit) if isinstance(limit, int) else format_number(limit)
                assert shown in hint, (name, hint)


def test_fields_only_one_table_uses_start_hidden_unless_it_is_chosen() -> None:
    form = rendered().one(**{"data-lab-form": None})
    assert "hidden" in form.attrs  # shown by simulation.js; without JS there is nothing to run
    assert "hidden" in form.one(**{"data-lab-field-box": "penalty_k"}).attrs
    assert "hidden" in form.one(**{"data-lab-field-box": "custom_table"}).attrs
    assert "hidden" not in form.one(**{"data-lab-field-box": "updates"}).attrs
    # When a field is used is the spec's, as data for the page.
    for name, spec in SPEC.items():
        box = form.one(**{"data-lab-field-box": name})
        when = box.attrs.get("data-lab-used-when")
        assert (json.loads(when) if when else None) == spec.get("used_when"), name


def test_a_field_added_to_the_spec_appears_with_no_other_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = sim_params_module.PARAM_SPEC
    monkeypatch.setitem(
        spec,
        "extra_choice",
        {
            "label": "Extra choice",
            "kind": "choice",
            "default": "b",
            "choices": ["a", "b"],
            "choice_labels": {"a": "Option A", "b": "Option B"},
        },
    )
    monkeypatch.setitem(
        spec,
        "extra_number",
        {"label": "Extra number", "kind": "number", "default": 0.5, "min": 0.0, "max": 1.0},
    )
    form = rendered().one(**{"data-lab-form": None})
    select = form.one(**{"data-lab-field": "extra_choice"})
    assert [(o.text, "selected" in o.attrs) for o in select.tags("option")] == [
        ("Option A", False),
        ("Option B", True),
    ]
    box = form.one(**{"data-lab-field-box": "extra_number"})
    assert box.tags("label")[0].text == "Extra number"
    assert box.one(**{"data-lab-field": "extra_number"}).attrs["value"] == "0.5"
    assert box.one(id="lab-simulation-extra-number-hint").text == "From 0 to 1."


def test_a_kind_the_form_cannot_draw_fails_the_build_naming_the_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(
        sim_params_module.PARAM_SPEC, "odd", {"label": "Odd", "kind": "slider", "default": 0}
    )
    with pytest.raises(PluginError, match="field 'odd' has kind 'slider'"):
        rendered()


def test_fence_defaults_change_where_the_form_starts() -> None:
    body = "defaults:\n  table: penalty\n  penalty_k: -5\n  turns: 2\n  seed: 7\n"
    form = rendered(body).one(**{"data-lab-form": None})
    assert "hidden" not in form.one(**{"data-lab-field-box": "penalty_k"}).attrs
    assert form.one(**{"data-lab-field": "penalty_k"}).attrs["value"] == "-5"
    assert form.one(**{"data-lab-field": "seed"}).attrs["value"] == "7"
    turns = form.one(**{"data-lab-field": "turns"})
    assert [o.attrs["value"] for o in turns.tags("option") if "selected" in o.attrs] == ["2"]


def test_run_and_stop_buttons_stop_starts_disabled() -> None:
    html = rendered()
    run = html.one(**{"data-lab-action": "run"})
    stop = html.one(**{"data-lab-action": "stop"})
    assert (run.tag, run.attrs["type"], run.text) == ("button", "submit", "Run")
    assert (stop.attrs["type"], stop.text) == ("button", "Stop")
    assert "disabled" in stop.attrs and "disabled" not in run.attrs


def test_the_lab_reads_without_javascript() -> None:
    html = rendered()
    lab = html.one(**{"data-lab": "simulation"})
    assert lab.attrs["data-lab-run"] == "idle"
    assert "needs JavaScript" in lab.one(**{"data-lab-fallback": None}).text
    assert "hidden" in lab.one(**{"data-lab-results": None}).attrs
    assert lab.one(**{"data-lab-status": None}).attrs["role"] == "status"
    assert lab.one(**{"data-lab-summary": None}).attrs["aria-live"] == "polite"
    legend = [(n.attrs["data-lab-series"], n.text) for n in lab.all(**{"data-lab-series": None})]
    assert legend == list(method_labels(run_experiment()).items())


# ------------------------------------------------------------ the transcript


def test_the_recorded_episode_uses_the_mapping_exercises_labels() -> None:
    html = rendered("defaults:\n  turns: 2\n")
    episode = html.one(**{"data-lab-episode": None})
    labels = [dt.text for dt in episode.tags("dt")]
    per_agent = ["Observation", "Policy", "Action"]
    joint = ["Joint output", "Reward", "Environment transition"]
    assert labels == (per_agent * 2 + joint) * 2
    assert set(STEP_LABELS) <= set(labels)
    for step in ("helper-observation", "helper-policy", "main-action", "reward", "transition"):
        assert html.all(id=f"lab-simulation-t1-{step}"), step
    assert [h.text for h in episode.tags("h4")] == ["Turn 1 of 2", "Turn 2 of 2"]
    assert len(episode.tags("details")) == 2  # the next prompts of turn 1


def test_the_recorded_episode_is_the_default_run() -> None:
    results = run_experiment()
    episode = rendered().one(**{"data-lab-episode": None})
    caption = episode.one(**{"data-lab-episode-caption": None}).text
    assert describe_params(results["params"]) in caption
    (step,) = results["episode"]["turns"]
    reward = episode.one(**{"class": "lab-sim__reward"}).text
    assert reward == format_number(step["reward"]["value"])
    helper = step["agents"][0]
    probs = [li.text for li in episode.all(**{"class": "lab-sim__probs"})[0].tags("li")]
    expected = [
        f"{rid} {format_percent(p)}"
        for rid, p in zip(
            helper["policy"]["responses"], helper["policy"]["probabilities"], strict=True
        )
    ]
    assert probs == expected


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.0, "0.0%"), (1e-6, "<0.1%"), (0.049, "4.9%"), (0.9999, ">99.9%"), (1.0, "100.0%")],
)
def test_percentages_never_round_to_certainty(p: float, text: str) -> None:
    assert format_percent(p) == text


def test_describe_params_names_every_used_setting_as_the_form_does() -> None:
    params = validate_params({"table": "penalty", "penalty_k": -2.5, "turns": 2}).to_json()
    text = describe_params(params)
    assert text.startswith("reward table: Penalty game; penalty k: -2.5; turns: 2; discount: 1; ")
    assert (
        "updates: 200; group size: 32; learning rate: 0.2; optimizer: Plain gradient step; seed: 0"
        in text
    )
    # Two turns use CoMLRL's termination and the groups' losses; the threshold only with it.
    assert "early termination: None (every turn-1 group has turn-2 groups)" in text
    assert "groups' losses: Summed over the update's groups" in text
    assert "termination threshold" not in text
    assert "discount" not in describe_params(validate_params({}).to_json())  # one turn
    assert "custom table" not in text  # a setting this table does not use


# ----------------------------------------------------------------- bad fences


ERRORS = {
    "invalid yaml": (f"defaults: [1,  {MARK}\n", "invalid YAML"),
    "not a mapping": (f"- id  {MARK}\n", "the lab's settings are a mapping with keys `id`"),
    "unknown key": (
        f"default:  {MARK}\n  turns: 2\n",
        "unknown key 'default' in the lab's settings (expected `id`, `defaults`). "
        "Did you mean `defaults`?",
    ),
    "key twice": (f"id: one\nid: two  {MARK}\n", "`id` appears twice"),
    "id not a slug": (f"id: My Lab  {MARK}\n", "`id` 'My Lab' must be lowercase letters"),
    "defaults not a mapping": (f"defaults: 3  {MARK}\n", "`defaults` maps parameter names"),
    "unknown parameter": (
        f"defaults:\n  turn: 2  {MARK}\n",
        "`defaults`: turn: Unknown parameter; expected one of table,",
    ),
    "refused value": (
        f"defaults:\n  seed: 1\n  updates: 0  {MARK}\n",
        "`defaults`: updates: Updates must be a whole number from 1 to 5000; got 0.",
    ),
    "parameter twice": (
        f"defaults:\n  seed: 1\n  seed: 2  {MARK}\n",
        "`defaults` sets 'seed' twice.",
    ),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_a_bad_fence_fails_at_its_line(case: str) -> None:
    body, problem = ERRORS[case]
    markdown = page(body)
    raises_located(lambda: parse_page(markdown, PATH), PATH, marked_line(markdown), problem)


def test_an_unclosed_fence_fails_at_its_opening_line() -> None:
    markdown = "# Title\n\n```lab-simulation\nid: lost\n"
    raises_located(
        lambda: parse_page(markdown, PATH), PATH, 3, "the ```lab-simulation fence is never closed."
    )


def test_two_labs_on_a_page_need_their_own_ids() -> None:
    markdown = page() + "\n" + page().replace("# Title\n", "")
    first, second = [
        n for n, line in enumerate(markdown.split("\n"), 1) if line == "```lab-simulation"
    ]
    raises_located(
        lambda: parse_page(markdown, PATH),
        PATH,
        second,
        f"a lab with id 'simulation' is already on this page (line {first})",
    )
    assert len(parse_page(page() + "\n" + page("id: second\n"), PATH)) == 2


def test_fences_inside_other_code_blocks_are_left_alone() -> None:
    markdown = "````markdown\n```lab-simulation\n```\n````\n\n" + page()
    (fence,) = find_lab_fences(markdown, PATH)
    assert fence.line == markdown.split("\n").index("```lab-simulation", 4) + 1
