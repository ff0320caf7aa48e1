"""The simulation lab, declared in Markdown as a ```` ```lab-simulation ```` fence.

A page places the lab with a fence whose YAML body is optional::

    ```lab-simulation
    id: simulation            # optional; names the lab's element ids (lab-<id>-...)
    defaults:                 # optional; starting values, checked by lab.validate_params
      turns: 2
    ```

The form's fields, labels, defaults and limits all come from
:func:`lab.param_spec`, and the refusal messages from :func:`lab.validate_params`
itself, so the page and the Python that checks it cannot disagree. The build
also runs the experiment once with the lab's defaults and renders its recorded
episode: readers without JavaScript see a real transcript, and the page can link
to its steps. ``assets/lab/simulation.js`` enhances the markup (it re-renders
the transcript after each run with the same ids). A bad fence fails the build
with ``docs/<page>.md:<line>: ...``.

The lab also shows the reader's code: the real verifier and prior from
:func:`lab.user_code.original_source`, highlighted, with a version (a hash of
the code) that keys the reader's saved edits; ``assets/lab/code-panel.js`` turns
it into an editor.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from lab import (
    CLIMBING,
    ParamError,
    SimParams,
    param_spec,
    penalty_table,
    run_experiment,
    validate_params,
)
from lab.sim import METHODS
from lab.sim_task import HELPER_RESPONSES, MAIN_RESPONSES
from lab.user_code import PRIOR_NAME, REWARD_NAME, code_version, original_source
from lesson_hooks import fences as fence_blocks
from lesson_hooks.fences import NULL_TAG, SLUG, Fence, FenceError
from lesson_hooks.fences import find_fences as _find_fences

FENCE_INFO = "lab-simulation"
DEFAULT_ID = "simulation"
FENCE_KEYS = ("id", "defaults")
#: The lab's stylesheet in the built site.
STYLESHEET = "assets/lab/simulation.css"

#: What each method is called on the page (legend, tables, captions).
METHOD_LABELS = {
    "prompted": "Prompted collaboration",
    "learned": "Learned collaboration (MAGRPO)",
    "centralized": "Centralized control",
}
#: How the choices of a choice field read in the form.
CHOICE_TEXT = {"climbing": "Climbing game", "penalty": "Penalty game", "custom": "Custom table"}
#: The choices of the time limit on the reader's code, in seconds (see render_actions).
TIME_LIMITS = (2, 5, 10, 30)
DEFAULT_TIME_LIMIT = 5
#: The five labels the mapping exercise uses; the transcript must use them verbatim.
STEP_LABELS = ("Observation", "Policy", "Action", "Reward", "Environment transition")

# A value no field accepts; what the validator says about it becomes the page's message.
_SENTINEL = "\x00"


class SimulationFenceError(FenceError):
    """A bad ```lab-simulation fence; the message starts with ``path:line:``."""


@dataclass(frozen=True)
class SimulationLab:
    """One lab on a page: its id and the values its form starts with."""

    id: str
    params: SimParams
    path: str
    line: int

    @property
    def prefix(self) -> str:
        """The prefix of every element id inside the lab."""
        return f"lab-{self.id}"


# ------------------------------------------------------------------ reading


def find_fences(markdown: str, path: str) -> list[Fence]:
    """Every ```{FENCE_INFO} fence that starts a line, outside other fenced blocks."""
    return _find_fences(markdown, path, FENCE_INFO, SimulationFenceError)


def _scalar(node: yaml.Node) -> Any:
    """A YAML scalar as the safe loader reads it (numbers as numbers)."""
    return yaml.safe_load(yaml.serialize(node))


def parse_fence(fence: Fence, path: str) -> SimulationLab:
    """Validate one fence's YAML; raise SimulationFenceError naming ``path`` and the line."""

    def line_of(node: yaml.Node) -> int:
        return fence.line + 1 + node.start_mark.line

    def fail(line: int, problem: str) -> SimulationFenceError:
        return SimulationFenceError(path, line, problem)

    try:
        root = yaml.compose(fence.body, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = fence.line + 1 + mark.line if mark else fence.line
        raise fail(line, f"invalid YAML: {err.problem}.") from err
    if root is None or (isinstance(root, yaml.ScalarNode) and root.tag == NULL_TAG):
        return SimulationLab(DEFAULT_ID, validate_params(), path, fence.line)
    if not isinstance(root, yaml.MappingNode):
        raise fail(
            line_of(root), f"the lab's settings are a mapping with keys {_keys(FENCE_KEYS)}."
        )

    entries: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in root.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in FENCE_KEYS:
            close = difflib.get_close_matches(str(key), FENCE_KEYS, n=1)
            hint = f" Did you mean `{close[0]}`?" if close else ""
            raise fail(
                line_of(key_node),
                f"unknown key {key!r} in the lab's settings (expected {_keys(FENCE_KEYS)}).{hint}",
            )
        if key in entries:
            raise fail(line_of(key_node), f"`{key}` appears twice in the lab's settings.")
        entries[key] = (key_node, value_node)

    lab_id = DEFAULT_ID
    if "id" in entries:
        node = entries["id"][1]
        value = node.value if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, str) or not SLUG.match(value):
            raise fail(
                line_of(node),
                f"`id` {value!r} must be lowercase letters, digits and single hyphens "
                "(like simulation).",
            )
        lab_id = value

    defaults: dict[str, Any] = {}
    lines: dict[str, int] = {}
    if "defaults" in entries:
        key_node, node = entries["defaults"]
        if isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG:
            node = yaml.MappingNode("tag:yaml.org,2002:map", [])
        if not isinstance(node, yaml.MappingNode):
            raise fail(line_of(node), "`defaults` maps parameter names to starting values.")
        for name_node, value_node in node.value:
            name = str(_scalar(name_node))
            if name in defaults:
                raise fail(line_of(name_node), f"`defaults` sets {name!r} twice.")
            defaults[name] = _scalar(value_node)
            lines[name] = line_of(name_node)
    try:
        params = validate_params(defaults)
    except ParamError as err:
        name, reason = next(iter(err.fields.items()))
        raise fail(lines.get(name, fence.line), f"`defaults`: {name}: {reason}") from err
    return SimulationLab(lab_id, params, path, fence.line)


