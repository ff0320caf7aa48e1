// The print a page offers (issue 39): "Print worksheet" on a page whose labs
// show answers, "Print answer key" on the teacher's page. The button
// (overrides/main.html) names its print in data-lesson-print; while the
// browser prints, <html> carries it too, and the print stylesheets leave out
// what that print leaves out (a worksheet: every answer, explanation and
// verdict). The browser's own Print, without the button, prints everything.
const ROOT = document.documentElement;

addEventListener("afterprint", () => delete ROOT.dataset.lessonPrint);

function mount(doc) {
  const button = doc.querySelector("button[data-lesson-print]");
  if (!button) return;
  button.hidden = false;
  button.addEventListener("click", () => {
    ROOT.dataset.lessonPrint = button.dataset.lessonPrint;
    print();
  });
}

const documents = globalThis.document$;
if (documents) documents.subscribe(mount);
else mount(document);
