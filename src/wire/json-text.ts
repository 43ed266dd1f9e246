// Reading a body that may not be JSON: the journal, the conformance probe, the CLI and the signed client each
// show or judge whatever came, so a body that does not parse is an answer to report, not an error to throw.

/** JSON.parse that answers undefined for text that is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