def parse_page(markdown: str, path: str) -> list[SimulationLab]:
    """Every simulation lab on one page, in order; ids must differ."""
    labs = [parse_fence(fence, path) for fence in find_fences(markdown, path)]
    seen: dict[str, SimulationLab] = {}
    for lab in labs:
        if lab.id in seen:
            raise SimulationFenceError(
                path,
                lab.line,
                f"a lab with id {lab.id!r} is already on this page (line {seen[lab.id].line}); "
                "give this one its own `id`.",
            )
        seen[lab.id] = lab
    return labs


def _keys(keys: Sequence[str]) -> str:
    return ", ".join(f"`{key}`" for key in keys)


# ---------------------------------------------------------------- messages


def refusal_templates() -> dict[str, str]:
    """Each field's refusal message from :func:`lab.validate_params`, with a placeholder.

    ``{got}`` stands for the refused value as the validator shows it; the custom
    table's ``{cells}`` stands for its list of refused cells.
    """
    shown = f'"{_SENTINEL}"'
    templates: dict[str, str] = {}
    for name, spec in param_spec().items():
        if spec["kind"] == "choice":
            continue  # a <select> offers only valid choices
        if name == "custom_table":
            data: dict[str, Any] = {
                "table": "custom",
                "custom_table": [[_SENTINEL, 0, 0], [0, 0, 0], [0, 0, 0]],
            }
            marker = f"row 1, column 1 ({shown})"
            placeholder = "{cells}"
        else:
            data = {name: _SENTINEL}
            if name == "penalty_k":
                data["table"] = "penalty"
            marker, placeholder = shown, "{got}"
        try:
            validate_params(data)
        except ParamError as err:
            message = err.fields.get(name, "")
        else:
            message = ""
        if message.count(marker) != 1:
            raise PluginError(
                f"lab.validate_params's message for {name!r} no longer names the refused "
                f"value the way {__name__} expects: {message!r}."
            )
        templates[name] = message.replace(marker, placeholder)
    return templates


