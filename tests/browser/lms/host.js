// A stand-in LMS for tests/browser/engines/test_scorm.py: scorm-again's SCORM 1.2
// runtime (the LMS side, pinned in package.json) as window.API, and a frame that
// launches the package, as Moodle's player does.
//
// The address says what the LMS already holds: ?cmi=<JSON for loadFromJSON>. The
// test reads self.lms: every API call in order with its answer, scorm-again's own
// log (it logs a call out of sequence as an error), and the values it received.
// self.lms.refuse names elements whose LMSSetValue this LMS answers "false".
(() => {
  const lms = { calls: [], log: [], refuse: [] };
  self.lms = lms;
  const API = new self.Scorm12API({
    autocommit: false,
    logLevel: 3, // warnings and errors
    onLogMessage: (level, message) => lms.log.push({ level, message }),
  });
  lms.api = API;
  const cmi = new URLSearchParams(location.search).get("cmi");
  if (cmi) API.loadFromJSON(JSON.parse(cmi));
  for (const name of ["LMSInitialize", "LMSFinish", "LMSGetValue", "LMSSetValue", "LMSCommit"]) {
    const call = API[name].bind(API);
    API[name] = (...args) => {
      const refused = name === "LMSSetValue" && lms.refuse.includes(args[0]);
      const answer = refused ? "false" : call(...args);
      lms.calls.push([name, ...args, answer]);
      return answer;
    };
  }
  self.API = API;
  const frame = document.createElement("iframe");
  frame.title = "Course";
  frame.style.cssText = "width: 100%; height: 90vh; border: 0";
  frame.src = "pkg/scorm.html";
  document.body.append(frame);
  /** Close the course as an LMS does when the student leaves it. */
  lms.close = () => {
    frame.src = "about:blank";
  };
})();
