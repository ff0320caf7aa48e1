// Typeset the page's math with the vendored KaTeX (lesson_hooks/build/katex.py).
//
// pymdownx.arithmatex leaves each formula as \( … \) or \[ … \] inside an
// element with class "arithmatex", readable as TeX without JavaScript. Only a
// page with such an element downloads KaTeX and its stylesheet. KaTeX keeps a
// MathML copy beside the drawing, so screen readers read the formula.
const KATEX = new URL("../vendor/katex/", import.meta.url);

let katex = null;

function load() {
  if (!katex) {
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = new URL("katex.min.css", KATEX).href;
    document.head.append(sheet);
    katex = import(new URL("katex.mjs", KATEX).href).then((module) => module.default);
  }
  return katex;
}

function strip(text, display) {
  const [open, close] = display ? ["\\[", "\\]"] : ["\\(", "\\)"];
  const tex = text.trim();
  return tex.startsWith(open) && tex.endsWith(close) ? tex.slice(2, -2) : tex;
}

// KaTeX (about 0.6 MB with its fonts) downloads only once math nears the
// viewport, so a reader who never scrolls to it never pays for it.
const NEAR_VIEWPORT = "600px 0px";

function whenNear(formulas) {
  return new Promise((resolve) => {
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          resolve();
        }
      },
      { rootMargin: NEAR_VIEWPORT },
    );
    for (const element of formulas) observer.observe(element);
  });
}

async function typeset(doc) {
  const formulas = [...doc.querySelectorAll(".arithmatex:not([data-math-done])")];
  if (formulas.length === 0) return;
  await whenNear(formulas);
  const { render } = await load();
  for (const element of formulas) {
    const display = element.tagName === "DIV";
    render(strip(element.textContent, display), element, {
      displayMode: display,
      throwOnError: false,
      output: "htmlAndMathml",
    });
    element.dataset.mathDone = "";
  }
}

const documents = globalThis.document$;
if (documents) documents.subscribe((doc) => typeset(doc));
else typeset(document);