# ---------------------------------------------------------------- numbers


def format_number(value: float) -> str:
    """A number as the page writes it: 11, -30, 7.5, 0.25 (Python's ``g``)."""
    return f"{value:g}"


def format_reward(value: float) -> str:
    """A mean reward: at most two decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def format_percent(p: float) -> str:
    """A probability as a percentage, never rounding a tiny one to 0 or a near-certain to 100."""
    v = p * 100
    if 0 < v < 0.05:
        return "<0.1%"
    if 99.95 <= v < 100:
        return ">99.9%"
    return f"{v:.1f}%"


def describe_params(params: Mapping[str, Any]) -> str:
    """The settings of a run in one phrase (simulation.js writes the same)."""
    table = params["table"]
    if table == "penalty":
        table_text = f"penalty game (k = {format_number(params['penalty_k'])})"
    elif table == "custom":
        table_text = "custom table"
    else:
        table_text = "climbing game"
    turns = params["turns"]
    return (
        f"{table_text}, {turns} turn{'s' if turns != 1 else ''}, "
        f"{params['updates']} updates, group size {params['group_size']}, "
        f"learning rate {format_number(params['learning_rate'])}, seed {params['seed']}"
    )


# ----------------------------------------------------------------- rendering


def _attrs(**attributes: Any) -> str:
    parts = []
    for name, value in attributes.items():
        if value is None or value is False:
            continue
        if isinstance(value, float):
            value = format_number(value)
        attr = name.rstrip("_").replace("_", "-")
        parts.append(attr if value is True else f'{attr}="{escape(str(value))}"')
    return " ".join(parts)


def _hint(spec: Mapping[str, Any]) -> str:
    if spec["kind"] == "integer":
        return f"Whole number, {spec['min']} to {spec['max']}."
    if spec["kind"] == "number" and "min_exclusive" in spec:
        return (
            f"Above {format_number(spec['min_exclusive'])}, at most {format_number(spec['max'])}."
        )
    if spec["kind"] == "number":
        return f"From {format_number(spec['min'])} to {format_number(spec['max'])}."
    return ""


def _field_value(params: SimParams, name: str) -> Any:
    return params.to_json()[name]


def _option_data(name: str, choice: Any) -> dict[str, Any]:
    """A named reward table's best cell, so the curve can mark it before Python answers."""
    if name != "table" or choice == "custom":
        return {}
    k = param_spec()["penalty_k"]["max"]  # the largest k gives the penalty game's best cell
    table = penalty_table(k) if choice == "penalty" else CLIMBING
    return {"data_lab_best": max(max(row) for row in table)}


