// The lab's code editor: CodeMirror 6 with Python. lesson_hooks/build/editor.py
// bundles this file and the npm packages it imports into one ES module in the
// built site (lesson_hooks/build/runtime.py names the path); nothing comes from a CDN.
//
// Colours are Material's code-block variables, so the editor looks like the
// page's code blocks and changes with the palette by itself; setDark() moves
// CodeMirror's own light/dark defaults along with it. Line numbers and comments
// use the lab's --lab-code-muted: Material's grey is just under 4.5:1 in light.
//
// Tab indents, as in any code editor. Escape, then Tab (or Shift+Tab), leaves
// the editor: CodeMirror's documented escape hatch, so keyboard users are never
// trapped; the page says so next to the editor.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { Compartment, EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";

// Token colours as Material's Pygments styles give them (its .highlight rules).
const highlight = HighlightStyle.define([
  {
    tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword],
    color: "var(--md-code-hl-keyword-color)",
  },
  { tag: [tags.operatorKeyword, tags.operator], color: "var(--md-code-hl-operator-color)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--md-code-hl-string-color)" },
  { tag: [tags.number, tags.integer, tags.float], color: "var(--md-code-hl-number-color)" },
  { tag: [tags.bool, tags.null, tags.self], color: "var(--md-code-hl-constant-color)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--lab-code-muted)" },
  {
    tag: [
      tags.function(tags.definition(tags.variableName)),
      tags.definition(tags.className),
      tags.className,
    ],
    color: "var(--md-code-hl-function-color)",
  },
  { tag: tags.meta, color: "var(--md-code-hl-keyword-color)" },
  {
    tag: [tags.punctuation, tags.paren, tags.squareBracket, tags.brace, tags.separator],
    color: "var(--md-code-hl-punctuation-color)",
  },
  { tag: tags.invalid, color: "var(--lab-incorrect)" },
]);

const theme = EditorView.theme({
  "&": {
    color: "var(--md-code-fg-color)",
    backgroundColor: "var(--md-code-bg-color)",
    fontSize: "0.85em",
    borderRadius: "0.1rem",
  },
  "&.cm-focused": {
    outline: "0.15rem solid var(--lab-accent)",
    outlineOffset: "0.1rem",
  },
  ".cm-scroller": {
    fontFamily: "var(--md-code-font-family)",
    lineHeight: "1.45",
  },
  ".cm-content": { caretColor: "var(--md-code-fg-color)", padding: "0.6em 0" },
  ".cm-line": { padding: "0 0.8em 0 0.6em" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--md-code-fg-color)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--lab-code-selection)" },
  ".cm-gutters": {
    color: "var(--lab-code-muted)",
    backgroundColor: "var(--md-code-bg-color)",
    borderRight: "0.05rem solid var(--md-default-fg-color--lightest)",
  },
  ".cm-lineNumbers .cm-gutterElement": { padding: "0 0.5em 0 0.8em" },
  "&.cm-focused .cm-matchingBracket": {
    backgroundColor: "transparent",
    outline: "0.05rem solid var(--md-default-fg-color--light)",
  },
});

/**
 * A Python editor in `parent`. `label` names it for assistive tech and
 * `describedBy` points at the page's note on the keyboard; `onChange(code)`
 * hears every edit.
 */
export function createEditor(parent, { doc, label, describedBy, dark = false, onChange }) {
  const scheme = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        python(),
        syntaxHighlighting(highlight),
        theme,
        scheme.of(EditorView.darkTheme.of(dark)),
        EditorState.tabSize.of(4),
        indentUnit.of("    "), // PEP 8; CodeMirror's default is two spaces
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({
          // Tabbable already (contenteditable); said outright so checkers see
          // the scrolling box holds something the keyboard can reach.
          tabindex: "0",
          "aria-label": label,
          ...(describedBy ? { "aria-describedby": describedBy } : {}),
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    get code() {
      return view.state.doc.toString();
    },
    /** Replace the whole text as one edit, which undo takes back. */
    setCode(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setDark(on) {
      view.dispatch({ effects: scheme.reconfigure(EditorView.darkTheme.of(on)) });
    },
    /** Select line `n` (1-based, clamped), scroll it into view and focus the editor. */
    goToLine(n) {
      const { doc: text } = view.state;
      const line = text.line(Math.min(Math.max(1, n), text.lines));
      view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
      view.focus();
    },
    focus() {
      view.focus();
    },
    destroy() {
      view.destroy();
    },
  };
}

/** The whole text of the editor around `element`, or null (the DOM holds only visible lines). */
export function editorText(element) {
  return EditorView.findFromDOM(element)?.state.doc.toString() ?? null;
}
