// Commands printed for people to paste (the start log's reverse poll, the CLI's --curl): quoted for a POSIX shell.

/** A word as the shell reads it: left bare when only safe characters, else single-quoted. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * curl's `--cert` argument for a certificate file: curl reads `file:password`, so a ':' in the path is escaped as
 * `\:` (a DATA_DIR of `:memory:` puts the PKI under `./:memory:/pki`), then the whole is quoted for the shell.
 */
export function curlCertArgument(file: string): string {
  return shellQuote(file.replace(/:/g, '\\:'));
}