def render_field(lab: SimulationLab, name: str, spec: Mapping[str, Any], message: str) -> str:
    """One labelled control with its hint and its (empty) error element."""
    field_id = f"{lab.prefix}-{name.replace('_', '-')}"
    error_id = f"{field_id}-error"
    hint_text = _hint(spec)
    hint_id = f"{field_id}-hint" if hint_text else None
    described = " ".join(i for i in (hint_id, error_id) if i)
    value = _field_value(lab.params, name)
    hidden = name == "penalty_k" and lab.params.table != "penalty"
    if spec["kind"] == "choice":
        options = "".join(
            f"<option {_attrs(value=c, selected=c == value, **_option_data(name, c))}>"
            f"{escape(CHOICE_TEXT.get(str(c), str(c)))}</option>"
            for c in spec["choices"]
        )
        numeric = all(isinstance(c, int | float) for c in spec["choices"])
        attrs = _attrs(
            id=field_id,
            name=name,
            data_lab_field=name,
            data_lab_kind="choice",
            data_lab_numeric=numeric,
            aria_describedby=described,
        )
        control = f"<select {attrs}>{options}</select>"
    else:
        kind = spec["kind"]
        inputmode = "numeric" if kind == "integer" else "decimal"
        if spec.get("min", 0) < 0:
            inputmode = None  # phone keypads for numeric/decimal may lack a minus sign
        control = (
            "<input "
            + _attrs(
                id=field_id,
                name=name,
                type="text",
                inputmode=inputmode,
                autocomplete="off",
                spellcheck="false",
                value=value,
                data_lab_field=name,
                data_lab_kind=kind,
                data_lab_min=spec.get("min"),
                data_lab_min_exclusive=spec.get("min_exclusive"),
                data_lab_max=spec.get("max"),
                data_lab_message=message,
                aria_describedby=described,
            )
            + ">"
        )
    hint = f'<p class="lab-sim__hint" id="{hint_id}">{escape(hint_text)}</p>' if hint_id else ""
    return (
        f'<div class="lab-sim__field" data-lab-field-box="{name}"{" hidden" if hidden else ""}>'
        f'<label for="{field_id}">{escape(spec["label"])}</label>{control}{hint}'
        f'<p class="lab-sim__error" id="{error_id}" data-lab-error="{name}"></p></div>'
    )


def render_table_field(lab: SimulationLab, spec: Mapping[str, Any], message: str) -> str:
    """The custom reward table: a 3x3 grid of cells, rows the helper's responses."""
    name = "custom_table"
    field_id = f"{lab.prefix}-custom-table"
    error_id = f"{field_id}-error"
    hint_id = f"{field_id}-hint"
    table = lab.params.reward_table
    lo, hi = format_number(spec["min"]), format_number(spec["max"])
    head = "".join(f'<th scope="col"><code>{escape(r.id)}</code></th>' for r in MAIN_RESPONSES)
    rows = []
    for i, helper in enumerate(HELPER_RESPONSES):
        cells = "".join(
            "<td><input "
            + _attrs(
                id=f"{field_id}-{i + 1}-{j + 1}",
                type="text",
                autocomplete="off",
                spellcheck="false",
                value=format_number(table[i][j]),
                data_lab_cell=f"{i},{j}",
                aria_label=f"Reward for helper {helper.id} with main {main.id}",
                aria_describedby=error_id,
            )
            + "></td>"
            for j, main in enumerate(MAIN_RESPONSES)
        )
        rows.append(f'<tr><th scope="row"><code>{escape(helper.id)}</code></th>{cells}</tr>')
    grid = _attrs(
        class_="lab-sim__grid",
        data_lab_field=name,
        data_lab_kind="table",
        data_lab_min=spec["min"],
        data_lab_max=spec["max"],
        data_lab_message=message,
    )
    hidden = " hidden" if lab.params.table != "custom" else ""
    return (
        f'<fieldset class="lab-sim__field lab-sim__field--table" data-lab-field-box="{name}" '
        f'aria-describedby="{hint_id} {error_id}"{hidden}>'
        f"<legend>{escape(spec['label'])}</legend>"
        f'<p class="lab-sim__hint" id="{hint_id}">Rows: the helper\'s response; columns: the '
        f"main agent's. Each cell is the shared reward, a number from {lo} to {hi}.</p>"
        f'<div class="lab-sim__scroll"><table {grid}><thead><tr>'
        f'<td class="lab-sim__corner">helper \\ main</td>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        f'<p class="lab-sim__error" id="{error_id}" data-lab-error="{name}"></p>'
        f"{render_key()}</fieldset>"
    )


