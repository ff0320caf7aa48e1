// Glossary definitions reachable without a mouse.
//
// Material (content.tooltips) shows an abbreviation's definition while it is
// hovered or focused, but an <abbr> cannot take focus, so keyboard and touch
// readers would never see it. The first use of each term on a page becomes a
// tab stop (later uses would only add stops with the same text); a tap focuses
// it too, which shows the definition on a phone.
function mount(doc) {
  const seen = new Set();
  for (const abbr of doc.querySelectorAll(".md-content abbr[title]")) {
    const term = abbr.textContent.trim();
    if (seen.has(term)) continue;
    seen.add(term);
    abbr.tabIndex = 0;
  }
}

const documents = globalThis.document$;
if (documents) documents.subscribe(mount);
else mount(document);
