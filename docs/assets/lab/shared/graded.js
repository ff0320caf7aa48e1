// What the graded exercises (mapping.js, quiz.js) share: their spec, fetched
// once and again after a failure, and the announcement of a result.

/** A function returning the memoized spec JSON at `url`; a failed fetch is retried next time. */
export function specLoader(url, what) {
  let spec = null;
  return () => {
    spec ??= fetch(url).then((response) => {
      if (!response.ok)
        throw new Error(`the ${what} could not be downloaded (HTTP ${response.status})`);
      return response.json();
    });
    spec.catch(() => {
      spec = null;
    });
    return spec;
  };
}

/** Say `message` in the live `region`; a repeated message must still change the text to be spoken. */
export function announce(region, message) {
  region.textContent = region.textContent === message ? `${message}\u00a0` : message;
}