def render_key() -> str:
    """What the response ids in a table's headers stand for."""
    groups = []
    for role, responses in (
        ("Helper (rows)", HELPER_RESPONSES),
        ("Main (columns)", MAIN_RESPONSES),
    ):
        items = "".join(
            f"<li><code>{escape(r.id)}</code>: {escape(r.summary)}</li>" for r in responses
        )
        groups.append(f'<div><p>{role}</p><ul class="lab-sim__key-list">{items}</ul></div>')
    return f'<div class="lab-sim__key">{"".join(groups)}</div>'


def render_form(lab: SimulationLab) -> str:
    """The controls, in :func:`lab.param_spec` order; Run (:func:`render_actions`) submits it."""
    templates = refusal_templates()
    fields = []
    for name, spec in param_spec().items():
        if spec["kind"] == "table":
            fields.append(render_table_field(lab, spec, templates[name]))
        else:
            fields.append(render_field(lab, name, spec, templates.get(name, "")))
    p = lab.prefix
    return (
        f'<form class="lab-sim__form" id="{p}-form" data-lab-form novalidate hidden '
        f'aria-label="Simulation settings">'
        f'<div class="lab-sim__fields">{"".join(fields)}</div></form>'
    )


def render_actions(lab: SimulationLab) -> str:
    """Run (the form's submit button, placed after the code), Stop and the time limit."""
    p = lab.prefix
    limit_id = f"{p}-time-limit"
    options = "".join(
        f"<option {_attrs(value=s, selected=s == DEFAULT_TIME_LIMIT)}>{s} s</option>"
        for s in TIME_LIMITS
    )
    return (
        f'<div class="lab-sim__actions" data-lab-actions hidden>'
        f'<button type="submit" form="{p}-form" class="md-button md-button--primary" '
        f'data-lab-action="run">Run</button>'
        f'<button type="button" class="md-button" data-lab-action="stop" disabled>Stop</button>'
        f'<div class="lab-sim__limit"><label for="{limit_id}">Time limit for your code</label>'
        f'<select id="{limit_id}" data-lab-time-limit aria-describedby="{limit_id}-hint">'
        f"{options}</select></div>"
        f'<p class="lab-sim__hint lab-sim__limit-hint" id="{limit_id}-hint">Counts only the time '
        "Python spends in your code, not the training, which can take longer; past it, the lab "
        "stops the run and restarts Python. Stop ends any run at once.</p></div>"
    )


def render_code(lab: SimulationLab) -> str:
    """The reader's code: the real verifier and prior, highlighted; code-panel.js makes it editable.

    Without JavaScript it stays a read-only code block.
    """
    p = lab.prefix
    source = original_source()
    block = highlight(source, PythonLexer(), HtmlFormatter(wrapcode=True))
    return (
        f'<div class="lab-code" data-lab-code data-lab-code-version="{code_version(source)}">'
        f'<h3 id="{p}-code-title">Your code: the verifier and the prior</h3>'
        f'<p class="lab-code__intro">The Python the lab runs, from <code>lab/sim_task.py</code>: '
        f"<code>{REWARD_NAME}</code> scores each joint output with the reward table chosen "
        f"above, and <code>{PRIOR_NAME}</code> sets each agent's policy before training.</p>"
        f'<p class="lab-code__intro" data-lab-code-howto hidden>Edit it, then press Run to train '
        "the agents with your version; Reset brings the original back. Your edits are saved "
        "in this browser.</p>"
        f'<div class="lab-code__editor" data-lab-code-editor>{block}</div>'
        f'<p class="lab-sim__hint lab-code__keys" id="{p}-code-keys" hidden>In the editor, Tab '
        "indents. To leave it from the keyboard, press Esc, then Tab.</p>"
        f'<div class="lab-code__tools" hidden>'
        f'<button type="button" class="md-button" data-lab-action="reset" disabled>'
        f"Reset the code</button>"
        f'<p class="lab-code__state" data-lab-code-state></p></div>'
        f'<div class="lab-code__error" data-lab-code-error hidden></div>'
        f"</div>"
    )


