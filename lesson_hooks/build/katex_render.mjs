// Typeset formulas with the pinned KaTeX, once per build (lesson_hooks/katex.py).
//
// Usage: node katex_render.mjs KATEX_MODULE < formulas.json
// stdin: [{"tex": "...", "display": false}, ...]; stdout: one entry per
// formula, in order: {"html": "..."} or {"error": "KaTeX's message"}.
// throwOnError, so a formula KaTeX cannot read is an error rather than red
// text on the page; strict "error", so LaTeX KaTeX only tolerates (and would
// merely warn about) is one too. "htmlAndMathml" keeps the MathML that screen
// readers read beside the drawing.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [katexModule] = process.argv.slice(2);
const { default: katex } = await import(pathToFileURL(katexModule).href);
const formulas = JSON.parse(readFileSync(0, "utf8"));
const rendered = formulas.map(({ tex, display }) => {
  try {
    return {
      html: katex.renderToString(tex, {
        displayMode: display,
        output: "htmlAndMathml",
        throwOnError: true,
        strict: "error",
      }),
    };
  } catch (error) {
    return { error: String(error.message ?? error) };
  }
});
process.stdout.write(JSON.stringify(rendered));