def render_legend() -> str:
    items = "".join(
        f'<li data-lab-series="{m}"><svg class="lab-sim__swatch" viewBox="0 0 32 8" '
        f'aria-hidden="true"><line x1="2" y1="4" x2="30" y2="4"/></svg>'
        f"<span>{escape(METHOD_LABELS[m])}</span></li>"
        for m in METHODS
    )
    return f'<ul class="lab-sim__legend" data-lab-legend>{items}</ul>'


_CHOSEN = ' class="is-chosen"'


def _pre(text: str, cls: str, of: str) -> str:
    """A transcript block with the id ``{of}-text``, ``of`` naming the step it shows."""
    # Material renames each block "__code_" + the closest id (its own first) and
    # copies a block by that name, so each needs an id of its own. It only adds
    # copy buttons to blocks there when a page loads, never to the transcript
    # simulation.js draws after a run, so no transcript block has one (no-copy).
    return f'<pre id="{of}-text" class="{cls} no-copy"><code>{escape(text.rstrip())}</code></pre>'


def render_episode(results: Mapping[str, Any], prefix: str) -> str:
    """The recorded episode, each step under the mapping exercise's label.

    ``simulation.js`` renders new episodes with exactly this markup and these ids.
    """
    episode = results["episode"]
    turns = episode["turns"]
    count = len(turns)
    parts = [
        '<p class="lab-sim__caption" data-lab-episode-caption>'
        f"Recorded from the learned agents after training "
        f"({escape(describe_params(results['params']))}). "
        f"Episode reward: {escape(format_reward(episode['episode_reward']))}.</p>"
    ]
    for step in turns:
        t = step["turn"]
        tid = f"{prefix}-t{t}"
        agents = []
        for agent in step["agents"]:
            role = agent["agent"]
            aid = f"{tid}-{role}"
            observation = agent["observation"]
            policy = agent["policy"]
            chosen = agent["action"]["response"]
            probs = "".join(
                f"<li{_CHOSEN if rid == chosen else ''}><code>{escape(rid)}</code> "
                f"{escape(format_percent(prob))}</li>"
                for rid, prob in zip(policy["responses"], policy["probabilities"], strict=True)
            )
            agents.append(
                '<div class="lab-sim__agent">'
                f'<h5 id="{aid}">{escape(role.capitalize())} agent</h5>'
                '<dl class="lab-sim__steps">'
                f'<dt id="{aid}-observation">{escape(observation["label"])}</dt>'
                f"<dd>{_pre(observation['text'], 'lab-sim__prompt', f'{aid}-observation')}</dd>"
                f'<dt id="{aid}-policy">{escape(policy["label"])}</dt>'
                f'<dd><p>{escape(policy["text"])}</p><ul class="lab-sim__probs">{probs}</ul></dd>'
                f'<dt id="{aid}-action">{escape(agent["action"]["label"])}</dt>'
                f"<dd><p><code>{escape(chosen)}</code>: {escape(agent['action']['summary'])}</p>"
                f"{_pre(agent['action']['text'], 'lab-sim__code', f'{aid}-action')}</dd>"
                "</dl></div>"
            )
        transition = step["transition"]
        following = "".join(
            f'<details class="lab-sim__next"><summary>Next prompt of the '
            f"{escape(nxt['agent'])} agent</summary>"
            f"{_pre(nxt['text'], 'lab-sim__prompt', tid + '-next-' + nxt['agent'])}"
            "</details>"
            for nxt in transition["next_observations"]
        )
        reward = step["reward"]
        parts.append(
            '<div class="lab-sim__turn">'
            f'<h4 id="{tid}">Turn {t} of {count}</h4>'
            f'<div class="lab-sim__agents">{"".join(agents)}</div>'
            '<dl class="lab-sim__steps lab-sim__steps--joint">'
            f'<dt id="{tid}-joint-output">{escape(step["joint_output"]["label"])}</dt>'
            f"<dd>{_pre(step['joint_output']['text'], 'lab-sim__code', f'{tid}-joint-output')}</dd>"
            f'<dt id="{tid}-reward">{escape(reward["label"])}</dt>'
            f'<dd><p><strong class="lab-sim__reward">{escape(format_number(reward["value"]))}'
            f"</strong> {escape(reward['text'])}</p></dd>"
            f'<dt id="{tid}-transition">{escape(transition["label"])}</dt>'
            f"<dd><p>{escape(transition['text'])}</p>{following}</dd>"
            "</dl></div>"
        )
    return "".join(parts)


def render_lab(lab: SimulationLab, stylesheet: str = STYLESHEET) -> str:
    """The whole lab: fallback note, form, status, results regions and the transcript.

    ``stylesheet`` is the lab's CSS as the page reaches it. It is linked from
    the lab itself, so only pages with a simulation lab download it.
    """
    p = lab.prefix
    results = run_experiment(lab.params)
    return f"""<div class="lab lab-sim" id="{p}" data-lab="simulation" data-lab-id="{lab.id}" \
data-lab-run="idle">
<link rel="stylesheet" href="{escape(stylesheet)}">
<div class="lab-sim__fallback" data-lab-fallback>
<p><strong>This lab needs JavaScript.</strong> It trains the agents in Python, inside your \
browser. Without JavaScript the controls and charts cannot appear; the explanations on this page \
describe what they show, and the episode below was recorded with the lab's default settings when \
the page was built.</p>
</div>
{render_form(lab)}
{render_code(lab)}
{render_actions(lab)}
<p class="lab-status" data-lab-status role="status"></p>
<p class="lab-sim__summary" data-lab-summary aria-live="polite"></p>
<div class="lab-sim__results" data-lab-results hidden>
<div class="lab-sim__block" data-lab-chart="curve">
<h3 id="{p}-curve-title">Learning curve</h3>
<p class="lab-sim__caption" data-lab-curve-caption></p>
{render_legend()}
<div class="lab-sim__plot" data-lab-plot></div>
<details class="lab-sim__data"><summary>The learning curve as a table</summary>
<div class="lab-sim__scroll" data-lab-curve-table tabindex="0" role="region" \
aria-label="Learning curve data"></div></details>
</div>
<div class="lab-sim__block" data-lab-chart="heatmap">
<h3 id="{p}-heatmap-title">Where each method settled</h3>
<p class="lab-sim__caption" data-lab-heatmap-caption></p>
<div class="lab-sim__heatmaps" data-lab-heatmaps></div>
{render_key()}
</div>
<div class="lab-sim__block" data-lab-chart="partners">
<h3 id="{p}-partners-title">Partner generalization</h3>
<p class="lab-sim__caption" data-lab-partners-caption></p>
<div class="lab-sim__scroll" data-lab-partners tabindex="0" role="region" \
aria-label="Partner scores"></div>
</div>
</div>
<div class="lab-sim__block lab-sim__episode" data-lab-transcript>
<h3 id="{p}-episode-title">One episode, step by step</h3>
<div data-lab-episode>{render_episode(results, p)}</div>
</div>
</div>"""


def replace_fences(markdown: str, path: str, blocks: list[str]) -> str:
    """Swap each fence on the page for its block of markup, in order."""
    return fence_blocks.replace_fences(markdown, find_fences(markdown, path), blocks)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if FENCE_INFO not in markdown:
        return markdown
    path = fence_blocks.display_path(page.file, config)
    labs = parse_page(markdown, path)
    stylesheet = get_relative_url(STYLESHEET, page.url)
    return replace_fences(markdown, path, [render_lab(lab, stylesheet) for lab in labs])
